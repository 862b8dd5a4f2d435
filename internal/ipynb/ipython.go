package ipynb

import "regexp"
import "strings"
import "sync"

// pythonBodyMagics are the cell magics whose body is Python run as the
// cell (%%time f() runs f()): only their first line is IPython.
var pythonBodyMagics = map[string]bool{
	"time": true, "timeit": true, "capture": true, "prun": true, "debug": true,
	"memit": true, "mprun": true, "px": true, "autopx": true,
}

// helpLine matches IPython's help idioms: ?obj, ??obj, obj?, obj??.
var helpLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:\?{1,2}[A-Za-z_][\w.]*|[A-Za-z_][\w.]*\?{1,2})\s*$`)
})

// escapedValue matches an assignment from IPython syntax (x = !ls,
// a, b = %sx cmd): group 1 is what comes before the '!' or '%'.
var escapedValue = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*)[!%]`)
})

// LineKind is what one line of a code cell is to a Python parser.
type LineKind uint8

const (
	// PythonLine is Python (also a line inside brackets, a string or a
	// continuation, whatever it starts with).
	PythonLine LineKind = iota
	// CellMagicLine is a cell magic's line (%%bash), or any line of a
	// cell whose magic's body is not Python.
	CellMagicLine
	// MagicLine is a line magic, shell escape or help line (%cd x,
	// !pip install y, obj?).
	MagicLine
	// AssignedLine is an assignment from IPython syntax (x = !ls): its
	// value, from the line's byte ValueAt on, is IPython.
	AssignedLine
)

// IPythonLine is one line's kind; ValueAt is set for an AssignedLine.
type IPythonLine struct {
	Kind    LineKind
	ValueAt int
}

// ClassifyIPython says which lines of a code cell (lines as
// strings.SplitAfter(src, "\n") gives them) are IPython syntax: only a
// line that starts a logical line can be.
func ClassifyIPython(lines []string) []IPythonLine {
	out := make([]IPythonLine, len(lines))
	first := 0
	for first < len(lines) && strings.TrimSpace(lines[first]) == "" {
		first++
	}
	start := 0
	if first < len(lines) && strings.HasPrefix(lines[first], "%%") {
		name, _, _ := strings.Cut(strings.TrimSpace(lines[first][2:]), " ")
		to := first + 1
		if !pythonBodyMagics[name] {
			to = len(lines)
		}
		for i := first; i < to; i++ {
			out[i].Kind = CellMagicLine
		}
		start = to
	}
	var sc LineScanner
	for i := start; i < len(lines); i++ {
		line := strings.TrimSuffix(lines[i], "\n")
		if !sc.AtLogicalStart() {
			sc.Scan(line)
			continue
		}
		trimmed := strings.TrimLeft(line, " \t")
		at := len(line) - len(trimmed)
		switch {
		case strings.HasPrefix(trimmed, "!") || strings.HasPrefix(trimmed, "%") || helpLine().MatchString(trimmed):
			out[i].Kind = MagicLine
		default:
			if m := escapedValue().FindStringSubmatch(trimmed); m != nil {
				out[i] = IPythonLine{Kind: AssignedLine, ValueAt: at + len(m[1])}
				continue
			}
			sc.Scan(line)
		}
	}
	return out
}

// BlankIPython is a code cell's source with its IPython syntax blanked,
// so that a Python parser or checker reads the rest as plain Python:
// every line keeps its length (a byte offset in the result is the same
// byte in src). A cell magic's cell (%%bash) is blanked whole, but for
// those whose body is Python (%%time, %%timeit, %%capture, %%prun...),
// where only the magic's line is; a line magic, shell escape or help line
// (%cd x, !pip install y, obj?) becomes "..." (a statement, so that a
// block holding only it stays one) or blanks when shorter; the value of
// an assignment from one (x = !ls) becomes [] (IPython's value is a list
// of lines; the checker sees a list of unknowns), or [][0] for a magic's
// value when it fits (of a type unknown to a checker). Lines inside
// brackets, strings and continuations are Python's and kept.
func BlankIPython(src string) string {
	lines := strings.SplitAfter(src, "\n")
	for i, k := range ClassifyIPython(lines) {
		line := strings.TrimSuffix(lines[i], "\n")
		switch k.Kind {
		case CellMagicLine:
			lines[i] = blankRange(lines[i], 0, len(lines[i]), "")
		case MagicLine:
			at := len(line) - len(strings.TrimLeft(line, " \t"))
			lines[i] = blankRange(lines[i], at, len(line), "...")
		case AssignedLine:
			value := "[]"
			if line[k.ValueAt] == '%' {
				value = "[][0]"
			}
			lines[i] = blankRange(lines[i], k.ValueAt, len(line), value, "[]")
		}
	}
	return strings.Join(lines, "")
}

// blankRange is s with s[from:to] replaced by the first of fills that
// fits, padded with spaces to the same length (blanks when none fits);
// newlines are kept.
func blankRange(s string, from, to int, fills ...string) string {
	var b strings.Builder
	b.WriteString(s[:from])
	fill := ""
	for _, f := range fills {
		if len(f) <= to-from {
			fill = f
			break
		}
	}
	b.WriteString(fill)
	for i := from + len(fill); i < to; i++ {
		if s[i] == '\n' || s[i] == '\r' {
			b.WriteByte(s[i])
		} else {
			b.WriteByte(' ')
		}
	}
	b.WriteString(s[to:])
	return b.String()
}

// LineScanner tracks just enough of Python's lexical state across lines
// to know whether a line starts a new logical line: open brackets, an
// open triple-quoted string, a trailing backslash. The zero value is at
// the start of a cell.
type LineScanner struct {
	depth  int
	triple string // the open triple quote, or ""
	cont   bool
}

// AtLogicalStart reports whether the next line starts a logical line.
func (s *LineScanner) AtLogicalStart() bool { return s.depth == 0 && s.triple == "" && !s.cont }

// Scan reads one line (without its newline).
func (s *LineScanner) Scan(line string) {
	s.cont = false
	quote := "" // an open single-line string's quote
	for i := 0; i < len(line); i++ {
		c := line[i]
		if s.triple != "" {
			if c == '\\' {
				i++
				continue
			}
			if strings.HasPrefix(line[i:], s.triple) {
				i += 2
				s.triple = ""
			}
			continue
		}
		if quote != "" {
			if c == '\\' {
				i++
				continue
			}
			if string(c) == quote {
				quote = ""
			}
			continue
		}
		switch c {
		case '#':
			return
		case '\'', '"':
			q := string(c)
			if strings.HasPrefix(line[i:], q+q+q) {
				s.triple = q + q + q
				i += 2
			} else {
				quote = q
			}
		case '(', '[', '{':
			s.depth++
		case ')', ']', '}':
			if s.depth > 0 {
				s.depth--
			}
		case '\\':
			if i == len(line)-1 {
				s.cont = true
			}
		}
	}
	if quote != "" && strings.HasSuffix(line, "\\") {
		s.cont = true
	}
}
