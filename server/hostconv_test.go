package server_test

import "context"
import "encoding/json"
import "errors"
import "fmt"
import "net/http"
import "os"
import "path/filepath"
import "strings"
import "sync"
import "testing"
import "time"

import "github.com/modelcontextprotocol/go-sdk/mcp"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/server"

// openModern connects a go-sdk client at MCP 2026-07-28 (no session) to
// workspace ws with token, sending conversation key key ("" for none).
func (th *testHost) openModern(t *testing.T, ws, token, key string, co *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, co)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: th.url + "/mcp/" + ws, HTTPClient: &http.Client{Transport: testenv.HeaderTransport{"Authorization": "Bearer " + token, server.ConversationHeader: key}}, MaxRetries: -1,
	}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("connected at %s, want 2026-07-28", v)
	}
	return cs
}

// openAt connects a go-sdk client to workspace ws with token at revision
// rev: a 2026-07-28 client (openModern, with conversation key key), or a
// client of an earlier one with a session (mustOpen), which sends no key.
func (th *testHost) openAt(t *testing.T, rev, ws, token, key string, co *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	if rev == "2026-07-28" {
		return th.openModern(t, ws, token, key, co)
	}
	return th.mustOpen(t, ws, token, co)
}

const goSource = "package a\n\nimport \"errors\"\n\nfunc f() error { return errors.New(\"x\") }\n"

// TestConversationKeepsRun: a 2026-07-28 client that sends a conversation
// key reaches the same run on every call (an edit staged by one call is
// resolved by the next), the same key with another token reaches nothing of
// it and is answered as an unknown key is, and a client without a key runs
// read tools in a fresh run and is refused stateful ones with how to send
// the key.
func TestConversationKeepsRun(t *testing.T) {
	th := newTestHostWith(t, server.HostOptions{}, "allow", parseEngine(t))
	os.WriteFile(filepath.Join(th.dir("alpha"), "a.go"), []byte(goSource), 0o644)
	const key = "5b0c1d9e-6a1f-4c3e-9d2a-7e8f0a1b2c3d"
	a := th.openModern(t, "alpha", tokOps, key, nil)

	tl, err := a.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.Tools) == 0 || tl.CacheScope != "private" || tl.TTLMs <= 0 {
		t.Errorf("tools/list: %d tools, cacheScope %q, ttlMs %d; want tools, private, a TTL", len(tl.Tools), tl.CacheScope, tl.TTLMs)
	}
	res, err := a.CallTool(context.Background(), &mcp.CallToolParams{Name: "ast_edit", Arguments: map[string]any{"pattern": "errors.New($M)", "rewrite": "fmt.Errorf($M)", "language": "go"}})
	if err != nil || res.IsError {
		t.Fatalf("ast_edit: %v %v", err, textOf(res))
	}
	if tl.Meta[server.ConversationMetaKey] != key || tl.Meta[server.ConversationNewMetaKey] != true {
		t.Errorf("first result's _meta = %v; want the key and %s", tl.Meta, server.ConversationNewMetaKey)
	}
	if _, ok := res.Meta[server.ConversationNewMetaKey]; ok || res.Meta[server.ConversationMetaKey] != key {
		t.Errorf("second result's _meta = %v; want the key alone", res.Meta)
	}
	var staged struct {
		EditID string `json:"edit_id"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &staged)
	if staged.EditID == "" {
		t.Fatalf("ast_edit staged no edit: %s", b)
	}

	// Another token holding the key, and the same token with an unknown
	// key, get the same answer: no such edit.
	other := th.openModern(t, "alpha", tokAlpha, key, nil)
	otherText, isErr := callText(t, other, "resolve", map[string]any{"edit_id": staged.EditID, "action": "accept"})
	unknown := th.openModern(t, "alpha", tokOps, "ffffffff-6a1f-4c3e-9d2a-7e8f0a1b2c3d", nil)
	unknownText, _ := callText(t, unknown, "resolve", map[string]any{"edit_id": staged.EditID, "action": "accept"})
	if !isErr || otherText != unknownText {
		t.Errorf("resolve with another token: error %v %q; with an unknown key: %q; want the same error", isErr, otherText, unknownText)
	}
	if got, _ := os.ReadFile(filepath.Join(th.dir("alpha"), "a.go")); string(got) != goSource {
		t.Fatalf("another token's resolve changed the file:\n%s", got)
	}

	res, err = a.CallTool(context.Background(), &mcp.CallToolParams{Name: "resolve", Arguments: map[string]any{"edit_id": staged.EditID, "action": "accept"}})
	if err != nil || res.IsError {
		t.Fatalf("resolve in the conversation: %v %v", err, res)
	}
	if got, _ := os.ReadFile(filepath.Join(th.dir("alpha"), "a.go")); !strings.Contains(string(got), "fmt.Errorf") {
		t.Errorf("resolve did not write the staged edit:\n%s", got)
	}

	none := th.openModern(t, "alpha", tokOps, "", nil)
	if text, isErr := callText(t, none, "read", map[string]any{"path": "own.txt"}); isErr || !strings.Contains(text, "this is alpha") {
		t.Errorf("read without a key: error %v %q", isErr, text)
	}
	_, err = none.CallTool(context.Background(), &mcp.CallToolParams{Name: "resolve", Arguments: map[string]any{"edit_id": staged.EditID, "action": "accept"}})
	if err == nil || !strings.Contains(err.Error(), server.ConversationHeader) {
		t.Errorf("resolve without a key: %v; want a refusal naming %s", err, server.ConversationHeader)
	}
	if n := th.Sessions(); n != 3 {
		t.Errorf("Sessions() = %d; want the 3 conversations (keyless runs end with their call)", n)
	}
	_, metrics := testenv.Get(t, th.url+"/metrics")
	for _, want := range []string{"tether_conversations_open 3", "tether_sessions_open 3", `tether_tool_calls_total{outcome="ok",tool="resolve"} 1`} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// TestConversationLimits: a conversation counts against the per-token bound
// as a session does, closes after SessionIdle without a request, and once
// the host has closed, its key is told the run ended and to start again.
func TestConversationLimits(t *testing.T) {
	th := newTestHost(t, server.HostOptions{MaxSessionsPerToken: 1, SessionIdle: 300 * time.Millisecond})
	post := func(key, token string) (int, string) {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","arguments":{"path":"own.txt"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
		req := testenv.PostMCP(th.url+"/mcp/alpha", token, body, "MCP-Protocol-Version", "2026-07-28",
			"Mcp-Method", "tools/call", "Mcp-Name", "read", server.ConversationHeader, key)
		resp, b := testenv.Do(t, req)
		return resp.StatusCode, string(b)
	}
	k1, k2 := "aaaaaaaaaaaaaaaa-1", "bbbbbbbbbbbbbbbb-2"
	if code, body := post(k1, tokAlpha); code != 200 || !strings.Contains(body, "this is alpha") {
		t.Fatalf("first conversation: %d %s", code, body)
	}
	if code, body := post(k2, tokAlpha); code != 503 || !strings.Contains(body, "most sessions and conversations") {
		t.Errorf("second conversation of a token holding one: %d %s; want 503", code, body)
	}
	if code, _ := post(k1, tokAlpha); code != 200 {
		t.Errorf("the open conversation again: %d", code)
	}
	select {
	case ws := <-th.closed:
		if ws != "alpha" {
			t.Errorf("closed a run of %s", ws)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the idle conversation was not closed")
	}
	if code, body := post(k2, tokAlpha); code != 200 {
		t.Fatalf("a conversation after the idle one closed: %d %s", code, body)
	}
	th.Close(context.Background())
	if code, body := post(k2, tokAlpha); code != 503 || !strings.Contains(body, "start the conversation again") {
		t.Errorf("a closed host's conversation: %d %s; want 503 saying to start again", code, body)
	}
	if code, body := post("cccccccccccccccc-3", tokAlpha); code != 503 || !strings.Contains(body, "shutting down") {
		t.Errorf("a new conversation on a closed host: %d %s; want 503", code, body)
	}
	if code, body := post("short", tokAlpha); code != 400 || !strings.Contains(body, "16 to 128") {
		t.Errorf("a key too short: %d %s; want 400 saying what a key is", code, body)
	}
}

// textOf returns a result's text content.
func textOf(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

var (
	engOnce sync.Once
	eng     *engine.Engine
	engErr  error
)

// parseEngine returns the tree-sitter engine the tests share.
func parseEngine(t *testing.T) *engine.Engine {
	t.Helper()
	engOnce.Do(func() { eng, engErr = engine.New(context.Background(), engine.NewConfig()) })
	if engErr != nil {
		t.Fatalf("engine: %v", engErr)
	}
	return eng
}

// TestQuestionsBothRevisions: ask_user and an approval under the ask
// policy reach the human through elicitation for a 2025-11-25 client and
// through input requests for a 2026-07-28 one (the go-sdk client answers
// them with its elicitation handler and calls again with the request
// state); a request state is refused to another token, and when altered.
func TestQuestionsBothRevisions(t *testing.T) {
	th := newTestHostPolicy(t, server.HostOptions{}, "write=ask")
	var asked []string
	var mu sync.Mutex
	co := &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		mu.Lock()
		asked = append(asked, req.Params.Message)
		mu.Unlock()
		if strings.Contains(req.Params.Message, "Which color") {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"choice": "blue"}}, nil
		}
		return &mcp.ElicitResult{Action: "accept"}, nil
	}}
	ask := map[string]any{"question": "Which color?", "options": []map[string]any{{"label": "red"}, {"label": "blue"}}}
	for _, rev := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(rev, func(t *testing.T) {
			asked = nil
			cs := th.openAt(t, rev, "alpha", tokOps, "", co)
			text, isErr := callText(t, cs, "ask_user", ask)
			if isErr || !strings.Contains(text, "blue") {
				t.Errorf("ask_user: error %v %q; want the answer blue", isErr, text)
			}
			file := "approved-" + rev + ".txt"
			text, isErr = callText(t, cs, "write", map[string]any{"path": file, "content": "yes\n"})
			if isErr {
				t.Errorf("write under ask, accepted: %q", text)
			}
			if b, err := os.ReadFile(filepath.Join(th.dir("alpha"), file)); string(b) != "yes\n" {
				t.Errorf("the approved write wrote %q, %v", b, err)
			}
			if len(asked) != 2 || !strings.Contains(asked[0], "Which color") || !strings.Contains(asked[1], "write") {
				t.Errorf("the client was asked %q; want the question, then the approval", asked)
			}
		})
	}

	// The request state a first call gets, sent back by hand.
	raw := th.openModern(t, "alpha", tokOps, "", &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}, ElicitationHandler: co.ElicitationHandler})
	res, err := raw.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask_user", Arguments: ask})
	if err != nil || !res.NeedsInput() || len(res.InputRequests) != 1 || res.RequestState == "" {
		t.Fatalf("ask_user without the go-sdk's retry: %v, needs input %v, %d requests", err, res != nil && res.NeedsInput(), len(res.InputRequests))
	}
	var id string
	for id = range res.InputRequests {
	}
	answer := mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"choice": "red"}}}
	other := th.openModern(t, "alpha", tokAlpha, "", &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}})
	for _, c := range []struct {
		name  string
		cs    *mcp.ClientSession
		state string
		want  string
	}{
		{"another token", other, res.RequestState, "another principal"},
		{"a conversation", th.openModern(t, "alpha", tokOps, "some-conversation-key", &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}), res.RequestState, "another principal or conversation"},
		{"altered", raw, "x" + res.RequestState, "not issued by this server"},
		{"same token", raw, res.RequestState, ""},
	} {
		got, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask_user", Arguments: ask, InputResponses: answer, RequestState: c.state})
		switch {
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v; want an error saying %q", c.name, err, c.want)
		case c.want == "" && (err != nil || !strings.Contains(textOf(got), "red")):
			t.Errorf("%s: %v %q; want the answer red", c.name, err, textOf(got))
		}
	}
}

// TestProgressBothRevisions: an ast_grep over a tree of many files that
// asks for progress gets notifications of the files searched of the total,
// in increasing order and ending at the total, over a session and in a
// conversation alike.
func TestProgressBothRevisions(t *testing.T) {
	th := newTestHostWith(t, server.HostOptions{}, "allow", parseEngine(t))
	const files = 600
	for i := range files {
		dir := filepath.Join(th.dir("alpha"), "big", fmt.Sprintf("p%02d", i%20))
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.go", i)), []byte(fmt.Sprintf("package p\n\nfunc f%d() error { return errors.New(\"%d\") }\n", i, i)), 0o644)
	}
	for _, rev := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(rev, func(t *testing.T) {
			var mu sync.Mutex
			var got []*mcp.ProgressNotificationParams
			co := &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
				mu.Lock()
				got = append(got, req.Params)
				mu.Unlock()
			}}
			cs := th.openAt(t, rev, "alpha", tokOps, "", co)
			p := &mcp.CallToolParams{Name: "ast_grep", Arguments: map[string]any{"pattern": "errors.New($M)", "language": "go", "path": "big"}}
			p.SetProgressToken("grep-" + rev)
			res, err := cs.CallTool(context.Background(), p)
			if err != nil || res.IsError {
				t.Fatalf("ast_grep: %v %q", err, textOf(res))
			}
			// The client handles a notification apart from the result it
			// precedes: the last may be handled just after the call returns.
			for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
				mu.Lock()
				n := len(got)
				last := n > 0 && got[n-1].Progress == files
				mu.Unlock()
				if last {
					break
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if len(got) < 2 {
				t.Fatalf("%d progress notifications; want the first file's and the last's at least", len(got))
			}
			last := 0.0
			for _, n := range got {
				if n.ProgressToken != "grep-"+rev || n.Total != files || n.Progress <= last || !strings.Contains(n.Message, "files searched") {
					t.Errorf("notification %+v after progress %v; want token %q, total %d, increasing, files searched", n, last, "grep-"+rev, files)
				}
				last = n.Progress
			}
			if last != files {
				t.Errorf("the last notification says %v files; want all %d", last, files)
			}
		})
	}
}

// TestProgressKeepAlive: a call that asked for progress and reports none of
// its own (here an ask_user waiting on the human) gets a notification that
// it still runs whenever the keep-alive interval passes without one.
func TestProgressKeepAlive(t *testing.T) {
	defer server.SetKeepAliveEvery(40 * time.Millisecond)()
	th := newTestHost(t, server.HostOptions{})
	var mu sync.Mutex
	var got []string
	cs := th.mustOpen(t, "alpha", tokOps, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			got = append(got, req.Params.Message)
			mu.Unlock()
		},
		ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			select {
			case <-time.After(500 * time.Millisecond):
			case <-ctx.Done():
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "later"}}, nil
		},
	})
	p := &mcp.CallToolParams{Name: "ask_user", Arguments: map[string]any{"question": "Ready?", "allow_free_text": true}}
	p.SetProgressToken(7)
	if _, err := cs.CallTool(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n > 0 {
			break
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) == 0 || !strings.Contains(got[0], "ask_user: still running") {
		t.Errorf("keep-alive notifications %q; want ask_user: still running", got)
	}
}

// rawCall posts one JSON-RPC request of MCP 2026-07-28 as the revision's
// text writes it (MCP-Protocol-Version, Mcp-Method and, for a call, Mcp-Name
// headers; the version and client capabilities in _meta) and returns the
// HTTP status and the JSON-RPC response, read from an event stream or a
// JSON body.
func (th *testHost) rawCall(t *testing.T, token, key, method, name string, params map[string]any) (int, map[string]any) {
	t.Helper()
	meta := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "raw", "version": "0"},
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{"form": map[string]any{}}},
	}
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = meta
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req := testenv.PostMCP(th.url+"/mcp/alpha", token, string(body), "MCP-Protocol-Version", "2026-07-28",
		"Mcp-Method", method, "Mcp-Name", name, server.ConversationHeader, key)
	resp, b := testenv.Do(t, req)
	data := b
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		data = nil
		for _, line := range strings.Split(string(b), "\n") {
			if d, ok := strings.CutPrefix(line, "data:"); ok && strings.Contains(d, `"id"`) {
				data = []byte(d)
			}
		}
	}
	var msg map[string]any
	if err := json.Unmarshal(data, &msg); err != nil {
		t.Fatalf("%s: status %d, body %q is no JSON-RPC message: %v", method, resp.StatusCode, b, err)
	}
	return resp.StatusCode, msg
}

// TestModernRawHTTP writes the requests of MCP 2026-07-28 by hand, as the
// revision's text gives them: server/discover without a session, a list
// with its cache fields, and a multi round-trip ask_user (input_required
// with an elicitation request and a requestState, then the retry carrying
// inputResponses and the state).
func TestModernRawHTTP(t *testing.T) {
	th := newTestHost(t, server.HostOptions{})
	const key = "raw-conversation-0001"
	code, msg := th.rawCall(t, tokOps, "", "server/discover", "", nil)
	res, _ := msg["result"].(map[string]any)
	if code != 200 || res == nil || !strings.Contains(fmt.Sprint(res["supportedVersions"]), "2026-07-28") || res["cacheScope"] != "public" {
		t.Fatalf("server/discover: %d %v", code, msg)
	}
	if caps, _ := res["capabilities"].(map[string]any); caps["tools"] == nil {
		t.Errorf("server/discover offers no tools capability: %v", res)
	}

	code, msg = th.rawCall(t, tokOps, key, "tools/list", "", nil)
	res, _ = msg["result"].(map[string]any)
	meta, _ := res["_meta"].(map[string]any)
	if code != 200 || res["cacheScope"] != "private" || res["ttlMs"] == nil || res["resultType"] != "complete" || meta[server.ConversationMetaKey] != key {
		t.Errorf("tools/list: %d %v", code, msg)
	}

	args := map[string]any{"question": "Which color?", "options": []map[string]any{{"label": "red"}, {"label": "blue"}}}
	code, msg = th.rawCall(t, tokOps, key, "tools/call", "ask_user", map[string]any{"name": "ask_user", "arguments": args})
	res, _ = msg["result"].(map[string]any)
	reqs, _ := res["inputRequests"].(map[string]any)
	state, _ := res["requestState"].(string)
	if code != 200 || res["resultType"] != "input_required" || len(reqs) != 1 || state == "" {
		t.Fatalf("ask_user's first call: %d %v; want input_required with one input request and a requestState", code, msg)
	}
	var id string
	for k, v := range reqs {
		id = k
		if r, _ := v.(map[string]any); r["method"] != "elicitation/create" {
			t.Errorf("input request %s = %v; want elicitation/create", k, v)
		}
	}
	code, msg = th.rawCall(t, tokOps, key, "tools/call", "ask_user", map[string]any{"name": "ask_user", "arguments": args,
		"inputResponses": map[string]any{id: map[string]any{"action": "accept", "content": map[string]any{"choice": "blue"}}}, "requestState": state})
	res, _ = msg["result"].(map[string]any)
	if code != 200 || res["resultType"] != "complete" || !strings.Contains(fmt.Sprint(res["content"]), "blue") {
		t.Errorf("ask_user's retry: %d %v; want complete with the answer blue", code, msg)
	}
}

// TestConversationDelete: a DELETE naming a conversation ends its run; the
// same key with another token is not found, as an unknown key is.
func TestConversationDelete(t *testing.T) {
	th := newTestHost(t, server.HostOptions{})
	const key = "delete-me-0123456789"
	if code, _ := th.rawCall(t, tokOps, key, "tools/list", "", nil); code != 200 {
		t.Fatalf("tools/list: %d", code)
	}
	del := func(token, key string) int {
		req, _ := http.NewRequest("DELETE", th.url+"/mcp/alpha", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set(server.ConversationHeader, key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := del(tokAlpha, key); code != 404 {
		t.Errorf("DELETE with another token: %d, want 404", code)
	}
	if code := del(tokOps, key); code != 204 {
		t.Errorf("DELETE: %d, want 204", code)
	}
	select {
	case <-th.closed:
	case <-time.After(30 * time.Second):
		t.Fatal("DELETE did not close the conversation's run")
	}
	if code := del(tokOps, key); code != 404 || th.Conversations() != 0 {
		t.Errorf("DELETE again: %d, %d conversations; want 404, none", code, th.Conversations())
	}
}

// TestLongDiffLink: an ast_edit whose diff is longer than the page its
// result shows links the whole diff, which resources/read gives back in the
// same conversation (or session); the same key with another token reads
// nothing.
func TestLongDiffLink(t *testing.T) {
	th := newTestHostWith(t, server.HostOptions{}, "allow", parseEngine(t))
	const files = 150
	for i := range files {
		os.MkdirAll(filepath.Join(th.dir("alpha"), "many"), 0o755)
		os.WriteFile(filepath.Join(th.dir("alpha"), "many", fmt.Sprintf("f%03d.go", i)), []byte(goSource), 0o644)
	}
	const key = "long-diff-conversation"
	for _, rev := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(rev, func(t *testing.T) {
			cs := th.openAt(t, rev, "alpha", tokOps, key, nil)
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ast_edit", Arguments: map[string]any{"pattern": "errors.New($M)", "rewrite": "fmt.Errorf($M)", "language": "go", "path": "many"}})
			if err != nil || res.IsError {
				t.Fatalf("ast_edit: %v %q", err, textOf(res))
			}
			var link *mcp.ResourceLink
			for _, c := range res.Content {
				if l, ok := c.(*mcp.ResourceLink); ok {
					link = l
				}
			}
			if link == nil {
				t.Fatalf("no link to the whole diff in %q", textOf(res))
			}
			rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: link.URI})
			if err != nil {
				t.Fatal(err)
			}
			whole := rr.Contents[0].Text
			if n := strings.Count(whole, "+++ b/"); n != files || !strings.Contains(whole, "many/f149.go") {
				t.Errorf("the linked diff has %d files' diffs of %d", n, files)
			}
			if rev == "2026-07-28" {
				other := th.openModern(t, "alpha", tokAlpha, key, nil)
				if _, err := other.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: link.URI}); err == nil {
					t.Error("another token with the same key read the conversation's output")
				}
			}
		})
	}
}

// TestRequestStateSingleUse: an approval given through a requestState runs
// its call once; the same state and answers sent again within the state's
// deadline are refused, and the call does not run a second time.
func TestRequestStateSingleUse(t *testing.T) {
	th := newTestHostPolicy(t, server.HostOptions{}, "write=ask")
	const key = "replay-conversation-01"
	target := filepath.Join(th.dir("alpha"), "approved.txt")
	args := map[string]any{"path": "approved.txt", "content": "ran\n"}
	code, msg := th.rawCall(t, tokOps, key, "tools/call", "write", map[string]any{"name": "write", "arguments": args})
	res, _ := msg["result"].(map[string]any)
	reqs, _ := res["inputRequests"].(map[string]any)
	state, _ := res["requestState"].(string)
	if code != 200 || len(reqs) != 1 || state == "" {
		t.Fatalf("write's first call: %d %v; want an approval input request and a requestState", code, msg)
	}
	var id string
	for k := range reqs {
		id = k
	}
	retry := func() (int, map[string]any) {
		return th.rawCall(t, tokOps, key, "tools/call", "write", map[string]any{"name": "write", "arguments": args,
			"inputResponses": map[string]any{id: map[string]any{"action": "accept", "content": map[string]any{}}}, "requestState": state})
	}
	code, msg = retry()
	res, _ = msg["result"].(map[string]any)
	if code != 200 || res == nil || res["isError"] == true {
		t.Fatalf("the approved retry: %d %v", code, msg)
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "ran\n" {
		t.Fatalf("the approved write did not run: %q %v", b, err)
	}
	if err := os.Remove(target); err != nil {
		t.Fatal(err)
	}
	code, msg = retry()
	e, _ := msg["error"].(map[string]any)
	if e == nil || e["code"] != float64(-32602) || !strings.Contains(fmt.Sprint(e["message"]), "already used") {
		t.Errorf("the replay: %d %v; want invalid params saying the state was already used", code, msg)
	}
	if _, err := os.Stat(target); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the replay ran the write again: %v", err)
	}
}
