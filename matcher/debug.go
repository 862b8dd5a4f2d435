package matcher

import (
	"fmt"
	"strings"

	"github.com/tetherhq/tether/engine"
)

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
			for _, n := range r.nodes {
				r.debugTree(&b, n, "", 1, format == "cst")
			}
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

// debugTree writes the tree under n, named nodes only unless all, with
// fields and ranges relative to the pattern's start.
func (p *Pattern) debugTree(b *strings.Builder, n engine.Node, field string, depth int, all bool) {
	if !all && !n.IsNamed() {
		return
	}
	if field != "" {
		field += ": "
	}
	kind := n.Kind()
	if n.IsMissing() {
		kind = "MISSING " + kind
	}
	fmt.Fprintf(b, "%s%s%s %s-%s\n", strings.Repeat("  ", depth), field, kind, p.point(n.StartByte()), p.point(n.EndByte()))
	for c, ok := n.FirstChild(); ok; c, ok = c.NextSibling() {
		p.debugTree(b, c, c.Field(), depth+1, all)
	}
}

// point is off as "(line,column)" from the pattern's start, 0-based.
func (p *Pattern) point(off uint32) string {
	if len(p.nodes) == 0 || off < p.base {
		return "(0,0)"
	}
	// the pattern as written: "$X", not the "µX" some grammars read
	src := unsubstitute(string(p.nodes[0].Tree().Source()[p.base:off]), p.spec.expando)
	line := strings.Count(src, "\n")
	col := len(src) - (strings.LastIndexByte(src, '\n') + 1)
	return fmt.Sprintf("(%d,%d)", line, col)
}
