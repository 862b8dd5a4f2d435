package matcher

import "fmt"
import "slices"
import "sort"
import "strconv"
import "strings"
import "unicode/utf8"

import "github.com/tetherhq/tether/engine"

// others returns the patterns of the clean readings as written (no ERROR,
// no MISSING) other than the one rule 1 of choose picked, in ladder order,
// leaving out a reading that compiles to the same pattern as one before it
// and one that takes a keyword of the picked reading for a name. A snippet
// that means a type as well as an expression (TypeScript's "$A | $B") or a
// field as well as a statement is matched in each of its readings.
func (rs *readings) others(pat *Pattern) ([]*Pattern, error) {
	if rs.picked == nil || len(pat.roots) != 1 {
		return nil, nil // statements in sequence read as statements
	}
	seen := map[string]bool{pat.String(): true}
	r0, err := rs.at(&rs.written, rs.sub, 0)
	if err != nil {
		return nil, err
	}
	expr := isExpression(rs.picked)
	text := isMarkupText(rs.picked)
	var out []*Pattern
	for i := range rs.spec.ladder {
		// an expression's other readings are types, attributes and arms
		// only ("$A | $B" is a union type too, C#'s "[$A]" an attribute);
		// a call read as a parameter, an enum variant or a function type
		// is no reading a search means, unless the call took that
		// reading's keyword for its name (Swift's "catch { $$$B }")
		onlyIfKeyword := expr && (!exprRungs[rs.spec.ladder[i].name] || isCall(rs.picked))
		r, err := rs.at(&rs.written, rs.sub, i)
		if err != nil {
			return nil, err
		}
		if braced := multiBeforeBrace.ReplaceAllString(rs.sub, "$1;$2"); r.tree.HasError() && braced != rs.sub {
			// with the ";" a "$$$" before a "}" needs ("catch ($E) { $$$B }")
			if r, err = rs.at(&rs.braced, braced, i); err != nil {
				return nil, err
			}
		}
		if onlyIfKeyword && !isBlock(r) && (r.tree.HasError() || len(r.nodes) != 1 || !demotesKeyword(r.nodes, r.start, rs.picked.nodes, rs.picked.start)) {
			continue
		}
		// an interface member and the ";" the body writes after it is the
		// member (TypeScript's "$P: number;" as a property signature)
		sep := false
		if r != rs.picked {
			if m := memberBeforeSeparator(r); m != nil {
				r, sep = m, true
			}
		}
		// a reading that is a run of nodes is part of its rung's code, not
		// a construct ("var _ $A = $B" in Go's type rung)
		if r == rs.picked || r.tree.HasError() || len(r.nodes) != 1 || takesKeyword(r0, r, true) ||
			demotesKeyword(rs.picked.nodes, rs.picked.start, r.nodes, r.start) {
			continue
		}
		// markup read as text gives way to a reading of it as markup
		// (HTML's class="$C" is an attribute, not a text node)
		replaces := text && r.nodes[0].ChildCount() > 1
		p := rs.build(r)
		if covered(pat, p) || !replaces && !sameLeaves(pat, p) && !(sep && sameLeavesBut(pat, p, ";")) {
			continue
		}
		if s := p.String(); !seen[s] {
			seen[s] = true
			if replaces || demotesKeyword(r.nodes, r.start, rs.picked.nodes, rs.picked.start) {
				// the picked reading took this one's keyword for a name
				// (Java's "catch (...) { ... }" as a constructor named
				// catch), or this one's markup for text: this one ranks
				// first, the picked one goes
				out = slices.Insert(out, rs.demoted, p)
				rs.demoted++
				continue
			}
			out = append(out, p)
		}
	}
	return out, nil
}

// isMarkupText reports whether r reads the whole pattern as one text leaf
// of a markup language (HTML's text between tags) holding an "=" or a "<":
// markup the first rung could not read as markup.
func isMarkupText(r *reading) bool {
	if len(r.nodes) != 1 || r.nodes[0].Kind() != "text" || r.nodes[0].ChildCount() != 0 {
		return false
	}
	return strings.ContainsAny(r.nodes[0].Text(), "=<")
}

// isExpression reports whether r reads the pattern as an expression: in
// the expression rung, or as the whole of an expression statement.
func isExpression(r *reading) bool {
	if len(r.nodes) != 1 {
		return r.rung.name == "expression"
	}
	n := r.nodes[0]
	switch n.Kind() {
	case "assignment", "assignment_expression", "ascription_expression":
		// Python's "$N=None" and "$N: int" are parameters too,
		// TypeScript's and C's "Red = $V" an enum member, and Scala's
		// "$N: Int" (a type ascription) a parameter
		return false
	}
	if r.rung.name == "expression" {
		return true
	}
	if strings.HasSuffix(n.Kind(), "_expression") {
		return true // Rust's tail expression is no expression statement
	}
	for p, ok := n.Parent(); ok && p.StartByte() == n.StartByte(); p, ok = p.Parent() {
		if p.Kind() == "expression_statement" {
			return true
		}
		if p.EndByte() > n.EndByte()+1 { // a ';' after the expression
			break
		}
	}
	return false
}

// sameLeaves reports whether two readings spell the same code: their
// leaves (tokens, named leaves, metavariables) written one after the other
// are the same text, however the grammar cut and named them. A reading that
// only groups the code differently (a local declaration and a field, a
// binary expression and a union type, "case $C <- $V:" as a switch case and
// a select's send) joins the pattern.
func sameLeaves(a, b *Pattern) bool {
	return leafText(a.roots, &strings.Builder{}) == leafText(b.roots, &strings.Builder{})
}

// sameLeavesBut reports whether a's leaves are b's and then tail: b is a's
// code without the separator tail that a reads as its own.
func sameLeavesBut(a, b *Pattern, tail string) bool {
	return leafText(a.roots, &strings.Builder{}) == leafText(b.roots, &strings.Builder{})+tail
}

// memberBeforeSeparator returns r's reading of its first node alone when r,
// in an interface member rung, reads the pattern as one member and the ";"
// that the interface's body, not the member, owns; nil otherwise.
func memberBeforeSeparator(r *reading) *reading {
	if r.rung.name != "interface member" || r.tree.HasError() || len(r.nodes) != 2 {
		return nil
	}
	m, semi := r.nodes[0], r.nodes[1]
	if semi.IsNamed() || semi.Kind() != ";" || m.Kind() != "property_signature" && m.Kind() != "method_signature" {
		return nil
	}
	c := *r
	c.nodes = r.nodes[:1]
	c.end = m.EndByte()
	c.mended, c.mendDone = nil, false
	return &c
}

// exprRungs are the rungs whose readings join an expression's.
var exprRungs = map[string]bool{"type": true, "attribute": true, "switch arm": true}

// isBlock reports whether r reads the pattern as one block of statements:
// braces an expression reads as an initializer ("{ $$$ }" in Java, C, C#)
// are a block too, as ast-grep reads them.
func isBlock(r *reading) bool {
	if r.tree.HasError() || len(r.nodes) != 1 {
		return false
	}
	k := r.nodes[0].Kind()
	return k == "block" || k == "compound_statement"
}

// isCall reports whether r reads the pattern as a call.
func isCall(r *reading) bool {
	return len(r.nodes) == 1 && strings.Contains(r.nodes[0].Kind(), "call")
}

func leafText(ns []*pnode, b *strings.Builder) string {
	for _, n := range ns {
		switch {
		case n.meta.kind != metaNone:
			b.WriteString(strings.Repeat("$", int(n.meta.kind)) + n.meta.name + " ")
		case n.leaf && n.named:
			b.WriteString(strings.Join(strings.Fields(n.text), ""))
		case n.leaf:
			b.WriteString(n.kind)
		default:
			leafText(n.kids, b)
		}
	}
	return b.String()
}

// covered reports whether the reading o is one the pattern already matches
// through the other kinds its root takes (Go's "case $X:" reads as a select
// clause too, which anyClause has folded in).
func covered(pat, o *Pattern) bool {
	if len(pat.roots) != 1 || len(o.roots) != 1 {
		return false
	}
	for _, k := range pat.roots[0].alts {
		if k == o.roots[0].kind {
			return true
		}
	}
	return false
}

// withOthers returns pat with its other readings (others), or, when one
// of them showed pat took a keyword for a name, that one with the rest.
func (rs *readings) withOthers(pat *Pattern) (*Pattern, error) {
	others, err := rs.others(pat)
	if err != nil || len(others) == 0 {
		return pat, err
	}
	if rs.demoted > 0 {
		pat, others = others[0], others[1:]
	}
	pat.union(others)
	return pat, nil
}

// union makes pat stand for its readings and the others: a file must hold
// the tokens every reading needs to be skipped (the prefilter keeps the
// tokens all readings share), and the bound names are all readings' names.
func (pat *Pattern) union(others []*Pattern) {
	if len(others) == 0 {
		return
	}
	pat.alts = others
	for _, o := range others {
		have := map[string]bool{}
		for _, t := range o.tokens {
			have[t] = true
		}
		kept := pat.tokens[:0]
		for _, t := range pat.tokens {
			if have[t] {
				kept = append(kept, t)
			}
		}
		pat.tokens = kept
		for name, multi := range o.varMulti {
			if _, ok := pat.varMulti[name]; !ok {
				pat.varMulti[name] = multi
				pat.vars = append(pat.vars, name)
			}
		}
	}
	sort.Strings(pat.vars)
}

// Readings returns the pattern's readings, the ranked first one (the
// pattern itself) then the others, each with its Context and String.
func (p *Pattern) Readings() []*Pattern {
	return append([]*Pattern{p}, p.alts...)
}

// Contexts returns the names of the rungs of all the pattern's readings,
// in rank order ("statement", "type").
func (p *Pattern) Contexts() []string {
	var out []string
	for _, r := range p.Readings() {
		out = append(out, r.contextName)
	}
	return out
}

// onlyMissingSemicolons reports whether every MISSING token in t is a ";":
// a statement written without its terminator ("return $X"). Any other
// missing token ("errors.New($M" lacks its ")") is a pattern cut short.
func onlyMissingSemicolons(t *engine.Tree) bool {
	ok := true
	t.Root().Walk(func(n engine.Node) bool {
		if !ok || !n.HasError() {
			return false
		}
		if n.IsMissing() && n.Kind() != ";" {
			ok = false
		}
		return ok
	})
	return ok
}

// standaloneMulti reports whether the pattern is one "$$$" metavariable
// alone, which stands for any run of nodes anywhere: ast-grep refuses it.
func standaloneMulti(src string) bool {
	mv, ok := parseMeta(src, '$')
	return ok && mv.kind == metaMulti
}

// breakAt says where the pattern broke in its best reading as written
// (the rung whose first ERROR or MISSING node comes furthest into the
// pattern, the earliest of those): the rung's name and the fault, as
// `missing ")" at 1:14, the end of the pattern, here: "errors.New($M‸"` or
// `cannot read "=>" at 2:3, here: "f(a ‸=> b)"`; "" when no reading has one.
func (rs *readings) breakAt() (string, string) {
	best, bestOff := -1, -1
	var bestNode engine.Node
	for i := range rs.spec.ladder {
		r, err := rs.at(&rs.written, rs.sub, i)
		if err != nil {
			return "", ""
		}
		bad, ok := firstFault(r.tree)
		if !ok {
			continue
		}
		// a fault in the scaffold after the pattern is at its end
		if off := min(int(bad.StartByte())-int(r.start), len(rs.sub)); off > bestOff {
			best, bestOff, bestNode = i, off, bad
		}
	}
	if best < 0 {
		return "", ""
	}
	r := rs.written[best]
	bad := bestNode
	off := max(bestOff, 0) // an ERROR node may take the scaffold's code before the pattern
	end := false
	if off >= len(rs.sub) {
		off, end = len(rs.sub), true
	}
	where := position(unsubstitute(rs.sub[:off], rs.spec.expando))
	if end {
		where += ", the end of the pattern"
	}
	here := ", here: " + rs.snippet(off)
	name := rs.spec.ladder[best].name
	if bad.IsMissing() {
		return name, fmt.Sprintf("missing %q at %s%s", bad.Kind(), where, here)
	}
	// what the ERROR node holds of the pattern (not of the scaffold)
	text := rs.sub[off:min(len(rs.sub), max(off, int(bad.EndByte())-int(r.start)))]
	text = unsubstitute(strings.TrimSpace(text), rs.spec.expando)
	if len(text) > 40 {
		text = text[:40] + "..."
	}
	if text == "" {
		return name, "cannot read what comes at " + where + here
	}
	return name, fmt.Sprintf("cannot read %q at %s%s", text, where, here)
}

// firstFault is the first ERROR or MISSING node of t, in source order.
func firstFault(t *engine.Tree) (engine.Node, bool) {
	var bad engine.Node
	found := false
	t.Root().Walk(func(n engine.Node) bool {
		if found || !n.HasError() && !n.IsMissing() {
			return false
		}
		if n.IsError() || n.IsMissing() {
			bad, found = n, true
			return false
		}
		return true
	})
	return bad, found
}

// snippet quotes the pattern around byte off, a "‸" where it broke, at
// most 24 bytes either side ("..." where it is cut).
func (rs *readings) snippet(off int) string {
	const side = 24
	from, to := max(0, off-side), min(len(rs.sub), off+side)
	for from > 0 && !utf8.RuneStart(rs.sub[from]) {
		from--
	}
	for to < len(rs.sub) && !utf8.RuneStart(rs.sub[to]) {
		to++
	}
	s := unsubstitute(rs.sub[from:off], rs.spec.expando) + "‸" + unsubstitute(rs.sub[off:to], rs.spec.expando)
	if from > 0 {
		s = "..." + s
	}
	if to < len(rs.sub) {
		s += "..."
	}
	return strconv.Quote(s)
}

// position is the 1-based line and byte column just after prefix.
func position(prefix string) string {
	line := strings.Count(prefix, "\n") + 1
	col := len(prefix) - strings.LastIndexByte(prefix, '\n')
	return fmt.Sprintf("%d:%d", line, col)
}
