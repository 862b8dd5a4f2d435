package rule

import "fmt"
import "strings"

// A kind may be a selector, as ast-grep reads one (its ESQuery-like
// syntax, after CSS):
//
//	selector-list     = complex-selector { "," complex-selector }
//	complex-selector  = compound-selector { combinator compound-selector }
//	compound-selector = [ kind ] { ":" pseudo "(" argument ")" }   (not empty)
//	combinator        = ">" (child of) | " " (inside, at any depth)
//	                  | "+" (right after) | "~" (after, at any distance)
//	pseudo            = has ([">"] complex-selector) | not (complex-selector)
//	                  | is (selector-list) | nth-child | nth-last-child
//	                    (An+B ["of" complex-selector])
//
// `call_expression > member_expression > property_identifier` is a
// property_identifier whose parent is a member_expression whose parent is
// a call_expression. A selector compiles to the rules it stands for (kind,
// inside, follows, has, not, any, nthChild), so it matches, captures and
// labels as they do.

// selector is the state of reading one selector.
type selector struct {
	src   string // what is left to read
	ahead *selToken
	c     *compiler
	path  string
}

// selToken is one token: an identifier, a combinator (one of "+~> "), or
// one of ".:(),".
type selToken struct {
	kind byte // 'i' identifier, 'c' combinator, or the punctuation itself
	text string
}

// selectorRule compiles the selector s, the value of a kind at path.
func (c *compiler) selectorRule(s, path string) (node, error) {
	in := &selector{src: strings.TrimSpace(s), c: c, path: path}
	n, err := in.list()
	if err != nil {
		return nil, err
	}
	if !in.empty() {
		return nil, in.errf("unexpected %s", in.describeNext())
	}
	return n, nil
}

func (in *selector) errf(format string, args ...any) error {
	return errAt(in.path, "selector: %s: write kinds joined by >, +, ~ or a space, with :has(), :not(), :is(), :nth-child() or :nth-last-child() after a kind", fmt.Sprintf(format, args...))
}

func (in *selector) empty() bool { return in.src == "" && in.ahead == nil }

func (in *selector) describeNext() string {
	t, err := in.peek()
	if err != nil || t == nil {
		return "end"
	}
	if t.kind == 'c' {
		return fmt.Sprintf("combinator %q", t.text)
	}
	return fmt.Sprintf("%q", t.text)
}

// read returns the next token, nil at the end; whitespace before a
// combinator, ")" or "," is skipped, other whitespace is the descendant
// combinator.
func (in *selector) read() (*selToken, error) {
	if in.src == "" {
		return nil, nil
	}
	var t selToken
	n, trim := 1, false
	switch ch := in.src[0]; {
	case ch == ' ':
		n = len(in.src) - len(strings.TrimLeftFunc(in.src, isSpace))
		if n < len(in.src) && strings.IndexByte("+~>),", in.src[n]) >= 0 {
			in.src = in.src[n:]
			return in.read()
		}
		t, trim = selToken{kind: 'c', text: " "}, true
	case ch == '+' || ch == '~' || ch == '>':
		t, trim = selToken{kind: 'c', text: string(ch)}, true
	case ch == '(' || ch == ',':
		t, trim = selToken{kind: ch, text: string(ch)}, true
	case ch == '.' || ch == ':' || ch == ')':
		t = selToken{kind: ch, text: string(ch)}
	case isIdentStart(ch):
		for n < len(in.src) && (isIdentStart(in.src[n]) || in.src[n] >= '0' && in.src[n] <= '9') {
			n++
		}
		t = selToken{kind: 'i', text: in.src[:n]}
	default:
		return nil, in.errf("%q cannot appear in a selector", string([]rune(in.src)[0]))
	}
	in.src = in.src[n:]
	if trim {
		in.src = strings.TrimLeftFunc(in.src, isSpace)
	}
	return &t, nil
}

func isSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v'
}

func isIdentStart(ch byte) bool {
	return ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch == '_' || ch == '-'
}

func (in *selector) next() (*selToken, error) {
	if t := in.ahead; t != nil {
		in.ahead = nil
		return t, nil
	}
	return in.read()
}

func (in *selector) peek() (*selToken, error) {
	if in.ahead == nil {
		t, err := in.read()
		if err != nil {
			return nil, err
		}
		in.ahead = t
	}
	return in.ahead, nil
}

// peekIs reports whether the next token is of kind k (and text, if given).
func (in *selector) peekIs(k byte, text string) (bool, error) {
	t, err := in.peek()
	if err != nil || t == nil {
		return false, err
	}
	return t.kind == k && (text == "" || t.text == text), nil
}

// list reads a selector list: any of its complex selectors.
func (in *selector) list() (node, error) {
	var rules []node
	for !in.empty() {
		n, err := in.complex()
		if err != nil {
			return nil, err
		}
		rules = append(rules, n)
		comma, err := in.peekIs(',', "")
		if err != nil {
			return nil, err
		}
		if !comma {
			break
		}
		in.ahead = nil
	}
	if len(rules) == 1 {
		return rules[0], nil
	}
	return &anyNode{rules: rules}, nil
}

// complex reads compound selectors joined by combinators: each later one
// is the node matched, related to what comes before it.
func (in *selector) complex() (node, error) {
	n, err := in.compound()
	if err != nil {
		return nil, err
	}
	for {
		comb, err := in.peekIs('c', "")
		if err != nil {
			return nil, err
		}
		if !comb {
			return n, nil
		}
		t, _ := in.next()
		next, err := in.compound()
		if err != nil {
			return nil, err
		}
		var rel *relNode
		switch t.text {
		case ">":
			rel = &relNode{rel: "inside", rule: n}
		case " ":
			rel = &relNode{rel: "inside", rule: n, toEnd: true}
		case "+":
			rel = &relNode{rel: "follows", rule: n}
		case "~":
			rel = &relNode{rel: "follows", rule: n, toEnd: true}
		}
		n = &allNode{rules: []node{next, rel}}
	}
}

// compound reads a kind and the pseudo-classes after it (at least one of
// them).
func (in *selector) compound() (node, error) {
	var rules []node
	t, err := in.peek()
	if err != nil {
		return nil, err
	}
	if t != nil && t.kind == 'i' {
		in.ahead = nil
		if !in.c.kinds[t.text] {
			return nil, errAt(in.path, "%q is not a node kind of %s: `tether parse` on a sample prints the kinds", t.text, in.c.lang.ID)
		}
		rules = append(rules, &kindNode{kind: t.text})
	}
	for {
		t, err := in.peek()
		if err != nil {
			return nil, err
		}
		if t == nil || t.kind != '.' && t.kind != ':' {
			break
		}
		if t.kind == '.' {
			return nil, in.errf("class selectors (.name) are not supported")
		}
		n, err := in.pseudo()
		if err != nil {
			return nil, err
		}
		rules = append(rules, n)
	}
	switch len(rules) {
	case 0:
		return nil, in.errf("a kind or a pseudo-class is missing before %s", in.describeNext())
	case 1:
		return rules[0], nil
	}
	return &allNode{rules: rules}, nil
}

// pseudo reads ":name(argument)".
func (in *selector) pseudo() (node, error) {
	in.ahead = nil // the ':'
	name, err := in.next()
	if err != nil {
		return nil, err
	}
	if name == nil || name.kind != 'i' {
		return nil, in.errf("a pseudo-class name must follow ':'")
	}
	if t, err := in.next(); err != nil || t == nil || t.kind != '(' {
		if err != nil {
			return nil, err
		}
		return nil, in.errf("'(' must follow :%s", name.text)
	}
	var n node
	switch name.text {
	case "has":
		n, err = in.has()
	case "not":
		var sub node
		if sub, err = in.complex(); err == nil {
			n = &notNode{rule: sub}
		}
	case "is":
		n, err = in.list()
	case "nth-child", "nth-last-child":
		n, err = in.nth(name.text == "nth-last-child")
	default:
		return nil, in.errf("unknown pseudo-class :%s (has, not, is, nth-child and nth-last-child are known)", name.text)
	}
	if err != nil {
		return nil, err
	}
	if t, err := in.next(); err != nil || t == nil || t.kind != ')' {
		if err != nil {
			return nil, err
		}
		return nil, in.errf("')' must close :%s(", name.text)
	}
	return n, nil
}

// has reads :has's argument: a leading ">" for a child, else a
// descendant at any depth.
func (in *selector) has() (node, error) {
	child, err := in.peekIs('c', ">")
	if err != nil {
		return nil, err
	}
	if child {
		in.ahead = nil
	}
	sub, err := in.complex()
	if err != nil {
		return nil, err
	}
	return &relNode{rel: "has", rule: sub, toEnd: !child}, nil
}

// nth reads An+B [of complex-selector].
func (in *selector) nth(reverse bool) (node, error) {
	end := len(in.src) - len(strings.TrimLeft(in.src, "0123456789nN+- "))
	text := strings.TrimSpace(in.src[:end])
	in.src = strings.TrimLeftFunc(in.src[end:], isSpace)
	a, b, err := parseAnB(text)
	if err != nil {
		return nil, in.errf("%v", err)
	}
	n := &nthNode{a: a, b: b, reverse: reverse}
	of, err := in.peekIs('i', "of")
	if err != nil || !of {
		return n, err
	}
	in.ahead = nil
	in.src = strings.TrimLeftFunc(in.src, isSpace)
	in.c.rels++
	n.of, err = in.complex()
	in.c.rels--
	return n, err
}

// parseAnB reads CSS's An+B as ast-grep does: spaces ignored, A and B
// whole numbers, A before n, B after it or alone.
func parseAnB(s string) (a, b int, err error) {
	const (
		initial = iota
		afterN
		sign
		num
	)
	state, hasN, sgn, n := initial, false, 1, 0
	bad := func() (int, int, error) {
		return 0, 0, fmt.Errorf("position %q is not An+B (a number, n, 2n+1, -n+3)", s)
	}
	for _, ch := range s {
		if isSpace(ch) {
			continue
		}
		digit := ch >= '0' && ch <= '9'
		switch {
		case ch == 'n' || ch == 'N':
			if hasN || state == afterN {
				return bad()
			}
			if state == num {
				a = sgn * n
			} else {
				a = sgn
			}
			state, hasN, n = afterN, true, 0
		case ch == '+' || ch == '-':
			if state == sign || state == num {
				return bad()
			}
			state, sgn, n = sign, 1, 0
			if ch == '-' {
				sgn = -1
			}
		case digit && state == afterN:
			return bad()
		case digit:
			if state != num {
				n = 0
			}
			state, n = num, n*10+int(ch-'0')
			if n > 1<<30 {
				return bad()
			}
		default:
			return bad()
		}
	}
	if state == initial || state == sign {
		return bad()
	}
	return a, n * sgn, nil
}
