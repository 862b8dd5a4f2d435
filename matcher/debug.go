package matcher

import "fmt"
import "strings"

import "github.com/tetherhq/tether/engine"

// DebugFormats are the formats Debug prints, as ast-grep's --debug-query
// names them: the compiled pattern, the tree's named nodes, all its nodes,
// an S-expression.
var DebugFormats = []string{"pattern", "ast", "cst", "sexp"}

// Debug describes the pattern's readings, in rank order, each with the rung
// it came from, in format (DebugFormats): "pattern" the compiled pattern
// (kinds, tokens, MetaVar $X), "ast" and "cst" the tree the reading came
// from (named nodes, or all nodes, with their fields and their
// (line,column) ranges in the pattern as it was read, 0-based, as ast-grep
// prints them), "sexp" that tree as an S-expression. A reading read again
// without its faults (mend) shows the tree it was built from: the token
// written in shows there, not in the pattern.
func (p *Pattern) Debug(format string) (string, error) {
	titles := map[string]string{"pattern": "Pattern", "ast": "AST", "cst": "CST", "sexp": "Sexp"}
	title, ok := titles[format]
	if !ok {
		return "", fmt.Errorf("matcher: debug format %q: give one of %s", format, strings.Join(DebugFormats, ", "))
	}
	var b strings.Builder
	rs := p.Readings()
	fmt.Fprintf(&b, "Debug %s:\n", title)
	for i, r := range rs {
		fmt.Fprintf(&b, "reading %d of %d, %s:\n", i+1, len(rs), r.contextName)
		switch format {
		case "pattern":
			for _, n := range r.roots {
				n.debug(&b, 1)
			}
		case "sexp":
			for _, n := range r.nodes {
				fmt.Fprintf(&b, "  %s\n", n.String())
			}
		default:
			r.debugTree(&b, format == "cst")
		}
	}
	return b.String(), nil
}

// debug writes n and its kids, one a line, indented by depth.
func (n *pnode) debug(b *strings.Builder, depth int) {
	ind := strings.Repeat("  ", depth)
	switch {
	case n.meta.kind != metaNone:
		name := n.meta.name
		if name == "" && n.meta.kind != metaMulti {
			name = "_"
		}
		fmt.Fprintf(b, "%sMetaVar %s%s\n", ind, strings.Repeat("$", int(n.meta.kind)), name)
		return
	case n.leaf && n.named:
		fmt.Fprintf(b, "%s%s %s\n", ind, n.kind, n.text)
		return
	case n.leaf:
		fmt.Fprintf(b, "%s%s\n", ind, n.text)
		return
	}
	kind := n.kind
	if len(n.alts) > 0 {
		kind += " (or " + strings.Join(n.alts, ", ") + ")"
	}
	fmt.Fprintf(b, "%s%s\n", ind, kind)
	for _, k := range n.kids {
		k.debug(b, depth+1)
	}
}

// debugTree writes the reading's tree (Tree), named nodes only unless
// all, with fields and ranges relative to the pattern's start.
func (p *Pattern) debugTree(b *strings.Builder, all bool) {
	for _, n := range p.Tree(SyntaxOptions{All: all}).Nodes {
		field := ""
		if n.Field != "" {
			field = n.Field + ": "
		}
		kind := n.Kind
		if n.Missing {
			kind = "MISSING " + kind
		}
		fmt.Fprintf(b, "%s%s%s (%d,%d)-(%d,%d)\n", strings.Repeat("  ", n.Depth+1), field, kind, n.Start.Row, n.Start.Column, n.End.Row, n.End.Column)
	}
}

// pointAt places off in the pattern as written, zero-based from its start.
func (p *Pattern) pointAt(off uint32) engine.Point {
	if len(p.nodes) == 0 || off < p.base {
		return engine.Point{}
	}
	// the pattern as written: "$X", not the "µX" some grammars read
	src := unsubstitute(string(p.nodes[0].Tree().Source()[p.base:off]), p.spec.expando)
	line := strings.Count(src, "\n")
	col := len(src) - (strings.LastIndexByte(src, '\n') + 1)
	return engine.Point{Row: uint32(line), Column: uint32(col)}
}
