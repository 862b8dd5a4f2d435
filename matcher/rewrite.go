package matcher

import "bytes"
import "fmt"
import "sort"
import "strings"

// Template is a rewrite template for one pattern's matches: code in which
// the pattern's metavariables stand for what they captured.
type Template struct {
	src string
	pat *Pattern
}

// NewTemplate returns the template text for the matches of p.
func NewTemplate(p *Pattern, text string) *Template { return &Template{src: text, pat: p} }

// Edit replaces src[Start:End] with Text.
type Edit struct {
	Start, End int
	Text       string
	// Node says the edit replaces one syntax node, so Text should parse as
	// one node in its place (search checks it and parenthesizes Text where
	// the surrounding code would bind it differently).
	Node bool
	// Holes are the byte ranges in Text of the single captures substituted
	// into the template, each of which should stay one node there too.
	Holes []Hole
}

// Hole is a byte range [Start, End) of an Edit's Text.
type Hole struct{ Start, End int }

// Edits turns the matches found in one source into non-overlapping edits
// that replace each by the template expanded for it: of overlapping matches
// the outermost (earliest, then longest) wins. src is the source of the tree
// the matches are in.
func (t *Template) Edits(src []byte, raws []Match) []Edit {
	order := make([]int, len(raws))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		ra, rb := &raws[order[a]], &raws[order[b]]
		if ra.Start() != rb.Start() {
			return ra.Start() < rb.Start()
		}
		return ra.End() > rb.End()
	})
	var out []Edit
	last := -1
	for _, i := range order {
		r := &raws[i]
		if int(r.Start()) < last {
			continue
		}
		text, holes := t.expand(src, r)
		out = append(out, Edit{Start: int(r.Start()), End: int(r.End()), Text: text, Node: len(r.Nodes) == 1, Holes: holes})
		last = int(r.End())
	}
	return out
}

// lineIndent returns the leading whitespace of the line holding offset off.
func lineIndent(src []byte, off int) string {
	ls := bytes.LastIndexByte(src[:off], '\n') + 1
	i := ls
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	return string(src[ls:i])
}

// Expand returns the template with a match's captures substituted, as the
// text to put in the match's place. $$$NAME inserts the capture's source from
// its first to its last node, so the original separators stay; a capture
// spanning lines is re-based onto the template line's indentation; and every
// template line after the first is indented to the match's line, so a
// multi-line replacement lines up with the code it replaces. A metavariable
// the pattern does not bind is replaced by nothing (Unbound lists them).
// src is the source of the tree the match is in.
func (t *Template) Expand(src []byte, r *Match) string {
	out, _ := t.expand(src, r)
	return out
}

// expand is Expand that also returns where in the text each single capture
// was substituted.
func (t *Template) expand(src []byte, r *Match) (string, []Hole) {
	tmpl := t.src
	var holes []Hole
	var b strings.Builder
	lineStart := 0 // index in b of the current output line
	for i := 0; i < len(tmpl); {
		c := tmpl[i]
		if c == '\n' {
			b.WriteByte('\n')
			lineStart = b.Len()
			i++
			continue
		}
		if c == '$' {
			if multi, name, n := tmplVar(tmpl, i); n > 0 {
				// a metavariable the pattern does not bind, or binds as the
				// other kind ($ARGS for a $$$ARGS capture), is replaced by
				// nothing, as ast-grep replaces it (Unbound names them)
				if bd := findBinding(r.Captures, name); bd != nil && bd.Multi == multi {
					cur := b.String()[lineStart:]
					indent := cur[:len(cur)-len(strings.TrimLeft(cur, " \t"))]
					from := b.Len()
					b.WriteString(rebase(bd, src, indent))
					if !multi && b.Len() > from {
						holes = append(holes, Hole{from, b.Len()})
					}
				}
				i += n
				continue
			}
		}
		b.WriteByte(c)
		i++
	}
	out := b.String()
	indent := lineIndent(src, int(r.Start()))
	if indent == "" || !strings.Contains(out, "\n") {
		return out, holes
	}
	// blank lines too, as ast-grep indents them (where it indents: with
	// spaces; a tab-indented blank line would be trailing space gofmt drops)
	blankToo := !strings.Contains(indent, "\t")
	lines := strings.Split(out, "\n")
	// shift[k] is how far line k moves: the indentation added to it and to
	// the lines before it
	shift := make([]int, len(lines))
	for k := 1; k < len(lines); k++ {
		shift[k] = shift[k-1]
		if lines[k] != "" || blankToo {
			lines[k] = indent + lines[k]
			shift[k] += len(indent)
		}
	}
	moved := func(off int) int { return off + shift[strings.Count(out[:off], "\n")] }
	for k := range holes {
		holes[k] = Hole{moved(holes[k].Start), moved(holes[k].End)}
	}
	return strings.Join(lines, "\n"), holes
}

// tmplVar reads the metavariable at tmpl[i], as ast-grep reads a rewrite:
// $NAME and $$NAME stand for a single capture, $$$NAME for a multiple one;
// NAME is [A-Z_][A-Z0-9_]*. n is 0 where there is none ($$$ alone, $x, $1).
func tmplVar(tmpl string, i int) (multi bool, name string, n int) {
	kind, _, dollars, n := metaAt(tmpl, i)
	if n == 0 || n == dollars {
		return false, "", 0
	}
	return kind == metaMulti, tmpl[i+dollars : i+n], n
}

// Unbound lists the template's metavariables that the pattern does not bind
// as written: "$Y", "$ARGS (the pattern binds $$$ARGS)". Each is replaced by
// nothing, as ast-grep replaces it.
func (t *Template) Unbound() []string {
	tmpl, p := t.src, t.pat
	var out []string
	seen := map[string]bool{}
	for i := 0; i < len(tmpl); i++ {
		if tmpl[i] != '$' {
			continue
		}
		multi, name, n := tmplVar(tmpl, i)
		if n == 0 {
			continue
		}
		written := tmpl[i : i+n]
		i += n - 1
		if seen[written] {
			continue
		}
		seen[written] = true
		bound, ok := p.varMulti[name]
		switch {
		case !ok:
			out = append(out, written)
		case bound != multi:
			sig := "$"
			if bound {
				sig = "$$$"
			}
			out = append(out, fmt.Sprintf("%s (the pattern binds %s%s)", written, sig, name))
		}
	}
	return out
}

func findBinding(bs []Capture, name string) *Capture {
	for i := range bs {
		if bs[i].Name == name {
			return &bs[i]
		}
	}
	return nil
}

// rebase returns a capture's text with its continuation lines moved from the
// capture's original indentation to indent.
func rebase(b *Capture, src []byte, indent string) string {
	s, e, ok := b.span()
	if !ok {
		return ""
	}
	text := string(src[s:e])
	if !strings.Contains(text, "\n") {
		return text
	}
	// a statement list may end with its terminating newline: the template
	// places the capture, not the source's line structure
	text = strings.TrimRight(text, " \t\r\n")
	orig := lineIndent(src, int(s))
	lines := strings.Split(text, "\n")
	for k := 1; k < len(lines); k++ {
		l := strings.TrimPrefix(lines[k], orig)
		if strings.TrimSpace(l) == "" {
			lines[k] = ""
			continue
		}
		lines[k] = indent + l
	}
	return strings.Join(lines, "\n")
}

// Apply returns src with the edits made; they must be sorted and must not
// overlap, as Template.Edits returns them.
func Apply(src []byte, reps []Edit) []byte {
	var b bytes.Buffer
	b.Grow(len(src))
	last := 0
	for _, r := range reps {
		b.Write(src[last:r.Start])
		b.WriteString(r.Text)
		last = r.End
	}
	b.Write(src[last:])
	return b.Bytes()
}
