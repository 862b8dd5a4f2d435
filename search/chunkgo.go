package search

import "bytes"
import "slices"

import "github.com/tetherhq/tether/matcher"

// Go in chunks. A file is cut before each top-level declaration (splitGo);
// and where every match of the pattern is a statement that opens with a
// keyword (an if, for, switch, select, return, go or defer statement),
// only those statements are parsed, each wrapped in a function of its own
// (goStmtPrefix, goStmtSuffix) on the lines and columns it has in the file.
// Such a statement is self-delimited: its keyword starts a line; a
// compound statement's header runs to the brace that opens its block, and
// it ends with the brace that closes it (an if's else clauses too), where
// a line ends; a simple one ends where Go puts a semicolon (goSimpleEnd).
// The lexer knows comments, strings, runes and raw strings; a brace in a
// header right after a type (range []int{1, 2} {) opens a composite
// literal, as gofmt writes one. A top-level declaration holding a
// statement that does not start its line, whose header holds a function
// literal, or whose block does not end a line, is parsed whole; so is one
// where a brace taken for a block's was another's (more of the header
// follows it on the same line). A chunk that does not parse makes the
// whole file parse.

// goStmtPrefix and goStmtSuffix wrap a run of statements in a function,
// each ending or starting a line, so that the statements keep their lines
// and columns.
const (
	goStmtPrefix = "package p\nfunc _() {\n"
	goStmtSuffix = "\n}\n"
)

// goStmtKeywords are the node kinds of the statements that are parsed on
// their own, and the keyword each starts with.
var goStmtKeywords = map[string]string{
	"if_statement":                "if",
	"for_statement":               "for",
	"expression_switch_statement": "switch",
	"type_switch_statement":       "switch",
	"select_statement":            "select",
	"return_statement":            "return",
	"go_statement":                "go",
	"defer_statement":             "defer",
}

// goSimpleKeywords are the keywords of goStmtKeywords that start a simple
// statement, which ends where Go ends it: at a newline after a token that
// takes a semicolon there, or at a semicolon, outside brackets.
var goSimpleKeywords = map[string]bool{"return": true, "go": true, "defer": true}

// goStatementKeywords returns the keywords of the statements every match
// of p is one of (nil: p may match something else).
func goStatementKeywords(p *matcher.Pattern) []string {
	if p == nil {
		return nil
	}
	kinds, all := p.RootKinds()
	if !all || len(kinds) == 0 {
		return nil
	}
	var kws []string
	for _, k := range kinds {
		kw, ok := goStmtKeywords[k]
		if !ok {
			return nil
		}
		if !slices.Contains(kws, kw) {
			kws = append(kws, kw)
		}
	}
	return kws
}

// goStatementCuts cuts src around each outermost statement that starts
// with one of kws (a stmt cut at the start of its line, a skip cut where
// it ends); a top-level declaration one of whose statements cannot be told
// apart safely is a chunk of its own. nil: the file cannot be cut.
func goStatementCuts(src []byte, kws []string) []cut {
	decls := splitGo(src)
	if decls == nil {
		return nil
	}
	cuts := stmtCuts{{skip: true}}
	for d, start := range decls {
		end := len(src)
		if d+1 < len(decls) {
			end = decls[d+1]
		}
		stmts, ok := goDeclStatements(src, start, end, kws)
		if !ok {
			cuts.add(cut{at: start})
			cuts.add(cut{at: end, skip: true})
			continue
		}
		for _, st := range stmts {
			cuts.add(cut{at: st[0], stmt: true})
			cuts.add(cut{at: st[1], skip: true})
		}
	}
	return cuts.done(len(src))
}

// goDeclStatements returns the outermost statements that start with one
// of kws in src[start:end], a declaration: each from the start of its line
// to where it ends. ok is false when one does not start its line or its
// end cannot be told.
func goDeclStatements(src []byte, start, end int, kws []string) (stmts [][2]int, ok bool) {
	// the bytes that may start a comment, a literal or a keyword
	var stops [256]bool
	stops['/'], stops['"'], stops['\''], stops['`'] = true, true, true, true
	for _, kw := range kws {
		stops[kw[0]] = true
	}
	for i := start; i < end; {
		for i < end && !stops[src[i]] {
			i++
		}
		if i == end {
			break
		}
		if j := goSkip(src, i); j != i {
			if j < 0 {
				return nil, false
			}
			i = j
			continue
		}
		kw := goKeywordAt(src, i, kws)
		if kw == "" {
			i++
			continue
		}
		ls := bytes.LastIndexByte(src[:i], '\n') + 1
		if len(bytes.Trim(src[ls:i], " \t")) > 0 {
			return nil, false // not the first on its line: `case x: if ...`
		}
		var e int
		if goSimpleKeywords[kw] {
			e = goSimpleEnd(src, i+len(kw))
		} else {
			e = goStatementEnd(src, i+len(kw), kw == "if")
		}
		if e < 0 || e > end {
			return nil, false
		}
		stmts = append(stmts, [2]int{ls, e})
		i = e
	}
	return stmts, true
}

// goKeywordAt returns the keyword of kws that stands at src[i] as a word.
func goKeywordAt(src []byte, i int, kws []string) string {
	for _, kw := range kws {
		if src[i] == kw[0] && len(src)-i >= len(kw) && string(src[i:i+len(kw)]) == kw &&
			(i+len(kw) == len(src) || !isIdentByte(src[i+len(kw)])) && (i == 0 || !isIdentByte(src[i-1])) {
			return kw
		}
	}
	return ""
}

// the keywords goStatementEnd and goBlockStart look for
var goElse, goIf, goFunc = []string{"else"}, []string{"if"}, []string{"func"}

// goStatementEnd returns where the statement whose header starts at src[i]
// ends: just past the brace that closes its block, or, for an if (elses),
// its last else clause's. -1: it cannot be told.
func goStatementEnd(src []byte, i int, elses bool) int {
	for {
		open := goBlockStart(src, i)
		if open < 0 {
			return -1
		}
		i = goClose(src, open)
		if i < 0 {
			return -1
		}
		if !elses {
			break
		}
		j := skipBlanks(src, i)
		if goKeywordAt(src, j, goElse) == "" {
			break
		}
		j = skipBlanks(src, j+len("else"))
		if goKeywordAt(src, j, goIf) != "" {
			i = j + len("if")
			continue
		}
		if j >= len(src) || src[j] != '{' {
			return -1
		}
		if i = goClose(src, j); i < 0 {
			return -1
		}
		break
	}
	// the statement ends its line (or the block around it goes on)
	j := skipBlanks(src, i)
	if j < len(src) && src[j] != '\n' && src[j] != '}' && !bytes.HasPrefix(src[j:], []byte("//")) && !bytes.HasPrefix(src[j:], []byte("/*")) {
		return -1
	}
	return i
}

// goSimpleEnd returns where the simple statement whose keyword ends at
// src[i] ends: at the newline (or the comment holding one) Go puts a
// semicolon at, at a semicolon, or before the brace that closes the block
// around it, all outside brackets. -1: it cannot be told.
func goSimpleEnd(src []byte, i int) int {
	depth := 0
	// semi: the last token takes a semicolon before a newline (a word, a
	// number, a literal, a closing bracket, ++ or --)
	semi := false
	for i < len(src) {
		if j := goSkip(src, i); j != i {
			if j < 0 {
				return -1
			}
			if src[i] == '/' {
				// a comment: one holding a newline ends the line
				if depth == 0 && semi && (src[i+1] == '/' || bytes.IndexByte(src[i:j], '\n') >= 0) {
					return i
				}
			} else {
				semi = true
			}
			i = j
			continue
		}
		switch c := src[i]; {
		case c == '\n':
			if depth == 0 && semi {
				return i
			}
		case c == ' ' || c == '\t' || c == '\r':
		case c == '(' || c == '[' || c == '{':
			depth++
			semi = false
		case c == ')' || c == ']' || c == '}':
			if depth == 0 {
				return i // the block around it closes
			}
			depth--
			semi = true
		case c == ';':
			if depth == 0 {
				return i
			}
			semi = false
		case (c == '+' || c == '-') && i+1 < len(src) && src[i+1] == c:
			i++
			semi = true
		case isIdentByte(c) || c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
			for i+1 < len(src) && (isIdentByte(src[i+1]) || src[i+1] == '.' && src[i] >= '0' && src[i] <= '9') {
				i++
			}
			semi = true
		default:
			semi = false
		}
		i++
	}
	return -1
}

// goBlockStart returns the index of the brace that opens the block of the
// header starting at src[i]: the first outside brackets. -1: the header
// holds a function literal or type, or is not closed.
func goBlockStart(src []byte, i int) int {
	depth := 0
	for i < len(src) {
		if j := goSkip(src, i); j != i {
			if j < 0 {
				return -1
			}
			i = j
			continue
		}
		switch c := src[i]; c {
		case '{':
			if depth == 0 && !goLiteralBrace(src, i) {
				return i
			}
			depth++
		case '(', '[':
			depth++
		case ')', ']', '}':
			if depth--; depth < 0 {
				return -1
			}
		default:
			if c == 'f' && goKeywordAt(src, i, goFunc) != "" {
				return -1
			}
		}
		i++
	}
	return -1
}

// goLiteralBrace reports whether the brace at src[i], in a statement's
// header, opens a composite literal's elements (as in range []int{1, 2}):
// it follows a type with no space between, as gofmt writes them and never
// a block.
func goLiteralBrace(src []byte, i int) bool {
	if i == 0 {
		return false
	}
	c := src[i-1]
	return isIdentByte(c) || c == ']' || c == '}'
}

// goClose returns the index just past the bracket that closes the one at
// src[open], or -1.
func goClose(src []byte, open int) int {
	depth := 0
	for i := open; i < len(src); {
		if j := goSkip(src, i); j != i {
			if j < 0 {
				return -1
			}
			i = j
			continue
		}
		switch src[i] {
		case '{', '(', '[':
			depth++
		case '}', ')', ']':
			if depth--; depth == 0 {
				return i + 1
			}
		}
		i++
	}
	return -1
}

// skipBlanks returns the index of the first byte at or after i that is
// not a space or a tab.
func skipBlanks(src []byte, i int) int {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	return i
}

// goSkip returns where the comment or literal that starts at src[i] ends
// (a line comment: at its newline), i when none starts there, or -1 when
// it is not terminated.
func goSkip(src []byte, i int) int {
	switch c := src[i]; c {
	case '/':
		if i+1 < len(src) && src[i+1] == '/' {
			if j := bytes.IndexByte(src[i:], '\n'); j >= 0 {
				return i + j
			}
			return len(src)
		}
		if i+1 < len(src) && src[i+1] == '*' {
			j := bytes.Index(src[i+2:], []byte("*/"))
			if j < 0 {
				return -1
			}
			return i + 2 + j + 2
		}
	case '"', '\'':
		for j := i + 1; j < len(src); j++ {
			switch src[j] {
			case '\\':
				j++
			case '\n':
				return -1
			case c:
				return j + 1
			}
		}
		return -1
	case '`':
		j := bytes.IndexByte(src[i+1:], '`')
		if j < 0 {
			return -1
		}
		return i + 1 + j + 1
	}
	return i
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

// goLexStops are the bytes splitGo looks at: those that may start a
// comment or a literal, brackets and newlines.
var goLexStops = func() (t [256]bool) {
	for _, c := range []byte("/\"'`{}()[]\n") {
		t[c] = true
	}
	return t
}()

// splitGo cuts Go source before every top-level func, type, var or const
// declaration at the start of a line, outside comments, literals and brackets.
func splitGo(src []byte) []int {
	starts := []int{0}
	depth := 0
	for i := 0; i < len(src); {
		for i < len(src) && !goLexStops[src[i]] {
			i++
		}
		if i == len(src) {
			break
		}
		if j := goSkip(src, i); j != i {
			if j < 0 {
				return nil
			}
			i = j
			continue
		}
		switch src[i] {
		case '{', '(', '[':
			depth++
		case '}', ')', ']':
			if depth--; depth < 0 {
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
		i++
	}
	if depth != 0 {
		return nil
	}
	return starts
}
