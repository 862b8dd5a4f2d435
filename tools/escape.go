package tools

import "fmt"
import "strings"
import "unicode/utf8"

// Terminal controls in results.
//
// A result's text reaches a model and, through clients that print it, a
// terminal. A file or a peer's output holding ESC sequences (OSC 52 sets the
// clipboard, CSI 2J clears the screen, OSC 8 hides a link's target) would act
// on that terminal, so the text blocks of every result the model or the CLI
// sees show each C0 control but \n and \t (and \r before \n), DEL, and each
// C1 control (U+0080 to U+009F) escaped as \xNN or \u00NN. The structured part
// keeps the exact text (its JSON escapes C0 controls anyway), and a call from
// an eval cell gets its result unchanged: the cell's own output is escaped
// when it becomes eval's result.

// escapeControls returns s with terminal controls shown escaped and how
// many it escaped.
func escapeControls(s string) (string, int) {
	if !hasControl(s) {
		return s, 0
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\n' || c == '\t':
			b.WriteByte(c)
			i++
		case c == '\r' && i+1 < len(s) && s[i+1] == '\n':
			b.WriteByte(c)
			i++
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
			n++
			i++
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r >= 0x80 && r <= 0x9f {
				fmt.Fprintf(&b, `\u%04x`, r)
				n++
			} else {
				b.WriteString(s[i : i+size])
			}
			i += size
		}
	}
	return b.String(), n
}

// hasControl reports whether s holds a control escapeControls would escape.
func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\n' || c == '\t':
		case c == '\r':
			if i+1 >= len(s) || s[i+1] != '\n' {
				return true
			}
		case c < 0x20 || c == 0x7f:
			return true
		case c == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9f:
			return true
		}
	}
	return false
}

// escapeResult escapes terminal controls in r's text blocks (and the whole
// text each stands for), noting in the block how many it escaped, so that a
// literal `\x1b` in a file can be told from an escaped ESC.
func escapeResult(r *Result) {
	for i := range r.Content {
		c := &r.Content[i]
		if c.Type != TextContent {
			continue
		}
		text, n := escapeControls(c.Text)
		if n > 0 {
			text += fmt.Sprintf("\n(%d terminal control characters are shown escaped, as \\xNN or \\u00NN)", n)
		}
		c.Text = text
		if c.Full != "" {
			c.Full, _ = escapeControls(c.Full)
		}
	}
}
