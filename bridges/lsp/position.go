package lsp

import "fmt"
import "net/url"
import "path/filepath"
import "strconv"
import "strings"
import "unicode"
import "unicode/utf16"
import "unicode/utf8"

// Position names a place in a file the way an agent can without guessing a
// column: a 1-based line and a substring of that line naming the symbol.
// "name#2" picks the second occurrence of "name" on the line.
type Position struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Symbol string `json:"symbol"`
}

// resolveSymbol finds symbol on line (1-based) of text and returns the 0-based
// line and the byte column where the symbol's first identifier starts.
func resolveSymbol(text []byte, line int, symbol, file string) (int, int, error) {
	starts := lineStarts(text)
	n := len(starts)
	if len(text) > 0 && text[len(text)-1] == '\n' {
		n-- // a trailing newline does not start a line
	}
	if line < 1 || line > n {
		return 0, 0, fmt.Errorf("lsp: line %d is outside %s (%d lines); lines are 1-based", line, file, n)
	}
	lt := lineText(text, starts, line-1)
	if symbol == "" {
		return 0, 0, fmt.Errorf("lsp: symbol is required: pass a substring of line %d naming what you mean; line %d of %s is: %s", line, line, file, quoteLine(lt))
	}
	want, nth := symbol, 0
	if i := strings.LastIndexByte(symbol, '#'); i > 0 && !strings.Contains(lt, symbol) {
		if k, err := strconv.Atoi(symbol[i+1:]); err == nil {
			if k < 1 {
				return 0, 0, fmt.Errorf("lsp: %q: occurrences are counted from 1 (%s#1 is the first on the line); the line is: %s", symbol, symbol[:i], quoteLine(lt))
			}
			want, nth = symbol[:i], k
		}
	}
	var occ []int
	valid := utf8.ValidString(lt)
	for off := 0; ; {
		i := strings.Index(lt[off:], want)
		if i < 0 {
			break
		}
		o := off + i
		off = o + 1
		// In a line of valid UTF-8 an occurrence must start and end on a
		// character boundary: a symbol of stray bytes (or one cut mid-character)
		// must not land a position inside a character.
		if valid && (!utf8.RuneStart(lt[o]) || (o+len(want) < len(lt) && !utf8.RuneStart(lt[o+len(want)]))) {
			continue
		}
		occ = append(occ, o)
	}
	if len(occ) == 0 {
		return 0, 0, fmt.Errorf("lsp: %q is not on line %d of %s; that line is: %s", want, line, file, quoteLine(lt))
	}
	pick := -1
	switch {
	case nth > 0:
		if nth > len(occ) {
			return 0, 0, fmt.Errorf("lsp: %q occurs %d time(s) on line %d of %s, so %s does not exist; the line is: %s", want, len(occ), line, file, symbol, quoteLine(lt))
		}
		pick = occ[nth-1]
	case len(occ) == 1:
		pick = occ[0]
	default:
		var whole []int
		for _, o := range occ {
			if isWholeIdent(lt, o, len(want)) {
				whole = append(whole, o)
			}
		}
		if len(whole) == 1 {
			pick = whole[0]
		} else {
			var cands []string
			for k, o := range occ {
				cands = append(cands, fmt.Sprintf("%s#%d (column %d)", want, k+1, runeCol1(lt, o)))
			}
			return 0, 0, fmt.Errorf("lsp: %q occurs %d times on line %d of %s: %s; say which with one of: %s",
				want, len(occ), line, file, quoteLine(lt), strings.Join(cands, ", "))
		}
	}
	// Land on the first identifier character of the occurrence, or on the
	// last name of a qualified one (fmt.Println, s.Area, std::vector,
	// p->next): that is the symbol such a substring names.
	col := pick + lastQualified(want)
	if col == pick {
		for i, r := range lt[pick : pick+len(want)] {
			if isIdentRune(r) {
				col = pick + i
				break
			}
		}
	}
	return line - 1, col, nil
}

// lastQualified returns the byte offset of the last name in s when s is a
// qualified name (names joined by ".", "?.", "::" or "->", possibly followed
// by a call, an index or type arguments: s.Area(), m.items[0]), else 0.
func lastQualified(s string) int {
	last, names, i := 0, 0, 0
	for i < len(s) {
		start := i
		i = identEnd(s, i)
		if i == start {
			return 0
		}
		last, names = start, names+1
		if i == len(s) || strings.IndexByte("([<", s[i]) >= 0 {
			break // a call, index or type arguments after the name
		}
		sep := ""
		for _, p := range []string{"?.", "::", "->", "."} {
			if strings.HasPrefix(s[i:], p) {
				sep = p
				break
			}
		}
		if sep == "" || i+len(sep) == len(s) {
			return 0
		}
		i += len(sep)
	}
	if names < 2 {
		return 0
	}
	return last
}

func quoteLine(l string) string {
	const max = 200
	if len(l) > max {
		l = l[:max] + "..."
	}
	return "`" + strings.TrimSpace(l) + "`"
}

// identEnd returns the offset where the run of identifier characters that
// starts at i in s ends (i itself when there is none).
func identEnd(s string, i int) int {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !isIdentRune(r) {
			break
		}
		i += n
	}
	return i
}

func isIdentRune(r rune) bool {
	return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// isWholeIdent reports whether line[at:at+n] is not flanked by identifier characters.
func isWholeIdent(line string, at, n int) bool {
	if at > 0 {
		r, _ := utf8.DecodeLastRuneInString(line[:at])
		if isIdentRune(r) {
			return false
		}
	}
	if at+n < len(line) {
		r, _ := utf8.DecodeRuneInString(line[at+n:])
		if isIdentRune(r) {
			return false
		}
	}
	return true
}

// pathToURI turns an absolute path into a file:// URI.
func pathToURI(path string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
	return u.String()
}

// uriToPath turns a file:// URI into a path ("" when it is not a file URI).
func uriToPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	return filepath.FromSlash(u.Path)
}

// lineStarts returns the byte offset where each line of text begins.
func lineStarts(text []byte) []int {
	starts := []int{0}
	for i, b := range text {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// lineText returns line i (0-based) of text without its newline.
func lineText(text []byte, starts []int, i int) string {
	if i < 0 || i >= len(starts) {
		return ""
	}
	end := len(text)
	if i+1 < len(starts) {
		end = starts[i+1]
	}
	return strings.TrimRight(string(text[starts[i]:end]), "\r\n")
}

// utf16Col converts a byte offset within line into a UTF-16 code unit count.
func utf16Col(line string, byteCol int) int {
	n := 0
	for i, r := range line {
		if i >= byteCol {
			break
		}
		n += utf16.RuneLen(r)
	}
	return n
}

// byteCol converts a UTF-16 column within line into a byte offset (clamped).
func byteCol(line string, u16 int) int {
	n := 0
	for i, r := range line {
		if n >= u16 {
			return i
		}
		n += utf16.RuneLen(r)
	}
	return len(line)
}

// runeCol1 converts a byte offset within line into a 1-based character column.
func runeCol1(line string, b int) int {
	if b > len(line) {
		b = len(line)
	}
	return utf8.RuneCountInString(line[:b]) + 1
}

// offsetOf converts an LSP position into a byte offset in text (clamped).
func offsetOf(text []byte, starts []int, p wPosition, enc encoding) int {
	if p.Line >= len(starts) {
		return len(text)
	}
	if p.Line < 0 {
		return 0
	}
	l := lineText(text, starts, p.Line)
	return starts[p.Line] + enc.byteOf(l, p.Character)
}

// encoding is what a server's columns count (LSP 3.17 PositionEncodingKind).
type encoding int

const (
	encUTF16 encoding = iota // UTF-16 code units, the protocol's default
	encUTF8                  // bytes
	encUTF32                 // code points
)

func parseEncoding(s string) (encoding, bool) {
	switch strings.ToLower(s) {
	case "utf-16", "":
		return encUTF16, true
	case "utf-8":
		return encUTF8, true
	case "utf-32":
		return encUTF32, true
	}
	return encUTF16, false
}

// col converts a byte offset within line into a column counted in e.
func (e encoding) col(line string, b int) int {
	if b > len(line) {
		b = len(line)
	}
	switch e {
	case encUTF8:
		return b
	case encUTF32:
		return utf8.RuneCountInString(line[:b])
	}
	return utf16Col(line, b)
}

// byteOf converts a column counted in e within line into a byte offset
// (clamped, at the start of a character).
func (e encoding) byteOf(line string, c int) int {
	switch e {
	case encUTF8:
		if c <= 0 {
			return 0
		}
		if c >= len(line) {
			return len(line)
		}
		for c > 0 && !utf8.RuneStart(line[c]) {
			c--
		}
		return c
	case encUTF32:
		n := 0
		for i := range line {
			if n >= c {
				return i
			}
			n++
		}
		return len(line)
	}
	return byteCol(line, c)
}
