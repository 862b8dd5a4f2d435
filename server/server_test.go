package server_test

import "bufio"
import "context"
import "encoding/json"
import "errors"
import "io"
import "os"
import "path/filepath"
import "strings"
import "testing"
import "time"

import "github.com/modelcontextprotocol/go-sdk/mcp"

import "github.com/tetherhq/tether/server"
import "github.com/tetherhq/tether/tools"

// connect serves a run in process and returns a connected go-sdk client
// session (the end-to-end tests in cmd/tether drive the real binary).
func connect(t *testing.T, cfg tools.Config, elicit func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) (*server.Server, *mcp.ClientSession) {
	t.Helper()
	srv := server.New(server.Options{})
	cfg.Approver = srv.Approver()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, &mcp.ClientOptions{ElicitationHandler: elicit})
	// 2025-11-25, a session: the server may ask the client outside a call
	// (TestServeInProcess does). TestStdioBothRevisions (cmd/tether) drives
	// both revisions over a real process's stdio.
	_, cs := serveTo(t, srv, cfg, client, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	return srv, cs
}

// serveTo starts a run with cfg, serves it with srv in process and connects
// client to it with opts. When the test ends the session closes, the
// serving ends and the run closes, in that order.
func serveTo(t *testing.T, srv *server.Server, cfg tools.Config, client *mcp.Client, opts *mcp.ClientSessionOptions) (*tools.Run, *mcp.ClientSession) {
	t.Helper()
	run, err := tools.NewRun(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, run, st) }()
	cs, err := client.Connect(context.Background(), ct, opts)
	if err != nil {
		cancel()
		<-done
		run.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		<-done
		run.Close()
	})
	return run, cs
}

// toolNames lists cs's tools, comma-separated.
func toolNames(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return strings.Join(names, ",")
}

func TestElicitWithoutClient(t *testing.T) {
	srv := server.New(server.Options{})
	if srv.CanElicit() {
		t.Error("CanElicit with no client")
	}
	_, _, err := srv.Elicit(context.Background(), "hello?", nil)
	if !errors.Is(err, tools.ErrNoApprover) {
		t.Errorf("Elicit with no client: %v", err)
	}
	ok, err := srv.Approver().Approve(context.Background(), tools.ApprovalRequest{Tool: "write", Tier: tools.TierWrite})
	if ok || !errors.Is(err, tools.ErrNoApprover) {
		t.Errorf("Approve with no client: %v %v", ok, err)
	}
}

func TestServeInProcess(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	var asked []string
	srv, cs := connect(t, tools.Config{WorkDir: dir}, func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked = append(asked, req.Params.Message)
		return &mcp.ElicitResult{Action: "accept"}, nil
	})
	if !srv.CanElicit() {
		t.Error("CanElicit with an eliciting client")
	}
	action, _, err := srv.Elicit(context.Background(), "Pick one", map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "string"}}})
	if err != nil || action != "accept" {
		t.Errorf("Elicit: %q %v", action, err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "write", Arguments: map[string]any{"path": "a.txt", "content": "b\n"}})
	if err != nil || res.IsError {
		t.Fatalf("write: %v %+v", err, res)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "b\n" {
		t.Errorf("a.txt = %q", b)
	}
	if len(asked) != 2 || !strings.Contains(asked[1], "May I run write (write tier)") {
		t.Errorf("asked %q", asked)
	}
	var sc tools.FileChanges
	raw, _ := json.Marshal(res.StructuredContent)
	if json.Unmarshal(raw, &sc); len(sc.Changed) != 1 || sc.Changed[0].Path != "a.txt" {
		t.Errorf("structured content %s", raw)
	}
}

func TestToMCP(t *testing.T) {
	r := &tools.Result{Content: []tools.Content{
		{Type: tools.TextContent, Text: "pic"},
		{Type: tools.ImageContent, MIMEType: "image/png", Data: []byte{1, 2, 3}},
	}, IsError: true}
	m := server.ToMCP(r)
	if len(m.Content) != 2 || !m.IsError {
		t.Fatalf("%+v", m)
	}
	if img, ok := m.Content[1].(*mcp.ImageContent); !ok || img.MIMEType != "image/png" || string(img.Data) != "\x01\x02\x03" {
		t.Errorf("image content %+v", m.Content[1])
	}
	b, _ := json.Marshal(m)
	if !strings.Contains(string(b), `"type":"image"`) || !strings.Contains(string(b), `"data":"AQID"`) {
		t.Errorf("wire form %s", b)
	}
}

// TestRefresh: tools registered or removed while serving show up in tools/list.
func TestRefresh(t *testing.T) {
	dir := t.TempDir()
	srv := server.New(server.Options{})
	run, err := tools.NewRun(context.Background(), tools.Config{WorkDir: dir, Surface: tools.SurfacePlan})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	go srv.Serve(ctx, run, st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v0"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list := func() string { return toolNames(t, cs) }
	if got := list(); got != "notebook,read" {
		t.Fatalf("tools/list = %s", got)
	}
	h := func(ctx context.Context, c *tools.Call) (*tools.Result, error) { return tools.Text("hi"), nil }
	run.Register(tools.Tool{Name: "vibe_list", Tier: tools.TierRead, Handler: h}, tools.Tool{Name: "eval", Tier: tools.TierExec, Handler: h})
	if got := list(); got != "notebook,read,vibe_list" {
		t.Fatalf("after registering: tools/list = %s", got)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "eval", Arguments: map[string]any{}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "plan surface") {
		t.Fatalf("hidden eval: %v %+v", err, res)
	}
	run.Unregister("vibe_list")
	if got := list(); got != "notebook,read" {
		t.Fatalf("after unregistering: tools/list = %s", got)
	}
}

// TestURLOnlyElicitationFailsClosed: a client that can elicit only in URL mode
// cannot answer the form an approval is, so it counts as no approver: the
// call fails closed with that reason, and CanElicit says no (ask_user then
// fails at once instead of sending a form the client refuses).
func TestURLOnlyElicitationFailsClosed(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	srv := server.New(server.Options{})
	asked := 0
	client := mcp.NewClient(&mcp.Implementation{Name: "url-only", Version: "v0"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked++
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
	})
	_, cs := serveTo(t, srv, tools.Config{WorkDir: dir, Approver: srv.Approver()}, client, nil)
	// The session is known once the client's initialized notification
	// arrives; a tools/list round trip orders it before the checks below.
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if srv.CanElicit() {
		t.Error("CanElicit with a URL-only client")
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "write", Arguments: map[string]any{"path": "a.txt", "content": "b\n"}})
	if err != nil {
		t.Fatal(err)
	}
	text := ""
	if len(res.Content) > 0 {
		text = res.Content[0].(*mcp.TextContent).Text
	}
	if !res.IsError || !strings.Contains(text, "fail closed") || !strings.Contains(text, "form") {
		t.Errorf("write with a URL-only client: %q", text)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "a\n" || asked != 0 {
		t.Errorf("a.txt = %q, asked %d times", b, asked)
	}
}

// TestApprovalUnansweredTimesOut: an approval the client's user never answers
// is refused (fail closed) when the approval timeout passes, as a permission
// card is, instead of holding the call forever.
func TestApprovalUnansweredTimesOut(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	srv := server.New(server.Options{ApprovalTimeout: time.Millisecond})
	client := mcp.NewClient(&mcp.Implementation{Name: "away", Version: "v0"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			<-ctx.Done() // nobody answers; the server gives up and cancels
			return nil, ctx.Err()
		},
	})
	// 2025-11-25: the server waits for the answer while the call does (a
	// 2026-07-28 call ends at once with the question instead).
	_, cs := serveTo(t, srv, tools.Config{WorkDir: dir, Approver: srv.Approver()}, client, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "write", Arguments: map[string]any{"path": "a.txt", "content": "b\n"}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !res.IsError || !strings.Contains(text, "no answer within 1ms") || !strings.Contains(text, "refused") {
		t.Errorf("unanswered approval: %q", text)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "a\n" {
		t.Errorf("a.txt = %q", b)
	}
}

// TestApprovalForClientOfferingNewerVersion: a client that offers a protocol
// version newer than the server's (2026-07-28, which forbids elicitation
// during a call) is answered with 2025-11-25, and the session then behaves as
// 2025-11-25: an approval is asked through elicitation (the go-sdk otherwise
// judges by the version the client offered and refuses to send it).
func TestApprovalForClientOfferingNewerVersion(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	srv := server.New(server.Options{})
	run, err := tools.NewRun(context.Background(), tools.Config{WorkDir: dir, Approver: srv.Approver()})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	toServer, clientOut := io.Pipe()
	clientIn, fromServer := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, run, &mcp.IOTransport{Reader: toServer, Writer: fromServer}) }()
	defer func() {
		clientOut.Close()
		cancel()
		<-done
	}()
	send := func(s string) {
		if _, err := io.WriteString(clientOut, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	lines := bufio.NewScanner(clientIn)
	// next returns the next message from the server, answering elicitations.
	elicited := 0
	next := func(id int) map[string]any {
		for lines.Scan() {
			var m map[string]any
			if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
				t.Fatalf("not JSON: %s", lines.Text())
			}
			if m["method"] == "elicitation/create" {
				elicited++
				reply, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m["id"], "result": map[string]any{"action": "accept"}})
				send(string(reply))
				continue
			}
			if n, ok := m["id"].(float64); ok && int(n) == id {
				return m
			}
		}
		t.Fatalf("no response %d: %v", id, lines.Err())
		return nil
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2026-07-28","capabilities":{"elicitation":{}},"clientInfo":{"name":"newer","version":"0"}}}`)
	if res, _ := json.Marshal(next(1)["result"]); !strings.Contains(string(res), `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize: %s", res)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write","arguments":{"path":"a.txt","content":"b\n"}}}`)
	res, _ := json.Marshal(next(2)["result"])
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "b\n" || elicited != 1 {
		t.Errorf("approved write: %s; a.txt = %q, %d elicitations", res, b, elicited)
	}
}

// TestToolListChangedBothRevisions: a client that asked to hear of tool
// list changes hears of a tool a family registered while the server runs,
// at 2025-11-25 on its session and at 2026-07-28 on the
// subscriptions/listen stream the go-sdk client opens for it, and its next
// tools/list shows the tool.
func TestToolListChangedBothRevisions(t *testing.T) {
	for _, rev := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(rev, func(t *testing.T) {
			srv := server.New(server.Options{})
			changed := make(chan struct{}, 8)
			client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v0"}, &mcp.ClientOptions{
				ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
			})
			run, cs := serveTo(t, srv, tools.Config{WorkDir: t.TempDir(), Surface: tools.SurfacePlan}, client, &mcp.ClientSessionOptions{ProtocolVersion: rev})
			if got := cs.InitializeResult().ProtocolVersion; got != rev {
				t.Fatalf("connected at %s, want %s", got, rev)
			}
			// A round trip first: the session is initialized (or listening)
			// before the change.
			if _, err := cs.ListTools(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			h := func(context.Context, *tools.Call) (*tools.Result, error) { return tools.Text("hi"), nil }
			run.Register(tools.Tool{Name: "vibe_list", Tier: tools.TierRead, Handler: h})
			srv.Refresh()
			select {
			case <-changed:
			case <-time.After(10 * time.Second):
				t.Fatal("no notifications/tools/list_changed within 10 s of a tool registered")
			}
			if names := toolNames(t, cs); names != "notebook,read,vibe_list" {
				t.Errorf("tools/list after the change: %v", names)
			}
		})
	}
}

// TestRefreshWhileListingHammer: tools registered and removed while a
// 2026-07-28 client lists them over and over neither deadlock nor race
// (run with -race): the go-sdk sets a list's cache fields with its own lock
// held, and Refresh takes that lock to change the tools.
func TestRefreshWhileListingHammer(t *testing.T) {
	srv := server.New(server.Options{})
	run, err := tools.NewRun(context.Background(), tools.Config{WorkDir: t.TempDir(), Surface: tools.SurfacePlan})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, run, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v0"}, nil).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		cs.Close()
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("the server did not stop within 30 s of its client closing")
		}
	}()
	h := func(context.Context, *tools.Call) (*tools.Result, error) { return tools.Text("hi"), nil }
	finished := make(chan error, 5)
	go func() {
		for range 300 {
			run.Register(tools.Tool{Name: "vibe_list", Tier: tools.TierRead, Handler: h})
			srv.Refresh()
			run.Unregister("vibe_list")
			srv.Refresh()
		}
		finished <- nil
	}()
	for range 4 {
		go func() {
			for range 300 {
				if _, err := cs.ListTools(context.Background(), nil); err != nil {
					finished <- err
					return
				}
			}
			finished <- nil
		}()
	}
	timeout := time.After(2 * time.Minute)
	for range 5 {
		select {
		case err := <-finished:
			if err != nil {
				t.Fatal(err)
			}
		case <-timeout:
			t.Fatal("listing while tools change did not finish in 2 minutes (a deadlock)")
		}
	}
}
