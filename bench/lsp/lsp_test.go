package lsp_test

import "context"
import "encoding/json"
import "fmt"
import "net/url"
import "os"
import "os/exec"
import "path/filepath"
import "sync"
import "testing"
import "time"

import "go.lsp.dev/jsonrpc2"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/internal/testenv"

const useGo = `package shapes

// Big returns a large square.
func Big() Square {
	sq := Square{Side: 10}
	return sq
}

// Sum totals two squares.
func Sum() float64 {
	return Total([]Shape{Big(), Square{Side: 1}})
}
`

func project(b *testing.B) string {
	b.Helper()
	return testenv.LSPProject(b, "goproj")
}

func uri(p string) string { return (&url.URL{Scheme: "file", Path: p}).String() }

// bare is a minimal gopls client: initialize, didOpen, then raw requests.
type bare struct {
	conn   jsonrpc2.Conn
	cmd    *exec.Cmd
	mu     sync.Mutex
	pub    map[string]int // uri -> last published version
	notify chan struct{}
}

func startBare(b *testing.B, dir string) *bare {
	b.Helper()
	cmd := exec.Command(testenv.RequireBinary(b, "gopls"))
	cmd.Dir = dir
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	c := &bare{cmd: cmd, pub: map[string]int{}, notify: make(chan struct{}, 64)}
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(rwc{out, in}))
	c.conn.Go(context.Background(), func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if req.Method() == "textDocument/publishDiagnostics" {
			var p struct {
				URI     string `json:"uri"`
				Version int    `json:"version"`
			}
			_ = json.Unmarshal(req.Params(), &p)
			c.mu.Lock()
			c.pub[p.URI] = p.Version
			c.mu.Unlock()
			select {
			case c.notify <- struct{}{}:
			default:
			}
		}
		return reply(ctx, nil, nil)
	})
	ctx := context.Background()
	var res json.RawMessage
	if _, err := c.conn.Call(ctx, "initialize", map[string]any{"processId": os.Getpid(), "rootUri": uri(dir),
		"capabilities": map[string]any{"textDocument": map[string]any{"publishDiagnostics": map[string]any{"versionSupport": true}}}}, &res); err != nil {
		b.Fatal(err)
	}
	_ = c.conn.Notify(ctx, "initialized", struct{}{})
	b.Cleanup(func() {
		_, _ = c.conn.Call(ctx, "shutdown", nil, nil)
		_ = c.conn.Notify(ctx, "exit", nil)
		done := make(chan struct{})
		go func() { c.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			c.cmd.Process.Kill()
		}
	})
	return c
}

type rwc struct {
	r interface{ Read([]byte) (int, error) }
	w interface {
		Write([]byte) (int, error)
		Close() error
	}
}

func (x rwc) Read(p []byte) (int, error)  { return x.r.Read(p) }
func (x rwc) Write(p []byte) (int, error) { return x.w.Write(p) }
func (x rwc) Close() error                { return x.w.Close() }

func (c *bare) open(b *testing.B, path, text string) {
	_ = c.conn.Notify(context.Background(), "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri(path), "languageId": "go", "version": 1, "text": text}})
	c.waitVersion(b, uri(path), 1)
}

func (c *bare) waitVersion(b *testing.B, u string, v int) {
	deadline := time.After(30 * time.Second)
	for {
		c.mu.Lock()
		got, ok := c.pub[u]
		c.mu.Unlock()
		if ok && got >= v {
			return
		}
		select {
		case <-c.notify:
		case <-deadline:
			b.Fatalf("bare gopls: no diagnostics for version %d", v)
		}
	}
}

func (c *bare) definition(b *testing.B, path string, line, char int) {
	var res json.RawMessage
	if _, err := c.conn.Call(context.Background(), "textDocument/definition", map[string]any{
		"textDocument": map[string]any{"uri": uri(path)}, "position": map[string]any{"line": line, "character": char}}, &res); err != nil {
		b.Fatal(err)
	}
	if len(res) < 10 {
		b.Fatalf("bare definition: %s", res)
	}
}

// pair starts the two clients a benchmark compares on a copy of the sample
// Go project: the bare one with use.go open, and tether's Supervisor
// (closed when the benchmark ends). It returns use.go's path and both.
func pair(b *testing.B) (string, *bare, *lsp.Supervisor) {
	b.Helper()
	testenv.RequireBinary(b, "gopls")
	dir := project(b)
	c := startBare(b, dir)
	use := filepath.Join(dir, "use.go")
	c.open(b, use, useGo)
	s, err := lsp.New(dir, lsp.WithEnv(testenv.WithPeersOnPath()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return use, c, s
}

// BenchmarkDefinition: a definition query through the Supervisor (resolve
// line+symbol, re-sync check, request, format) vs the same request bare.
func BenchmarkDefinition(b *testing.B) {
	use, c, s := pair(b)
	ctx := context.Background()
	pos := lsp.Position{File: "use.go", Line: 11, Symbol: "Total"}
	if _, err := s.Definition(ctx, pos); err != nil { // start and warm up
		b.Fatal(err)
	}
	c.definition(b, use, 10, 8)
	var bareT, tetherT time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		c.definition(b, use, 10, 8)
		t1 := time.Now()
		if _, err := s.Definition(ctx, pos); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		bareT += t1.Sub(t0)
		tetherT += t2.Sub(t1)
	}
	report(b, bareT, tetherT)
}

// BenchmarkWriteDiagnostics: write a file and get that version's diagnostics
// through the Supervisor (AfterWrite, what the write wrapper runs) vs a bare
// didChange and wait for the publication of that version.
func BenchmarkWriteDiagnostics(b *testing.B) {
	use, c, s := pair(b)
	ctx := context.Background()
	if _, err := s.AfterWrite(ctx, "use.go"); err != nil {
		b.Fatal(err)
	}
	var bareT, tetherT time.Duration
	version := 1
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		text := useGo + fmt.Sprintf("\nvar x%d = \"s\" + 1\n", i) // a fresh type error each time
		version++
		t0 := time.Now()
		_ = c.conn.Notify(ctx, "textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri(use), "version": version},
			"contentChanges": []map[string]string{{"text": text}}})
		c.waitVersion(b, uri(use), version)
		t1 := time.Now()
		if err := os.WriteFile(use, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
		d, err := s.AfterWrite(ctx, "use.go")
		if err != nil || !d.Ready || len(d.Items) == 0 {
			b.Fatalf("tether: %v %+v", err, d)
		}
		t2 := time.Now()
		bareT += t1.Sub(t0)
		tetherT += t2.Sub(t1)
	}
	report(b, bareT, tetherT)
}

func report(b *testing.B, bareT, tetherT time.Duration) {
	n := float64(b.N)
	b.ReportMetric(float64(bareT.Microseconds())/n, "bare-us/op")
	b.ReportMetric(float64(tetherT.Microseconds())/n, "tether-us/op")
	if bareT > 0 {
		b.ReportMetric(float64(tetherT)/float64(bareT), "x-bare")
	}
}
