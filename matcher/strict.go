package matcher

import "fmt"
import "strings"

// Strictness is how closely a node must follow a pattern to match it, as
// ast-grep's strictness option has it. Comments are never compared, at any
// strictness.
type Strictness uint8

const (
	// StrictSmart, the default: every node of the pattern must match; the
	// candidate's anonymous nodes (tokens such as async, a trailing comma)
	// that the pattern does not write may be skipped.
	StrictSmart Strictness = iota
	// StrictCST: every node of the candidate must be the pattern's too,
	// tokens included.
	StrictCST
	// StrictAST: only named nodes are compared; tokens are skipped in both.
	StrictAST
	// StrictRelaxed is StrictAST (comments are never compared here).
	StrictRelaxed
	// StrictSignature: named nodes are compared by kind only, not by text.
	StrictSignature
)

var strictNames = []string{"smart", "cst", "ast", "relaxed", "signature"}

// ParseStrictness reads a strictness by its ast-grep name: cst, smart, ast,
// relaxed or signature.
func ParseStrictness(s string) (Strictness, error) {
	for i, n := range strictNames {
		if n == s {
			return Strictness(i), nil
		}
	}
	return 0, fmt.Errorf("matcher: strictness %q: use cst, smart, ast, relaxed or signature", s)
}

// String returns the strictness's ast-grep name.
func (s Strictness) String() string {
	if int(s) < len(strictNames) {
		return strictNames[s]
	}
	return fmt.Sprintf("Strictness(%d)", uint8(s))
}

// WithStrictness returns a copy of p matched with strictness s. Its
// Tokens are those the strictness still compares: with ast and relaxed
// the named leaves' text only (tokens are skipped), with signature none.
func (p *Pattern) WithStrictness(s Strictness) *Pattern {
	c := *p
	c.strict = s
	switch {
	case s == StrictSignature:
		c.tokens = nil
	case s >= StrictAST:
		named := map[string]bool{}
		var walk func(n *pnode)
		walk = func(n *pnode) {
			if n.meta.kind != metaNone {
				return
			}
			if n.leaf && n.named {
				named[strings.TrimSpace(n.text)] = true
			}
			for _, k := range n.kids {
				walk(k)
			}
		}
		for _, r := range p.roots {
			walk(r)
		}
		c.tokens = nil
		for _, t := range p.tokens {
			if named[t] {
				c.tokens = append(c.tokens, t)
			}
		}
	}
	return &c
}
