package nodeadapter

import "bytes"
import "context"
import "encoding/json"
import "io"
import "testing"
import "time"

// nopWriteCloser takes the requests a test's cdpConn sends.
type nopWriteCloser struct{ bytes.Buffer }

func (*nopWriteCloser) Close() error { return nil }

// FuzzCDPReader: whatever the relay writes, the reader neither panics nor
// hangs, and a request pending when the stream ends fails instead of
// waiting.
func FuzzCDPReader(f *testing.F) {
	f.Add([]byte(`{"method":"Debugger.paused","params":{"callFrames":[],"reason":"other"}}` + "\n" + `{"id":1,"result":{}}` + "\n"))
	f.Add([]byte(`{"id":1,"error":{"message":"no"}}` + "\n" + "not json\n" + `{"id":"x"}`))
	f.Add([]byte("\n\n{}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		events := 0
		c := newCDPConn(io.NopCloser(bytes.NewReader(data)), &nopWriteCloser{}, func(string, json.RawMessage) { events++ })
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = c.call(ctx, "Debugger.resume", nil, nil)
		select {
		case <-c.done:
		case <-ctx.Done():
			t.Fatal("the reader did not end with its input")
		}
		if err := c.call(ctx, "Debugger.resume", nil, nil); err == nil {
			t.Fatal("a call after the stream ended should fail")
		}
	})
}
