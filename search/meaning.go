package search

import "context"
import "fmt"
import "strings"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/matcher"

// Rewrites keep meaning. A template's text is put where the match was, and
// a capture's text where the template's metavariable was, as text: where
// the code around it binds tighter (the rewrite `$E.len() == 0` under a
// `!`, a captured `a + b` as an operand of the template's `*`), the
// grammar reads a different expression than the template meant. So the
// rewritten file is parsed again, and each replacement, and each single
// capture substituted into one, must still be one node spanning exactly its
// text; one that is not is put in parentheses when that makes it one node
// of the grammar's parenthesized-expression kind. Where parentheses do not
// help (a statement list, a capture inside a string) the text is left as
// the template wrote it.

// parenKinds is each language's node kind for an expression in
// parentheses; a language without one is not checked.
var parenKinds = map[string]string{
	"c":          "parenthesized_expression",
	"cpp":        "parenthesized_expression",
	"go":         "parenthesized_expression",
	"java":       "parenthesized_expression",
	"javascript": "parenthesized_expression",
	"python":     "parenthesized_expression",
	"rust":       "parenthesized_expression",
	"tsx":        "parenthesized_expression",
	"typescript": "parenthesized_expression",
}

// Parenthesized is one replacement that a rewrite put in parentheses, or
// whose substituted capture it did, to keep the meaning the template gave
// it.
type Parenthesized struct {
	Path string
	// Cell is the notebook cell of the replacement, nil outside notebooks.
	Cell *Cell
	// Line is the 1-based line of the replacement in the file (the
	// cell's source) as it was.
	Line int
	// Text is what was parenthesized.
	Text string
}

func (p Parenthesized) String() string {
	return fmt.Sprintf("%s:%d: (%s)", Where(p.Path, p.Cell), p.Line, p.Text)
}

// piece is a part of edit k that must stay one node: the whole replacement
// (hole -1) or its capture hole.
type piece struct{ edit, hole int }

// keepMeaning returns edits (sorted, not overlapping, of src in lang) with
// the pieces that the rewritten source would bind differently put in
// parentheses, and what it parenthesized. A parse that fails leaves the
// edits as they were.
func (s *Searcher) keepMeaning(ctx context.Context, lang *grammars.Language, path string, src []byte, edits []matcher.Edit) ([]matcher.Edit, []Parenthesized) {
	paren := parenKinds[lang.ID]
	if paren == "" || !checkable(edits) {
		return edits, nil
	}
	tree, at, err := s.parseApplied(ctx, lang, src, edits)
	if err != nil {
		return edits, nil
	}
	var wrap []piece
	for k, e := range edits {
		if e.Node && !oneNode(tree, at[k], at[k]+len(e.Text)) {
			wrap = append(wrap, piece{k, -1})
		}
		for h, hl := range e.Holes {
			if !oneNode(tree, at[k]+hl.Start, at[k]+hl.End) {
				wrap = append(wrap, piece{k, h})
			}
		}
	}
	if len(wrap) == 0 {
		return edits, nil
	}
	// parenthesize every candidate, parse once more and keep the
	// parentheses that the grammar reads as a parenthesized expression
	// spanning exactly them
	tried := wrapPieces(edits, wrap)
	tree2, at2, err := s.parseApplied(ctx, lang, src, tried)
	if err != nil {
		return edits, nil
	}
	var keep []piece
	for _, pc := range wrap {
		st, en := pieceSpan(tried[pc.edit], pc.hole)
		if nodeOfKind(tree2, at2[pc.edit]+st, at2[pc.edit]+en, paren) {
			keep = append(keep, pc)
		}
	}
	if len(keep) == 0 {
		return edits, nil
	}
	res := wrapPieces(edits, keep)
	var notes []Parenthesized
	for _, pc := range keep {
		e := edits[pc.edit]
		text := e.Text
		if pc.hole >= 0 {
			text = e.Text[e.Holes[pc.hole].Start:e.Holes[pc.hole].End]
		}
		notes = append(notes, Parenthesized{Path: path, Line: 1 + strings.Count(string(src[:e.Start]), "\n"), Text: text})
	}
	return res, notes
}

// parseApplied parses src with edits applied, and returns the tree and
// where each edit starts in it (see applyAt).
func (s *Searcher) parseApplied(ctx context.Context, lang *grammars.Language, src []byte, edits []matcher.Edit) (*engine.Tree, []int, error) {
	out, at := applyAt(src, edits)
	tree, err := s.parser.Parse(ctx, lang, out)
	return tree, at, err
}

// checkable says whether any edit asks for a check.
func checkable(edits []matcher.Edit) bool {
	for _, e := range edits {
		if e.Node || len(e.Holes) > 0 {
			return true
		}
	}
	return false
}

// applyAt applies edits to src and returns where each edit's text starts in
// the result.
func applyAt(src []byte, edits []matcher.Edit) ([]byte, []int) {
	at := make([]int, len(edits))
	delta := 0
	for k, e := range edits {
		at[k] = e.Start + delta
		delta += len(e.Text) - (e.End - e.Start)
	}
	return matcher.Apply(src, edits), at
}

// pieceSpan is the byte range in e.Text of piece hole (-1: all of it).
func pieceSpan(e matcher.Edit, hole int) (int, int) {
	if hole < 0 {
		return 0, len(e.Text)
	}
	return e.Holes[hole].Start, e.Holes[hole].End
}

// wrapPieces returns copies of edits with the pieces in parentheses, their
// holes moved to match.
func wrapPieces(edits []matcher.Edit, pcs []piece) []matcher.Edit {
	out := make([]matcher.Edit, len(edits))
	copy(out, edits)
	byEdit := map[int][]int{}
	for _, pc := range pcs {
		byEdit[pc.edit] = append(byEdit[pc.edit], pc.hole)
	}
	for k, holes := range byEdit {
		e := out[k]
		e.Holes = append([]matcher.Hole(nil), e.Holes...)
		root := false
		// insertion points: "(" before and ")" after each wrapped hole
		var opens, closes []int
		for _, h := range holes {
			if h < 0 {
				root = true
				continue
			}
			opens = append(opens, e.Holes[h].Start)
			closes = append(closes, e.Holes[h].End)
		}
		var b strings.Builder
		for i := 0; i <= len(e.Text); i++ {
			for _, c := range closes {
				if c == i {
					b.WriteByte(')')
				}
			}
			for _, o := range opens {
				if o == i {
					b.WriteByte('(')
				}
			}
			if i < len(e.Text) {
				b.WriteByte(e.Text[i])
			}
		}
		// an offset moves by the parentheses written before it; a wrapped
		// hole takes its own in
		moved := func(off int, start bool) int {
			n := 0
			for _, c := range closes {
				if c < off || c == off && start {
					n++
				}
			}
			for _, o := range opens {
				if o < off || o == off && start {
					n++
				}
			}
			return off + n
		}
		for h := range e.Holes {
			wrapped := false
			for _, w := range holes {
				wrapped = wrapped || w == h
			}
			s, en := moved(e.Holes[h].Start, true), moved(e.Holes[h].End, false)
			if wrapped {
				s, en = s-1, en+1
			}
			e.Holes[h] = matcher.Hole{Start: s, End: en}
		}
		e.Text = b.String()
		if root {
			e.Text = "(" + e.Text + ")"
			for h := range e.Holes {
				e.Holes[h] = matcher.Hole{Start: e.Holes[h].Start + 1, End: e.Holes[h].End + 1}
			}
		}
		out[k] = e
	}
	return out
}

// trimSpan narrows [s, e) of src to its text without surrounding white
// space.
func trimSpan(src []byte, s, e int) (int, int) {
	for s < e && isSpace(src[s]) {
		s++
	}
	for e > s && isSpace(src[e-1]) {
		e--
	}
	return s, e
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

// oneNode says whether some node of tree spans exactly [s, e) (white space
// around it aside); an empty span is one.
func oneNode(tree *engine.Tree, s, e int) bool {
	s, e = trimSpan(tree.Source(), s, e)
	if s == e {
		return true
	}
	return findSpan(tree.Root(), s, e, "")
}

// nodeOfKind says whether a node of kind spans exactly [s, e).
func nodeOfKind(tree *engine.Tree, s, e int, kind string) bool {
	return findSpan(tree.Root(), s, e, kind)
}

// findSpan looks for a node spanning exactly [s, e) (of kind, when kind is
// not "") among n and its descendants that contain the span.
func findSpan(n engine.Node, s, e int, kind string) bool {
	for {
		ns, ne := int(n.StartByte()), int(n.EndByte())
		if ns > s || ne < e {
			return false
		}
		if ns == s && ne == e && (kind == "" || n.Kind() == kind) && !n.IsError() {
			return true
		}
		next, found := engine.Node{}, false
		for c, ok := n.FirstChild(); ok; c, ok = c.NextSibling() {
			if int(c.StartByte()) <= s && int(c.EndByte()) >= e {
				// of children sharing the range (none in practice but
				// zero-width ones), the first that holds it
				next, found = c, true
				break
			}
		}
		if !found {
			return false
		}
		n = next
	}
}
