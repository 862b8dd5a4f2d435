package js

import "regexp"
import "sort"
import "strconv"
import "strings"
import "sync"

import "github.com/tetherhq/tether/kernels"

// Errors as node words them. goja's TypeErrors say the same things in other
// words ("Cannot read property 'x' of undefined", "Value is not an object:
// undefined", "Object has no member 'm'"); an agent that knows node's
// messages, or searches for them, should meet those. Where node's message
// names source text (the callee of a failed call), it is read from the cell at
// the error's position. And a cell compiled from edited source (top-level
// await, REPL declarations) reports its positions in the code as written.

// cellSource is what a cell was compiled from: the edited text goja saw, and
// how to map a position in it back to the cell as written.
type cellSource struct {
	code     string // the cell as written
	compiled string // what goja compiled
	prefix   int    // bytes before the cell's text in the edited base (the await wrapper)
	edits    []edit // the edits, in the base's coordinates, in text order
}

// newCellSource records the edits (in any order) that turned base into
// compiled; code starts at prefix in base.
func newCellSource(code, compiled string, prefix int, edits []edit) *cellSource {
	es := append([]edit(nil), edits...)
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].at != es[j].at {
			return es[i].at < es[j].at
		}
		return es[i].seq < es[j].seq
	})
	return &cellSource{code: code, compiled: compiled, prefix: prefix, edits: es}
}

// offset returns the byte offset of a 1-based line and column in text, or -1.
func offset(text string, line, col int) int {
	if line < 1 || col < 1 {
		return -1
	}
	at := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(text[at:], '\n')
		if i < 0 {
			return -1
		}
		at += i + 1
	}
	if at+col-1 > len(text) {
		return -1
	}
	return at + col - 1
}

// original maps a 1-based line and column in the compiled text to the cell as
// written; ok is false when the position is not in the cell.
func (c *cellSource) original(line, col int) (int, int, bool) {
	off := offset(c.compiled, line, col)
	if off < 0 {
		return 0, 0, false
	}
	shift := 0
	base := -1
	for _, e := range c.edits {
		start := e.at + shift
		if off < start {
			break
		}
		if off < start+len(e.with) {
			base = e.at // inside inserted text: the spot it was inserted at
			break
		}
		shift += len(e.with) - e.n
	}
	if base < 0 {
		base = off - shift
	}
	o := min(max(base-c.prefix, 0), len(c.code))
	l := 1 + strings.Count(c.code[:o], "\n")
	return l, o - strings.LastIndexByte(c.code[:o], '\n'), true
}

// frameRe matches a cell position in a goja stack text, with goja's program
// counter after it: "cell-3:2:5(12)".
var frameRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(cell-\d+):(\d+):(\d+)(?:\(\d+\))?`) })

// fixStack rewrites every cell position in a goja stack text to the cell as
// written and drops goja's program counters, so frames read as node's do
// ("at f (cell-3:2:5)").
func (s *session) fixStack(st string) string {
	return frameRe().ReplaceAllStringFunc(st, func(m string) string {
		g := frameRe().FindStringSubmatch(m)
		line, _ := strconv.Atoi(g[2])
		col, _ := strconv.Atoi(g[3])
		if c := s.sources[g[1]]; c != nil {
			if l, cc, ok := c.original(line, col); ok {
				line, col = l, cc
			}
		}
		return g[1] + ":" + strconv.Itoa(line) + ":" + strconv.Itoa(col)
	})
}

// stackFrame is one "at ..." line of a goja stack text.
type stackFrame struct {
	fn        string // the function's name, "" when anonymous
	src       string // "cell-3", or another source
	line, col int
}

var frameLineRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*at (?:(\S+) \()?([^():]+):(\d+):(\d+)`) })

func parseFrames(st string) []stackFrame {
	var out []stackFrame
	for _, l := range strings.Split(st, "\n") {
		g := frameLineRe().FindStringSubmatch(l)
		if g == nil {
			if strings.HasPrefix(strings.TrimSpace(l), "at ") {
				out = append(out, stackFrame{src: "?"})
			}
			continue
		}
		line, _ := strconv.Atoi(g[3])
		col, _ := strconv.Atoi(g[4])
		out = append(out, stackFrame{fn: g[1], src: g[2], line: line, col: col})
	}
	return out
}

var (
	readRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^Cannot read property '(.*)' of undefined(?: or null)?$`)
	})
	notObjRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Value is not an object: (.*)$`) })
	memberRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Object has no member '(.*)'$`) })
)

const convertMsg = "Cannot convert undefined or null to object"

// nodeMessage returns node's wording of a goja TypeError message, given the
// error's stack text (positions still as goja reports them), or msg unchanged.
func (s *session) nodeMessage(msg, stack string) string {
	frames := parseFrames(stack)
	var src string
	p := -1
	async := false
	if len(frames) > 0 {
		if c := s.sources[frames[0].src]; c != nil {
			async = c.prefix > 0
			src = c.compiled
			p = offset(src, frames[0].line, frames[0].col)
			if p >= len(src) {
				p = -1
			}
		}
	}
	// topLevel: the error is in the cell's own top-level code, where a name
	// means the global binding the kernel can look at again.
	topLevel := len(frames) > 0 && frames[0].fn == "" &&
		(len(frames) == 1 || async && len(frames) == 2 && frames[1].fn == "" && frames[1].src == frames[0].src)
	nullish := func(objEnd int) string {
		if p < 0 {
			return "undefined"
		}
		return s.nullish(src, objEnd, topLevel)
	}
	if g := readRe().FindStringSubmatch(msg); g != nil {
		prop, kind := g[1], "undefined"
		switch {
		case p < 0:
		case src[p] == '[':
			kind = nullish(p)
		case strings.HasPrefix(src[p:], prop) && p > 0 && src[p-1] == '.':
			kind = nullish(p - 1)
		}
		return "Cannot read properties of " + kind + " (reading '" + prop + "')"
	}
	if p < 0 {
		return msg
	}
	switch {
	case msg == convertMsg:
		// An assignment to a property of undefined or null.
		if prop, end := identAt(src, p); prop != "" && p > 0 && src[p-1] == '.' && isAssign(src[end:]) {
			return "Cannot set properties of " + nullish(p-1) + " (setting '" + prop + "')"
		}
		if src[p] == '[' {
			if key, end := literalKey(src, p); end > 0 && isAssign(src[end:]) {
				return "Cannot set properties of " + nullish(p) + " (setting '" + key + "')"
			}
		}
		// for (const x of v) over undefined or null.
		if path := identPath(src, p); path != "" && strings.HasSuffix(strings.TrimRight(src[:p], " \t"), " of") {
			return path + " is not iterable"
		}
	case notObjRe().MatchString(msg) || memberRe().MatchString(msg):
		if src[p] == '(' || src[p] == '`' {
			if callee := calleeBefore(src, p); callee != "" {
				return callee + " is not a function"
			}
			if g := notObjRe().FindStringSubmatch(msg); g != nil {
				return g[1] + " is not a function"
			}
		}
		if strings.HasPrefix(src[p:], "new ") {
			if path := identPath(src, p+4+len(src[p+4:])-len(strings.TrimLeft(src[p+4:], " \t"))); path != "" {
				return path + " is not a constructor"
			}
		}
	}
	return msg
}

// nullish says whether the expression ending at objEnd (exclusive) was null
// or undefined: a literal null says null; a dotted name in top-level code is
// looked up again (data properties only: no getter runs); else undefined,
// the likelier.
func (s *session) nullish(src string, objEnd int, topLevel bool) string {
	i := objEnd
	for i > 0 && (isIdentByte(src[i-1]) || src[i-1] == '.') {
		i--
	}
	path := src[i:objEnd]
	if i > 0 && (src[i-1] == ')' || src[i-1] == ']' || src[i-1] == '?') {
		return "undefined"
	}
	if path == "null" {
		return "null"
	}
	parts := strings.Split(path, ".")
	if !topLevel || path == "" {
		return "undefined"
	}
	for _, part := range parts {
		if part == "" || !isIdent(part) || part[0] >= '0' && part[0] <= '9' {
			return "undefined"
		}
	}
	keys := make([]string, 0, len(parts)-1)
	for _, k := range parts[1:] {
		keys = append(keys, strconv.Quote(k))
	}
	probe := `(function () { try { return (function (r, p) {
  for (const k of p) {
    if (r === null || r === undefined) return "?";
    let o = Object(r), d;
    while (o && !(d = Object.getOwnPropertyDescriptor(o, k))) o = Object.getPrototypeOf(o);
    if (!d || !("value" in d)) return "?";
    r = d.value;
  }
  return r === null ? "null" : "?";
})(` + parts[0] + `, [` + strings.Join(keys, ", ") + `]) } catch (e) { return "?" } })()`
	v, err := s.vm.RunString(probe)
	if err == nil && v.String() == "null" {
		return "null"
	}
	return "undefined"
}

// identAt returns the identifier starting at p and where it ends.
func identAt(src string, p int) (string, int) {
	e := p
	for e < len(src) && isIdentByte(src[e]) {
		e++
	}
	if e == p || src[p] >= '0' && src[p] <= '9' {
		return "", p
	}
	return src[p:e], e
}

// identPath returns the dotted name starting at p ("a.b.c"), or "".
func identPath(src string, p int) string {
	e := p
	for e < len(src) && (isIdentByte(src[e]) || src[e] == '.') {
		e++
	}
	path := strings.TrimRight(src[p:e], ".")
	if path == "" || src[p] >= '0' && src[p] <= '9' {
		return ""
	}
	return path
}

// isAssign reports whether rest starts (after blanks) with a plain =.
func isAssign(rest string) bool {
	rest = strings.TrimLeft(rest, " \t")
	return strings.HasPrefix(rest, "=") && !strings.HasPrefix(rest, "==") && !strings.HasPrefix(rest, "=>")
}

// literalKey reads ['key'], ["key"] or [12] at p; end is past the ']', or 0.
func literalKey(src string, p int) (string, int) {
	close := strings.IndexByte(src[p:], ']')
	if close < 0 {
		return "", 0
	}
	in := strings.TrimSpace(src[p+1 : p+close])
	if len(in) >= 2 && (in[0] == '\'' || in[0] == '"') && in[len(in)-1] == in[0] && !strings.ContainsAny(in[1:len(in)-1], `'"\`) {
		return in[1 : len(in)-1], p + close + 1
	}
	if _, err := strconv.Atoi(in); err == nil {
		return in, p + close + 1
	}
	return "", 0
}

// calleeBefore returns the callee's source text ending at p (a name, a
// member chain, indexing with brackets), as node names it in "... is not a
// function", or "" when it is something else (a call's result).
func calleeBefore(src string, p int) string {
	i := p
	for i > 0 {
		c := src[i-1]
		switch {
		case isIdentByte(c) || c == '.':
			i--
		case c == '?' && i < len(src) && src[i] == '.':
			i--
		case c == ']':
			depth := 0
			j := i - 1
			for ; j >= 0; j-- {
				if src[j] == ']' {
					depth++
				} else if src[j] == '[' {
					depth--
					if depth == 0 {
						break
					}
				} else if src[j] == '\n' {
					return ""
				}
			}
			if j < 0 {
				return ""
			}
			i = j
		default:
			goto done
		}
	}
done:
	callee := src[i:p]
	if callee == "" || !(isIdentByte(callee[0]) || callee[0] == '$') || callee[0] >= '0' && callee[0] <= '9' {
		return ""
	}
	return callee
}

// nodeError words a TypeError as node does, in its message and in the first
// line of its traceback.
func (s *session) nodeError(e *kernels.Error) {
	msg := s.nodeMessage(e.Message, e.Traceback)
	if msg == e.Message {
		return
	}
	e.Traceback = strings.Replace(e.Traceback, "TypeError: "+e.Message, "TypeError: "+msg, 1)
	e.Message = msg
}
