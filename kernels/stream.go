package kernels

import "fmt"
import "strings"

import "github.com/tetherhq/tether/internal/textcut"

// StreamBuffer collects one output stream within a bound: it keeps the first
// three quarters of the bound and the last quarter, and counts what fell in
// between. The zero value is unusable; use NewStreamBuffer.
type StreamBuffer struct {
	max     int
	head    []byte
	tail    []byte // ring buffer contents once the head is full, oldest first
	dropped int64

	// With KeepAll: everything written, up to allMax bytes, so that output
	// cut from the text can be handed over whole (Stream.Full).
	allMax  int
	all     []byte
	allDrop int64
}

// KeepAll makes the buffer also keep everything written, up to limit bytes
// (what is past it is counted, not kept), for Stream.Full. It returns b.
func (b *StreamBuffer) KeepAll(limit int) *StreamBuffer {
	b.allMax = limit
	return b
}

// NewStreamBuffer returns a buffer bounded at max bytes (at least 16).
func NewStreamBuffer(max int) *StreamBuffer {
	if max < 16 {
		max = 16
	}
	return &StreamBuffer{max: max}
}

// Write appends p; it never fails.
func (b *StreamBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if b.allMax > 0 {
		k := min(b.allMax-len(b.all), len(p))
		b.all = append(b.all, p[:k]...)
		b.allDrop += int64(len(p) - k)
	}
	headCap := b.max * 3 / 4
	if room := headCap - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 {
		return n, nil
	}
	tailCap := b.max - headCap
	b.tail = append(b.tail, p...)
	if over := len(b.tail) - tailCap; over > 0 {
		b.dropped += int64(over)
		b.tail = append(b.tail[:0], b.tail[over:]...)
	}
	return n, nil
}

// WriteString appends s.
func (b *StreamBuffer) WriteString(s string) { b.Write([]byte(s)) }

// Len is the number of bytes written so far, dropped ones included.
func (b *StreamBuffer) Len() int64 { return int64(len(b.head)+len(b.tail)) + b.dropped }

// Stream returns the kept text. When bytes were dropped, a marker line in the
// middle says how many.
func (b *StreamBuffer) Stream() Stream {
	if b.dropped == 0 {
		return Stream{Text: CollapseCR(string(b.head) + string(b.tail))}
	}
	head, tail := textcut.TrimPartialEnd(b.head), textcut.TrimPartialStart(b.tail)
	marker := fmt.Sprintf("\n[... output cut: %d bytes not shown ...]\n", b.dropped)
	st := Stream{Text: CollapseCR(string(head)) + marker + CollapseCR(string(tail)), Cut: b.dropped}
	if b.allMax > 0 {
		st.Full, st.FullCut = CollapseCR(string(textcut.TrimPartialEnd(b.all))), b.allDrop
	}
	return st
}

// CollapseCR shows text as a notebook (or a terminal) leaves it: a carriage
// return not followed by a newline starts its line over, so a progress bar
// redrawn with \r reads as its last state ("\r50%\r100%\n" is "100%\n").
// A line's \r\n ending is kept.
func CollapseCR(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for len(s) > 0 {
		line, rest, nl := s, "", false
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line, rest, nl = s[:i], s[i+1:], true
		}
		crlf := nl && strings.HasSuffix(line, "\r")
		if crlf {
			line = line[:len(line)-1]
		}
		if i := strings.LastIndexByte(line, '\r'); i >= 0 {
			line = line[i+1:]
		}
		b.WriteString(line)
		if crlf {
			b.WriteByte('\r')
		}
		if nl {
			b.WriteByte('\n')
		}
		s = rest
	}
	return b.String()
}

// CutText bounds s to max bytes on a rune boundary. When it cuts, the second
// result says so ("text cut: 1234 of 99999 bytes shown").
func CutText(s string, max int) (string, string) {
	if max <= 0 || len(s) <= max {
		return s, ""
	}
	cut := textcut.Prefix(s, max)
	return cut, fmt.Sprintf("text cut: %d of %d bytes shown", len(cut), len(s))
}

// TrimTraceback folds runs of identical lines ("[previous line repeated 9997
// more times]", as Python does for deep recursion) and bounds the result to max
// bytes.
func TrimTraceback(s string, max int) string {
	lines := strings.Split(s, "\n")
	var out []string
	for i := 0; i < len(lines); {
		j := i + 1
		for j < len(lines) && lines[j] == lines[i] {
			j++
		}
		out = append(out, lines[i])
		if n := j - i - 1; n > 2 {
			out = append(out, fmt.Sprintf("  [previous line repeated %d more times]", n))
		} else {
			out = append(out, lines[i+1:j]...)
		}
		i = j
	}
	t, note := CutText(strings.Join(out, "\n"), max)
	if note != "" {
		t += "\n[traceback " + note + "]"
	}
	return t
}

// Output is one piece of a cell's output, in the order the cell produced it:
// a run of stdout or stderr text, or a display.
type Output struct {
	// Stream is "stdout" or "stderr" for text, OutputDisplay for a display.
	Stream string `json:"stream"`
	// Text is the stream text.
	Text string `json:"text,omitempty"`
	// Display is the index in Result.Displays of a display output.
	Display int `json:"display,omitempty"`
}

// OutputDisplay is the Stream of an Output that is a display.
const OutputDisplay = "display"

// Transcript records a cell's outputs in order and keeps its displays within
// a count. Stream text is kept in order only while all of it fits in max
// bytes; past that the order is given up (Outputs returns nil) and the cell's
// separately bounded Stdout and Stderr tell what was printed. The zero value
// is unusable; use NewTranscript.
type Transcript struct {
	max         int
	maxDisplays int
	bytes       int
	over        bool
	outs        []Output
	displays    []Display
	dropped     int
	images      int
}

// NewTranscript returns a transcript keeping stream order up to max bytes of
// text and at most maxDisplays displays (DefaultMaxDisplays when <= 0).
func NewTranscript(max, maxDisplays int) *Transcript {
	if maxDisplays <= 0 {
		maxDisplays = DefaultMaxDisplays
	}
	return &Transcript{max: max, maxDisplays: maxDisplays}
}

// Write records text written to stream ("stdout" or "stderr").
func (t *Transcript) Write(stream, text string) {
	if text == "" || t.over {
		return
	}
	t.bytes += len(text)
	if t.bytes > t.max {
		t.over, t.outs = true, nil
		return
	}
	if n := len(t.outs); n > 0 && t.outs[n-1].Stream == stream {
		t.outs[n-1].Text += text
		return
	}
	t.outs = append(t.outs, Output{Stream: stream, Text: text})
}

// MaxImagesPerCell bounds how many images one cell returns; a display past
// it keeps its text and a note instead of the image.
const MaxImagesPerCell = 10

// Display records a display; past the count it is dropped and counted.
func (t *Transcript) Display(d Display) {
	if len(t.displays) >= t.maxDisplays {
		t.dropped++
		return
	}
	if len(d.PNG) > 0 {
		if t.images >= MaxImagesPerCell {
			d.PNG = nil
			note := fmt.Sprintf("image left out: a cell returns at most %d images", MaxImagesPerCell)
			if d.Note != "" {
				note = d.Note + "; " + note
			}
			d.Note = note
		} else {
			t.images++
		}
	}
	t.displays = append(t.displays, d)
	if !t.over {
		t.outs = append(t.outs, Output{Stream: OutputDisplay, Display: len(t.displays) - 1})
	}
}

// Fill sets res.Displays and res.Outputs, and adds a notice when displays were
// dropped.
func (t *Transcript) Fill(res *Result) {
	res.Displays = t.displays
	if !t.over {
		for i := range t.outs {
			t.outs[i].Text = CollapseCR(t.outs[i].Text)
		}
		res.Outputs = t.outs
	}
	if t.dropped > 0 {
		res.Notices = append(res.Notices, fmt.Sprintf("displays cut: %d of %d shown; show fewer (a summary, one combined figure)", len(t.displays), len(t.displays)+t.dropped))
	}
}
