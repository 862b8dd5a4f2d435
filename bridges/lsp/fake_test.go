package lsp

// Fault injection: an in-process fake server over net.Pipe, in addition to the
// real servers of the integration tests. It hangs, crashes and stays busy
// indexing on demand.

import "context"
import "encoding/json"
import "errors"
import "net"
import "os"
import "path/filepath"
import "strings"
import "sync"
import "testing"
import "time"

import "go.lsp.dev/jsonrpc2"

type fakeServer struct {
	mu        sync.Mutex
	hang      bool // never answer hover or formatting
	indexing  bool // begin progress and never end it, publish nothing
	cancelled []string
	conns     []jsonrpc2.Conn
	starts    int
	hovering  chan struct{} // when set, receives once per hover request
	reloads   int           // fake.reload commands received
	failLoads int           // how many of the next fake.reload commands fail
}

func (f *fakeServer) dial(spec Server, root string) (*instance, error) {
	client, server := net.Pipe()
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(server))
	f.mu.Lock()
	f.conns = append(f.conns, conn)
	f.starts++
	f.mu.Unlock()
	conn.Go(context.Background(), func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		f.mu.Lock()
		hang, indexing := f.hang, f.indexing
		f.mu.Unlock()
		switch req.Method() {
		case "initialize":
			return reply(ctx, map[string]any{"capabilities": map[string]any{"hoverProvider": true, "definitionProvider": true, "documentFormattingProvider": true}}, nil)
		case "initialized":
			if indexing {
				go conn.Notify(context.Background(), "$/progress", map[string]any{"token": 1, "value": map[string]any{"kind": "begin", "title": "indexing"}})
			}
			return nil
		case "textDocument/didOpen", "textDocument/didChange":
			if !indexing {
				publishFor(conn, req, nil)
			}
			return nil
		case "$/cancelRequest":
			f.mu.Lock()
			f.cancelled = append(f.cancelled, string(req.Params()))
			f.mu.Unlock()
			return nil
		case "textDocument/hover":
			if f.hovering != nil {
				f.hovering <- struct{}{}
			}
			if hang {
				return nil // never reply
			}
			return reply(ctx, map[string]any{"contents": map[string]string{"kind": "markdown", "value": "fake hover"}}, nil)
		case "textDocument/formatting":
			if hang {
				return nil // never reply
			}
			return reply(ctx, []any{}, nil)
		case "workspace/executeCommand":
			var p struct {
				Command string `json:"command"`
			}
			_ = json.Unmarshal(req.Params(), &p)
			if p.Command != "fake.reload" {
				break
			}
			f.mu.Lock()
			f.reloads++
			fail := f.failLoads > 0
			if fail {
				f.failLoads--
			}
			f.mu.Unlock()
			if fail {
				return reply(ctx, nil, jsonrpc2.NewError(jsonrpc2.InternalError, "reload failed"))
			}
			return reply(ctx, nil, nil)
		case "shutdown":
			return reply(ctx, nil, nil)
		}
		if _, ok := req.(*jsonrpc2.Call); ok {
			return reply(ctx, nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, req.Method()))
		}
		return nil
	})
	return attachPipe(spec, root, client), nil
}

// publishFor answers a didOpen or didChange as a server does: it publishes
// diags (none when nil) for the document's URI and version.
func publishFor(conn jsonrpc2.Conn, req jsonrpc2.Request, diags []any) {
	var p struct {
		TextDocument struct {
			URI     string `json:"uri"`
			Version int    `json:"version"`
		} `json:"textDocument"`
	}
	_ = json.Unmarshal(req.Params(), &p)
	if diags == nil {
		diags = []any{}
	}
	go conn.Notify(context.Background(), "textDocument/publishDiagnostics", map[string]any{
		"uri": p.TextDocument.URI, "version": p.TextDocument.Version, "diagnostics": diags})
}

func (f *fakeServer) crash() {
	f.mu.Lock()
	c := f.conns[len(f.conns)-1]
	f.mu.Unlock()
	c.Close()
}

func fakeSupervisor(t *testing.T, f *fakeServer, opts ...Option) *Supervisor {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{"go.mod": "module x\n", "a.go": "package x\n\nfunc A() {}\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := New(dir, opts...)
	if err != nil {
		t.Fatal(err)
	}
	s.dial = f.dial
	t.Cleanup(func() { s.Close() })
	return s
}

func TestFakeHungRequestTimesOutAndCancels(t *testing.T) {
	f := &fakeServer{hang: true}
	s := fakeSupervisor(t, f, WithRequestTimeout(300*time.Millisecond))
	_, err := s.Hover(context.Background(), Position{File: "a.go", Line: 3, Symbol: "A"})
	if err == nil || !strings.Contains(err.Error(), "did not answer textDocument/hover within 300ms") || !strings.HasPrefix(err.Error(), "lsp: ") {
		t.Fatalf("hung request: %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		f.mu.Lock()
		n := len(f.cancelled)
		f.mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no $/cancelRequest sent after the timeout")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// A caller that gives up also cancels.
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	s.requestTimeout = time.Minute
	_, err = s.Hover(ctx, Position{File: "a.go", Line: 3, Symbol: "A"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled caller: %v", err)
	}
}

// hoveredFake returns a fake server and its supervisor, started by a hover
// at the position it returns.
func hoveredFake(t *testing.T) (*fakeServer, *Supervisor, Position) {
	t.Helper()
	f := &fakeServer{}
	s := fakeSupervisor(t, f)
	pos := Position{File: "a.go", Line: 3, Symbol: "A"}
	if _, err := s.Hover(context.Background(), pos); err != nil {
		t.Fatal(err)
	}
	return f, s, pos
}

func TestFakeCrashRestartsOnceAndReports(t *testing.T) {
	f, s, pos := hoveredFake(t)
	ctx := context.Background()
	f.crash()
	waitDead(t, s)
	if rows := s.Status(); !strings.Contains(rows[0].Reason, "crashed") {
		t.Fatalf("status after crash: %+v", rows[0])
	}
	h, err := s.Hover(ctx, pos)
	if err != nil {
		t.Fatal(err)
	}
	if h.Text != "fake hover" || len(h.Notes) != 1 || !strings.Contains(h.Notes[0], "gopls crashed") {
		t.Fatalf("after restart: %+v", h)
	}
	// A second crash is not restarted automatically: reload is the way.
	f.crash()
	waitDead(t, s)
	if _, err := s.Hover(ctx, pos); err == nil || !strings.Contains(err.Error(), "call reload") {
		t.Fatalf("second crash: %v", err)
	}
	if _, err := s.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if h, err := s.Hover(ctx, pos); err != nil || h.Text != "fake hover" {
		t.Fatalf("after reload: %v %v", h, err)
	}
	if f.starts != 3 {
		t.Fatalf("want 3 starts, got %d", f.starts)
	}
}

// TestFakeReloadedCrashStaysStopped: a server started by reload that then
// crashes is not restarted by the next calls (a crash-looping server would
// start anew on each); it stays stopped, and Status says so and why, until
// reload is called again.
func TestFakeReloadedCrashStaysStopped(t *testing.T) {
	f, s, pos := hoveredFake(t)
	ctx := context.Background()
	if _, err := s.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if rows := s.Status(); !rows[0].Running || !strings.Contains(rows[0].Reason, "if it exits, it stays stopped until the next reload") {
		t.Errorf("status after reload: %+v", rows[0])
	}
	f.crash()
	waitDead(t, s)
	if rows := s.Status(); rows[0].State != "failed" || !strings.Contains(rows[0].Reason, "crashed after a reload") || !strings.Contains(rows[0].Reason, "stays stopped until reload is called again") {
		t.Errorf("status after the crash: %+v", rows[0])
	}
	for i := 0; i < 3; i++ {
		if _, err := s.Hover(ctx, pos); err == nil || !strings.Contains(err.Error(), "call reload") {
			t.Fatalf("call %d after the crash: %v; want it refused until reload", i, err)
		}
		if rows := s.Status(); rows[0].Running || !strings.Contains(rows[0].Reason, "stays stopped until reload is called again") {
			t.Errorf("status after call %d: %+v", i, rows[0])
		}
	}
	f.mu.Lock()
	starts := f.starts
	f.mu.Unlock()
	if starts != 2 {
		t.Fatalf("%d starts, want 2 (the first and the reload's)", starts)
	}
	if _, err := s.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if h, err := s.Hover(ctx, pos); err != nil || h.Text != "fake hover" {
		t.Fatalf("after the second reload: %v %v", h, err)
	}
}

func TestFakeStillIndexing(t *testing.T) {
	f := &fakeServer{indexing: true}
	s := fakeSupervisor(t, f, WithReadyTimeout(500*time.Millisecond))
	_, err := s.Hover(context.Background(), Position{File: "a.go", Line: 3, Symbol: "A"})
	if !errors.Is(err, ErrNotReady) || !strings.Contains(err.Error(), "still indexing") {
		t.Fatalf("want still indexing, got %v", err)
	}
}

func waitDead(t *testing.T, s *Supervisor) {
	t.Helper()
	for i := 0; i < 200; i++ {
		if rows := s.Status(); !rows[0].Running {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("crash not noticed")
}

// TestFakeReloadDuringRequest: a request running when reload restarts the
// server fails at once saying so, not as a crash, and the next call answers
// from the new server with no crash story.
func TestFakeReloadDuringRequest(t *testing.T) {
	f := &fakeServer{hang: true, hovering: make(chan struct{}, 1)}
	s := fakeSupervisor(t, f)
	ctx := context.Background()
	pos := Position{File: "a.go", Line: 3, Symbol: "A"}
	done := make(chan error, 1)
	go func() {
		_, err := s.Hover(ctx, pos)
		done <- err
	}()
	<-f.hovering // the request is with the server
	lines, err := s.Reload(ctx)
	if err != nil || len(lines) != 1 || !strings.Contains(lines[0], "gopls restarted") {
		t.Fatalf("reload: %v %q", err, lines)
	}
	err = <-done
	if err == nil || !strings.Contains(err.Error(), "stopped during textDocument/hover by a reload") || strings.Contains(err.Error(), "crashed") || strings.Contains(err.Error(), "restarts it") {
		t.Fatalf("request during reload: %v", err)
	}
	f.mu.Lock()
	f.hang = false
	f.mu.Unlock()
	h, err := s.Hover(ctx, pos)
	if err != nil || h.Text != "fake hover" || len(h.Notes) != 0 {
		t.Fatalf("after reload: %+v %v", h, err)
	}
	if rows := s.Status(); !rows[0].Running || strings.Contains(rows[0].Reason, "crash") {
		t.Fatalf("status after reload: %+v", rows[0])
	}
}

// TestFakeDiskReload: a server whose row has DiskReload is told to reload
// before the answer when files were created or deleted on disk, not when
// one only changed or nothing did; a reload that fails fails the query,
// saying what to do, and is run again by the next one.
func TestFakeDiskReload(t *testing.T) {
	f := &fakeServer{}
	var row Server
	for _, sv := range DefaultServers() {
		if sv.Name == "gopls" {
			row = sv
		}
	}
	row.DiskReload = []ExecuteCommand{{Command: "fake.reload"}}
	s := fakeSupervisor(t, f, WithServers(row))
	ctx := context.Background()
	pos := Position{File: "a.go", Line: 3, Symbol: "A"}
	write := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(s.workdir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		name    string
		change  func()
		fail    int    // reloads that fail
		wantErr string // "" means the hover answers
		reloads int    // reloads received so far
	}{
		{"first query", func() {}, 0, "", 0},
		{"file created", func() { write("b.go", "package x\n") }, 0, "", 1},
		{"nothing changed", func() {}, 0, "", 1},
		{"file changed", func() { write("b.go", "package x\n\nfunc B() {}\n") }, 0, "", 1},
		{"file deleted, reload fails", func() { os.Remove(filepath.Join(s.workdir, "b.go")) }, 1, "take in files created or deleted on disk failed", 2},
		{"next query runs it again", func() {}, 0, "", 3},
		{"then it is done", func() {}, 0, "", 3},
	}
	for _, st := range steps {
		st.change()
		f.mu.Lock()
		f.failLoads = st.fail
		f.mu.Unlock()
		h, err := s.Hover(ctx, pos)
		switch {
		case st.wantErr == "" && (err != nil || h.Text != "fake hover"):
			t.Fatalf("%s: %+v %v", st.name, h, err)
		case st.wantErr != "" && (err == nil || !strings.Contains(err.Error(), st.wantErr) || !strings.Contains(err.Error(), "call reload")):
			t.Fatalf("%s: want an error saying %q and what to do, got %v", st.name, st.wantErr, err)
		}
		f.mu.Lock()
		n := f.reloads
		f.mu.Unlock()
		if n != st.reloads {
			t.Fatalf("%s: %d reloads, want %d", st.name, n, st.reloads)
		}
	}
}
