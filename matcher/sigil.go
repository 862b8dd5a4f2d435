package matcher

import "math/bits"
import "regexp"
import "strings"

// maxSigilMetas bounds the metavariables compileVariables chooses among:
// it reads at most 2^n variants of the pattern.
const maxSigilMetas = 4

// compileVariables is the pass after the placeholders, for a language whose
// variables start with a sigil (PHP's $x) that a metavariable, written as a
// name (µX), cannot stand for: "catch (Exception $E) { $$$B }", "private
// $T $X;", "function $F(int $X)". The sigil is written before some of the
// pattern's single metavariables, fewest first and leftmost first, until
// a variant reads cleanly in a rung (with the placeholders, if any); each
// sigil and metavariable ("$µX", the variable) stands for the
// metavariable, so it binds the variable, "$e". nil when none reads.
func (rs *readings) compileVariables() (*Pattern, error) {
	spec := rs.spec
	if spec.sigil == "" {
		return nil, nil
	}
	text, phs, ok := withPlaceholders(rs.sub, spec)
	if !ok {
		text, phs = rs.sub, nil
	}
	metas := singleMetas(text, spec.expando, phs)
	if len(metas) == 0 || len(metas) > maxSigilMetas {
		return nil, nil
	}
	for size := 1; size <= len(metas); size++ {
		for set := 1; set < 1<<len(metas); set++ {
			if bits.OnesCount(uint(set)) != size {
				continue
			}
			t, ph := withSigils(text, phs, metas, set, spec)
			pat, err := rs.readPlaceholders(t, ph)
			if err != nil || pat != nil {
				return pat, err
			}
		}
	}
	return nil, nil
}

// singleMetas returns the byte ranges of text's single metavariables ($X,
// not $$X or $$$X) that no placeholder holds, in order.
func singleMetas(text string, expando rune, phs []placeholder) [][2]int {
	e := regexp.QuoteMeta(string(expando))
	re := regexp.MustCompile(`(?:` + e + `)+[A-Z_][A-Z0-9_]*`)
	var out [][2]int
	for _, m := range re.FindAllStringIndex(text, -1) {
		mv, ok := parseMeta(text[m[0]:m[1]], expando)
		if !ok || mv.kind != metaSingle || strings.HasSuffix(text[:m[0]], "$") {
			continue
		}
		held := false
		for _, ph := range phs {
			held = held || uint32(m[0]) >= ph.start && uint32(m[0]) < ph.end
		}
		if !held {
			out = append(out, [2]int{m[0], m[1]})
		}
	}
	return out
}

// withSigils writes spec.sigil before the metavariables of metas that set
// names (bit i: metas[i]) and returns the text and the placeholders, the
// given ones moved past the sigils and one for each "$µX".
func withSigils(text string, phs []placeholder, metas [][2]int, set int, spec *langSpec) (string, []placeholder) {
	var b strings.Builder
	out := append([]placeholder(nil), phs...)
	at, shift := 0, 0
	for i, m := range metas {
		if set&(1<<i) == 0 {
			continue
		}
		b.WriteString(text[at:m[0]])
		start := b.Len()
		b.WriteString(spec.sigil)
		b.WriteString(text[m[0]:m[1]])
		mv, _ := parseMeta(text[m[0]:m[1]], spec.expando)
		for j := range out[:len(phs)] {
			if out[j].start >= uint32(m[0]+shift) {
				out[j].start += uint32(len(spec.sigil))
				out[j].end += uint32(len(spec.sigil))
			}
		}
		shift += len(spec.sigil)
		out = append(out, placeholder{start: uint32(start), end: uint32(b.Len()), meta: mv})
		at = m[1]
	}
	b.WriteString(text[at:])
	return b.String(), out
}
