package ipynb

import "encoding/json"

// The scanner below finds where values are in JSON text that json.Valid
// accepted; it does not check the text again.

// span is a value's text: data[start:end].
type span struct{ start, end int }

// member is one member of an object: its key, where the key's string
// starts, and its value's span.
type member struct {
	key              string
	keyStart         int
	valStart, valEnd int
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// valueEnd is the end of the value that starts at b[i].
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = stringEnd(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\n' && b[j] != '\r' && b[j] != '\t' {
		j++
	}
	return j
}

// stringEnd is the end of the string whose quote is b[i].
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// objectMembers are the members of the object whose '{' is b[i].
func objectMembers(b []byte, i int) []member {
	var ms []member
	j := skipSpace(b, i+1)
	for j < len(b) && b[j] == '"' {
		kEnd := stringEnd(b, j)
		var key string
		json.Unmarshal(b[j:kEnd], &key)
		v := skipSpace(b, skipSpace(b, kEnd)+1) // past the ':'
		vEnd := valueEnd(b, v)
		ms = append(ms, member{key: key, keyStart: j, valStart: v, valEnd: vEnd})
		j = skipSpace(b, vEnd)
		if j < len(b) && b[j] == ',' {
			j = skipSpace(b, j+1)
		}
	}
	return ms
}

// arrayElements are the spans of the elements of the array whose '[' is
// b[i].
func arrayElements(b []byte, i int) []span {
	var es []span
	j := skipSpace(b, i+1)
	for j < len(b) && b[j] != ']' {
		end := valueEnd(b, j)
		es = append(es, span{j, end})
		j = skipSpace(b, end)
		if j < len(b) && b[j] == ',' {
			j = skipSpace(b, j+1)
		}
	}
	return es
}

// lineIndent is the blanks that start the line b[i] is on when only blanks
// come before b[i] on it, "" otherwise.
func lineIndent(b []byte, i int) string {
	j := i
	for j > 0 && (b[j-1] == ' ' || b[j-1] == '\t') {
		j--
	}
	if j > 0 && b[j-1] != '\n' {
		return ""
	}
	return string(b[j:i])
}
