package search

import "bytes"

import "github.com/tetherhq/tether/matcher"

// Python in chunks. A line that starts at column 0 with a statement ends
// every indented block before it, so a file is cut before each such line
// (outside brackets, strings and a backslash's continuation), but for the
// clauses that go on with a compound statement (else, elif, except,
// finally) and a line after a decorator's. Where the pattern's matches lie
// inside one class member (membersOK), a top-level class's body is also
// cut before each of its statements at the body's indentation: a run of
// them is parsed wrapped in a class of its own (pyMemberPrefix), at the
// same lines and columns. Comments and blank lines never cut: a comment at
// column 0 may sit inside a function.

// pyMemberPrefix wraps a run of a class's members.
const pyMemberPrefix = "class _:\n"

// pyGoesOn are the clauses that continue the compound statement before.
var pyGoesOn = map[string]bool{"else": true, "elif": true, "except": true, "finally": true}

// splitPython returns where the chunks of a Python file start, or nil to
// parse it whole; with members, a top-level class's members are chunks of
// their own (cut.member).
func splitPython(src []byte, members bool) []cut {
	cuts := []cut{{}}
	add := func(at int, member bool) {
		if last := cuts[len(cuts)-1]; at > last.at {
			cuts = append(cuts, cut{at: at, member: member})
		}
	}
	depth := 0
	inClass := false   // in a top-level class's body
	bodyIndent := -1   // its statements' indentation, once seen
	decorated := false // the last statement line was a decorator
	cutsInClass := 0
	i := 0
	for i < len(src) {
		// at a line's start, outside brackets and strings
		j := i
		for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
			j++
		}
		indent := j - i
		if j < len(src) && src[j] != '\n' && src[j] != '\r' && src[j] != '#' && depth == 0 {
			w := wordAt(src, j)
			switch {
			case indent == 0:
				if inClass && cutsInClass > 0 {
					add(i, false) // the class ends: what follows is no member
				}
				inClass = false
				if !decorated && !pyGoesOn[w] {
					add(i, false)
				}
				if w == "class" {
					inClass, bodyIndent, cutsInClass = true, -1, 0
				}
			case members && inClass && (bodyIndent < 0 || indent == bodyIndent):
				if bodyIndent < 0 {
					bodyIndent = indent // the body's first statement: no cut
				} else if !decorated && !pyGoesOn[w] && (w != "" || src[j] == '@') {
					add(i, true)
					cutsInClass++
				}
			}
			decorated = src[j] == '@'
		}
		// the rest of the line, and the lines it runs on to
		var ok bool
		if i, ok = pyLineEnd(src, j, &depth, nil); !ok {
			return nil
		}
	}
	if depth != 0 {
		return nil
	}
	return cuts
}

// pyLineEnd returns where the line after the one at src[i] starts, having
// followed its brackets (depth), strings and comments; a line that goes on
// (open brackets, a backslash, a triple-quoted string) runs to the next
// line's end too. last, unless nil, gets the line's last byte that is no
// space and in no comment (a string's: its quote). It fails on an
// unterminated string.
func pyLineEnd(src []byte, i int, depth *int, last *byte) (int, bool) {
	var lastc byte
	defer func() {
		if last != nil {
			*last = lastc
		}
	}()
	for i < len(src) {
		c := src[i]
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '#' && c != '\\' {
			lastc = c
		}
		switch c {
		case '#':
			k := bytes.IndexByte(src[i:], '\n')
			if k < 0 {
				return len(src), true
			}
			i += k
		case '\\':
			i += 2 // an escaped newline joins the next line
			if i < len(src) && src[i-1] == '\r' && src[i] == '\n' {
				i++ // a Windows line end
			}
		case '\n':
			i++
			if *depth == 0 {
				return i, true
			}
		case '(', '[', '{':
			*depth++
			i++
		case ')', ']', '}':
			if *depth == 0 {
				return 0, false
			}
			*depth--
			i++
		case '"', '\'':
			if bytes.HasPrefix(src[i:], []byte{c, c, c}) {
				k := i + 3
				for {
					e := bytes.Index(src[k:], []byte{c, c, c})
					if e < 0 {
						return 0, false
					}
					// a quote escaped by an odd run of backslashes is text
					b := k + e
					n := 0
					for b-n-1 >= k && src[b-n-1] == '\\' {
						n++
					}
					if n%2 == 0 {
						i = b + 3
						break
					}
					k = b + 1
				}
				continue
			}
			k := i + 1
			for k < len(src) && src[k] != c {
				if src[k] == '\\' {
					k++
				} else if src[k] == '\n' {
					return 0, false
				}
				k++
			}
			if k >= len(src) {
				return 0, false
			}
			i = k + 1
		default:
			i++
		}
	}
	return i, true
}

// pySimpleKinds are the node kinds of Python's simple statements: a
// pattern whose every match is one lies on a statement line, never in a
// compound statement's header (but after its colon, on the same line).
var pySimpleKinds = map[string]bool{
	"expression_statement": true, "assignment": true, "augmented_assignment": true, "raise_statement": true,
	"return_statement": true, "assert_statement": true, "delete_statement": true, "import_statement": true,
	"import_from_statement": true, "global_statement": true, "nonlocal_statement": true, "pass_statement": true,
	"break_statement": true, "continue_statement": true, "print_statement": true, "exec_statement": true,
	"type_alias_statement": true,
}

// pyStatementsOK reports whether every match of p is a simple statement.
func pyStatementsOK(p *matcher.Pattern) bool { return rootKindsIn(p, pySimpleKinds) }

// pyStmtPrefix wraps a run of statements indented in a block: they parse
// as the block of an if, on the lines and columns they have in the file.
const pyStmtPrefix = "if 1:\n"

// pyStatementCuts cuts a Python file around its runs of statement lines
// at one indentation, leaving out every line that ends in a colon (a
// compound statement's header, whose body is on the lines below) and
// every decorator: a run at column 0 is a plain chunk, an indented one is
// parsed wrapped (pyStmtPrefix). Blank and comment lines join the run they
// are in. A header with its body on its own line (if x: y = 1) is a
// statement line; an else clause that follows such a line alone does not
// parse, and the file is then parsed whole. nil: the file cannot be cut.
func pyStatementCuts(src []byte) []cut {
	cuts := stmtCuts{{skip: true}}
	run, runIndent := -1, ""
	end := func(at int) {
		if run >= 0 {
			cuts.add(cut{at: run, stmt: runIndent != ""})
			cuts.add(cut{at: at, skip: true})
			run = -1
		}
	}
	depth := 0
	for i := 0; i < len(src); {
		j := i
		for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
			j++
		}
		if j == len(src) || src[j] == '\n' || src[j] == '\r' || src[j] == '#' {
			// a blank or comment line: in the run, if any
			k := bytes.IndexByte(src[j:], '\n')
			if k < 0 {
				break
			}
			i = j + k + 1
			continue
		}
		var last byte
		e, ok := pyLineEnd(src, j, &depth, &last)
		if !ok {
			return nil
		}
		switch indent := string(src[i:j]); {
		case last == ':' || src[j] == '@':
			end(i)
		case run < 0 || indent != runIndent:
			end(i)
			run, runIndent = i, indent
		}
		i = e
	}
	if depth != 0 {
		return nil
	}
	end(len(src))
	return cuts.done(len(src))
}
