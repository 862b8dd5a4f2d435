package search

import "errors"
import "fmt"
import "strings"

// Symbol edit actions (SymbolEdit.Action).
const (
	SymbolReplace      = "replace"
	SymbolInsertBefore = "insert_before"
	SymbolInsertAfter  = "insert_after"
	SymbolDelete       = "delete"
)

// SymbolEdit is one edit of a declaration.
type SymbolEdit struct {
	// Action is SymbolReplace, SymbolInsertBefore, SymbolInsertAfter or
	// SymbolDelete.
	Action string
	// Text is the new code (none for a delete), in any indentation: it is
	// indented as the declaration is (as its body is, for Body).
	Text string
	// Body replaces only the inside of the declaration's body.
	Body bool
}

// ErrNoBody is wrapped when a body edit names a declaration without one.
var ErrNoBody = errors.New("search: the symbol has no body")

// EditSymbol returns f's source with e made to d, one of f's declarations.
// A replace of the whole declaration replaces its doc comment and
// decorators too; an insert before goes before them; an insert after goes
// after its last line; both are indented as d and separated from it by
// as many blank lines as d is from its neighbours. A delete takes d's
// doc comment and decorators and one side's blank lines with it.
func (f *FileDecls) EditSymbol(d Declaration, e SymbolEdit) ([]byte, error) {
	src := f.Src
	if e.Action != SymbolDelete && strings.TrimSpace(e.Text) == "" {
		return nil, fmt.Errorf("search: %s needs the new code as text (for a delete, use the delete action)", e.Action)
	}
	if e.Body && e.Action != SymbolReplace {
		return nil, fmt.Errorf("search: body goes with replace, not %s", e.Action)
	}
	unit := indentUnit(src)
	var start, end int
	var with string
	switch e.Action {
	case SymbolReplace:
		if e.Body {
			return f.replaceBody(d, e.Text, unit)
		}
		start, end = d.Start, d.End
		with = reindent(e.Text, d.Indent) + "\n"
		if end == len(src) && (end == 0 || src[end-1] != '\n') {
			with = strings.TrimSuffix(with, "\n")
		}
		if ls := lineStart(src, start); ls != start {
			with = strings.TrimLeft(with, " \t") // it shares its first line
		}
	case SymbolInsertBefore:
		start, end = d.Start, d.Start
		with = reindent(e.Text, d.Indent) + "\n" + strings.Repeat("\n", f.separation(d))
		if lineStart(src, start) != start {
			with = strings.TrimLeft(with, " \t") + d.Indent
		}
	case SymbolInsertAfter:
		start, end = d.End, d.End
		with = strings.Repeat("\n", f.separation(d)) + reindent(e.Text, d.Indent) + "\n"
		if end > 0 && src[end-1] != '\n' {
			with = "\n" + with
		}
	case SymbolDelete:
		start, end = d.Start, d.End
		if lineStart(src, start) == start && (start == 0 || blankBefore(src, start) || opensBefore(src, start)) {
			// the blank lines after it go too, so that the separation
			// before it is what remains
			for end < len(src) && blankLineAt(src, end) {
				end = lineEnd(src, end) + 1
				if end > len(src) {
					end = len(src)
				}
			}
		}
	default:
		return nil, fmt.Errorf("search: unknown symbol edit %q: use replace, insert_before, insert_after or delete", e.Action)
	}
	out := make([]byte, 0, len(src)-(end-start)+len(with))
	out = append(out, src[:start]...)
	out = append(out, with...)
	return append(out, src[end:]...), nil
}

// replaceBody replaces the inside of d's body with text.
func (f *FileDecls) replaceBody(d Declaration, text, unit string) ([]byte, error) {
	src := f.Src
	if d.BodyStart < 0 {
		return nil, fmt.Errorf("%w: %s at line %d has none to replace; replace the whole declaration (body false)", ErrNoBody, d.PathString(), d.Line)
	}
	start, end := d.BodyStart, d.BodyEnd
	// the indentation of its body's first line of its own, if any
	inner := d.Indent + unit
	for at := start; at < end; at = lineEnd(src, at) + 1 {
		if !blankTo(src, at) {
			continue
		}
		line := string(src[at:min(lineEnd(src, at), end)])
		if t := strings.TrimLeft(line, " \t"); t != "" {
			inner = leadingSpace(src, at+len(line)-len(t))
			break
		}
	}
	var with string
	switch {
	case start > 0 && (src[start-1] == '{' || src[start-1] == '(') && blankTo(src, end):
		// the closing brace has a line of its own, which stays
		end = lineStart(src, end)
		with = "\n" + reindent(text, inner) + "\n"
	case start > 0 && (src[start-1] == '{' || src[start-1] == '('):
		with = "\n" + reindent(text, inner) + "\n" + d.Indent
	case blankTo(src, start):
		// a block on lines of its own (Python)
		start = lineStart(src, start)
		with = reindent(text, inner)
	default:
		// a block on the header's line: it moves to lines of its own
		with = "\n" + reindent(text, inner)
	}
	out := make([]byte, 0, len(src)-(end-start)+len(with))
	out = append(out, src[:start]...)
	out = append(out, with...)
	return append(out, src[end:]...), nil
}

// blankTo reports whether only whitespace precedes at on its line.
func blankTo(src []byte, at int) bool {
	return strings.TrimSpace(string(src[lineStart(src, at):at])) == ""
}

// blankLineAt reports whether the line starting at at is blank.
func blankLineAt(src []byte, at int) bool {
	return at < len(src) && strings.TrimSpace(string(src[at:lineEnd(src, at)])) == ""
}

// opensBefore reports whether the line before the one starting at at
// opens a block (ends in a brace, bracket or colon).
func opensBefore(src []byte, at int) bool {
	prev := strings.TrimRight(string(src[lineStart(src, at-1):at-1]), " \t")
	return prev != "" && strings.ContainsAny(prev[len(prev)-1:], "{([:")
}

// blankBefore reports whether the line before the one starting at at is
// blank.
func blankBefore(src []byte, at int) bool {
	if at == 0 {
		return false
	}
	return strings.TrimSpace(string(src[lineStart(src, at-1):at-1])) == ""
}

// separation is how many blank lines the file puts between d and its
// neighbours: those before it, else those after it, else one between
// top-level declarations and none between nested ones.
func (f *FileDecls) separation(d Declaration) int {
	src := f.Src
	if lineStart(src, d.Start) == d.Start && d.Start > 0 {
		n := 0
		for at := lineStart(src, d.Start-1); n < 3 && blankLineAt(src, at) && at > 0; at = lineStart(src, at-1) {
			n++
		}
		if n > 0 || f.neighbourBefore(d) {
			return n
		}
	}
	n := 0
	for at := d.End; n < 3 && blankLineAt(src, at); at = lineEnd(src, at) + 1 {
		n++
	}
	if n > 0 || d.End >= len(src) {
		if n == 0 && d.Parent < 0 {
			return 1
		}
		return n
	}
	if d.Parent < 0 {
		return 1
	}
	return 0
}

// neighbourBefore reports whether another declaration of d's parent ends
// on the line before d's.
func (f *FileDecls) neighbourBefore(d Declaration) bool {
	for _, o := range f.Decls {
		if o.Parent == d.Parent && o.End == d.Start {
			return true
		}
	}
	return false
}

// indentUnit is one level of src's indentation: a tab, or its smallest
// run of leading spaces (four when none is indented).
func indentUnit(src []byte) string {
	best := 0
	for at := 0; at < len(src); at = lineEnd(src, at) + 1 {
		sp := leadingSpace(src, lineEnd(src, at))
		if strings.TrimSpace(string(src[at:lineEnd(src, at)])) == "" || sp == "" {
			continue
		}
		if sp[0] == '\t' {
			return "\t"
		}
		if n := len(sp) - len(strings.TrimLeft(sp, " ")); n > 0 && (best == 0 || n < best) {
			best = n
		}
	}
	if best == 0 {
		best = 4
	}
	return strings.Repeat(" ", best)
}

// reindent strips text's common indentation and its blank first and last
// lines, and indents each line that is not blank with indent.
func reindent(text, indent string) string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	lines := strings.Split(strings.TrimRight(text, " \t\n"), "\n")
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	common := ""
	first := true
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		lead := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if first {
			common, first = lead, false
			continue
		}
		for !strings.HasPrefix(lead, common) {
			common = common[:len(common)-1]
		}
	}
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			lines[i] = ""
			continue
		}
		lines[i] = indent + strings.TrimPrefix(l, common)
	}
	return strings.Join(lines, "\n")
}
