package matcher

import "fmt"

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

// WithStrictness returns a copy of p matched with strictness s.
func (p *Pattern) WithStrictness(s Strictness) *Pattern {
	c := *p
	c.strict = s
	return &c
}
