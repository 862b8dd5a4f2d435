package search

import "bytes"
import "slices"

// TypeScript and JavaScript in chunks. A file is cut before each top-level
// statement at column 0 that starts a declaration (export, import,
// function, class, const, ...), and, where the pattern's matches lie
// inside one class member (membersOK), a top-level class's body is cut
// before each of its members: a run of members is parsed wrapped in a
// class of its own (memberPrefix, memberSuffix), which reads a member as
// its class does. The lexer knows strings, template literals and their ${}
// holes, regular expressions, comments and brackets. A cut it gets wrong
// leaves a chunk that does not parse, and the file is then parsed whole
// (chunk.go); but a wrong cut between two chunks that each lack a token of
// a match would hide it, so cuts are made only where the code before may
// have ended (ended: never after a decorator's line or its call's
// parenthesis) and the line does not go on with it (jsGoesOn). A
// JavaScript file may hold JSX, whose text the lexer cannot read: one
// that holds a closing tag ("</", which a fragment's end is too) or a
// self-closing one ("/>"), without which no JSX element is written, is
// parsed whole.

// memberPrefix and memberSuffix wrap a run of class members: a line of
// its own each, so that the members keep their lines and columns.
const (
	memberPrefix = "class _ {\n"
	memberSuffix = "\n}"
)

// jsStarts are the words a top-level declaration starts with.
var jsStarts = []string{"export", "import", "function", "class", "const", "var", "let", "async", "interface",
	"type", "enum", "declare", "namespace", "abstract", "module"}

// jsGoesOn are the words that, starting a line, may go on with the
// expression the line before ended.
var jsGoesOn = map[string]bool{"in": true, "instanceof": true, "as": true, "satisfies": true, "of": true,
	"extends": true, "implements": true, "is": true, "keyof": true}

// ended reports whether last, the last significant byte before a line
// break, may end a statement or member: a semicolon or closing brace, a
// word, a number or a string; nothing before (0) too. A closing
// parenthesis may end a decorator's call, which its class or member
// follows: never.
func ended(last byte) bool {
	switch {
	case last == 0, last == ';', last == '}', last == 'a', last == '"', last == '\'', last == '`':
		return true
	}
	return last >= '0' && last <= '9'
}

// jsRegexAfter are the words after which a slash starts a regular
// expression, not a division.
var jsRegexAfter = map[string]bool{"return": true, "typeof": true, "case": true, "do": true, "else": true, "in": true,
	"of": true, "new": true, "delete": true, "void": true, "throw": true, "yield": true, "await": true, "instanceof": true}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isIdentByte(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// splitJS returns where the chunks of a JavaScript or TypeScript file
// start, or nil to parse it whole; with members, a top-level class's
// members are chunks of their own (cut.member).
//
// Over 120 lines: one lexer loop whose cases share its state (the bracket
// stack, the last significant byte, the decorator and class flags); split
// apart, each piece would take and hand back all of it.
func splitJS(src []byte, members bool) []cut {
	cuts := []cut{{}}
	add := func(at int, member bool) {
		if last := cuts[len(cuts)-1]; at > last.at {
			cuts = append(cuts, cut{at: at, member: member})
		} else if at == last.at {
			cuts[len(cuts)-1].member = member
		}
	}
	// stack holds the open brackets: ( [ {, 'c' a top-level class's body,
	// 't' a template literal's ${ hole, '`' a template literal's text.
	var stack []byte
	var last byte   // the last significant byte outside comments
	var word []byte // the last word, when last ends one
	head, angle := false, 0
	atLine := false // the line began with a decorator
	cutsInClass := 0
	i := 0
	if bytes.HasPrefix(src, []byte("#!")) {
		if i = bytes.IndexByte(src, '\n'); i < 0 {
			return nil
		}
	}
	for i < len(src) {
		c := src[i]
		if n := len(stack); n > 0 && stack[n-1] == '`' {
			switch {
			case c == '\\':
				i += 2
			case c == '`':
				stack, last, word = stack[:n-1], '`', nil
				i++
			case c == '$' && i+1 < len(src) && src[i+1] == '{':
				stack = append(stack, 't')
				last, word = '{', nil
				i += 2
			default:
				i++
			}
			continue
		}
		switch {
		case c == '\n':
			lineStart := i + 1
			j := lineStart
			for j < len(src) && (src[j] == ' ' || src[j] == '\t' || src[j] == '\r') {
				j++
			}
			decorated := atLine
			atLine = j < len(src) && src[j] == '@'
			switch {
			case len(stack) == 0 && !head && j == lineStart && !decorated && ended(last):
				w := wordAt(src, j)
				switch {
				case w == "import" && bytes.IndexByte([]byte("(."), next(src, j+len(w))) >= 0:
					// import(...) and import.meta are expressions
				case w != "" && slices.Contains(jsStarts, w), atLine:
					add(lineStart, false)
				}
			case members && len(stack) == 1 && stack[0] == 'c' && j < len(src) && !decorated && (last == '{' || ended(last)):
				if d := src[j]; (isIdentStart(d) || d == '@' || d == '#' || d == '*') && !jsGoesOn[wordAt(src, j)] {
					add(lineStart, true)
					cutsInClass++
				}
			}
			i++
			continue
		case c == ' ' || c == '\t' || c == '\r':
			i++
			continue
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			j := bytes.IndexByte(src[i:], '\n')
			if j < 0 {
				i = len(src)
			} else {
				i += j // the newline is handled above
			}
			continue
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			j := bytes.Index(src[i+2:], []byte("*/"))
			if j < 0 {
				return nil
			}
			i += j + 4
			continue
		case c == '/' && (last == 0 || bytes.IndexByte([]byte("(,=:[!&|?{};+-*%<>~^"), last) >= 0 || word != nil && jsRegexAfter[string(word)]):
			j, ok := skipRegex(src, i)
			if !ok {
				return nil
			}
			i, last, word = j, '/', nil
			continue
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(src) && src[j] != c {
				switch src[j] {
				case '\\':
					j++
				case '\n':
					return nil // unterminated: parse the file whole
				}
				j++
			}
			if j >= len(src) {
				return nil
			}
			i, last, word = j+1, c, nil
			continue
		case c == '`':
			stack = append(stack, '`')
			i++
			continue
		case isIdentStart(c):
			j := i + 1
			for j < len(src) && isIdentByte(src[j]) {
				j++
			}
			w := src[i:j]
			if len(stack) == 0 && !head && last != '.' && string(w) == "class" {
				head, angle, cutsInClass = true, 0, 0
			}
			i, last, word = j, 'a', w
			continue
		}
		// punctuation
		switch c {
		case '<':
			if head {
				angle++
			}
		case '>':
			if head && last != '=' && angle > 0 {
				angle--
			}
		case '(', '[':
			stack = append(stack, c)
		case '{':
			if head && len(stack) == 0 && angle == 0 {
				head = false
				stack = append(stack, 'c')
			} else {
				stack = append(stack, '{')
			}
		case ')', ']', '}':
			n := len(stack)
			if n == 0 {
				return nil
			}
			open := stack[n-1]
			if c == ')' && open != '(' || c == ']' && open != '[' || c == '}' && open != '{' && open != 'c' && open != 't' {
				return nil
			}
			stack = stack[:n-1] // after a 't', back in the template's text
			if open == 'c' && cutsInClass > 0 {
				// the class's closing brace is a chunk of its own (it
				// holds no token), so that what follows parses alone
				add(i, false)
				add(i+1, false)
			}
		}
		last, word = c, nil
		i++
	}
	if len(stack) != 0 || head {
		return nil
	}
	return cuts
}

// splitJSWithoutJSX is splitJS for a JavaScript file that holds no JSX
// element; one that may is parsed whole (nil).
func splitJSWithoutJSX(src []byte, members bool) []cut {
	if mayHoldJSX(src) {
		return nil
	}
	return splitJS(src, members)
}

// mayHoldJSX reports whether a JavaScript file may hold a JSX element: a
// closing tag ("</", a fragment's end too) or a self-closing one ("/>"),
// without which none is written.
func mayHoldJSX(src []byte) bool {
	return bytes.Contains(src, []byte("</")) || bytes.Contains(src, []byte("/>"))
}

// wordAt returns the word starting at src[i], "" when none does.
func wordAt(src []byte, i int) string {
	if i >= len(src) || !isIdentStart(src[i]) {
		return ""
	}
	j := i + 1
	for j < len(src) && isIdentByte(src[j]) {
		j++
	}
	return string(src[i:j])
}

// next returns the first byte at or after i that is no space, 0 at the end.
func next(src []byte, i int) byte {
	for ; i < len(src); i++ {
		if c := src[i]; c != ' ' && c != '\t' {
			return c
		}
	}
	return 0
}

// skipRegex returns the offset just past the regular expression literal
// starting at src[i] (its flags too), or false when it does not end on
// its line.
func skipRegex(src []byte, i int) (int, bool) {
	class := false
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '\n':
			return 0, false
		case '[':
			class = true
		case ']':
			class = false
		case '/':
			if !class {
				j++
				for j < len(src) && isIdentByte(src[j]) {
					j++
				}
				return j, true
			}
		}
	}
	return 0, false
}
