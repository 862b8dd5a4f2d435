package search

import "bytes"

// The lexer of jsStatementCuts: it follows brackets, strings, templates,
// regular expressions and comments as splitJS does, and tells a body's
// brace from an object's, a class's or a type's, and where a body's
// statements end.

// jsFrame is an open bracket: ( [ {, 't' a template literal's ${ hole,
// '`' a template literal's text, 0 the file's top level.
type jsFrame struct {
	open byte
	// header: a ( after if, for, while, with, switch or catch; sw: after
	// switch, whose block holds case clauses, no statements
	header, sw bool
	// body and cur: the body a { opens (the top level's too) and its
	// statement the lexer is in (nil before its first line)
	body *jsBody
	cur  *jsStmt
}

// jsLexer is jsStatements' state.
type jsLexer struct {
	src   []byte
	stack []jsFrame
	last  byte   // the last significant byte outside comments; 'a' a word
	word  []byte // the last word, when last is 'a'
	// arrow: the last token was =>; headerClose: it was the parenthesis
	// that closes a statement's header
	arrow, headerClose bool
	// pending is the depth at which a closed parameter list or header
	// may yet be followed by its body's brace (after a return type), -1
	// none; classAt the depth at which a class, interface, enum or
	// namespace's brace is to come, -1 none
	pending, classAt int
	// classHead: the brace at classAt opens a class's members; angle:
	// the type parameters open before it
	classHead bool
	angle     int
	forAwait  bool // the last words were for await
	// comments and literals are where the comments and the strings,
	// template texts and regular expressions are, in order; textAt is
	// where the template text being read starts
	comments, literals [][2]int
	textAt             int
	atLine             bool // the current line began with a decorator
	fresh              bool // the next token starts a body's statement
}

// jsOpenWords are the keywords after which a statement goes on on the
// next line, and that never end a type before a body's brace.
var jsOpenWords = map[string]bool{
	"return": true, "throw": true, "new": true, "typeof": true, "void": true, "delete": true, "await": true,
	"yield": true, "let": true, "const": true, "var": true, "async": true, "in": true, "of": true,
	"instanceof": true, "case": true, "do": true, "else": true, "extends": true, "export": true, "import": true,
	"function": true, "class": true, "if": true, "for": true, "while": true, "with": true, "switch": true,
	"try": true, "finally": true, "catch": true, "static": true, "get": true, "set": true, "declare": true,
	"type": true, "interface": true, "enum": true, "namespace": true, "module": true, "abstract": true,
	"readonly": true, "private": true, "public": true, "protected": true, "keyof": true, "infer": true,
	"is": true, "as": true, "satisfies": true, "implements": true, "break": true, "continue": true,
	"default": true, "from": true, "asserts": true, "unique": true, "override": true, "accessor": true,
}

// jsClauses are the words that, starting a line, go on with the statement
// before it (besides jsGoesOn).
var jsClauses = map[string]bool{"else": true, "catch": true, "finally": true, "while": true}

// jsBlockWords are the words whose next brace opens a block.
var jsBlockWords = map[string]bool{"else": true, "try": true, "finally": true, "do": true, "catch": true}

// jsHeaders are the words whose parenthesis is a statement's header.
var jsHeaders = map[string]bool{"if": true, "for": true, "while": true, "with": true, "switch": true, "catch": true}

// jsTypeHeads are the words whose next brace opens no body.
var jsTypeHeads = map[string]bool{"class": true, "interface": true, "enum": true, "namespace": true, "module": true}

// jsFile is what jsStatements reads of a file: its top-level statements
// (and the bodies in them), and where its comments and literals are.
type jsFile struct {
	top                *jsBody
	comments, literals [][2]int
}

// jsStatements reads a file, nil when it cannot.
func jsStatements(src []byte) *jsFile {
	top := &jsBody{ok: true}
	first := &jsStmt{}
	top.stmts = []*jsStmt{first}
	l := &jsLexer{src: src, stack: []jsFrame{{body: top, cur: first}}, pending: -1, classAt: -1, fresh: true}
	i := 0
	if bytes.HasPrefix(src, []byte("#!")) {
		if i = bytes.IndexByte(src, '\n'); i < 0 {
			return nil
		}
	}
	for i < len(src) {
		var ok bool
		if i, ok = l.step(i); !ok {
			return nil
		}
	}
	if len(l.stack) != 1 || !top.ok {
		return nil
	}
	l.stack[0].cur.end = len(src)
	return &jsFile{top: top, comments: l.comments, literals: l.literals}
}

// step reads the token at src[i] and returns where the next starts; false
// when the file cannot be read.
func (l *jsLexer) step(i int) (int, bool) {
	src := l.src
	c := src[i]
	if l.stack[len(l.stack)-1].open == '`' {
		return l.template(i), true
	}
	switch {
	case c == '\n':
		l.newline(i)
		return i + 1, true
	case c == ' ' || c == '\t' || c == '\r':
		return i + 1, true
	case c == '/' && i+1 < len(src) && src[i+1] == '/':
		j := len(src)
		if k := bytes.IndexByte(src[i:], '\n'); k >= 0 {
			j = i + k // the newline is read as one
		}
		l.comments = append(l.comments, [2]int{i, j})
		return j, true
	case c == '/' && i+1 < len(src) && src[i+1] == '*':
		j := bytes.Index(src[i+2:], []byte("*/"))
		l.comments = append(l.comments, [2]int{i, i + j + 4})
		return i + j + 4, j >= 0
	}
	first := l.fresh
	l.fresh = false
	if f := &l.stack[len(l.stack)-1]; f.body != nil && f.body.start < 0 {
		f.body.ok = false // a token on its brace's line
	}
	switch {
	case c == '/' && (l.last == 0 || bytes.IndexByte([]byte("(,=:[!&|?{};+-*%<>~^"), l.last) >= 0 || l.last == 'a' && jsRegexAfter[string(l.word)]):
		j, ok := skipRegex(src, i)
		l.token('/')
		l.literals = append(l.literals, [2]int{i, j})
		return j, ok
	case c == '"' || c == '\'':
		j := i + 1
		for ; j < len(src) && src[j] != c; j++ {
			switch src[j] {
			case '\\':
				j++
			case '\n':
				return 0, false
			}
		}
		l.token(c)
		l.literals = append(l.literals, [2]int{i, j + 1})
		return j + 1, j < len(src)
	case c == '`':
		l.stack = append(l.stack, jsFrame{open: '`'})
		l.textAt = i
		return i + 1, true
	case isIdentStart(c):
		return l.ident(i, first), true
	}
	return l.punct(i)
}

// token notes a significant token that is no word, no parenthesis and no
// arrow.
func (l *jsLexer) token(c byte) {
	l.last, l.word, l.arrow, l.headerClose = c, nil, false, false
}

// template reads a template literal's text at src[i].
func (l *jsLexer) template(i int) int {
	src := l.src
	switch c := src[i]; {
	case c == '\\':
		return i + 2
	case c == '`':
		l.stack = l.stack[:len(l.stack)-1]
		l.token('`')
		l.literals = append(l.literals, [2]int{l.textAt, i + 1})
	case c == '$' && i+1 < len(src) && src[i+1] == '{':
		l.stack = append(l.stack, jsFrame{open: 't'})
		l.token('{')
		l.literals = append(l.literals, [2]int{l.textAt, i + 2})
		return i + 2
	}
	return i + 1
}

// ident reads the word at src[i]; first: it starts a body's statement, and
// a label there (or an object type's member read as a body) makes the body
// one not to cut.
func (l *jsLexer) ident(i int, first bool) int {
	src := l.src
	j := i + 1
	for j < len(src) && isIdentByte(src[j]) {
		j++
	}
	w := src[i:j]
	if first && !l.stack[len(l.stack)-1].body.member {
		k := skipBlanks(src, j)
		if k < len(src) && (src[k] == ':' && (k+1 == len(src) || src[k+1] != ':') || src[k] == '?' && k+1 < len(src) && src[k+1] == ':') {
			l.stack[len(l.stack)-1].body.ok = false
		}
	}
	if l.last != '.' && jsTypeHeads[string(w)] {
		l.classAt, l.classHead, l.angle = len(l.stack), string(w) == "class", 0
	}
	l.forAwait = string(w) == "await" && l.last == 'a' && string(l.word) == "for"
	l.last, l.word, l.arrow, l.headerClose = 'a', w, false, false
	return j
}

// punct reads the punctuation at src[i].
func (l *jsLexer) punct(i int) (int, bool) {
	src := l.src
	c := src[i]
	switch c {
	case '(':
		w := ""
		if l.last == 'a' {
			w = string(l.word)
		}
		l.stack = append(l.stack, jsFrame{open: '(', header: jsHeaders[w] || l.forAwait, sw: w == "switch"})
	case '[':
		l.stack = append(l.stack, jsFrame{open: '['})
	case '<':
		if l.classAt == len(l.stack) {
			l.angle++
		}
	case '>':
		if l.classAt == len(l.stack) && l.angle > 0 {
			l.angle--
		}
	case '{':
		l.open()
	case ')', ']', '}':
		return i + 1, l.close(i)
	case ';', ',':
		l.pending = -1
	case '=':
		l.pending = -1
		if i+1 < len(src) && src[i+1] == '>' {
			l.token('>')
			l.arrow = true
			return i + 2, true
		}
	}
	l.token(c)
	return i + 1, true
}

// open reads a brace: a body's or a class's, attached to the statement
// it is in, or another.
func (l *jsLexer) open() {
	f := jsFrame{open: '{'}
	switch {
	case l.classAt == len(l.stack):
		if l.angle == 0 {
			if l.classHead {
				f.body = &jsBody{start: -1, ok: true, member: true}
			}
			l.classAt = -1
		}
	case l.opensBody():
		f.body = &jsBody{start: -1, ok: true}
		l.pending = -1
	}
	if b := f.body; b != nil {
		for k := len(l.stack) - 1; k >= 0; k-- {
			if p := l.stack[k]; p.body != nil {
				if p.cur != nil {
					p.cur.bodies = append(p.cur.bodies, b)
				}
				break
			}
		}
	}
	l.stack = append(l.stack, f)
}

// opensBody reports whether a brace read now opens a body.
func (l *jsLexer) opensBody() bool {
	switch {
	case l.arrow:
		return true
	case l.last == 'a' && jsBlockWords[string(l.word)]:
		return true
	case l.pending != len(l.stack):
		return false
	}
	switch l.last {
	case ')', ']', '}', '>':
		return true
	case 'a':
		return !jsOpenWords[string(l.word)]
	}
	return false
}

// close reads the closing bracket at src[i]; false when it closes none.
func (l *jsLexer) close(i int) bool {
	c := l.src[i]
	n := len(l.stack)
	if n == 1 {
		return false
	}
	f := l.stack[n-1]
	if c == ')' && f.open != '(' || c == ']' && f.open != '[' || c == '}' && f.open != '{' && f.open != 't' {
		return false
	}
	l.stack = l.stack[:n-1]
	if f.open == 't' {
		l.textAt = i // back in the template's text
	}
	if len(l.stack) < l.pending {
		l.pending = -1 // the parameter list's context closed
	}
	if b := f.body; b != nil {
		ls := bytes.LastIndexByte(l.src[:i], '\n') + 1
		if !b.ok || b.start < 0 || ls < b.start || len(bytes.Trim(l.src[ls:i], " \t\r")) > 0 {
			b.ok = false
		} else {
			b.end = ls
			f.cur.end = ls
		}
	}
	l.token(c)
	if c == ')' {
		l.headerClose = f.header
		if !f.sw {
			l.pending = len(l.stack)
		}
	}
	return true
}

// newline reads the line break at src[i]: a body whose brace ends its line
// starts its first statement on the next; in a body, a statement ends
// here when the code before has ended and the next line starts with a
// word that cannot go on with it.
func (l *jsLexer) newline(i int) {
	src := l.src
	next := i + 1
	j := next
	for j < len(src) && (src[j] == ' ' || src[j] == '\t' || src[j] == '\r') {
		j++
	}
	decorated := l.atLine
	l.atLine = j < len(src) && src[j] == '@'
	f := &l.stack[len(l.stack)-1]
	b := f.body
	switch {
	case b == nil:
		return
	case b.start < 0:
		b.start = next
		if b.ok {
			f.cur = &jsStmt{start: next}
			b.stmts = append(b.stmts, f.cur)
			l.fresh = true
		}
		return
	case !b.ok || decorated || !l.ended(b.member):
		return
	}
	if b.member {
		if w := wordAt(src, j); j == len(src) || !isIdentStart(src[j]) && src[j] != '@' && src[j] != '#' && src[j] != '*' || jsGoesOn[w] {
			return
		}
	} else if w := wordAt(src, j); w == "" || jsGoesOn[w] || jsClauses[w] {
		return
	}
	f.cur.end = next
	l.pending = -1
	f.cur = &jsStmt{start: next}
	b.stmts = append(b.stmts, f.cur)
	l.fresh = true
}

// ended reports whether the code read may end a statement, or a class
// member, at a line break: a semicolon, a closing bracket (no statement
// header's parenthesis, and none at the top level or in a class, where it
// may end a decorator's call), a word but a keyword, a literal.
func (l *jsLexer) ended(member bool) bool {
	switch c := l.last; {
	case c == ';', c == '}', c == ']', c == '"', c == '\'', c == '`':
		return true
	case c == ')':
		return !l.headerClose && !member && len(l.stack) > 1
	case c == 'a':
		return !jsOpenWords[string(l.word)]
	default:
		return c >= '0' && c <= '9'
	}
}
