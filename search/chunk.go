package search

import "bytes"

// Chunked parsing. Parsing in wasm costs several times a native parse, and
// the token prefilter only rules out whole files. For languages whose files
// are a sequence of independent top-level declarations, a file is cut at
// declaration boundaries and only the chunks that contain every required
// token are parsed: a match lies inside one declaration, so it lies inside one
// chunk. Boundaries are found by a small lexer that knows the language's
// comments, strings and brackets, so a cut never falls inside a literal, a
// comment or an open bracket; and a chunk whose parse has an error makes the
// whole file parse instead, so a cut can cost time but never a match.

// splitter returns the byte offsets where chunks start (the first is 0), or
// nil when the file should be parsed whole.
type splitter func(src []byte) []int

// goDeclStarts are the keywords a Go top-level declaration starts with.
var goDeclStarts = [][]byte{[]byte("func "), []byte("func("), []byte("type "), []byte("var "), []byte("const ")}

// splitGo cuts Go source before every top-level func, type, var or const
// declaration at the start of a line, outside comments, literals and brackets.
func splitGo(src []byte) []int {
	starts := []int{0}
	depth := 0
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch c {
		case '/':
			if i+1 < len(src) && src[i+1] == '/' {
				j := bytes.IndexByte(src[i:], '\n')
				if j < 0 {
					return starts
				}
				i += j - 1 // the newline is handled below
				continue
			}
			if i+1 < len(src) && src[i+1] == '*' {
				j := bytes.Index(src[i+2:], []byte("*/"))
				if j < 0 {
					return nil
				}
				i += j + 3
				continue
			}
		case '"', '\'':
			j := i + 1
			for j < len(src) && src[j] != c {
				if src[j] == '\\' {
					j++
				} else if src[j] == '\n' {
					return nil // unterminated: leave the file whole
				}
				j++
			}
			if j >= len(src) {
				return nil
			}
			i = j
			continue
		case '`':
			j := bytes.IndexByte(src[i+1:], '`')
			if j < 0 {
				return nil
			}
			i += j + 1
			continue
		case '{', '(', '[':
			depth++
		case '}', ')', ']':
			depth--
			if depth < 0 {
				return nil
			}
		case '\n':
			if depth == 0 && i+1 < len(src) {
				rest := src[i+1:]
				for _, kw := range goDeclStarts {
					if bytes.HasPrefix(rest, kw) {
						if i+1 > starts[len(starts)-1] {
							starts = append(starts, i+1)
						}
						break
					}
				}
			}
		}
	}
	if depth != 0 {
		return nil
	}
	return starts
}

// splitters holds the languages that are parsed in chunks.
var splitters = map[string]splitter{"go": splitGo}
