package server_test

import "bufio"
import "context"
import "encoding/json"
import "fmt"
import "io"
import "strings"
import "sync"
import "testing"
import "time"

import "github.com/tetherhq/tether/server"
import "github.com/tetherhq/tether/tools"

// rawClient speaks newline-delimited JSON to an in-process server through a
// server.Transport over pipes, as a client process would over stdio.
type rawClient struct {
	t     *testing.T
	tr    *server.Transport
	in    *io.PipeWriter // the server's stdin
	out   *io.PipeReader // the server's stdout
	lines chan string
	done  chan error // Serve's result

	startOnce sync.Once
	maxLen    int // the longest line read
}

// serveRaw serves a plan-surface run (read tools only) over tr's pipes; tr's
// In and Out are set here. Replies are not read until read is called.
func serveRaw(t *testing.T, tr *server.Transport) *rawClient {
	t.Helper()
	return serveRawConfig(t, tr, tools.Config{WorkDir: t.TempDir(), Surface: tools.SurfacePlan})
}

// serveRawConfig is serveRaw for a run of cfg, whose approver asks the client.
func serveRawConfig(t *testing.T, tr *server.Transport, cfg tools.Config) *rawClient {
	t.Helper()
	srv := server.New(server.Options{})
	cfg.Approver = srv.Approver()
	run, err := tools.NewRun(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	tr.In, tr.Out = inR, outW
	c := &rawClient{t: t, tr: tr, in: inW, out: outR, lines: make(chan string, 1<<16), done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { c.done <- srv.Serve(ctx, run, tr) }()
	t.Cleanup(func() {
		c.startReading()
		inW.Close()
		cancel()
		<-c.done
		run.Close()
	})
	return c
}

func (c *rawClient) startReading() {
	c.startOnce.Do(func() {
		go func() {
			sc := bufio.NewScanner(c.out)
			sc.Buffer(nil, 64<<20)
			for sc.Scan() {
				c.lines <- sc.Text()
			}
			close(c.lines)
		}()
	})
}

func (c *rawClient) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatalf("writing to the server: %v", err)
	}
}

// next returns the server's next line, failing if the server ended first.
func (c *rawClient) next() map[string]any {
	c.t.Helper()
	c.startReading()
	select {
	case l, ok := <-c.lines:
		if !ok {
			c.t.Fatal("the server closed its output")
		}
		c.maxLen = max(c.maxLen, len(l))
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			var batch []any
			if json.Unmarshal([]byte(l), &batch) == nil {
				return map[string]any{"batch": batch}
			}
			c.t.Fatalf("reply is not a JSON object: %q", l)
		}
		return m
	case err := <-c.done:
		c.t.Fatalf("the server ended: %v", err)
	case <-time.After(2 * time.Minute):
		c.t.Fatal("no reply within 2 minutes")
	}
	return nil
}

// ping sends a ping and checks that it is answered (the server still serves).
func (c *rawClient) ping(id string) {
	c.t.Helper()
	c.send(`{"jsonrpc":"2.0","id":"` + id + `","method":"ping"}`)
	r := c.next()
	if r["id"] != id || r["result"] == nil {
		c.t.Fatalf("ping %s: got %v", id, r)
	}
}

// TestTransportBadInput: each kind of bad input that used to end `tether
// serve` is answered with the JSON-RPC error it is (or, for a response,
// dropped) and the server keeps serving.
func TestTransportBadInput(t *testing.T) {
	deep := `{"jsonrpc":"2.0","id":4,"method":"ping","params":{"a":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}}`
	long := `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"read","arguments":{"path":"` + strings.Repeat("a", 5000) + `"}}}`
	longNoID := `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"read","arguments":{"path":"` + strings.Repeat("a", 100<<10) + `"}},"id":12}`
	tests := []struct {
		name string
		line string
		code float64 // 0: no reply expected
		id   any     // nil: null
		msg  string  // substring of the error message
	}{
		{"not JSON", "hello", -32700, nil, "not valid JSON"},
		{"truncated JSON", `{"jsonrpc":"2.0","id":1,"method":"ping"`, -32700, nil, "not valid JSON"},
		{"NUL", "{\x00}", -32700, nil, "not valid JSON"},
		{"NUL in a string", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"pi\x00ng\"}", -32700, nil, "not valid JSON"},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}", -32700, nil, "UTF-8"},
		{"missing jsonrpc", `{"id":3,"method":"ping"}`, -32600, float64(3), `no "jsonrpc" member`},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","id":3,"method":"ping"}`, -32600, float64(3), `"jsonrpc" is "1.0"`},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, -32600, nil, "the id is an object"},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600, nil, "MCP forbids"},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, nil, "not an integer"},
		{"huge id", `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, -32600, nil, "not an integer"},
		{"nested 1000 deep", deep, -32600, float64(4), "nest 129 deep"},
		{"a string", `"ping"`, -32600, nil, "this is a string"},
		{"no method", `{"jsonrpc":"2.0","id":6}`, -32600, float64(6), `no "method"`},
		{"method not a string", `{"jsonrpc":"2.0","id":8,"method":1}`, -32600, float64(8), `"method" is not a string`},
		{"params a string", `{"jsonrpc":"2.0","id":9,"method":"ping","params":"x"}`, -32600, float64(9), `"params" is a string`},
		{"empty batch", `[]`, -32600, nil, "empty batch"},
		{"line over the limit", long, -32600, float64(11), "the limit is 4096 bytes"},
		{"line over the limit, id after the limit", longNoID, -32600, nil, "the limit is 4096 bytes"},
		{"malformed response", `{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}`, 0, nil, ""},
		{"response with an object id", `{"jsonrpc":"2.0","id":{},"result":{}}`, 0, nil, ""},
		{"blank line", "  \r", 0, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := serveRaw(t, &server.Transport{MaxLine: 4096})
			c.send(tt.line)
			if tt.code != 0 {
				r := c.next()
				e, _ := r["error"].(map[string]any)
				if r["jsonrpc"] != "2.0" || e == nil || e["code"] != tt.code || r["id"] != tt.id {
					t.Fatalf("reply %v, want error %v with id %v", r, tt.code, tt.id)
				}
				if _, ok := r["id"]; !ok {
					t.Errorf("reply %v has no id member (JSON-RPC wants null)", r)
				}
				if msg, _ := e["message"].(string); !strings.Contains(msg, tt.msg) {
					t.Errorf("message %q, want it to say %q", msg, tt.msg)
				}
			}
			c.ping("after")
			if st := c.tr.Stats(); st.Refused != 1 && tt.name != "blank line" {
				t.Errorf("stats %+v: want 1 refused", st)
			}
		})
	}
}

// TestTransportBatch: a batch is refused with one error for each call in it,
// under the call's id, and none for its notifications.
func TestTransportBatch(t *testing.T) {
	c := serveRaw(t, &server.Transport{})
	c.send(`[{"jsonrpc":"2.0","id":7,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"x","method":"tools/list"},5]`)
	r := c.next()
	batch, _ := r["batch"].([]any)
	if len(batch) != 3 {
		t.Fatalf("reply %v: want an array of 3 errors", r)
	}
	for i, want := range []any{float64(7), "x", nil} {
		e, _ := batch[i].(map[string]any)
		if e["id"] != want || e["error"].(map[string]any)["code"] != float64(-32600) || !strings.Contains(e["error"].(map[string]any)["message"].(string), "batches are not supported") {
			t.Errorf("batch reply %d: %v, want an invalid-request error with id %v", i, e, want)
		}
	}
	c.ping("after")
}

// TestTransportServesAfterBadInput: a session that sent every kind of bad
// input still initializes and lists its tools.
func TestTransportServesAfterBadInput(t *testing.T) {
	c := serveRaw(t, &server.Transport{})
	c.startReading() // the server answers each bad line before it reads the next
	for _, l := range []string{"hello", `[`, `{"id":{}}`, "\x00", `{"jsonrpc":"2.0","id":1,"result":{}}`} {
		c.send(l)
	}
	for range 4 {
		if r := c.next(); r["error"] == nil {
			t.Fatalf("want an error reply, got %v", r)
		}
	}
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	if r := c.next(); r["id"] != float64(1) || r["result"] == nil {
		t.Fatalf("initialize: %v", r)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	r := c.next()
	res, _ := r["result"].(map[string]any)
	if tl, _ := res["tools"].([]any); len(tl) == 0 {
		t.Fatalf("tools/list: %v", r)
	}
}

// TestTransportBackpressure: a client that sends many requests and does not
// read the replies makes the server stop reading, with its pending output
// and calls in flight under their bounds, instead of buffering every reply;
// once the client reads, every request is answered.
func TestTransportBackpressure(t *testing.T) {
	const n, maxInFlight, maxPending = 400, 4, 16 << 10
	c := serveRaw(t, &server.Transport{MaxInFlight: maxInFlight, MaxPending: maxPending})
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	sent := make(chan int, 1)
	go func() {
		i := 1
		for ; i <= n; i++ {
			if _, err := fmt.Fprintf(c.in, `{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`+"\n", i); err != nil {
				break
			}
		}
		sent <- i - 1
	}()
	// Wait for the server to stop reading: blocked with calls in flight,
	// every one of them waiting to write its reply.
	deadline := time.Now().Add(2 * time.Minute)
	var st server.TransportStats
	for {
		st = c.tr.Stats()
		if st.Blocked && st.InFlight == maxInFlight && st.Pending > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server did not stop reading: %+v", st)
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case k := <-sent:
		t.Fatalf("the client could send all %d requests (%d) while no reply was read: the server buffered them", n, k)
	default:
	}
	if st.PeakInFlight > maxInFlight {
		t.Errorf("peak %d calls in flight, bound %d", st.PeakInFlight, maxInFlight)
	}
	if st.Read > maxInFlight+2 {
		t.Errorf("the server took %d messages while blocked; want at most %d", st.Read, maxInFlight+2)
	}
	// The client reads: every request is answered, in any order.
	if r := c.next(); r["id"] != float64(0) || r["result"] == nil {
		t.Fatalf("initialize: %v", r)
	}
	seen := map[float64]bool{}
	for len(seen) < n {
		r := c.next()
		id, _ := r["id"].(float64)
		if r["result"] == nil || id < 1 || id > n || seen[id] {
			t.Fatalf("reply %v", r)
		}
		seen[id] = true
	}
	if k := <-sent; k != n {
		t.Errorf("sent %d of %d", k, n)
	}
	// Past the bound, each call in flight holds at most its reply.
	st = c.tr.Stats()
	if bound := maxPending + maxInFlight*(c.maxLen+1); st.PeakPending > bound {
		t.Errorf("peak pending output %d bytes, bound %d (replies of up to %d bytes)", st.PeakPending, bound, c.maxLen+1)
	}
	if st.PeakInFlight > maxInFlight {
		t.Errorf("after reading: %+v", st)
	}
}

// TestTransportApprovalAtInFlightLimit: with as many calls in flight as the
// transport allows, the client's answer to an approval asked during one of
// them is still read (only a further call waits), so the call completes.
func TestTransportApprovalAtInFlightLimit(t *testing.T) {
	dir := t.TempDir()
	c := serveRawConfig(t, &server.Transport{MaxInFlight: 1}, tools.Config{WorkDir: dir})
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"raw","version":"0"}}}`)
	if r := c.next(); r["id"] != float64(0) || r["result"] == nil {
		t.Fatalf("initialize: %v", r)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write","arguments":{"path":"a.txt","content":"b\n"}}}`)
	ask := c.next()
	if ask["method"] != "elicitation/create" || ask["id"] == nil {
		t.Fatalf("want an elicitation request, got %v", ask)
	}
	if st := c.tr.Stats(); st.InFlight != 1 {
		t.Fatalf("stats %+v: want the write call in flight", st)
	}
	id, _ := json.Marshal(ask["id"])
	c.send(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"action":"accept","content":{}}}`)
	r := c.next()
	res, _ := r["result"].(map[string]any)
	if r["id"] != float64(1) || res == nil || res["isError"] == true {
		t.Fatalf("write: %v", r)
	}
	c.ping("after")
}

// TestTransportIDReusedAfterReply: an id is free again once its reply is out,
// so a client that sends the next request with the same id as soon as it read
// the reply is served, not refused as "in flight" (the id was released only
// after the reply was written, so the next request could arrive first).
func TestTransportIDReusedAfterReply(t *testing.T) {
	c := serveRaw(t, &server.Transport{})
	for i := range 300 {
		c.send(`{"jsonrpc":"2.0","id":"same","method":"ping"}`)
		r := c.next()
		if r["id"] != "same" || r["result"] == nil {
			t.Fatalf("ping %d with the id of the previous, answered ping: got %v", i, r)
		}
	}
}
