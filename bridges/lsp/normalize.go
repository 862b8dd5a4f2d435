package lsp

import "sort"
import "strings"

// NormalizeMessage returns a diagnostic's message in the form Seen
// compares: every quoted type in it ('URL | RequestInfo', "int | str")
// with the members of each union and intersection sorted, at every depth
// ('Promise<B | A>' reads as 'Promise<A | B>'). A checker prints a union
// in the order it met its members, which another change elsewhere can
// alter without changing the type: tsserver printed 'URL | RequestInfo'
// before a write and 'RequestInfo | URL' after it. clangd's note that a
// fix is offered (" (fix available)") is dropped: whether its include
// fixer has one depends on how far its index got, not on the code.
func NormalizeMessage(msg string) string {
	msg = strings.TrimSuffix(strings.TrimSuffix(msg, " (fix available)"), " (fixes available)")
	if !strings.ContainsAny(msg, "|&") {
		return msg
	}
	var b strings.Builder
	for i := 0; i < len(msg); {
		q := msg[i]
		if (q != '\'' && q != '"') || !quoteOpens(msg, i) {
			b.WriteByte(q)
			i++
			continue
		}
		end := quoteCloses(msg, i+1, q)
		if end < 0 {
			b.WriteString(msg[i:])
			break
		}
		b.WriteByte(q)
		b.WriteString(normalizeType(msg[i+1 : end]))
		b.WriteByte(q)
		i = end + 1
	}
	return b.String()
}

// quoteOpens reports whether the quote at i opens a quoted span: it
// starts the message or follows a space or an opening bracket.
func quoteOpens(s string, i int) bool {
	return i == 0 || strings.IndexByte(" \t\n([{<:,", s[i-1]) >= 0
}

// quoteCloses returns the index of the quote q at or after from that ends
// the span: one followed by the end, a space or punctuation; -1 if none.
func quoteCloses(s string, from int, q byte) int {
	for j := from; j < len(s); j++ {
		if s[j] != q {
			continue
		}
		if j+1 == len(s) || strings.IndexByte(" \t\n.,;:)]}?!", s[j+1]) >= 0 {
			return j
		}
	}
	return -1
}

// normalizeType sorts the members of t's top-level union (|) and of each
// member's intersection (&), after normalizing inside every bracket. A
// function type (=> at the top level) is left in its order: its return
// type's union is not the whole type's.
func normalizeType(t string) string {
	t = normalizeInner(t)
	if depthSplit(t, "=>") != nil {
		return t
	}
	union := depthSplit(t, "|")
	if union == nil {
		return sortMembers(t, "&")
	}
	for i, m := range union {
		union[i] = sortMembers(strings.TrimSpace(m), "&")
	}
	sort.Strings(union)
	return strings.Join(union, " | ")
}

// sortMembers sorts t's top-level members separated by sep.
func sortMembers(t, sep string) string {
	parts := depthSplit(t, sep)
	if parts == nil {
		return t
	}
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	sort.Strings(parts)
	return strings.Join(parts, " "+sep+" ")
}

// normalizeInner normalizes the contents of each top-level bracket group
// of t ((...), [...], {...}, <...>) as a type.
func normalizeInner(t string) string {
	var b strings.Builder
	for i := 0; i < len(t); i++ {
		c := t[i]
		closer := bracketCloser(c)
		if closer == 0 {
			b.WriteByte(c)
			continue
		}
		end := matching(t, i)
		if end < 0 {
			b.WriteString(t[i:])
			return b.String()
		}
		b.WriteByte(c)
		b.WriteString(normalizeList(t[i+1:end], ";"))
		b.WriteByte(closer)
		i = end
	}
	return b.String()
}

// normalizeList normalizes a list inside brackets (arguments, tuple
// members, type arguments, an object type's members) member by member,
// in its order: split at sep, then at the next separator (";" then ",").
func normalizeList(inner, sep string) string {
	parts := depthSplit(inner, sep)
	if parts == nil {
		if sep == ";" {
			return normalizeList(inner, ",")
		}
		parts = []string{inner}
	}
	for k, p := range parts {
		if sep == ";" {
			parts[k] = normalizeList(p, ",")
			continue
		}
		lead := p[:len(p)-len(strings.TrimLeft(p, " "))]
		trail := p[len(strings.TrimRight(p, " ")):]
		body := strings.TrimSpace(p)
		if body == "" {
			continue
		}
		// A member "name: type" keeps its name.
		if name, typ, ok := cutTopColon(body); ok {
			body = name + ": " + normalizeType(strings.TrimSpace(typ))
		} else {
			body = normalizeType(body)
		}
		parts[k] = lead + body + trail
	}
	return strings.Join(parts, sep)
}

// cutTopColon splits "name: type" at its first top-level colon.
func cutTopColon(s string) (string, string, bool) {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch {
		case bracketCloser(s[i]) != 0:
			depth++
		case strings.IndexByte(")]}>", s[i]) >= 0 && !(s[i] == '>' && i > 0 && s[i-1] == '='):
			depth--
		case s[i] == ':' && depth == 0:
			return s[:i], s[i+1:], true
		}
	}
	return "", "", false
}

func bracketCloser(c byte) byte {
	switch c {
	case '(':
		return ')'
	case '[':
		return ']'
	case '{':
		return '}'
	case '<':
		return '>'
	}
	return 0
}

// matching returns the index of the bracket closing the one at i, -1 if
// unbalanced. An arrow's > (=>) closes nothing.
func matching(t string, i int) int {
	depth := 0
	for j := i; j < len(t); j++ {
		c := t[j]
		switch {
		case bracketCloser(c) != 0:
			depth++
		case strings.IndexByte(")]}>", c) >= 0:
			if c == '>' && j > 0 && t[j-1] == '=' {
				continue
			}
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// depthSplit splits t at sep outside brackets and quotes; nil when sep
// does not occur there.
func depthSplit(t, sep string) []string {
	var parts []string
	depth, start := 0, 0
	var quote byte
	for j := 0; j < len(t); j++ {
		c := t[j]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case bracketCloser(c) != 0:
			depth++
		case strings.IndexByte(")]}>", c) >= 0:
			if c == '>' && j > 0 && t[j-1] == '=' {
				if depth == 0 && sep == "=>" {
					parts = append(parts, t[start:j-1])
					start = j + 1
				}
				continue
			}
			depth--
		case depth == 0 && sep != "=>" && strings.HasPrefix(t[j:], sep):
			// || and && are not type operators.
			if strings.HasPrefix(t[j:], sep+sep) {
				j++
				continue
			}
			parts = append(parts, t[start:j])
			start = j + len(sep)
		}
	}
	if parts == nil {
		return nil
	}
	return append(parts, t[start:])
}
