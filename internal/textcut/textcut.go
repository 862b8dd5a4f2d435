package textcut

import "fmt"
import "strings"
import "sync"
import "unicode/utf8"

// Prefix returns the longest prefix of s of at most max bytes that does not
// end inside a UTF-8 sequence.
func Prefix(s string, max int) string {
	if max < 0 {
		max = 0
	}
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// Suffix returns the longest suffix of s of at most max bytes that does not
// start inside a UTF-8 sequence.
func Suffix(s string, max int) string {
	if max < 0 {
		max = 0
	}
	if len(s) <= max {
		return s
	}
	at := len(s) - max
	for at < len(s) && !utf8.RuneStart(s[at]) {
		at++
	}
	return s[at:]
}

// Bytes returns s cut to at most max bytes (on a character boundary) followed
// by a line saying how much is shown, "... (4096 of 10240 bytes shown)", and
// whether it cut. s is returned unchanged when it fits.
func Bytes(s string, max int) (string, bool) {
	p := Prefix(s, max)
	if len(p) == len(s) {
		return s, false
	}
	return p + fmt.Sprintf("\n... (%d of %d bytes shown)", len(p), len(s)), true
}

// Chars returns s cut to at most n characters (runes) followed by
// "… (cut: 400 of 1234 chars shown)", and whether it cut.
func Chars(s string, n int) (string, bool) {
	if n < 0 {
		n = 0
	}
	if len(s) <= n {
		return s, false // fewer bytes than n: fewer characters too
	}
	total := utf8.RuneCountInString(s)
	if total <= n {
		return s, false
	}
	i := 0
	for k := 0; k < n; k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + fmt.Sprintf("… (cut: %d of %d chars shown)", n, total), true
}

// Head is an io.Writer that keeps the first Max bytes written and counts the
// rest. It is safe for concurrent use; the zero value keeps nothing.
type Head struct {
	Max int

	mu      sync.Mutex
	buf     []byte
	dropped int64
}

// Write keeps what fits and always reports all of p written, so a producer is
// never failed for being verbose.
func (h *Head) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	room := h.Max - len(h.buf)
	if room < 0 {
		room = 0
	}
	if len(p) <= room {
		h.buf = append(h.buf, p...)
		return len(p), nil
	}
	h.buf = append(h.buf, p[:room]...)
	h.dropped += int64(len(p) - room)
	return len(p), nil
}

// String returns what was kept, cut back to a character boundary.
func (h *Head) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.dropped == 0 {
		return string(h.buf)
	}
	return string(TrimPartialEnd(h.buf))
}

// Dropped returns how many bytes were written past Max.
func (h *Head) Dropped() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.dropped
}

// Cut reports whether anything was dropped.
func (h *Head) Cut() bool { return h.Dropped() > 0 }

// TrimPartialEnd drops an incomplete UTF-8 sequence at the end of b (one a
// cut split), leaving invalid bytes that were written as such alone.
func TrimPartialEnd(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			break
		}
	}
	return b
}

// Tail is an io.Writer that keeps the last Max bytes written and counts what
// it dropped from the front. It is safe for concurrent use; the zero value
// keeps nothing.
type Tail struct {
	Max int

	mu      sync.Mutex
	buf     []byte
	dropped int64
}

// Write keeps the last Max bytes of everything written so far.
func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.Max; over > 0 {
		t.dropped += int64(over)
		t.buf = append(t.buf[:0:0], t.buf[over:]...)
	}
	return len(p), nil
}

// String returns what was kept, starting on a character boundary.
func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dropped == 0 {
		return string(t.buf)
	}
	return string(TrimPartialStart(t.buf))
}

// TrimPartialStart drops the continuation bytes of a UTF-8 sequence cut at
// the start of b (at most three: what a cut can leave).
func TrimPartialStart(b []byte) []byte {
	i := 0
	for i < len(b) && i < utf8.UTFMax-1 && !utf8.RuneStart(b[i]) {
		i++
	}
	return b[i:]
}

// Dropped returns how many bytes were dropped from the front.
func (t *Tail) Dropped() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.dropped
}

// LastLines returns the last n lines of s, led by a line that counts the
// ones left out ("(12 earlier lines cut)") when there are more.
func LastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("(%d earlier lines cut)", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}
