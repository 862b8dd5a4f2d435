package main

import "bufio"
import "encoding/json"
import "fmt"
import "io"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"

// TestServeSurvivesBadInput drives the real `tether serve` with each kind of
// malformed JSON-RPC that used to end the process (and with it every kernel,
// debug session and staged edit): each is answered with the JSON-RPC error it
// is, and the server still answers the session after it, up to a tools/call.
func TestServeSurvivesBadInput(t *testing.T) {
	dir := workdir(t, map[string]string{"a.txt": "hello\n"})
	cmd, stdin, stdout, stderr := startServe(t, "--workdir", dir, "--approve", "allow")
	defer func() {
		stdin.Close()
		cmd.Wait()
	}()
	lines := make(chan map[string]any)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				var batch []any
				json.Unmarshal(sc.Bytes(), &batch)
				m = map[string]any{"batch": batch}
			}
			lines <- m
		}
	}()
	next := func(what string) map[string]any {
		t.Helper()
		r, ok := <-lines
		if !ok {
			cmd.Wait()
			t.Fatalf("after %s: tether serve ended (%v)\nstderr:\n%s", what, cmd.ProcessState, stderr.String())
		}
		return r
	}
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatalf("writing to tether serve: %v\nstderr:\n%s", err, stderr.String())
		}
	}
	// 17 MB of content in one write call: over the 16 MiB line limit.
	big := `{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"write","arguments":{"path":"big.txt","content":"` + strings.Repeat("x", 17<<20) + `"}}}`
	bad := []struct {
		name, line string
		code       float64
		id         any
	}{
		{"not JSON", "hello", -32700, nil},
		{"truncated JSON", `{"jsonrpc":"2.0","id":1,"method":"ping"`, -32700, nil},
		{"a batch", `[{"jsonrpc":"2.0","id":2,"method":"ping"}]`, -32600, float64(2)},
		{"no jsonrpc", `{"id":3,"method":"ping"}`, -32600, float64(3)},
		{"an object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, nil},
		{"a NUL", "{\"jsonrpc\":\"2.0\",\x00\"id\":5,\"method\":\"ping\"}", -32700, nil},
		{"nested 1000 deep", `{"jsonrpc":"2.0","id":6,"method":"ping","params":{"a":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}}`, -32600, float64(6)},
		{"a 17 MB line", big, -32600, "big"},
	}
	for i, b := range bad {
		send(b.line)
		r := next(b.name)
		if batch, ok := r["batch"].([]any); ok && len(batch) == 1 {
			r, _ = batch[0].(map[string]any)
		}
		e, _ := r["error"].(map[string]any)
		if e == nil || e["code"] != b.code || r["id"] != b.id {
			t.Errorf("%s: reply %.300v, want error %v with id %v", b.name, r, b.code, b.id)
		}
		ping := fmt.Sprintf("ping-%d", i)
		send(`{"jsonrpc":"2.0","id":"` + ping + `","method":"ping"}`)
		if r := next(b.name + " then a ping"); r["id"] != ping || r["result"] == nil {
			t.Errorf("ping after %s: %v", b.name, r)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	if r := next("initialize"); r["id"] != float64(1) || r["result"] == nil {
		t.Fatalf("initialize: %v", r)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read","arguments":{"path":"a.txt"}}}`)
	if r := next("tools/call"); r["id"] != float64(2) || !strings.Contains(jsonText(r["result"]), `1\thello`) {
		t.Fatalf("tools/call read: %v", r)
	}
	if testenv.FileText(filepath.Join(dir, "big.txt")) != "<open "+filepath.Join(dir, "big.txt")+": no such file or directory>" {
		t.Error("the over-long write ran")
	}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
