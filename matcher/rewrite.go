package matcher

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/tetherhq/tether/engine"
)

// template is a compiled rewrite template.
type template struct {
	src string
	pat *Pattern
}

// replacement replaces src[start:end] with text.
type replacement struct {
	start, end int
	text       string
}

// edits turns a file's matches into non-overlapping replacements: of
// overlapping matches the outermost (earliest, then longest) wins.
func (t *template) edits(tree *engine.Tree, raws []rawMatch) []replacement {
	src := tree.Source()
	order := make([]int, len(raws))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		ra, rb := &raws[order[a]], &raws[order[b]]
		if ra.start() != rb.start() {
			return ra.start() < rb.start()
		}
		return ra.end() > rb.end()
	})
	var out []replacement
	last := -1
	for _, i := range order {
		r := &raws[i]
		if int(r.start()) < last {
			continue
		}
		text := expand(t.src, src, r)
		out = append(out, replacement{start: int(r.start()), end: int(r.end()), text: text})
		last = int(r.end())
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

// expand substitutes a match's captures into the template. $$$NAME inserts the
// capture's source from its first to its last node, so the original separators
// stay; a capture spanning lines is re-based onto the template line's
// indentation; and every template line after the first is indented to the
// match's line, so a multi-line replacement lines up with the code it replaces.
func expand(tmpl string, src []byte, r *rawMatch) string {
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
				// nothing, as ast-grep replaces it (Plan.Unbound names them)
				if bd := findBinding(r.binds, name); bd != nil && bd.multi == multi {
					cur := b.String()[lineStart:]
					indent := cur[:len(cur)-len(strings.TrimLeft(cur, " \t"))]
					b.WriteString(rebase(bd, src, indent))
				}
				i += n
				continue
			}
		}
		b.WriteByte(c)
		i++
	}
	out := b.String()
	indent := lineIndent(src, int(r.start()))
	if indent == "" || !strings.Contains(out, "\n") {
		return out
	}
	// blank lines too, as ast-grep indents them (where it indents: with
	// spaces; a tab-indented blank line would be trailing space gofmt drops)
	blankToo := !strings.Contains(indent, "\t")
	lines := strings.Split(out, "\n")
	for k := 1; k < len(lines); k++ {
		if lines[k] != "" || blankToo {
			lines[k] = indent + lines[k]
		}
	}
	return strings.Join(lines, "\n")
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

// unbound lists the metavariables of a rewrite template that the pattern
// does not bind as written: "$Y", "$ARGS (the pattern binds $$$ARGS)".
func unbound(tmpl string, p *Pattern) []string {
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

func findBinding(bs []binding, name string) *binding {
	for i := range bs {
		if bs[i].name == name {
			return &bs[i]
		}
	}
	return nil
}

// rebase returns a capture's text with its continuation lines moved from the
// capture's original indentation to indent.
func rebase(b *binding, src []byte, indent string) string {
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

// apply returns src with the (sorted, non-overlapping) replacements made.
func apply(src []byte, reps []replacement) []byte {
	var b bytes.Buffer
	b.Grow(len(src))
	last := 0
	for _, r := range reps {
		b.Write(src[last:r.start])
		b.WriteString(r.text)
		last = r.end
	}
	b.Write(src[last:])
	return b.Bytes()
}

// FileChange is one file's part of a rewrite.
type FileChange struct {
	// Path is the file as the search walked it.
	Path string
	// Display is how to show the path (e.g. relative to a working
	// directory); "" means Path.
	Display      string
	Old, New     []byte
	Replacements int
}

// Plan is a computed rewrite: the search's result plus each file's new
// content. Nothing is written until it is applied.
type Plan struct {
	Result       *Result
	Rewrite      string
	Changes      []FileChange
	Replacements int
	// Edits counts every replacement, those that leave the text as it was
	// too (Replacements counts those in Changes), as ast-grep -U counts
	// "Applied N changes".
	Edits int
	// Unbound are the rewrite's metavariables that the pattern does not bind
	// as written ($Y, or $ARGS where the pattern has $$$ARGS): each is
	// replaced by nothing, as ast-grep replaces it.
	Unbound []string
}

// Rewrite runs q and computes the replacement of every match by the rewrite
// template. Of overlapping matches the outermost wins. Files are not written.
func (s *Searcher) Rewrite(ctx context.Context, q Query, rewrite string) (*Plan, error) {
	tmpl := &template{src: rewrite}
	res, jobs, err := s.run(ctx, q, tmpl)
	if err != nil {
		return nil, err
	}
	p := &Plan{Result: res, Rewrite: rewrite, Unbound: unbound(rewrite, res.Pattern)}
	for _, j := range jobs {
		if len(j.edits) == 0 {
			continue
		}
		p.Edits += len(j.edits)
		nw := apply(j.src, j.edits)
		if bytes.Equal(nw, j.src) {
			continue
		}
		p.Changes = append(p.Changes, FileChange{Path: j.path, Old: j.src, New: nw, Replacements: len(j.edits)})
		p.Replacements += len(j.edits)
	}
	return p, nil
}
