package search

import "bytes"
import "sort"
import "strings"

import "github.com/tetherhq/tether/matcher"

// TypeScript and JavaScript statements in chunks. Where every match of a
// pattern is a statement or an expression (jsStmtKinds) and the pattern
// holds no braces, a match lies inside one statement; and a match that
// lies in a statement but in none of the function bodies or blocks in it
// holds every token of the pattern outside them, as those are the text of
// the pattern's nodes, none a block. So a statement is parsed whole when
// the text outside its bodies holds every token, and otherwise only its
// bodies' statements that do, by the same rule, each run wrapped in a
// function of its own (jsStmtPrefix, jsStmtSuffix) at the lines and
// columns it has in the file. A class's body is gone into as a body whose
// statements are its members, each run parsed wrapped in a class
// (memberPrefix, memberSuffix), as splitJS cuts them.
//
// A body is a brace that opens a function's, an arrow function's or a
// method's body or a control statement's block (after a parameter list or
// a statement's header and any return type, after =>, else, try, finally
// or do); it is cut only when its brace ends its line and its closing
// brace starts one, and when no statement of it opens with a label
// (name:, an object type read as a body). A body's statements are cut at
// the line breaks where the code before has ended (a semicolon, a closing
// bracket but a statement header's parenthesis, a word but a keyword, a
// literal) and the next line starts with a word that cannot go on with
// it; a decorator's line is never cut after. What the lexer cannot read
// makes the file parse as splitJS cuts it; a chunk that does not parse
// makes the whole file parse.

// jsStmtPrefix and jsStmtSuffix wrap a run of a body's statements, each
// ending or starting a line, so that the statements keep their lines and
// columns; an async generator reads await and yield as its bodies do.
const (
	jsStmtPrefix = "async function* _() {\n"
	jsStmtSuffix = "\n}\n"
)

// jsStmtKinds are the node kinds of statements and expressions a match of
// which lies inside one statement.
var jsStmtKinds = map[string]bool{
	"expression_statement": true, "return_statement": true, "throw_statement": true, "if_statement": true,
	"for_statement": true, "for_in_statement": true, "while_statement": true, "do_statement": true,
	"break_statement": true, "continue_statement": true, "lexical_declaration": true, "variable_declaration": true,
	"variable_declarator": true, "await_expression": true, "new_expression": true, "binary_expression": true,
	"call_expression": true, "member_expression": true, "subscript_expression": true, "assignment_expression": true,
	"augmented_assignment_expression": true, "unary_expression": true, "update_expression": true,
	"ternary_expression": true, "yield_expression": true, "as_expression": true, "satisfies_expression": true,
	"non_null_expression": true, "parenthesized_expression": true, "arrow_function": true,
}

// jsStatementsOK reports whether every match of p lies inside one
// statement and holds its tokens outside the bodies in it: every reading's
// root is of jsStmtKinds and the pattern has no brace.
func jsStatementsOK(p *matcher.Pattern) bool {
	return p != nil && !strings.ContainsAny(p.Source(), "{}") && !strings.Contains(p.Source(), "//") &&
		!strings.Contains(p.Source(), "/*") && len(p.Tokens()) > 0 && rootKindsIn(p, jsStmtKinds)
}

// isWord reports whether s is made of identifier bytes alone.
func isWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isIdentByte(s[i]) {
			return false
		}
	}
	return s != ""
}

// containsWord reports whether tok is in b with no identifier byte on
// either side.
func containsWord(b, tok []byte) bool {
	for at := 0; ; {
		k := bytes.Index(b[at:], tok)
		if k < 0 {
			return false
		}
		k += at
		if (k == 0 || !isIdentByte(b[k-1])) && (k+len(tok) == len(b) || !isIdentByte(b[k+len(tok)])) {
			return true
		}
		at = k + 1
	}
}

// mergeRanges merges two lists of ranges, each in order and apart, into
// one in order.
func mergeRanges(a, b [][2]int) [][2]int {
	out := make([][2]int, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if a[0][0] < b[0][0] {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// jsBody is a body's statements, or a class's members (member), from the
// line after its opening brace to the start of its closing brace's line;
// ok: they may be cut.
type jsBody struct {
	start, end int
	stmts      []*jsStmt
	ok, member bool
}

// jsStmt is a statement [start, end) and the bodies in it (none inside
// another of them).
type jsStmt struct {
	start, end int
	bodies     []*jsBody
}

// jsStatementCuts cuts a TypeScript or JavaScript file around the
// statements that hold every token, outside their bodies and comments, of
// a pattern (jsStatementsOK), and outside literals too when the pattern
// holds none (quietLiterals): no node of a match is then in one, and a
// token that is a word is one in the code, never part of a longer. A
// top-level statement is a plain chunk, a body's a statement chunk, a
// class's member a member chunk; everything else is skipped. nil: the
// file cannot be cut.
func jsStatementCuts(src []byte, tokens []string, quietLiterals bool) []cut {
	f := jsStatements(src)
	if f == nil {
		return nil
	}
	quiet := f.comments
	if quietLiterals {
		quiet = mergeRanges(f.comments, f.literals)
	}
	cuts := stmtCuts{{skip: true}}
	var walk func(b *jsBody, wrapped bool)
	walk = func(b *jsBody, wrapped bool) {
		for _, s := range b.stmts {
			if !hasTokens(src[s.start:s.end], tokens) {
				continue
			}
			if !outerHolds(src, s, tokens, quiet, quietLiterals) {
				for _, in := range s.bodies {
					if in.ok {
						walk(in, true)
					}
				}
				continue
			}
			cuts.add(cut{at: s.start, stmt: wrapped && !b.member, member: b.member})
			cuts.add(cut{at: s.end, skip: true})
		}
	}
	walk(f.top, false)
	return cuts.done(len(src))
}

// outerHolds reports whether every token is in s outside the bodies in
// it that may be cut and outside the quiet ranges (in order): in one of
// the stretches between them, as no token spans a body's or a range's
// edge; with words, a token that is a word is there as one.
func outerHolds(src []byte, s *jsStmt, tokens []string, quiet [][2]int, words bool) bool {
	var parts [][]byte
	part := func(a, b int) {
		// the stretch [a, b) but its quiet ranges
		k := sort.Search(len(quiet), func(k int) bool { return quiet[k][1] > a })
		for ; k < len(quiet) && quiet[k][0] < b; k++ {
			if quiet[k][0] > a {
				parts = append(parts, src[a:quiet[k][0]])
			}
			a = max(a, quiet[k][1])
		}
		if a < b {
			parts = append(parts, src[a:b])
		}
	}
	at := s.start
	for _, b := range s.bodies {
		if b.ok {
			part(at, b.start)
			at = b.end
		}
	}
	part(at, s.end)
	for _, tok := range tokens {
		found := false
		word := words && isWord(tok)
		for _, part := range parts {
			if word && containsWord(part, []byte(tok)) || !word && bytes.Contains(part, []byte(tok)) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
