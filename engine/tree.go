package engine

import "bytes"
import "fmt"
import "strconv"
import "strings"
import "unicode"
import "unicode/utf8"

// Point is a zero-based row and byte column in the source.
type Point struct {
	Row    uint32
	Column uint32
}

// Range is where a node lies in its source: byte offsets (end exclusive) and
// zero-based points.
type Range struct {
	StartByte  uint32
	EndByte    uint32
	StartPoint Point
	EndPoint   Point
}

// node flags, as the shim writes them.
const (
	flagNamed    = 1 << 0
	flagExtra    = 1 << 1
	flagError    = 1 << 2 // the node is an ERROR node
	flagMissing  = 1 << 3 // the node was inserted by error recovery
	flagHasError = 1 << 4 // the node or a descendant is ERROR or MISSING
)

// errorSymbol is tree-sitter's symbol id of ERROR nodes.
const errorSymbol = 0xFFFF

// A node's sub word holds its subtree's end (low subBits) and its flags (the
// high bits).
const (
	subBits = 27
	subMask = 1<<subBits - 1
	// MaxNodes is the most nodes a Tree can hold (the parse of a larger one
	// fails with ErrTooLarge).
	MaxNodes = subMask
)

// node is one row of the compact node table (16 bytes). Nodes are stored in
// pre-order: a node's descendants are nodes[i+1 : end]. What the shim's
// 48-byte record held beyond this is derived: a node's next sibling is its
// subtree's end when that is inside its parent's (Node carries the parent's
// end), its parent is found by descending from the root, its child count by
// counting, and its points from the tree's line starts (tree-sitter counts
// rows at '\n' and columns in bytes).
type node struct {
	kind  uint16 // symbol id; name in langInfo.kinds
	field uint16 // field id of this node in its parent, 0 for none
	start uint32 // first byte
	end   uint32 // one past the last byte
	sub   uint32 // one past the last descendant | flags<<subBits
}

// NodeBytes is the memory of one node in a Tree's table.
const NodeBytes = 16

func (n *node) flags() uint32 { return n.sub >> subBits }
func (n *node) subEnd() int32 { return int32(n.sub & subMask) }

// langInfo is what a Tree needs of its language: names read once per language.
type langInfo struct {
	id     string
	kinds  []string // symbol id -> name
	fields []string // field id -> name ("" at 0)
}

// Tree is an immutable syntax tree copied out of a grammar instance. It is safe
// for concurrent use and holds no reference into wasm memory.
type Tree struct {
	lang  *langInfo
	src   []byte
	nodes []node
	lines []uint32 // byte offset of each line's start; lines[0] is 0
}

// newTree builds a Tree over src and its node table, computing line starts.
func newTree(lang *langInfo, src []byte, nodes []node) *Tree {
	n := 1
	for i := 0; i < len(src); {
		k := bytes.IndexByte(src[i:], '\n')
		if k < 0 {
			break
		}
		n++
		i += k + 1
	}
	lines := make([]uint32, 1, n)
	for i := 0; i < len(src); {
		k := bytes.IndexByte(src[i:], '\n')
		if k < 0 {
			break
		}
		i += k + 1
		lines = append(lines, uint32(i))
	}
	return &Tree{lang: lang, src: src, nodes: nodes, lines: lines}
}

// WithSource returns t's nodes over src instead of t's source: text of
// the same length whose line breaks are where t's are, such as the text
// parsed with some of its characters blanked (a notebook cell's IPython
// lines), so that the nodes' texts are the original's. It returns nil
// when src does not fit t so.
func (t *Tree) WithSource(src []byte) *Tree {
	if len(src) != len(t.src) {
		return nil
	}
	for i, c := range src {
		if (c == '\n') != (t.src[i] == '\n') {
			return nil
		}
	}
	return &Tree{lang: t.lang, src: src, nodes: t.nodes, lines: t.lines}
}

// MemoryBytes estimates the memory the tree holds: its source, node table and
// line starts.
func (t *Tree) MemoryBytes() int64 {
	return int64(len(t.src)) + int64(len(t.nodes))*NodeBytes + int64(len(t.lines))*4 + 64
}

// point returns the row and byte column of offset off.
func (t *Tree) point(off uint32) Point {
	lo, hi := 0, len(t.lines)
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		if t.lines[mid] <= off {
			lo = mid
		} else {
			hi = mid
		}
	}
	return Point{Row: uint32(lo), Column: off - t.lines[lo]}
}

// locate returns the parent of node i and that parent's own limit (the end
// of its parent's subtree), descending from the root; (-1, len) for the root.
func (t *Tree) locate(i int32) (p, plim int32) {
	n := int32(len(t.nodes))
	if i <= 0 {
		return -1, n
	}
	p, plim = 0, n
	for {
		pe := t.nodes[p].subEnd()
		c := p + 1
		for c < pe {
			if c == i {
				return p, plim
			}
			ce := t.nodes[c].subEnd()
			if i < ce {
				break
			}
			c = ce
		}
		if c >= pe { // not below p: a malformed table (never for a parsed or checked one)
			return -1, n
		}
		p, plim = c, pe
	}
}

// Language returns the id of the language the tree was parsed with.
func (t *Tree) Language() string { return t.lang.id }

// Source returns the parsed source. The caller must not modify it.
func (t *Tree) Source() []byte { return t.src }

// Len returns the number of nodes in the tree.
func (t *Tree) Len() int { return len(t.nodes) }

// Root returns the root node.
func (t *Tree) Root() Node { return Node{t: t, i: 0, lim: int32(len(t.nodes))} }

// NodeAt returns the i-th node in pre-order (0 is the root). It panics when i is
// out of range, as slice indexing does.
func (t *Tree) NodeAt(i int) Node {
	_ = t.nodes[i]
	p, _ := t.locate(int32(i))
	if p < 0 {
		return t.Root()
	}
	return Node{t: t, i: int32(i), lim: t.nodes[p].subEnd()}
}

// KindNames returns the names of the tree's language's kinds, indexed by
// symbol id (Node.KindID; ERROR's id, 0xFFFF, is past its end). Several ids
// may have one name (an alias, a token used in two places). The caller must
// not modify it.
func (t *Tree) KindNames() []string { return t.lang.kinds }

// HasError reports whether the tree has an ERROR or MISSING node anywhere.
func (t *Tree) HasError() bool { return len(t.nodes) > 0 && t.nodes[0].flags()&flagHasError != 0 }

// String returns the tree as an S-expression (see Node.String).
func (t *Tree) String() string { return t.Root().String() }

// Node is a read-only handle on one node of a Tree. The zero Node is invalid;
// methods on it return zero values.
type Node struct {
	t   *Tree
	i   int32
	lim int32 // the end of the parent's subtree: where the siblings end
}

func (n Node) rec() *node { return &n.t.nodes[n.i] }

func (n Node) flags() uint32 {
	if n.t == nil {
		return 0
	}
	return n.rec().flags()
}

// Valid reports whether n refers to a node.
func (n Node) Valid() bool { return n.t != nil }

// Tree returns the tree n belongs to.
func (n Node) Tree() *Tree { return n.t }

// Index returns n's position in pre-order (the root is 0). Indexes order nodes
// as they appear in the source.
func (n Node) Index() int { return int(n.i) }

// KindID returns the grammar's symbol id of n's kind.
func (n Node) KindID() uint16 {
	if n.t == nil {
		return 0
	}
	return n.rec().kind
}

// Kind returns n's kind ("call_expression"; for anonymous nodes, the token text
// such as "(").
func (n Node) Kind() string {
	if n.t == nil {
		return ""
	}
	k := int(n.rec().kind)
	if k == errorSymbol {
		return "ERROR"
	}
	if k < len(n.t.lang.kinds) {
		return n.t.lang.kinds[k]
	}
	return ""
}

// IsNamed reports whether n is a named node (not an anonymous token).
func (n Node) IsNamed() bool { return n.flags()&flagNamed != 0 }

// IsExtra reports whether n is an extra, such as a comment.
func (n Node) IsExtra() bool { return n.flags()&flagExtra != 0 }

// IsError reports whether n is an ERROR node.
func (n Node) IsError() bool { return n.flags()&flagError != 0 }

// IsMissing reports whether n was inserted by error recovery.
func (n Node) IsMissing() bool { return n.flags()&flagMissing != 0 }

// HasError reports whether n or a descendant is an ERROR or MISSING node.
func (n Node) HasError() bool { return n.flags()&flagHasError != 0 }

// FieldID returns the id of the field n occupies in its parent, 0 for none.
func (n Node) FieldID() uint16 {
	if n.t == nil {
		return 0
	}
	return n.rec().field
}

// Field returns the name of the field n occupies in its parent ("" for none).
func (n Node) Field() string {
	if n.t == nil {
		return ""
	}
	f := int(n.rec().field)
	if f > 0 && f < len(n.t.lang.fields) {
		return n.t.lang.fields[f]
	}
	return ""
}

// Range returns where n lies in the source.
func (n Node) Range() Range {
	if n.t == nil {
		return Range{}
	}
	r := n.rec()
	return Range{StartByte: r.start, EndByte: r.end, StartPoint: n.t.point(r.start), EndPoint: n.t.point(r.end)}
}

// StartByte returns n's first byte offset.
func (n Node) StartByte() uint32 {
	if n.t == nil {
		return 0
	}
	return n.rec().start
}

// EndByte returns the offset one past n's last byte.
func (n Node) EndByte() uint32 {
	if n.t == nil {
		return 0
	}
	return n.rec().end
}

// Bytes returns n's source bytes. The caller must not modify them.
func (n Node) Bytes() []byte {
	if n.t == nil {
		return nil
	}
	r := n.rec()
	return n.t.src[r.start:r.end]
}

// Text returns n's source text.
func (n Node) Text() string { return string(n.Bytes()) }

// Parent returns n's parent; ok is false for the root.
func (n Node) Parent() (Node, bool) {
	if n.t == nil {
		return Node{}, false
	}
	p, plim := n.t.locate(n.i)
	if p < 0 {
		return Node{}, false
	}
	return Node{t: n.t, i: p, lim: plim}, true
}

// ChildCount returns the number of children, named and anonymous.
func (n Node) ChildCount() int {
	cnt := 0
	for c, ok := n.FirstChild(); ok; c, ok = c.NextSibling() {
		cnt++
	}
	return cnt
}

// FirstChild returns n's first child; ok is false when n has none.
func (n Node) FirstChild() (Node, bool) {
	if n.t == nil {
		return Node{}, false
	}
	e := n.rec().subEnd()
	if e <= n.i+1 {
		return Node{}, false
	}
	return Node{t: n.t, i: n.i + 1, lim: e}, true
}

// NextSibling returns the node after n under the same parent.
func (n Node) NextSibling() (Node, bool) {
	if n.t == nil {
		return Node{}, false
	}
	s := n.rec().subEnd()
	if s >= n.lim {
		return Node{}, false
	}
	return Node{t: n.t, i: s, lim: n.lim}, true
}

// Child returns the i-th child (0-based); ok is false when out of range.
func (n Node) Child(i int) (Node, bool) {
	if i < 0 {
		return Node{}, false
	}
	c, ok := n.FirstChild()
	for ; ok && i > 0; i-- {
		c, ok = c.NextSibling()
	}
	return c, ok
}

// Children returns all children in order.
func (n Node) Children() []Node {
	var out []Node
	for c, ok := n.FirstChild(); ok; c, ok = c.NextSibling() {
		out = append(out, c)
	}
	return out
}

// NamedChildren returns the named children in order.
func (n Node) NamedChildren() []Node {
	var out []Node
	for c, ok := n.FirstChild(); ok; c, ok = c.NextSibling() {
		if c.IsNamed() {
			out = append(out, c)
		}
	}
	return out
}

// ChildByField returns the first child in the named field.
func (n Node) ChildByField(name string) (Node, bool) {
	for c, ok := n.FirstChild(); ok; c, ok = c.NextSibling() {
		if c.Field() == name {
			return c, true
		}
	}
	return Node{}, false
}

// DescendantCount returns the number of nodes below n.
func (n Node) DescendantCount() int {
	if n.t == nil {
		return 0
	}
	return int(n.rec().subEnd() - n.i - 1)
}

// Walk calls fn for n and every descendant in pre-order (source order). When fn
// returns false the node's descendants are skipped.
func (n Node) Walk(fn func(Node) bool) {
	if n.t == nil {
		return
	}
	nodes := n.t.nodes
	// ends of the open ancestors below n: the top is the visited node's limit
	var buf [64]int32
	ends := append(buf[:0], n.lim)
	end := nodes[n.i].subEnd()
	for i := n.i; i < end; {
		for len(ends) > 1 && ends[len(ends)-1] <= i {
			ends = ends[:len(ends)-1]
		}
		if fn(Node{t: n.t, i: i, lim: ends[len(ends)-1]}) {
			if e := nodes[i].subEnd(); e > i+1 {
				ends = append(ends, e)
			}
			i++
		} else {
			i = nodes[i].subEnd()
		}
	}
}

// String returns n as an S-expression in the style of tree-sitter's
// ts_node_string (what the tree-sitter CLI prints): named nodes only, fields
// as "name:", MISSING nodes and UNEXPECTED error leaves marked. A MISSING
// token the grammar hides is not in the tree and so does not print, though
// HasError still reports it.
func (n Node) String() string {
	var b strings.Builder
	n.sexp(&b, "")
	return b.String()
}

func (n Node) sexp(b *strings.Builder, field string) {
	if field != "" {
		b.WriteString(field)
		b.WriteString(": ")
	}
	if n.IsMissing() {
		b.WriteString("(MISSING ")
		if n.IsNamed() {
			b.WriteString(n.Kind())
		} else {
			b.WriteString(quoteKind(n.Kind()))
		}
		b.WriteString(")")
		return
	}
	b.WriteString("(")
	if n.IsError() && n.ChildCount() == 0 && n.EndByte() > n.StartByte() {
		// As ts_node_string prints an error leaf: the character it stopped at.
		b.WriteString("UNEXPECTED ")
		b.WriteString(quoteChar(n.Bytes()))
		b.WriteString(")")
		return
	}
	if n.IsError() {
		b.WriteString("ERROR")
	} else {
		b.WriteString(n.Kind())
	}
	for c, ok := n.FirstChild(); ok; c, ok = c.NextSibling() {
		if !c.IsNamed() && !c.IsMissing() {
			continue
		}
		b.WriteString(" ")
		c.sexp(b, c.Field())
	}
	b.WriteString(")")
}

// Outline returns n as the tree-sitter CLI's `parse` command prints a tree:
// one named node a line, indented two spaces a level, fields as "name: ",
// and with ranges, each node's start and end as [row, column] (zero-based,
// columns in bytes). Closing parentheses end the line of a node's last
// descendant. Unlike String, MISSING and error leaves are printed by kind,
// as the CLI does.
func (n Node) Outline(ranges bool) string {
	var b strings.Builder
	n.outline(&b, 0, ranges)
	return b.String()
}

func (n Node) outline(b *strings.Builder, depth int, ranges bool) {
	if depth > 0 {
		b.WriteByte('\n')
	}
	for i := 0; i < depth; i++ {
		b.WriteString("  ")
	}
	if f := n.Field(); f != "" && depth > 0 {
		b.WriteString(f)
		b.WriteString(": ")
	}
	b.WriteByte('(')
	if n.IsError() {
		b.WriteString("ERROR")
	} else {
		b.WriteString(n.Kind())
	}
	if ranges {
		r := n.Range()
		fmt.Fprintf(b, " [%d, %d] - [%d, %d]", r.StartPoint.Row, r.StartPoint.Column, r.EndPoint.Row, r.EndPoint.Column)
	}
	// Depth counts every visible ancestor, as the CLI's cursor does, so the
	// named children of an anonymous node are indented one level further.
	var walk func(p Node, d int)
	walk = func(p Node, d int) {
		for c, ok := p.FirstChild(); ok; c, ok = c.NextSibling() {
			if c.IsNamed() {
				c.outline(b, d, ranges)
			} else {
				walk(c, d+1)
			}
		}
	}
	walk(n, depth+1)
	b.WriteByte(')')
}

func quoteKind(k string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(k) + `"`
}

// quoteChar renders the first character of b as tree-sitter does for an
// UNEXPECTED leaf: printable ASCII quoted, a few escapes, else the code point.
func quoteChar(b []byte) string {
	r, _ := utf8.DecodeRune(b)
	switch {
	case r == utf8.RuneError:
		return "INVALID"
	case r == 0:
		return `'\0'`
	case r == '\n':
		return `'\n'`
	case r == '\t':
		return `'\t'`
	case r == '\r':
		return `'\r'`
	case r > 0 && r < 128 && unicode.IsPrint(r):
		return "'" + string(r) + "'"
	default:
		return strconv.Itoa(int(r))
	}
}
