//go:build linux

package main

import "bufio"
import "bytes"
import "context"
import "encoding/json"
import "io"
import "path/filepath"
import "slices"
import "strings"
import "testing"
import "time"

import "github.com/modelcontextprotocol/go-sdk/mcp"

import "github.com/tetherhq/tether/internal/testenv"

// wireLog gathers the JSON-RPC messages an mcp.LoggingTransport writes
// down, one "read: {...}" or "write: {...}" line each.
type wireLog struct{ testenv.SyncBuffer }

// wireMsg is what a test reads of one logged message.
type wireMsg struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
}

// messages returns the messages the client sent (out) or got (in).
func (w *wireLog) messages(out bool) []wireMsg {
	text := w.String()
	prefix := "read: "
	if out {
		prefix = "write: "
	}
	var msgs []wireMsg
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if line, ok := strings.CutPrefix(sc.Text(), prefix); ok {
			var m wireMsg
			json.Unmarshal([]byte(line), &m)
			msgs = append(msgs, m)
		}
	}
	return msgs
}

// methods returns the methods of msgs, in order.
func methods(msgs []wireMsg) []string {
	var out []string
	for _, m := range msgs {
		if m.Method != "" {
			out = append(out, m.Method)
		}
	}
	return out
}

// openStdioRev starts `tether serve --workdir dir` with flags and connects
// the go-sdk client to its stdin and stdout at revision rev, answering every
// question as openRev does ("blue" to a choice, accept to an approval) and
// logging the messages it exchanges in the returned log.
func openStdioRev(t *testing.T, dir, rev string, flags ...string) (*revClient, *wireLog) {
	t.Helper()
	rc := &revClient{}
	opts := rc.options()
	// A 2026-07-28 client that handles list changes keeps a
	// subscriptions/listen call open on the pipe for as long as it is
	// connected: the process still exits when the client goes.
	opts.ToolListChangedHandler = func(context.Context, *mcp.ToolListChangedRequest) {}
	wire := &wireLog{}
	rc.cs = serveSession(t, dir, rev, flags, opts, wire)
	return rc, wire
}

// askFromCell is a Python cell that asks the user through the run's own
// ask_user and prints the answer, or why it could not ask.
const askFromCell = `try:
    print("answer:", tool("ask_user", {"question": "Which color, from the cell?", "options": [{"label": "red"}, {"label": "blue"}]}))
except ToolError as e:
    print("refused:", e)`

// TestStdioBothRevisions drives one `tether serve` process per revision
// over its stdin and stdout with the go-sdk client: at 2026-07-28 the client
// connects with server/discover and no initialize (and keeps a
// subscriptions/listen call open), at 2025-11-25 with initialize. Each lists and calls tools, keeps eval state across calls,
// has ask_user and an approval under write=ask answered (through input
// requests and a retry with requestState at 2026-07-28, through
// elicitation/create while the call waits at 2025-11-25), gets progress
// notifications on an ast_grep over 400 files, and reads an eval image too
// large to inline through resources/read. A question asked from inside an
// eval cell is answered at 2025-11-25 and refused, saying why, at
// 2026-07-28 (the cell would have to run again).
func TestStdioBothRevisions(t *testing.T) {
	for _, rev := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(rev, func(t *testing.T) {
			modern := rev == "2026-07-28"
			dir := workdir(t, map[string]string{"a.go": "package a\n\nfunc f() { old(1) }\n"})
			writeBigTree(dir)
			a, wire := openStdioRev(t, dir, rev, "--approve", "write=ask,exec=allow")

			if got := a.cs.InitializeResult().ProtocolVersion; got != rev {
				t.Fatalf("connected at %s, want %s", got, rev)
			}
			sent := methods(wire.messages(true))
			if len(sent) == 0 {
				t.Fatal("the client sent nothing")
			}
			if want := map[bool]string{true: "server/discover", false: "initialize"}[modern]; sent[0] != want || (modern && strings.Contains(strings.Join(sent, " "), "initialize")) {
				t.Errorf("the client connected with %v; want %s first", sent, want)
			}
			if modern && !slices.Contains(sent, "subscriptions/listen") {
				t.Errorf("the client sent %v; want subscriptions/listen for its list-change handler", sent)
			}

			a.checkToolsAndState(t, rev, "eval", "ask_user", "ast_grep", "write", "read")

			text, isErr := callText(t, a.cs, "ask_user", map[string]any{"question": "Which color?", "options": []map[string]any{{"label": "red"}, {"label": "blue"}}})
			if isErr || !strings.Contains(text, "blue") {
				t.Errorf("ask_user: error %v %q", isErr, text)
			}
			if text, isErr := callText(t, a.cs, "write", map[string]any{"path": "approved.txt", "content": "ok\n"}); isErr || testenv.FileText(filepath.Join(dir, "approved.txt")) != "ok\n" {
				t.Errorf("write approved under ask: %q, file %q", text, testenv.FileText(filepath.Join(dir, "approved.txt")))
			}
			text, _ = callText(t, a.cs, "eval", map[string]any{"code": askFromCell, "description": "ask the user from inside a cell"})
			if modern {
				if !strings.Contains(text, "refused:") || !strings.Contains(text, "cannot be asked of an MCP 2026-07-28 client") || !strings.Contains(text, "call ask_user") {
					t.Errorf("a question from inside a cell at %s: %q; want a refusal saying to call ask_user directly", rev, text)
				}
			} else if !strings.Contains(text, "answer:") || !strings.Contains(text, "blue") {
				t.Errorf("a question from inside a cell at %s: %q; want the answer", rev, text)
			}
			a.mu.Lock()
			asked := a.asked
			a.mu.Unlock()
			wantAsked := 3
			if modern {
				wantAsked = 2
			}
			if len(asked) != wantAsked || !strings.Contains(asked[0], "Which color?") || !strings.Contains(asked[1], "write") {
				t.Errorf("questions asked: %q; want ask_user's, the write's approval and (2025-11-25) the cell's", asked)
			}

			// How the questions travelled: as input requests in results and a
			// retry with their requestState, or as requests of the server's.
			var inputResults, elicitRequests, retries int
			for _, m := range wire.messages(false) {
				if m.Method == "elicitation/create" {
					elicitRequests++
				}
				if bytes.Contains(m.Result, []byte(`"inputRequests"`)) && bytes.Contains(m.Result, []byte(`"requestState"`)) {
					inputResults++
				}
			}
			for _, m := range wire.messages(true) {
				if m.Method == "tools/call" && bytes.Contains(m.Params, []byte(`"requestState"`)) && bytes.Contains(m.Params, []byte(`"inputResponses"`)) {
					retries++
				}
			}
			if modern && (inputResults != 2 || retries != 2 || elicitRequests != 0) {
				t.Errorf("at %s: %d results with input requests, %d retries with requestState, %d elicitation/create requests; want 2, 2, 0", rev, inputResults, retries, elicitRequests)
			}
			if !modern && (inputResults != 0 || retries != 0 || elicitRequests != 3) {
				t.Errorf("at %s: %d results with input requests, %d retries with requestState, %d elicitation/create requests; want 0, 0, 3", rev, inputResults, retries, elicitRequests)
			}

			p := &mcp.CallToolParams{Name: "ast_grep", Arguments: map[string]any{"pattern": "old($N)", "language": "go", "path": "big"}}
			p.SetProgressToken("grep")
			if res, err := a.cs.CallTool(context.Background(), p); err != nil || res.IsError {
				t.Fatalf("ast_grep: %v %q", err, resultText(res))
			}
			prog := a.waitProgress(func(p []*mcp.ProgressNotificationParams) bool {
				return len(p) > 0 && p[len(p)-1].Progress == 400
			})
			if len(prog) < 2 || prog[len(prog)-1].Progress != 400 || prog[len(prog)-1].Total != 400 || prog[0].ProgressToken != "grep" {
				t.Errorf("progress notifications %d, last %+v; want several for token grep ending at 400 of 400", len(prog), prog[max(len(prog)-1, 0):])
			}

			checkImageLink(t, a.cs)
		})
	}
}

// TestStdioRawModernRequests writes MCP 2026-07-28 requests to `tether
// serve`'s stdin as the revision's text writes them, with no SDK and no
// initialize: server/discover names 2026-07-28 among the versions, and a
// tools/call with the version in its _meta is answered as complete.
func TestStdioRawModernRequests(t *testing.T) {
	dir := workdir(t, map[string]string{"a.txt": "hello\n"})
	cmd, stdin, stdout, stderr := startServe(t, "--workdir", dir)
	defer func() {
		stdin.Close()
		cmd.Wait()
	}()
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 1<<20)
	call := func(line string) string {
		t.Helper()
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatalf("writing to tether serve: %v\nstderr:\n%s", err, stderr.String())
		}
		if !lines.Scan() {
			cmd.Wait()
			t.Fatalf("tether serve ended (%v)\nstderr:\n%s", cmd.ProcessState, stderr.String())
		}
		return lines.Text()
	}
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"script","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}}`
	got := call(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`)
	if !strings.Contains(got, `"supportedVersions":["2026-07-28","2025-11-25"`) || !strings.Contains(got, `"id":1`) {
		t.Errorf("server/discover: %s", got)
	}
	got = call(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read","arguments":{"path":"a.txt"},` + meta + `}}`)
	if !strings.Contains(got, `hello`) || !strings.Contains(got, `"resultType":"complete"`) || !strings.Contains(got, `"id":2`) {
		t.Errorf("tools/call read: %s", got)
	}
	got = call(`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{` + meta + `}}`)
	if !strings.Contains(got, `"name":"read"`) || !strings.Contains(got, `"ttlMs":0`) || !strings.Contains(got, `"cacheScope":"private"`) {
		t.Errorf("tools/list: %s; want read, stale at once (ttlMs 0) and private", got)
	}
	// The older revision on the same kind of process: initialize still
	// answers 2025-11-25 to a client offering 2026-07-28 there.
	cmd2, stdin2, stdout2, _ := startServe(t, "--workdir", dir)
	defer func() {
		stdin2.Close()
		cmd2.Wait()
	}()
	io.WriteString(stdin2, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"script","version":"0"}}}`+"\n")
	sc2 := bufio.NewScanner(stdout2)
	done := make(chan string, 1)
	go func() {
		sc2.Scan()
		done <- sc2.Text()
	}()
	select {
	case got = <-done:
	case <-time.After(time.Minute):
		t.Fatal("no answer to initialize in a minute")
	}
	if !strings.Contains(got, `"protocolVersion":"2025-11-25"`) {
		t.Errorf("initialize offering 2026-07-28: %s; want 2025-11-25", got)
	}
}

// TestStdioCancel: a client on stdio that gives up on a call (the go-sdk
// sends notifications/cancelled), at either revision, stops the work: the
// cell sleeping in the run's kernel is interrupted before it writes its
// second marker, and the next call runs at once with the kernel's state
// kept.
func TestStdioCancel(t *testing.T) {
	for _, rev := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(rev, func(t *testing.T) { testStdioCancel(t, rev) })
	}
}

func testStdioCancel(t *testing.T, rev string) {
	dir := workdir(t, nil)
	a, _ := openStdioRev(t, dir, rev, "--approve", "allow")
	a.checkCancel(t, dir)
}
