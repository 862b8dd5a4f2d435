package inject

import "bytes"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/grammars"

// fenceRegions lists markdown's fenced code blocks whose info string names a
// shipped language or alias (```go, ```py, ```ts), and that parsed without
// an error. Only fences at the top
// level (in the document and its sections) are regions: inside a block
// quote or a list item every line of the code carries the container's
// prefix ("> ", indentation), so the code is no contiguous text; such a
// fence is not searched.
func fenceRegions(t *engine.Tree) []Region {
	var out []Region
	t.Root().Walk(func(n engine.Node) bool {
		switch n.Kind() {
		case "document", "section":
			return true
		case "fenced_code_block":
			if n.HasError() {
				// an info string the grammar could not read: no language
				return false
			}
			lang, content := "", engine.Node{}
			for c, ok := n.FirstChild(); ok; c, ok = c.NextSibling() {
				switch c.Kind() {
				case "info_string":
					for i, ok := c.FirstChild(); ok; i, ok = i.NextSibling() {
						if i.Kind() == "language" {
							if l, ok := grammars.Lookup(i.Text()); ok {
								lang = l.ID
							}
							break
						}
					}
				case "code_fence_content":
					content = c
				}
			}
			if lang != "" && content.Valid() {
				out = append(out, regionOf(content, lang))
			}
		}
		return false
	})
	return out
}

// mayHoldFence says whether src has a code fence (``` or ~~~ at the start
// of a line, after any container prefix: spaces, "> ", list markers) whose
// info string holds a name of lang.
func mayHoldFence(src []byte, lang string) bool {
	seen := map[string]bool{}
	for i := 0; i < len(src); {
		k := bytes.IndexAny(src[i:], "`~")
		if k < 0 {
			return false
		}
		i += k
		c := src[i]
		j := i
		for j < len(src) && src[j] == c {
			j++
		}
		if j-i < 3 || !fenceStart(src, i) {
			i = j
			continue
		}
		// a language id or alias is letters, digits and _ + # -: every
		// such run of the rest of the line is looked up (the grammar may
		// find the language after punctuation, as in {go})
		eol := bytes.IndexByte(src[j:], '\n')
		if eol < 0 {
			eol = len(src) - j
		}
		for w := j; w < j+eol; {
			if !isNameByte(src[w]) {
				w++
				continue
			}
			start := w
			for w < j+eol && isNameByte(src[w]) {
				w++
			}
			if name := string(src[start:w]); !seen[name] {
				seen[name] = true
				if l, ok := grammars.Lookup(name); ok && l.ID == lang {
					return true
				}
			}
		}
		i = j + eol
	}
	return false
}

// isNameByte says whether c may be part of a language's id or alias.
func isNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '+' || c == '#' || c == '-'
}

// fenceStart says whether no letter precedes src[i] on its line: what may
// precede a fence is a container's prefix (spaces, "> ", list markers such
// as "-" or "1."), never text.
func fenceStart(src []byte, i int) bool {
	for k := i - 1; k >= 0 && src[k] != '\n' && src[k] != '\r'; k-- {
		if c := src[k] | 0x20; 'a' <= c && c <= 'z' {
			return false
		}
	}
	return true
}
