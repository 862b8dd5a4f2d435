package matcher

import "encoding/json"
import "fmt"
import "io"
import "strings"

import "github.com/tetherhq/tether/engine"

// SyntaxNode is one node of a syntax tree as Syntax lists it, in pre-order.
// Its JSON is one compact row, [depth, kind, field, range] with a fifth
// element naming its flags when it has any ("anonymous", "error",
// "missing", "extra", joined by commas): a tree of a few hundred nodes
// costs about what its text does. The range is 1-based
// ("3:1-3:14"), as the structural tools show places; Start and End are
// the same points zero-based, as tree-sitter counts them.
type SyntaxNode struct {
	// Depth counts the node's ancestors up to the root listed (0),
	// anonymous ones included, as the tree-sitter CLI indents.
	Depth int
	Kind  string
	// Field is the node's field in its parent ("name", "body"), if any.
	Field string
	// Anonymous marks a token the grammar does not name ("(", "func").
	Anonymous bool
	// Error marks an ERROR node, Missing a token error recovery put in,
	// Extra a node that may stand anywhere (a comment).
	Error, Missing, Extra bool
	Range                 string
	Start, End            engine.Point
	// Text is the node's source when it is one line of at most
	// SyntaxLeafText bytes, and a leaf's cut at that; the text rendering
	// shows it, the JSON leaves it out (the range finds it).
	Text string
}

// MarshalJSON writes n as its row.
func (n SyntaxNode) MarshalJSON() ([]byte, error) {
	row := []any{n.Depth, n.Kind, n.Field, n.Range}
	var flags []string
	for _, f := range []struct {
		on   bool
		name string
	}{{n.Anonymous, "anonymous"}, {n.Error, "error"}, {n.Missing, "missing"}, {n.Extra, "extra"}} {
		if f.on {
			flags = append(flags, f.name)
		}
	}
	if len(flags) > 0 {
		row = append(row, strings.Join(flags, ","))
	}
	return json.Marshal(row)
}

// UnmarshalJSON reads what MarshalJSON writes (Text is not in it).
func (n *SyntaxNode) UnmarshalJSON(b []byte) error {
	var row []json.RawMessage
	if err := json.Unmarshal(b, &row); err != nil {
		return err
	}
	if len(row) < 4 {
		return fmt.Errorf("matcher: syntax node %s: want [depth, kind, field, range, flags?]", b)
	}
	*n = SyntaxNode{}
	var flags string
	for i, dst := range []any{&n.Depth, &n.Kind, &n.Field, &n.Range, &flags}[:min(len(row), 5)] {
		if err := json.Unmarshal(row[i], dst); err != nil {
			return fmt.Errorf("matcher: syntax node %s: %w", b, err)
		}
	}
	for _, f := range strings.Split(flags, ",") {
		switch f {
		case "anonymous":
			n.Anonymous = true
		case "error":
			n.Error = true
		case "missing":
			n.Missing = true
		case "extra":
			n.Extra = true
		}
	}
	var l1, c1, l2, c2 uint32
	if _, err := fmt.Sscanf(n.Range, "%d:%d-%d:%d", &l1, &c1, &l2, &c2); err != nil {
		return fmt.Errorf("matcher: syntax node range %q: %w", n.Range, err)
	}
	n.Start, n.End = engine.Point{Row: l1 - 1, Column: c1 - 1}, engine.Point{Row: l2 - 1, Column: c2 - 1}
	return nil
}

// SyntaxLeafText bounds the text of a node Syntax lists.
const SyntaxLeafText = 60

// SyntaxOptions chooses what Syntax lists.
type SyntaxOptions struct {
	// All lists anonymous nodes too (a concrete syntax tree, CST); by
	// default only named ones (an AST).
	All bool
	// FromLine and ToLine, 1-based and inclusive, keep the nodes that
	// overlap those lines (with their ancestors); 0 for no bound.
	FromLine, ToLine int
	// Start skips that many of the nodes kept; Max lists at most that
	// many after them (0: all). Total counts every node kept.
	Start, Max int
	// Point, when set, places an offset of the tree's source (the
	// pattern's own lines and columns in a scaffold); by default the
	// tree's own points.
	Point func(off uint32) engine.Point
}

// Syntax is a page of a tree's nodes.
type Syntax struct {
	Nodes []SyntaxNode `json:"nodes"`
	// Total counts the nodes SyntaxOptions keeps; Start is the first
	// listed, so Start+len(Nodes) < Total says there are more.
	Total int `json:"total"`
	Start int `json:"start,omitempty"`
}

// SyntaxOf lists the nodes under roots (each with its subtree, in order)
// as opt says; each root is at depth 0.
func SyntaxOf(roots []engine.Node, opt SyntaxOptions) Syntax {
	s := Syntax{Nodes: []SyntaxNode{}, Start: opt.Start}
	var walk func(n engine.Node, field string, depth int)
	walk = func(n engine.Node, field string, depth int) {
		r := n.Range()
		if opt.ToLine > 0 && int(r.StartPoint.Row) >= opt.ToLine {
			return
		}
		if opt.FromLine > 0 && int(r.EndPoint.Row)+1 < opt.FromLine {
			return
		}
		if opt.All || n.IsNamed() || n.IsMissing() {
			if s.Total >= opt.Start && (opt.Max <= 0 || len(s.Nodes) < opt.Max) {
				s.Nodes = append(s.Nodes, syntaxNode(n, field, depth, opt.Point))
			}
			s.Total++
		}
		for c, ok := n.FirstChild(); ok; c, ok = c.NextSibling() {
			walk(c, c.Field(), depth+1)
		}
	}
	for _, r := range roots {
		walk(r, "", 0)
	}
	return s
}

// syntaxNode describes n.
func syntaxNode(n engine.Node, field string, depth int, point func(uint32) engine.Point) SyntaxNode {
	sn := SyntaxNode{Depth: depth, Kind: n.Kind(), Field: field, Anonymous: !n.IsNamed(), Error: n.IsError(), Missing: n.IsMissing(), Extra: n.IsExtra()}
	if point != nil {
		sn.Start, sn.End = point(n.StartByte()), point(n.EndByte())
	} else {
		r := n.Range()
		sn.Start, sn.End = r.StartPoint, r.EndPoint
	}
	sn.Range = fmt.Sprintf("%d:%d-%d:%d", sn.Start.Row+1, sn.Start.Column+1, sn.End.Row+1, sn.End.Column+1)
	switch src := n.Bytes(); {
	case n.IsMissing():
	case n.ChildCount() == 0:
		sn.Text, _ = bound(src, SyntaxLeafText)
	case len(src) <= SyntaxLeafText && !strings.ContainsRune(string(src), '\n'):
		sn.Text = string(src)
	}
	return sn
}

// bound cuts b at max bytes on a character boundary, saying whether it did.
func bound(b []byte, max int) (string, bool) {
	if len(b) <= max {
		return string(b), false
	}
	for max > 0 && b[max]&0xC0 == 0x80 {
		max--
	}
	return string(b[:max]), true
}

// SyntaxStyle is how WriteSyntax renders nodes.
type SyntaxStyle int

const (
	// SyntaxLines is one node a line, indented two spaces a level
	// (relative to the first node listed), "field: kind 1:1-1:9" with a
	// leaf's text quoted: the structural tools' form.
	SyntaxLines SyntaxStyle = iota
	// SyntaxOutline is the tree-sitter CLI's `parse` form: "field: (kind
	// [0, 0] - [0, 8]" with zero-based points, a node's closing
	// parenthesis at the end of its last descendant's line.
	SyntaxOutline
	// SyntaxOutlineBare is SyntaxOutline without the points.
	SyntaxOutlineBare
)

// WriteSyntax writes nodes (a Syntax's, in pre-order) to w in style.
func WriteSyntax(w io.Writer, nodes []SyntaxNode, style SyntaxStyle) error {
	var b strings.Builder
	base := 0
	if len(nodes) > 0 {
		base = nodes[0].Depth
		for _, n := range nodes {
			base = min(base, n.Depth)
		}
	}
	var open []int // depths of the outline's unclosed nodes
	for i, n := range nodes {
		if style != SyntaxLines {
			for len(open) > 0 && open[len(open)-1] >= n.Depth {
				b.WriteByte(')')
				open = open[:len(open)-1]
			}
			if i > 0 {
				b.WriteByte('\n')
			}
			open = append(open, n.Depth)
		}
		b.WriteString(strings.Repeat("  ", n.Depth-base))
		if n.Field != "" && (style == SyntaxLines || i > 0) {
			b.WriteString(n.Field + ": ")
		}
		kind := n.Kind
		if n.Anonymous {
			kind = fmt.Sprintf("%q", kind)
		}
		switch style {
		case SyntaxLines:
			if n.Missing {
				kind = "MISSING " + kind
			}
			fmt.Fprintf(&b, "%s %s", kind, n.Range)
			if n.Text != "" && (!n.Anonymous || n.Text != n.Kind) {
				fmt.Fprintf(&b, " %q", n.Text)
			}
			b.WriteByte('\n')
		case SyntaxOutline:
			fmt.Fprintf(&b, "(%s [%d, %d] - [%d, %d]", kind, n.Start.Row, n.Start.Column, n.End.Row, n.End.Column)
		case SyntaxOutlineBare:
			fmt.Fprintf(&b, "(%s", kind)
		}
	}
	if style != SyntaxLines && len(nodes) > 0 {
		b.WriteString(strings.Repeat(")", len(open)))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}
