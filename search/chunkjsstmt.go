package search

import (
	"bytes"
	"strings"

	"github.com/tetherhq/tether/matcher"
)

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
	return p != nil && !strings.ContainsAny(p.Source(), "{}") && len(p.Tokens()) > 0 && rootKindsIn(p, jsStmtKinds)
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
// statements that hold every token, outside their bodies, of a pattern
// (jsStatementsOK): a top-level one is a plain chunk, a body's a statement
// chunk; everything else is skipped. nil: the file cannot be cut.
func jsStatementCuts(src []byte, tokens []string) []cut {
	top := jsStatements(src)
	if top == nil {
		return nil
	}
	cuts := stmtCuts{{skip: true}}
	var walk func(b *jsBody, wrapped bool)
	walk = func(b *jsBody, wrapped bool) {
		for _, s := range b.stmts {
			if !hasTokens(src[s.start:s.end], tokens) {
				continue
			}
			if !outerHolds(src, s, tokens) {
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
	walk(top, false)
	return cuts.done(len(src))
}

// outerHolds reports whether every token is in s outside the bodies in
// it that may be cut: in one of the stretches between them.
func outerHolds(src []byte, s *jsStmt, tokens []string) bool {
	var parts [][]byte
	at := s.start
	for _, b := range s.bodies {
		if b.ok {
			parts = append(parts, src[at:b.start])
			at = b.end
		}
	}
	parts = append(parts, src[at:s.end])
	for _, tok := range tokens {
		found := false
		for _, part := range parts {
			if bytes.Contains(part, []byte(tok)) {
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
