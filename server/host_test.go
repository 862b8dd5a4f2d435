package server_test

import "context"
import "encoding/json"
import "io"
import "log/slog"
import "net/http"
import "net/http/httptest"
import "os"
import "path/filepath"
import "strings"
import "sync"
import "testing"
import "time"

import "github.com/modelcontextprotocol/go-sdk/mcp"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/matcher"
import "github.com/tetherhq/tether/server"
import "github.com/tetherhq/tether/tools"

const (
	tokAlpha = "t-alpha-0123456789"
	tokOps   = "t-ops-0123456789ab"
)

// testHost serves a Host on a loopback port (httptest) over a root with
// workspaces alpha and beta, a file outside the root and a symlink
// "escape" to it. Each session's run gets the allow policy; closed receives
// the workdir of every run closed.
type testHost struct {
	*server.Host
	root   string
	url    string
	closed chan string
	parser matcher.Parser // wires ast_grep, ast_edit and resolve when set
	// principals holds server.RunPrincipal of each run's context, by the
	// run's conversation (session) id
	principals sync.Map
}

func newTestHost(t *testing.T, opts server.HostOptions) *testHost {
	t.Helper()
	return newTestHostPolicy(t, opts, "allow")
}

func newTestHostPolicy(t *testing.T, opts server.HostOptions, approve string) *testHost {
	t.Helper()
	return newTestHostWith(t, opts, approve, nil)
}

// newTestHostWith is newTestHostPolicy whose runs search and stage edits
// with parser.
func newTestHostWith(t *testing.T, opts server.HostOptions, approve string, parser matcher.Parser) *testHost {
	t.Helper()
	base := t.TempDir()
	root := filepath.Join(base, "root")
	for _, ws := range []string{"alpha", "beta"} {
		os.MkdirAll(filepath.Join(root, ws), 0o755)
		os.WriteFile(filepath.Join(root, ws, "own.txt"), []byte("this is "+ws+"\n"), 0o644)
	}
	os.MkdirAll(filepath.Join(base, "outside"), 0o755)
	os.WriteFile(filepath.Join(base, "outside", "secret.txt"), []byte("outside\n"), 0o644)
	if err := os.Symlink(filepath.Join(base, "outside"), filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("alpha", filepath.Join(root, "alias")); err != nil {
		t.Fatal(err)
	}
	toks, err := server.ParseTokens([]byte(`{"` + tokAlpha + `": ["alpha"], "` + tokOps + `": ["*"]}`))
	if err != nil {
		t.Fatal(err)
	}
	policy, err := tools.ParsePolicy(approve)
	if err != nil {
		t.Fatal(err)
	}
	th := &testHost{root: root, closed: make(chan string, 16), parser: parser}
	opts.Root, opts.Tokens = root, toks
	opts.StartRun = func(ctx context.Context, workdir, id string, srv *server.Server) (*tools.Run, func() error, error) {
		th.principals.Store(id, server.RunPrincipal(ctx))
		run, err := tools.NewRun(ctx, tools.Config{
			WorkDir:        workdir,
			ConversationID: id,
			Policy:         policy,
			Approver:       srv.Approver(),
			Search:         tools.SearchConfig{Parser: th.parser},
			Ask:            tools.AskConfig{Questions: tools.ElicitationPort(srv), TargetSpace: "test"},
		})
		if err != nil {
			return nil, nil, err
		}
		return run, func() error {
			err := run.Close()
			th.closed <- filepath.Base(workdir)
			return err
		}, nil
	}
	h, err := server.NewHost(opts)
	if err != nil {
		t.Fatal(err)
	}
	th.Host = h
	srv := httptest.NewServer(h)
	th.url = srv.URL
	t.Cleanup(func() {
		h.Close(context.Background())
		srv.Close()
	})
	return th
}

func (th *testHost) dir(ws string) string { return filepath.Join(th.root, ws) }

// open connects a go-sdk client to workspace ws with token.
func (th *testHost) open(t *testing.T, ws, token string) (*mcp.ClientSession, error) {
	t.Helper()
	return th.openWith(t, ws, token, nil)
}

// mustOpen is openWith that fails the test on an error and closes the
// session at its end.
func (th *testHost) mustOpen(t *testing.T, ws, token string, co *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	cs, err := th.openWith(t, ws, token, co)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// openWith is open with client options (an elicitation handler).
func (th *testHost) openWith(t *testing.T, ws, token string, co *mcp.ClientOptions) (*mcp.ClientSession, error) {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, co)
	return client.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: th.url + "/mcp/" + ws, HTTPClient: &http.Client{Transport: testenv.Bearer(token)}, MaxRetries: -1,
	}, sessionful)
}

// sessionful pins a go-sdk client to the last revision with sessions; the
// tests of conversations (MCP 2026-07-28) say so where they connect.
var sessionful = &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}

func callText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return textOf(res), res.IsError
}

// initialize posts an initialize (initBody) to path with token ("": none)
// and the headers given as pairs, and returns the response and its body.
func (th *testHost) initialize(t *testing.T, path, token string, headers ...string) (*http.Response, []byte) {
	t.Helper()
	return testenv.Do(t, testenv.PostMCP(th.url+path, token, initBody, headers...))
}

// status posts an initialize to path with token and returns the HTTP status.
func (th *testHost) status(t *testing.T, path, token, session string) int {
	t.Helper()
	resp, _ := th.initialize(t, path, token, "Mcp-Session-Id", session)
	return resp.StatusCode
}

func TestHostAuthAndConfinement(t *testing.T) {
	th := newTestHost(t, server.HostOptions{})
	for _, c := range []struct {
		path, token string
		want        int
	}{
		{"/mcp/alpha", "", http.StatusUnauthorized},
		{"/mcp/alpha", "wrong-token-0123456789", http.StatusUnauthorized},
		{"/mcp/alpha", tokAlpha[:len(tokAlpha)-1], http.StatusUnauthorized},
		{"/mcp/beta", tokAlpha, http.StatusForbidden},
		{"/mcp/../x", tokOps, http.StatusNotFound},
		{"/mcp/..%2Fx", tokOps, http.StatusNotFound},
		{"/mcp/alpha/sub", tokOps, http.StatusNotFound},
		{"/mcp/..", tokOps, http.StatusNotFound},
		{"/mcp/escape", tokOps, http.StatusNotFound},
		{"/mcp/alias", tokOps, http.StatusNotFound},
		{"/mcp/missing", tokOps, http.StatusNotFound},
		{"/mcp/", tokOps, http.StatusNotFound},
	} {
		if got := th.status(t, c.path, c.token, ""); got != c.want {
			t.Errorf("%s with token %v: %d, want %d", c.path, c.token != "", got, c.want)
		}
	}
	if _, err := th.open(t, "beta", tokAlpha); err == nil {
		t.Error("the go-sdk client opened beta with alpha's token")
	}
	if n := th.Sessions(); n != 0 {
		t.Errorf("%d sessions after refused requests", n)
	}
}

func TestHostTenantsAreApart(t *testing.T) {
	th := newTestHost(t, server.HostOptions{})
	a := th.mustOpen(t, "alpha", tokAlpha, nil)
	b := th.mustOpen(t, "beta", tokOps, nil)
	if txt, isErr := callText(t, a, "read", map[string]any{"path": "own.txt"}); isErr || !strings.Contains(txt, "this is alpha") {
		t.Errorf("alpha reads own.txt: %q", txt)
	}
	if txt, isErr := callText(t, b, "read", map[string]any{"path": "own.txt"}); isErr || !strings.Contains(txt, "this is beta") {
		t.Errorf("beta reads own.txt: %q", txt)
	}
	if txt, isErr := callText(t, a, "read", map[string]any{"path": "../beta/own.txt"}); !isErr || strings.Contains(txt, "this is beta") {
		t.Errorf("alpha read beta's file: %q", txt)
	}
	if txt, isErr := callText(t, a, "write", map[string]any{"path": "new.txt", "content": "alpha wrote\n"}); isErr {
		t.Fatalf("alpha writes: %s", txt)
	}
	if txt, isErr := callText(t, b, "read", map[string]any{"path": "new.txt"}); !isErr || strings.Contains(txt, "alpha wrote") {
		t.Errorf("beta sees alpha's write: %q", txt)
	}
	// A session is reachable only on its own workspace, with its own token.
	if got := th.status(t, "/mcp/beta", tokOps, a.ID()); got != http.StatusNotFound {
		t.Errorf("alpha's session on /mcp/beta: %d, want 404", got)
	}
	if got := th.status(t, "/mcp/alpha", tokOps, a.ID()); got != http.StatusNotFound {
		t.Errorf("alpha's session with another token: %d, want 404", got)
	}
	if n := th.Sessions(); n != 2 {
		t.Errorf("%d sessions open, want 2", n)
	}
}

// TestHostRunKnowsItsPrincipal: StartRun's context names the principal that
// opened the session, the same for one token's sessions on two workspaces,
// another for another token, and never the token itself (what runs of one
// principal share, such as parsed trees, keys on it).
func TestHostRunKnowsItsPrincipal(t *testing.T) {
	th := newTestHost(t, server.HostOptions{})
	key := func(cs *mcp.ClientSession) string {
		v, _ := th.principals.Load(cs.ID())
		k, _ := v.(string)
		return k
	}
	a := key(th.mustOpen(t, "alpha", tokAlpha, nil))
	b := key(th.mustOpen(t, "beta", tokOps, nil))
	a2 := key(th.mustOpen(t, "alpha", tokOps, nil))
	switch {
	case a == "" || b == "" || a2 == "":
		t.Fatalf("a run's principal is empty: %q %q %q", a, b, a2)
	case a == b:
		t.Errorf("two tokens' runs have one principal %q", a)
	case b != a2:
		t.Errorf("one token's runs on two workspaces: principals %q and %q", b, a2)
	}
	for _, k := range []string{a, b} {
		if strings.Contains(k, tokAlpha) || strings.Contains(k, tokOps) {
			t.Errorf("a run's principal %q holds its token", k)
		}
	}
}

func TestHostSessionEndsItsRun(t *testing.T) {
	th := newTestHost(t, server.HostOptions{MaxSessions: 1})
	a, err := th.open(t, "alpha", tokAlpha)
	if err != nil {
		t.Fatal(err)
	}
	if got := th.status(t, "/mcp/beta", tokOps, ""); got != http.StatusServiceUnavailable {
		t.Errorf("a session past --max-sessions: %d, want 503", got)
	}
	a.Close() // DELETE
	if ws := <-th.closed; ws != "alpha" {
		t.Errorf("closed run of %s", ws)
	}
	b, err := th.open(t, "beta", tokOps)
	if err != nil {
		t.Fatalf("a session after one closed: %v", err)
	}
	defer b.Close()
	if _, isErr := callText(t, b, "read", map[string]any{"path": "own.txt"}); isErr {
		t.Error("beta's read failed")
	}
}

// TestHostSessionsPerToken: one token cannot hold every session the host
// allows: past its own bound its next session gets 503 saying so, while
// another token still opens one, and a session it closes frees its place.
func TestHostSessionsPerToken(t *testing.T) {
	th := newTestHost(t, server.HostOptions{MaxSessions: 4, MaxSessionsPerToken: 2})
	var mine []*mcp.ClientSession
	for range 2 {
		cs, err := th.open(t, "alpha", tokAlpha)
		if err != nil {
			t.Fatal(err)
		}
		mine = append(mine, cs)
	}
	defer func() {
		for _, cs := range mine {
			cs.Close()
		}
	}()
	if _, err := th.open(t, "alpha", tokAlpha); err == nil {
		t.Errorf("a third session of one token opened")
	}
	if resp, body := th.initialize(t, "/mcp/alpha", tokAlpha); resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "this token holds its most sessions (2)") {
		t.Errorf("a third session of one token: %d %s", resp.StatusCode, body)
	}
	other := th.mustOpen(t, "alpha", tokOps, nil)
	if _, isErr := callText(t, other, "read", map[string]any{"path": "own.txt"}); isErr {
		t.Error("the other token's read failed")
	}
	mine[0].Close()
	<-th.closed
	cs, err := th.open(t, "alpha", tokAlpha)
	if err != nil {
		t.Fatalf("a session after one of the token's closed: %v", err)
	}
	mine[0] = cs
}

func TestHostIdleSessionIsClosed(t *testing.T) {
	th := newTestHost(t, server.HostOptions{SessionIdle: 300 * time.Millisecond})
	a := th.mustOpen(t, "alpha", tokAlpha, nil)
	if ws := <-th.closed; ws != "alpha" {
		t.Errorf("closed run of %s", ws)
	}
	if n := th.Sessions(); n != 0 {
		t.Errorf("%d sessions after the idle one closed", n)
	}
	if _, err := a.CallTool(context.Background(), &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"path": "own.txt"}}); err == nil {
		t.Error("a call on the idle-closed session worked")
	}
}

func TestHostDrain(t *testing.T) {
	th := newTestHost(t, server.HostOptions{})
	var wg sync.WaitGroup
	for _, ws := range []string{"alpha", "beta"} {
		cs, err := th.open(t, ws, tokOps)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			callText(t, cs, "read", map[string]any{"path": "own.txt"})
		}()
	}
	wg.Wait()
	if err := th.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{<-th.closed: true, <-th.closed: true}
	if !got["alpha"] || !got["beta"] {
		t.Errorf("runs closed: %v", got)
	}
	if got := th.status(t, "/mcp/alpha", tokAlpha, ""); got != http.StatusServiceUnavailable {
		t.Errorf("a new session while draining: %d, want 503", got)
	}
	resp, _ := testenv.Get(t, th.url+"/healthz")
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("/healthz while draining: %d", resp.StatusCode)
	}
}

func TestParseTokensRefuses(t *testing.T) {
	for _, bad := range []string{`[]`, `{}`, `{"t-x-0123456789": ["a/b"]}`, `{"t-x-0123456789": ["[" ]}`} {
		if _, err := server.ParseTokens([]byte(bad)); err == nil || strings.Contains(err.Error(), "t-x") {
			t.Errorf("ParseTokens(%s): %v", bad, err)
		}
	}
}

// TestParseTokensRefusesDuplicates: a token given twice (a JSON object
// read into a map keeps the last) is refused, and the error says which
// entries and lines, never the token.
func TestParseTokensRefusesDuplicates(t *testing.T) {
	data := "{\n  \"t-x-0123456789\": [\"alpha\"],\n  \"t-y-0123456789\": [\"beta\"],\n  \"t-x-0123456789\": [\"*\"]\n}\n"
	_, err := server.ParseTokens([]byte(data))
	if err == nil {
		t.Fatal("a token given twice was taken")
	}
	msg := err.Error()
	if !strings.Contains(msg, "entries 1 (line 2) and 3 (line 4) are the same token") || strings.Contains(msg, "t-x") {
		t.Errorf("error: %v", err)
	}
	if _, err := server.ParseTokens([]byte(`{"t-x-0123456789": ["alpha"], "t-y-0123456789": ["beta"]} {}`)); err == nil {
		t.Error("a second object after the tokens was taken")
	}
	if _, err := server.ParseTokens([]byte(`{"t-x-0123456789": ["alpha"], "t-y-0123456789": ["beta", "g*"]}`)); err != nil {
		t.Error(err)
	}
}

// TestHostBearerSchemeIgnoresCase: the auth scheme's name is
// case-insensitive (RFC 7235), for sessions and for /metrics.
func TestHostBearerSchemeIgnoresCase(t *testing.T) {
	mt, err := server.LoadMetricsToken(metricsTokenFile(t, "m-scrape-0123456789"))
	if err != nil {
		t.Fatal(err)
	}
	th := newTestHost(t, server.HostOptions{MetricsToken: mt})
	for _, scheme := range []string{"Bearer", "bearer", "BEARER", "bEaReR"} {
		for _, c := range []struct {
			path, token, body string
			want              int
		}{
			{"/mcp/alpha", tokAlpha, initBody, http.StatusOK},
			{"/metrics", "m-scrape-0123456789", "", http.StatusOK},
		} {
			method := "POST"
			if c.body == "" {
				method = "GET"
			}
			req, _ := http.NewRequest(method, th.url+c.path, strings.NewReader(c.body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Authorization", scheme+" "+c.token)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != c.want {
				t.Errorf("%s %s with scheme %q: %d, want %d", method, c.path, scheme, resp.StatusCode, c.want)
			}
		}
	}
	for _, auth := range []string{"Basic " + tokAlpha, "Bearer" + tokAlpha, tokAlpha} {
		req, _ := http.NewRequest("GET", th.url+"/mcp/alpha", nil)
		req.Header.Set("Authorization", auth)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("Authorization %q: %d, want 401", strings.ReplaceAll(auth, tokAlpha, "TOKEN"), resp.StatusCode)
		}
	}
}

// records collects log records: slog's JSON handler writes each in one Write.
type records chan string

func (r records) Write(p []byte) (int, error) {
	r <- string(p)
	return len(p), nil
}

func TestHostMetricsAndCallLog(t *testing.T) {
	logs := make(records, 1000)
	th := newTestHost(t, server.HostOptions{Server: server.Options{Logger: slog.New(slog.NewJSONHandler(logs, nil))}})
	a := th.mustOpen(t, "alpha", tokAlpha, nil)
	callText(t, a, "read", map[string]any{"path": "own.txt"})
	callText(t, a, "read", map[string]any{"path": "own.txt"})
	callText(t, a, "read", map[string]any{"path": "missing.txt"})
	_, body := testenv.Get(t, th.url+"/metrics")
	testenv.WantAll(t, "/metrics", string(body),
		`tether_sessions_open 1`,
		`tether_tool_calls_total{outcome="ok",tool="read"} 2`,
		`tether_tool_calls_total{outcome="error",tool="read"} 1`,
		`tether_tool_call_seconds_count{tool="read"} 3`,
	)
	var all strings.Builder
	for len(logs) > 0 {
		all.WriteString(<-logs)
	}
	var calls int
	for _, line := range strings.Split(all.String(), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) != nil || rec["msg"] != "server: call" {
			continue
		}
		calls++
		if rec["session"] != a.ID() || rec["tool"] != "read" || rec["duration_ms"] == nil || rec["outcome"] == nil {
			t.Errorf("call line: %s", line)
		}
	}
	if calls != 3 {
		t.Errorf("%d call lines, want 3:\n%s", calls, all.String())
	}
	if s := all.String(); strings.Contains(s, "this is alpha") || strings.Contains(s, tokAlpha) {
		t.Errorf("the log holds file content or the token:\n%s", s)
	}
}

// TestHostApprovalsAskTheSessionsClient: with --approve ask, a write in one
// session is asked of that session's client only, and a session whose client
// cannot elicit fails closed.
func TestHostApprovalsAskTheSessionsClient(t *testing.T) {
	th := newTestHostPolicy(t, server.HostOptions{}, "ask")
	asked := make(chan string, 4)
	a := th.mustOpen(t, "alpha", tokAlpha, &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked <- req.Params.Message
		return &mcp.ElicitResult{Action: "accept"}, nil
	}})
	b := th.mustOpen(t, "beta", tokOps, nil)
	if txt, isErr := callText(t, b, "write", map[string]any{"path": "b.txt", "content": "beta\n"}); !isErr || !strings.Contains(txt, "elicitation") {
		t.Errorf("beta's write without elicitation: error %v %q", isErr, txt)
	}
	if len(asked) != 0 {
		t.Errorf("alpha's client was asked about beta's call: %q", <-asked)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(th.dir("alpha")), "beta", "b.txt")); err == nil {
		t.Error("beta's refused write was written")
	}
	if txt, isErr := callText(t, a, "write", map[string]any{"path": "a.txt", "content": "alpha\n"}); isErr {
		t.Fatalf("alpha's approved write: %s", txt)
	}
	if len(asked) != 1 {
		t.Errorf("alpha's client was asked %d times, want 1", len(asked))
	}
	if _, err := os.Stat(filepath.Join(th.dir("alpha"), "a.txt")); err != nil {
		t.Errorf("alpha's approved write: %v", err)
	}
}
