package matcher

import "fmt"
import "strings"

import "github.com/tetherhq/tether/engine"

// PatternReading says how a pattern was read: the rung of the ladder that
// accepted it, its root nodes and its metavariables.
type PatternReading struct {
	// Context is the rung ("statement", "expression", "type", ...).
	Context string `json:"context"`
	// Roots are the kinds of the pattern's top nodes (several for a
	// sequence of statements); a metavariable root is shown as written.
	Roots []string `json:"roots"`
	// Metavariables are the binding metavariables as written ($X,
	// $$$ARGS), sorted.
	Metavariables []string `json:"metavariables,omitempty"`
	// Mended says the pattern did not parse as written: it was read with
	// the tokens it lacks written in, or a $$$ the grammar could not
	// place taken out and put back.
	Mended bool `json:"mended,omitempty"`
}

// Reading says how this reading of the pattern (one of Readings) was read.
func (p *Pattern) Reading() PatternReading {
	r := PatternReading{Context: p.contextName, Roots: []string{}, Mended: p.mended}
	for _, n := range p.roots {
		kind := n.kind
		if n.meta.kind != metaNone {
			kind = strings.Repeat("$", int(n.meta.kind)) + n.meta.name
		}
		r.Roots = append(r.Roots, kind)
	}
	for _, v := range p.vars {
		sigil := "$"
		if p.varMulti[v] {
			sigil = "$$$"
		}
		r.Metavariables = append(r.Metavariables, sigil+v)
	}
	return r
}

// RootKind is the kind of the reading's one root node; "" when the root is
// a metavariable, matches several kinds, or the pattern is a sequence.
func (p *Pattern) RootKind() string {
	if len(p.roots) != 1 || p.roots[0].meta.kind != metaNone || len(p.roots[0].alts) > 0 {
		return ""
	}
	return p.roots[0].kind
}

// Tree lists the tree this reading came from: the nodes that span the
// pattern, placed at the pattern's own lines and columns (the scaffold
// around it left out). A mended reading shows the tree it was read again
// as, with the tokens written in.
func (p *Pattern) Tree(opt SyntaxOptions) Syntax {
	opt.Point = p.pointAt
	syn := SyntaxOf(p.nodes, opt)
	for i := range syn.Nodes {
		syn.Nodes[i].Text = unsubstitute(syn.Nodes[i].Text, p.spec.expando)
	}
	return syn
}

// Hint is something about how a pattern was read that may explain why it
// matches nothing, with a pattern to try instead when there is one.
type Hint struct {
	// Kind names the case: "statement" (a trailing ";" makes it a whole
	// statement), "conversion" (read as a type conversion), "function_call"
	// (a call of a bare name, not a method), "method_call" (a method called
	// on one named receiver), "context" (read as a declaration, member or
	// type, not as code in a body), "mended" (did not parse as written).
	Kind    string `json:"kind"`
	Message string `json:"message"`
	// Pattern is a pattern to try instead, when there is one.
	Pattern string `json:"pattern,omitempty"`
}

// codeRungs are the rungs that read a pattern as code in a function body.
var codeRungs = map[string]bool{"statement": true, "expression": true}

// Hints says what about the pattern's first reading may explain that it
// matches nothing: how it was read where that is easily not what was
// meant. It looks at the pattern only, never at files.
func (p *Pattern) Hints() []Hint {
	var out []Hint
	if p.mended {
		out = append(out, Hint{Kind: "mended", Message: "the pattern does not parse as written: it was read with the tokens it lacks written in (or a $$$ taken out and put back); check its syntax"})
	}
	if !codeRungs[p.contextName] && len(p.roots) > 0 && p.spec.hasRung("statement") {
		out = append(out, Hint{Kind: "context", Message: fmt.Sprintf("read as %s (%s), not as code in a function body: where you meant an expression or a statement, fix its syntax, or write the code around it and pass selector", article(p.contextName), strings.Join(p.Reading().Roots, ", "))})
	}
	if len(p.nodes) != 1 {
		return out
	}
	n := p.nodes[0]
	src := strings.TrimSpace(p.src)
	switch kind := n.Kind(); {
	case strings.HasSuffix(src, ";") && strings.Contains(kind, "statement"):
		out = append(out, Hint{Kind: "statement", Message: fmt.Sprintf("the trailing ';' makes the pattern a whole statement (%s): it matches only where the code stands as a statement of its own, not inside an expression, a return or an argument; without the ';' it matches anywhere", kind),
			Pattern: strings.TrimSpace(strings.TrimSuffix(src, ";"))})
	case kind == "type_conversion_expression":
		out = append(out, Hint{Kind: "conversion", Message: "read as a type conversion (type_conversion_expression: a type, then its operand in parentheses), which matches conversions only, never a call_expression; where you meant a call, write the callee as a metavariable or a plain name, or match {\"kind\": \"call_expression\"} with a rule"})
	case isCallKind(kind):
		out = append(out, p.callHint(n)...)
	}
	return out
}

// isCallKind reports a call's node kind in the common grammars.
func isCallKind(kind string) bool {
	return kind == "call_expression" || kind == "call"
}

// receiverFields are the fields that hold the receiver of a member access
// (JavaScript's and Python's object, Go's operand, Rust's value).
var receiverFields = []string{"object", "operand", "value"}

// callHint says how a call pattern's callee limits it: a bare name matches
// no method call, a named receiver no other receiver.
func (p *Pattern) callHint(call engine.Node) []Hint {
	fn, ok := call.ChildByField("function")
	if !ok {
		return nil
	}
	name := unsubstitute(fn.Text(), p.spec.expando)
	if strings.HasPrefix(name, "$") {
		return nil
	}
	src := strings.TrimSpace(p.src)
	if fn.Kind() == "identifier" {
		return []Hint{{Kind: "function_call", Message: fmt.Sprintf("the pattern calls the bare name %s: it matches no method call such as x.%s(...); a receiver metavariable matches those", name, name),
			Pattern: "$_." + src}}
	}
	for _, f := range receiverFields {
		recv, ok := fn.ChildByField(f)
		if !ok || recv.Kind() != "identifier" {
			continue
		}
		text := unsubstitute(recv.Text(), p.spec.expando)
		if strings.HasPrefix(text, "$") || !strings.HasPrefix(src, text) {
			return nil
		}
		return []Hint{{Kind: "method_call", Message: fmt.Sprintf("the pattern calls a method on the receiver named %s only; a metavariable receiver matches it on anything", text),
			Pattern: "$_" + strings.TrimPrefix(src, text)}}
	}
	return nil
}

// hasRung reports whether the language's ladder has a rung of that name
// (a language of code has "statement"; a data or markup language not).
func (s *langSpec) hasRung(name string) bool {
	for _, r := range s.ladder {
		if r.name == name {
			return true
		}
	}
	return false
}
