package format

import "bufio"
import "bytes"
import "encoding/json"
import "fmt"
import "io"
import "os"
import "sort"
import "strconv"
import "strings"
import "unicode/utf8"

import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/internal/ipynb"
import "github.com/tetherhq/tether/search"

// Point is a zero-based line and character column, as ast-grep prints them.
type Point struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// Range is a range in ast-grep's JSON shape.
type Range struct {
	ByteOffset struct {
		Start int `json:"start"`
		End   int `json:"end"`
	} `json:"byteOffset"`
	Start Point `json:"start"`
	End   Point `json:"end"`
}

// Capture is one captured node in ast-grep's JSON shape.
type Capture struct {
	Text  string `json:"text"`
	Range Range  `json:"range"`
}

// Match is one match in the JSON shape `ast-grep run --json` prints, so
// tools written for ast-grep can read tether's output.
type Match struct {
	Text  string `json:"text"`
	Range Range  `json:"range"`
	File  string `json:"file"`
	// Cell is tether's: the Jupyter notebook cell of a match in a
	// notebook, whose Range is in the cell's source; absent elsewhere.
	Cell      *search.Cell `json:"cell,omitempty"`
	Lines     string       `json:"lines"`
	CharCount struct {
		Leading  int `json:"leading"`
		Trailing int `json:"trailing"`
	} `json:"charCount"`
	Replacement        *string `json:"replacement,omitempty"`
	ReplacementOffsets *struct {
		Start int `json:"start"`
		End   int `json:"end"`
	} `json:"replacementOffsets,omitempty"`
	Language string `json:"language"`
	// MetaVariables is absent when the match captured nothing, as in ast-grep.
	MetaVariables *MetaVariables `json:"metaVariables,omitempty"`
}

// MetaVariables are a match's captures in ast-grep's JSON shape.
type MetaVariables struct {
	Single      map[string]Capture   `json:"single"`
	Multi       map[string][]Capture `json:"multi"`
	Transformed map[string]string    `json:"transformed"`
}

// charCount counts the characters of a match's lines before the match on its
// first line and after it on its last, as ast-grep's "charCount".
func charCount(m search.Match) (leading, trailing int) {
	lines := m.Lines
	if c := m.Span.Start.Column - 1; c >= 0 && c <= len(lines) {
		leading = utf8.RuneCountInString(lines[:c])
	}
	last := lines[strings.LastIndexByte(lines, '\n')+1:]
	if c := m.Span.End.Column - 1; c >= 0 && c <= len(last) {
		trailing = utf8.RuneCountInString(last[c:])
	}
	return leading, trailing
}

// agPoint converts a search.Position to ast-grep's zero-based character position;
// lineOf returns a source line's text (nil: columns stay in bytes).
func agPoint(p search.Position, lineOf func(int) string) Point {
	col := p.Column - 1
	if lineOf != nil {
		if l := lineOf(p.Line); l != "" && p.Column-1 <= len(l) {
			col = utf8.RuneCountInString(l[:p.Column-1])
		}
	}
	return Point{Line: p.Line - 1, Column: col}
}

// JSON converts matches to ast-grep's JSON shape (with the replacement
// of each match a rewrite replaced).
func JSON(ms []search.Match) []Match {
	out := make([]Match, 0, len(ms))
	var c jsonConverter
	for _, m := range ms {
		out = append(out, c.convert(m))
	}
	return out
}

// jsonConverter converts matches one at a time, holding the lines of one
// file or notebook cell (the last match's): a search's matches come file
// by file, so each file is read once and let go when the next begins.
type jsonConverter struct {
	path  string
	cell  *search.Cell
	lines []string
}

func (c *jsonConverter) lineOf(path string, cell *search.Cell) func(int) string {
	if path != c.path || !sameCell(cell, c.cell) || c.lines == nil {
		c.path, c.cell, c.lines = path, cell, sourceLines(path, cell)
	}
	lines := c.lines
	return func(n int) string {
		if n-1 < len(lines) && n >= 1 {
			return lines[n-1]
		}
		return ""
	}
}

// sourceLines are the lines of the file at path, or of the source of its
// notebook cell; nil when it cannot be read.
func sourceLines(path string, cell *search.Cell) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	if cell == nil {
		return strings.Split(string(data), "\n")
	}
	nb, err := ipynb.Parse(data)
	if err != nil || cell.Index >= len(nb.Cells) {
		return nil
	}
	return strings.Split(nb.Cells[cell.Index].Source, "\n")
}

// sameCell reports whether a and b are the same notebook cell, or both
// nil.
func sameCell(a, b *search.Cell) bool {
	return a == b || a != nil && b != nil && *a == *b
}

// matchLines returns the text of a line of m's file (or notebook cell) by
// number: from m.Lines, which holds the lines m spans whole, for those (a
// capture's lie inside them); the file is read only for a line outside
// them, or when they were cut.
func (c *jsonConverter) matchLines(m search.Match) func(int) string {
	if m.Cut {
		return c.lineOf(m.Path, m.Cell)
	}
	var starts []int // where m.Lines' lines start, on first use
	var file func(int) string
	return func(n int) string {
		if starts == nil {
			starts = append(starts, 0)
			for i := 0; i < len(m.Lines); i++ {
				if m.Lines[i] == '\n' {
					starts = append(starts, i+1)
				}
			}
		}
		if k := n - m.Span.Start.Line; k >= 0 && k < len(starts) {
			end := len(m.Lines)
			if k+1 < len(starts) {
				end = starts[k+1] - 1
			}
			return m.Lines[starts[k]:end]
		}
		if file == nil {
			file = c.lineOf(m.Path, m.Cell)
		}
		return file(n)
	}
}

// rangeOf is span s of the file at path (of its notebook cell) in
// ast-grep's shape.
func (c *jsonConverter) rangeOf(path string, cell *search.Cell, s search.Span) Range {
	return spanRange(s, c.lineOf(path, cell))
}

// spanRange is span s in ast-grep's shape, its columns in characters of
// the lines lf returns.
func spanRange(s search.Span, lf func(int) string) Range {
	var r Range
	r.ByteOffset.Start, r.ByteOffset.End = s.StartByte, s.EndByte
	r.Start = agPoint(s.Start, lf)
	r.End = agPoint(s.End, lf)
	return r
}

func (c *jsonConverter) convert(m search.Match) Match {
	lf := c.matchLines(m)
	rng := func(s search.Span) Range { return spanRange(s, lf) }
	a := Match{Text: m.Text, Range: rng(m.Span), File: m.Path, Cell: m.Cell, Lines: m.Lines, Language: m.Language}
	if l, ok := grammars.Lookup(m.Language); ok {
		a.Language = l.AstGrep
	}
	a.CharCount.Leading, a.CharCount.Trailing = charCount(m)
	a.Replacement = m.Replacement
	if m.Replacement != nil {
		a.ReplacementOffsets = &struct {
			Start int `json:"start"`
			End   int `json:"end"`
		}{m.Span.StartByte, m.Span.EndByte}
	}
	if len(m.Bindings) > 0 {
		a.MetaVariables = &MetaVariables{
			Single: map[string]Capture{}, Multi: map[string][]Capture{}, Transformed: map[string]string{},
		}
	}
	for _, b := range m.Bindings {
		if b.Multi {
			caps := []Capture{}
			for _, p := range b.Parts {
				caps = append(caps, Capture{Text: p.Text, Range: rng(p.Span)})
			}
			a.MetaVariables.Multi[b.Name] = caps
			continue
		}
		a.MetaVariables.Single[b.Name] = Capture{Text: b.Text, Range: rng(b.Span)}
	}
	return a
}

// WriteJSONStyle writes matches byte for byte as ast-grep 0.51.1
// prints them with --json=STYLE: "pretty" (an array whose objects start at
// the margin, indented by two spaces), "compact" (the array on one line) or
// "stream" (one object a line). Strings are escaped as serde_json escapes
// them: "<", ">", "&", U+2028 and U+2029 stay as they are. (ast-grep prints
// the captures of a match in hash order, which varies from run to run;
// ours are sorted by name.) Matches are converted and written one at a time
// (through a buffer), so the output is never held whole, however many
// there are.
func WriteJSONStyle(w io.Writer, ms []search.Match, style string) error {
	return writeJSONStyle(w, ms, style, (*jsonConverter).convert)
}

// writeJSONStyle writes items in ast-grep's JSON style (see WriteJSONStyle),
// each converted by convert with one converter for them all.
func writeJSONStyle[T, J any](w io.Writer, items []T, style string, convert func(*jsonConverter, T) J) error {
	jw, err := newJSONWriter(w, style, convert)
	if err != nil {
		return err
	}
	if err := jw.write(items); err != nil {
		return err
	}
	return jw.close()
}

// JSONWriter writes matches as WriteJSONStyle does, a batch at a time (such
// as each file's, from search.Query.OnMatches), so that a search's matches
// need not be held together to be printed as one array.
type JSONWriter struct {
	jw *jsonWriter[search.Match, Match]
}

// NewJSONWriter returns a writer of matches to w in style (pretty, compact
// or stream, as WriteJSONStyle's); Close ends the output.
func NewJSONWriter(w io.Writer, style string) (*JSONWriter, error) {
	jw, err := newJSONWriter(w, style, (*jsonConverter).convert)
	if err != nil {
		return nil, err
	}
	return &JSONWriter{jw}, nil
}

// Write writes ms after the matches written before.
func (j *JSONWriter) Write(ms []search.Match) error { return j.jw.write(ms) }

// Close ends the output (an empty array when no match was written, nothing
// in the stream style) and flushes it.
func (j *JSONWriter) Close() error { return j.jw.close() }

// jsonWriter writes items in ast-grep's JSON style a batch at a time, each
// converted by convert with one converter for them all, through a buffer.
type jsonWriter[T, J any] struct {
	bw             *bufio.Writer
	style          string
	open, sep, end string
	pretty         bool
	n              int // items written
	b              bytes.Buffer
	c              jsonConverter
	convert        func(*jsonConverter, T) J
}

func newJSONWriter[T, J any](w io.Writer, style string, convert func(*jsonConverter, T) J) (*jsonWriter[T, J], error) {
	j := &jsonWriter[T, J]{bw: bufio.NewWriterSize(w, 64<<10), style: style, convert: convert}
	switch style {
	case "pretty":
		j.open, j.sep, j.end, j.pretty = "[\n", ",\n", "\n]\n", true
	case "compact":
		j.open, j.sep, j.end = "[", ",", "]\n"
	case "stream":
		j.sep, j.end = "\n", "\n"
	default:
		return nil, fmt.Errorf("format: JSON style %q: use pretty, compact or stream", style)
	}
	return j, nil
}

func (j *jsonWriter[T, J]) write(items []T) error {
	for _, it := range items {
		if j.n == 0 {
			j.b.WriteString(j.open)
		} else {
			j.b.WriteString(j.sep)
		}
		j.n++
		if err := encodeJSON(&j.b, j.convert(&j.c, it), j.pretty); err != nil {
			return err
		}
		if _, err := j.bw.Write(j.b.Bytes()); err != nil {
			return err
		}
		j.b.Reset()
	}
	return nil
}

// close ends the output: an empty array when nothing was written, nothing
// in the stream style.
func (j *jsonWriter[T, J]) close() error {
	switch {
	case j.n > 0:
		j.bw.WriteString(j.end)
	case j.style != "stream":
		j.bw.WriteString("[]\n")
	}
	return j.bw.Flush()
}

// encodeJSON appends v's JSON to b (indented by two spaces when pretty)
// without a trailing newline, escaping strings as serde_json does.
func encodeJSON(b *bytes.Buffer, v any, pretty bool) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if pretty {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		return err
	}
	out := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	// encoding/json always escapes U+2028 and U+2029; serde_json does not.
	// An escape is one only after an even run of backslashes.
	for len(out) > 0 {
		i := bytes.Index(out, []byte(`\u202`))
		if i < 0 || i+5 >= len(out) {
			break
		}
		n := 0
		for j := i - 1; j >= 0 && out[j] == '\\'; j-- {
			n++
		}
		if c := out[i+5]; n%2 == 0 && (c == '8' || c == '9') {
			b.Write(out[:i])
			b.WriteRune(rune(0x2020 + int(c-'0')))
			out = out[i+6:]
			continue
		}
		b.Write(out[:i+5])
		out = out[i+5:]
	}
	b.Write(out)
	return nil
}

// ANSI colours.
const (
	colMatch = "\x1b[1;31m"
	colReset = "\x1b[0m"
)

// HumanOptions shape WriteHumanOpts' output, as ast-grep's flags of the same
// names do.
type HumanOptions struct {
	// Before and After are lines of context around each match (-B, -A, -C);
	// groups of lines that do not touch are separated by a "--" line.
	Before, After int
	// Color highlights the matched text (bold red).
	Color bool
	// Heading prints each file's name once, above its lines, each line then
	// as "N│text", and a blank line after the file (--heading).
	Heading bool
}

// WriteHumanOpts writes matches as ast-grep prints them when its output is
// not a terminal: every line a match spans, and the context lines asked
// for, as "file:line:text", each once (a match in a notebook's cell as
// "nb.ipynb[cell 3 id=a1b2]:line:text", the cell's source lines); with
// Color the matched text highlighted (file and line plain, as ast-grep
// prints them).
// Each file's lines are written as they are made (through a buffer), so
// the output is never held whole.
func WriteHumanOpts(w io.Writer, ms []search.Match, o HumanOptions) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var b strings.Builder
	for i := 0; i < len(ms); {
		j := i
		for j < len(ms) && ms[j].Path == ms[i].Path && sameCell(ms[j].Cell, ms[i].Cell) {
			j++
		}
		writeFileLines(&b, ms[i:j], o)
		if _, err := bw.WriteString(b.String()); err != nil {
			return err
		}
		b.Reset()
		i = j
	}
	return bw.Flush()
}

// writeFileLines writes the lines of ms, the matches of one file or of
// one notebook cell, which is named as search.Where names it.
func writeFileLines(b *strings.Builder, ms []search.Match, o HumanOptions) {
	path := search.Where(ms[0].Path, ms[0].Cell)
	lines := sourceLines(ms[0].Path, ms[0].Cell)
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	fromMatches := lines == nil
	type seg struct{ a, b int }
	hl := map[int][]seg{}
	type span struct{ from, to int }
	var groups []span
	for _, m := range ms {
		first, last := m.Span.Start.Line, m.Span.End.Line
		if last > first && m.Span.End.Column == 1 {
			last-- // the match ends with its line's newline
		}
		if fromMatches {
			// the file is gone: what the match recorded
			for k, l := range strings.Split(m.Lines, "\n") {
				for len(lines) < first+k {
					lines = append(lines, "")
				}
				lines[first+k-1] = l
			}
		}
		for ln := first; ln <= last && ln <= len(lines); ln++ {
			a, e := 0, len(lines[ln-1])
			if ln == first {
				a = m.Span.Start.Column - 1
			}
			if ln == m.Span.End.Line {
				e = m.Span.End.Column - 1
			}
			if a < e && e <= len(lines[ln-1]) {
				hl[ln] = append(hl[ln], seg{a, e})
			}
		}
		groups = append(groups, span{max(1, first-o.Before), min(len(lines), last+o.After)})
	}
	// blocks of lines: groups that overlap or touch are one, each line shown
	// once (ast-grep sometimes shows context lines that reach back into
	// the previous match's lines twice)
	type blk struct {
		from, to int
		sep      bool
	}
	var blocks []blk
	for _, g := range groups {
		if n := len(blocks); n > 0 && g.from <= blocks[n-1].to+1 {
			blocks[n-1].to = max(blocks[n-1].to, g.to)
			continue
		}
		blocks = append(blocks, blk{g.from, g.to, len(blocks) > 0})
	}
	if o.Heading {
		b.WriteString(path + "\n")
	}
	prevWidth := 0
	for _, g := range blocks {
		width := len(strconv.Itoa(g.to + 1))
		if g.sep && o.Before+o.After > 0 {
			if o.Heading {
				// as wide as the block before's numbers
				b.WriteString(strings.Repeat("╴", prevWidth) + "┤\n")
			} else {
				b.WriteString("--\n")
			}
		}
		prevWidth = width
		for ln := g.from; ln <= g.to; ln++ {
			text := lines[ln-1]
			if o.Color && len(hl[ln]) > 0 {
				segs := hl[ln]
				sort.Slice(segs, func(x, y int) bool { return segs[x].a < segs[y].a })
				var t strings.Builder
				at := 0
				for _, s := range segs {
					if s.a < at {
						s.a = at // nested in an earlier one: highlighted already
					}
					if s.a >= s.b {
						continue
					}
					t.WriteString(text[at:s.a] + colMatch + text[s.a:s.b] + colReset)
					at = s.b
				}
				text = t.String() + text[at:]
			}
			if o.Heading {
				// numbers are as wide as the one after the block's last
				// line, as ast-grep pads them
				fmt.Fprintf(b, "%-*d│%s\n", width, ln, text)
			} else {
				fmt.Fprintf(b, "%s:%d:%s\n", path, ln, text)
			}
		}
	}
	if o.Heading {
		b.WriteString("\n")
	}
}
