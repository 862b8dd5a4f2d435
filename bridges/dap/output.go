package dap

import "fmt"
import "strings"
import "sync"

import "github.com/tetherhq/tether/internal/textcut"

// outputBuf keeps the bounded tail of the debuggee's stdout and stderr, in
// arrival order, and counts what it dropped.
type outputBuf struct {
	mu      sync.Mutex
	limit   int
	chunks  []outChunk
	size    int
	dropped int
}

type outChunk struct {
	stream string
	text   string
}

func newOutputBuf(limit int) *outputBuf { return &outputBuf{limit: limit} }

func (o *outputBuf) add(stream, text string) {
	if text == "" {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if n := len(o.chunks); n > 0 && o.chunks[n-1].stream == stream {
		o.chunks[n-1].text += text
	} else {
		o.chunks = append(o.chunks, outChunk{stream, text})
	}
	o.size += len(text)
	for o.size > o.limit && len(o.chunks) > 0 {
		over := o.size - o.limit
		c := &o.chunks[0]
		if len(c.text) <= over {
			o.size -= len(c.text)
			o.dropped += len(c.text)
			o.chunks = o.chunks[1:]
			continue
		}
		// Cut at the start of a line when one is near, else at a character
		// boundary: never in the middle of a UTF-8 sequence.
		cutAt := over
		if i := strings.IndexByte(c.text[over:], '\n'); i >= 0 && i < 256 && over+i+1 < len(c.text) {
			cutAt = over + i + 1
		}
		kept := textcut.Suffix(c.text, len(c.text)-cutAt)
		o.size -= len(c.text) - len(kept)
		o.dropped += len(c.text) - len(kept)
		c.text = kept
	}
}

// render returns the kept output, a header line per stream switch, and how
// many bytes were dropped from the front.
func (o *outputBuf) render() (string, int, int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	var b strings.Builder
	for _, c := range o.chunks {
		fmt.Fprintf(&b, "--- %s ---\n", c.stream)
		b.WriteString(c.text)
		if !strings.HasSuffix(c.text, "\n") {
			b.WriteString("\n")
		}
	}
	return b.String(), o.size, o.dropped
}
