package server_test

import "bufio"
import "bytes"
import "context"
import "encoding/json"
import "io"
import "os"
import "strings"
import "sync"
import "testing"
import "time"

import "github.com/tetherhq/tether/server"
import "github.com/tetherhq/tether/tools"

// fuzzInputTime bounds how long one input may take to be read and the probe
// after it answered (a hang is a failure).
const fuzzInputTime = 20 * time.Second

var (
	fuzzRunOnce sync.Once
	fuzzRun     *tools.Run
	fuzzRunErr  error
)

// FuzzTransport feeds random bytes to a server over a server.Transport and
// then a ping: the server never panics or ends, and the ping is answered,
// within fuzzInputTime.
func FuzzTransport(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"f","version":"0"}}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"f","version":"0"}}}` + "\n" +
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read","arguments":{"path":"a"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"x"}}`,
		"hello", `{"jsonrpc":"2.0","id":1,"method":"ping"`, "{\x00}", "\xff\xfe", `[]`, `[1,{"jsonrpc":"2.0","id":2,"method":"ping"}]`,
		`{"id":3,"method":"ping"}`, `{"jsonrpc":"2.0","id":{},"method":"ping"}`, `{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1e3,"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"method":"ping","params":"x"}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":"` + strings.Repeat("x", 2000) + `"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		"\r\n\r\n  \n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRunOnce.Do(func() {
			dir, err := os.MkdirTemp("", "tether-fuzz")
			if err != nil {
				fuzzRunErr = err
				return
			}
			os.WriteFile(dir+"/a", []byte("a\n"), 0o644)
			fuzzRun, fuzzRunErr = tools.NewRun(context.Background(), tools.Config{WorkDir: dir, Surface: tools.SurfacePlan})
		})
		if fuzzRunErr != nil {
			t.Fatal(fuzzRunErr)
		}
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		tr := &server.Transport{In: inR, Out: outW, MaxLine: 1024}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done := make(chan error, 1)
		go func() { done <- server.New(server.Options{}).Serve(ctx, fuzzRun, tr) }()
		answered := make(chan struct{})
		go func() {
			sc := bufio.NewScanner(outR)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				var r struct {
					ID     any             `json:"id"`
					Result json.RawMessage `json:"result"`
				}
				if json.Unmarshal(sc.Bytes(), &r) == nil && r.ID == "fuzz-probe" && r.Result != nil {
					close(answered)
					break
				}
			}
			io.Copy(io.Discard, outR)
		}()
		go func() {
			inW.Write(data)
			inW.Write([]byte("\n"))
			inW.Write([]byte(`{"jsonrpc":"2.0","id":"fuzz-probe","method":"ping"}` + "\n"))
		}()
		select {
		case <-answered:
		case err := <-done:
			t.Fatalf("the server ended on %q: %v", trim(data), err)
		case <-time.After(fuzzInputTime):
			t.Fatalf("the probe after %q was not answered within %s", trim(data), fuzzInputTime)
		}
		inW.Close()
		select {
		case <-done:
		case <-time.After(fuzzInputTime):
			t.Fatalf("the server did not end within %s of its input closing after %q", fuzzInputTime, trim(data))
		}
		outR.Close()
	})
}

func trim(b []byte) []byte {
	if len(b) > 200 {
		return append(bytes.Clone(b[:200]), "..."...)
	}
	return b
}
