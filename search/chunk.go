package search

import (
	"bytes"
	"slices"

	"github.com/tetherhq/tether/matcher"
)

// Chunked parsing. Parsing in wasm costs several times a native parse, and
// the token prefilter only rules out whole files. For languages whose files
// are a sequence of independent top-level declarations, a file is cut at
// declaration boundaries and only the chunks that contain every required
// token are parsed: a match lies inside one declaration, so it lies inside one
// chunk. Boundaries are found by a small lexer that knows the language's
// comments, strings and brackets, so a cut never falls inside a literal, a
// comment or an open bracket; and a chunk whose parse has an error makes the
// whole file parse instead, so a cut can cost time but never a match.

// splitter returns where the chunks of src start (the first at 0), or nil
// when the file should be parsed whole; members says whether the pattern's
// matches lie inside one class member, so that a class's members may be
// chunks of their own (member cuts, parsed wrapped in a class).
type splitter func(src []byte, members bool) []cut

// cut is where a chunk starts; a member chunk holds class members, parsed
// between memberPrefix and memberSuffix.
type cut struct {
	at     int
	member bool
}

// splitGoCuts is splitGo as a splitter: Go has no class members.
func splitGoCuts(src []byte, _ bool) []cut {
	starts := splitGo(src)
	if starts == nil {
		return nil
	}
	cuts := make([]cut, len(starts))
	for i, s := range starts {
		cuts[i] = cut{at: s}
	}
	return cuts
}

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
var splitters = map[string]splitter{"go": splitGoCuts, "typescript": splitJS, "javascript": splitJSWithoutJSX, "python": splitPython}

// memberWraps are, by language, the text before and after a run of class
// members that makes it a class of its own, each ending or starting a line.
var memberWraps = map[string][2]string{
	"typescript": {memberPrefix, memberSuffix},
	"javascript": {memberPrefix, memberSuffix},
	"python":     {pyMemberPrefix, ""},
}

// memberContainers are, by language, the node kinds whose matches hold
// several class members: a pattern whose root is one is not matched in
// member chunks.
var memberContainers = map[string][]string{
	"typescript": {"class_declaration", "abstract_class_declaration", "class", "class_body", "export_statement", "ambient_declaration"},
	"javascript": {"class_declaration", "class", "class_body", "export_statement"},
	"python":     {"class_definition", "decorated_definition", "block"},
}

// membersOK reports whether the matches of p lie inside one class member
// of lang: its readings' roots are of known kinds, none a container.
func membersOK(lang string, p *matcher.Pattern) bool {
	cs, ok := memberContainers[lang]
	if !ok {
		return false
	}
	kinds, all := p.RootKinds()
	if !all {
		return false
	}
	for _, k := range kinds {
		if slices.Contains(cs, k) {
			return false
		}
	}
	return true
}
