package lsp

import "bytes"
import "context"

import "github.com/tetherhq/tether/grammars"

// Syntax is a parsed source file as the workspace scans read it
// (AffectedFiles, ScanSameName, HiddenHeaderChange): its nodes in preorder,
// the root first. This package does not parse: the layer above, which
// holds tether's tree-sitter engine, hands its trees over through a Parser.
type Syntax struct {
	// Language is the grammar's id ("go", "c").
	Language string
	Source   []byte
	Nodes    []SyntaxNode
}

// SyntaxNode is one node of a Syntax.
type SyntaxNode struct {
	// Kind is the node's kind ("call_expression"; an anonymous node's
	// token text, such as "(").
	Kind string
	// Field is the field of its parent the node fills ("name"), "" for
	// none.
	Field string
	Named bool
	// Start and End are its byte offsets in Source.
	Start, End int
	// Parent is the index of its parent, -1 for the root.
	Parent int
	// Descendants counts the nodes below it: they follow it, so its
	// subtree ends before index i+Descendants+1.
	Descendants int
	// Children counts its children, named or not.
	Children int
}

// Parser parses src with the grammar lang (a grammars id).
type Parser func(ctx context.Context, lang *grammars.Language, src []byte) (*Syntax, error)

// node is a handle on one node of a Syntax, read as the scans read a
// tree-sitter node.
type node struct {
	t *Syntax
	i int
}

func (s *Syntax) node(i int) node { return node{s, i} }

func (n node) rec() *SyntaxNode     { return &n.t.Nodes[n.i] }
func (n node) Kind() string         { return n.rec().Kind }
func (n node) IsNamed() bool        { return n.rec().Named }
func (n node) Field() string        { return n.rec().Field }
func (n node) StartByte() int       { return n.rec().Start }
func (n node) EndByte() int         { return n.rec().End }
func (n node) Index() int           { return n.i }
func (n node) DescendantCount() int { return n.rec().Descendants }
func (n node) ChildCount() int      { return n.rec().Children }
func (n node) Bytes() []byte        { return n.t.Source[n.rec().Start:n.rec().End] }
func (n node) Text() string         { return string(n.Bytes()) }

// Parent returns n's parent; ok is false for the root.
func (n node) Parent() (node, bool) {
	p := n.rec().Parent
	if p < 0 {
		return node{}, false
	}
	return node{n.t, p}, true
}

// children returns n's children in order.
func (n node) children() []node {
	var out []node
	end := n.i + n.rec().Descendants
	for c := n.i + 1; c <= end; c += n.t.Nodes[c].Descendants + 1 {
		out = append(out, node{n.t, c})
	}
	return out
}

// ChildByField returns n's first child filling field name.
func (n node) ChildByField(name string) (node, bool) {
	for _, c := range n.children() {
		if c.Field() == name {
			return c, true
		}
	}
	return node{}, false
}

// NamedChildren returns n's named children in order.
func (n node) NamedChildren() []node {
	var out []node
	for _, c := range n.children() {
		if c.IsNamed() {
			out = append(out, c)
		}
	}
	return out
}

// start returns the 0-based row of n's first byte and its byte column.
func (n node) start() (row, column int) {
	before := n.t.Source[:n.rec().Start]
	lineStart := bytes.LastIndexByte(before, '\n') + 1
	return bytes.Count(before, []byte("\n")), len(before) - lineStart
}
