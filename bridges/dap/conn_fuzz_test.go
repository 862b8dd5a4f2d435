package dap

import "bytes"
import "io"
import "testing"

import godap "github.com/google/go-dap"
import "github.com/tetherhq/tether/internal/textcut"

type fuzzRWC struct{ r io.Reader }

func (f *fuzzRWC) Read(p []byte) (int, error)  { return f.r.Read(p) }
func (f *fuzzRWC) Write(p []byte) (int, error) { return len(p), nil }
func (f *fuzzRWC) Close() error                { return nil }

// FuzzConnRead feeds arbitrary bytes to the frame reader: it must end
// cleanly, never panic, and hand events to the session's handler.
func FuzzConnRead(f *testing.F) {
	f.Add([]byte("Content-Length: 52\r\n\r\n{\"seq\":1,\"type\":\"event\",\"event\":\"initialized\"}     "))
	f.Add([]byte("Content-Length: 70\r\n\r\n{\"seq\":2,\"type\":\"response\",\"request_seq\":1,\"success\":false,\"body\":7}"))
	f.Add([]byte("Content-Length: 50\r\n\r\n{\"seq\":3,\"type\":\"request\",\"command\":\"runInTerminal\"}"))
	f.Add([]byte("Content-Length: 99999999999\r\n\r\n{}"))
	f.Add([]byte("garbage\r\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := &session{out: newOutputBuf(1024), console: &textcut.Tail{Max: 64}, initialized: make(chan struct{}),
			changed: make(chan struct{}), bpEvents: map[int]godap.Breakpoint{}}
		c := newConn(&fuzzRWC{r: bytes.NewReader(data)}, s.onEvent, nil)
		<-c.done
		if err := c.closeErr(); err == nil {
			t.Fatal("a finished read loop must record why it ended")
		}
	})
}
