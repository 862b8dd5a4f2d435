package matcher

import "strings"
import "unicode/utf8"

// metaKind says what a metavariable matches.
type metaKind uint8

const (
	metaNone   metaKind = iota
	metaSingle          // $NAME: one named node
	metaAny             // $$NAME: one node, named or anonymous
	metaMulti           // $$$NAME or $$$: zero or more consecutive siblings
)

// metaVar is a metavariable found in a pattern.
type metaVar struct {
	kind metaKind
	name string // "" for $$$ and for wildcards ($_, $_NAME): they bind nothing
}

func isNameStart(c byte) bool { return c == '_' || c >= 'A' && c <= 'Z' }
func isNameByte(c byte) bool  { return isNameStart(c) || c >= '0' && c <= '9' }

// metaAt reads a metavariable written with '$' at s[i:] and returns its kind,
// name, how many '$' it has and its length in bytes; n == 0 when there is none.
func metaAt(s string, i int) (kind metaKind, name string, dollars, n int) {
	j := i
	for j < len(s) && s[j] == '$' && j-i < 3 {
		j++
	}
	dollars = j - i
	if dollars == 0 {
		return metaNone, "", 0, 0
	}
	k := j
	if k < len(s) && isNameStart(s[k]) {
		k++
		for k < len(s) && isNameByte(s[k]) {
			k++
		}
	}
	name = s[j:k]
	switch {
	case dollars == 3:
		kind = metaMulti
	case name == "":
		return metaNone, "", 0, 0
	case dollars == 2:
		kind = metaAny
	default:
		kind = metaSingle
	}
	if strings.HasPrefix(name, "_") {
		name = "" // $_ and $_NAME bind nothing
	}
	return kind, name, dollars, k - i
}

// substitute replaces the '$' of every metavariable in pattern by the
// language's expando character, so that metavariables lex as identifiers.
func substitute(pattern string, expando rune) string {
	if expando == '$' || !strings.Contains(pattern, "$") {
		return pattern
	}
	var b strings.Builder
	ex := string(expando)
	for i := 0; i < len(pattern); {
		if pattern[i] != '$' {
			b.WriteByte(pattern[i])
			i++
			continue
		}
		_, _, dollars, n := metaAt(pattern, i)
		if n == 0 {
			b.WriteByte('$')
			i++
			continue
		}
		b.WriteString(strings.Repeat(ex, dollars))
		b.WriteString(pattern[i+dollars : i+n])
		i += n
	}
	return b.String()
}

// parseMeta reports whether text (a pattern node's whole text, after
// substitution) is exactly one metavariable, and which.
func parseMeta(text string, expando rune) (metaVar, bool) {
	if text == "" {
		return metaVar{}, false
	}
	dollars := 0
	i := 0
	for i < len(text) && dollars < 3 {
		r, size := utf8.DecodeRuneInString(text[i:])
		if r != expando {
			break
		}
		dollars++
		i += size
	}
	if dollars == 0 {
		return metaVar{}, false
	}
	name := text[i:]
	if name != "" {
		if !isNameStart(name[0]) {
			return metaVar{}, false
		}
		for j := 1; j < len(name); j++ {
			if !isNameByte(name[j]) {
				return metaVar{}, false
			}
		}
	}
	var kind metaKind
	switch {
	case dollars == 3:
		kind = metaMulti
	case name == "":
		return metaVar{}, false
	case dollars == 2:
		kind = metaAny
	default:
		kind = metaSingle
	}
	if strings.HasPrefix(name, "_") {
		name = ""
	}
	return metaVar{kind: kind, name: name}, true
}
