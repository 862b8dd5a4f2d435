//go:build linux

package main

import "bytes"
import "context"
import "crypto/sha256"
import "encoding/hex"
import "fmt"
import "net/http"
import "os"
import "path/filepath"
import "slices"
import "strings"
import "sync"
import "testing"
import "time"

import "github.com/modelcontextprotocol/go-sdk/mcp"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/server"

// revClient is a go-sdk client of workspace alpha at one revision, with
// the questions it was asked and the progress notifications it got.
type revClient struct {
	cs       *mcp.ClientSession
	mu       sync.Mutex
	asked    []string
	progress []*mcp.ProgressNotificationParams
}

// options answers every question ("blue" to a choice, accept to an
// approval), noting each, and gathers the progress notifications.
func (rc *revClient) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			rc.mu.Lock()
			rc.asked = append(rc.asked, req.Params.Message)
			rc.mu.Unlock()
			if strings.Contains(req.Params.Message, "Which color") {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"choice": "blue"}}, nil
			}
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			rc.mu.Lock()
			rc.progress = append(rc.progress, req.Params)
			rc.mu.Unlock()
		},
	}
}

// openRev connects to url's workspace alpha at revision rev with token and
// (2026-07-28) conversation key; it answers every question: "blue" to a
// choice, accept to an approval.
func openRev(t *testing.T, url, rev, token, key string) *revClient {
	t.Helper()
	rc := &revClient{}
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "v0"}, rc.options())
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: url + "/mcp/alpha", HTTPClient: &http.Client{Transport: testenv.HeaderTransport{"Authorization": "Bearer " + token, server.ConversationHeader: key}}, MaxRetries: -1,
	}, &mcp.ClientSessionOptions{ProtocolVersion: rev})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; got != rev {
		t.Fatalf("connected at %s, want %s", got, rev)
	}
	rc.cs = cs
	return rc
}

// pngOf is a Python cell defining png, a valid PNG of about 120 KB (random
// pixels do not compress), and showing it as the cell's value.
const pngCell = `import os, zlib, struct, hashlib
def _chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
_rows = b"".join(b"\x00" + os.urandom(600) for _ in range(200))
png = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", 200, 200, 8, 2, 0, 0, 0)) + _chunk(b"IDAT", zlib.compress(_rows)) + _chunk(b"IEND", b"")
print("sha256", hashlib.sha256(png).hexdigest())
class Plot:
    def _repr_png_(self):
        return png
Plot()`

// TestHostBothRevisions drives one tether serve --http with the go-sdk
// client at 2026-07-28 (a conversation key, no session) and at 2025-11-25
// (a session): tools list and call; eval state kept across calls, and
// refused to another token holding the same conversation key; ask_user and
// an approval under write=ask answered through input requests and through
// elicitation; progress notifications on an ast_grep over many files; and
// an eval image too large to inline read back through resources/read.
func TestHostBothRevisions(t *testing.T) {
	base := t.TempDir()
	tokens := filepath.Join(base, "two-tokens.json")
	os.WriteFile(tokens, []byte(`{"t-ops-0123456789": ["*"], "t-other-0123456789": ["alpha"]}`), 0o600)
	hp := startHostProc(t, base, "--tokens", tokens, "--approve", "write=ask,exec=allow")
	root := filepath.Join(base, "root")
	writeBigTree(filepath.Join(root, "alpha"))
	const key = "0f9e8d7c-6b5a-4938-a716-b5c4d3e2f1a0"
	for _, rev := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(rev, func(t *testing.T) {
			k := ""
			if rev == "2026-07-28" {
				k = key
			}
			a := openRev(t, hp.url, rev, "t-ops-0123456789", k)
			a.checkToolsAndState(t, rev, "eval", "ask_user", "ast_grep", "write")
			if rev == "2026-07-28" {
				other := openRev(t, hp.url, rev, "t-other-0123456789", key)
				text, _ := callText(t, other.cs, "eval", map[string]any{"code": "print(kept)", "description": "print a variable another token set"})
				if strings.Contains(text, "v-"+rev) || !strings.Contains(text, "NameError") {
					t.Errorf("another token with the same key reached the conversation's kernel: %q", text)
				}
				none := openRev(t, hp.url, rev, "t-ops-0123456789", "")
				_, err := none.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "eval", Arguments: map[string]any{"code": "1", "description": "a cell sent without a conversation key"}})
				if err == nil || !strings.Contains(err.Error(), server.ConversationHeader) {
					t.Errorf("eval without a key: %v; want a refusal saying to send %s", err, server.ConversationHeader)
				}
			}

			text, isErr := callText(t, a.cs, "ask_user", map[string]any{"question": "Which color?", "options": []map[string]any{{"label": "red"}, {"label": "blue"}}})
			if isErr || !strings.Contains(text, "blue") {
				t.Errorf("ask_user: error %v %q", isErr, text)
			}
			if text, isErr := callText(t, a.cs, "write", map[string]any{"path": "approved-" + rev + ".txt", "content": "ok\n"}); isErr {
				t.Errorf("write approved under ask: %q", text)
			}
			a.mu.Lock()
			asked := a.asked
			a.mu.Unlock()
			if len(asked) != 2 || !strings.Contains(asked[1], "write") {
				t.Errorf("questions asked: %q; want ask_user's, then the write's approval", asked)
			}

			p := &mcp.CallToolParams{Name: "ast_grep", Arguments: map[string]any{"pattern": "old($N)", "language": "go", "path": "big"}}
			p.SetProgressToken("grep")
			if res, err := a.cs.CallTool(context.Background(), p); err != nil || res.IsError {
				t.Fatalf("ast_grep: %v", err)
			}
			// The client handles a notification apart from the result it
			// precedes: the last may be handled just after the call returns.
			prog := a.waitProgress(func(p []*mcp.ProgressNotificationParams) bool {
				return len(p) > 0 && p[len(p)-1].Progress == 400
			})
			if len(prog) < 2 || prog[len(prog)-1].Progress != 400 || prog[len(prog)-1].Total != 400 {
				t.Errorf("progress notifications %d, last %+v; want several ending at 400 of 400", len(prog), prog[max(len(prog)-1, 0):])
			}

			if rev == "2026-07-28" {
				// gopls starts for this query: its warm-up is the first notification.
				os.WriteFile(filepath.Join(root, "alpha", "go.mod"), []byte("module example.com/a\n\ngo 1.21\n"), 0o644)
				a.mu.Lock()
				a.progress = nil
				a.mu.Unlock()
				p := &mcp.CallToolParams{Name: "lsp", Arguments: map[string]any{"action": "hover", "file": "a.go", "line": 3, "symbol": "f"}}
				p.SetProgressToken("lsp")
				if res, err := a.cs.CallTool(context.Background(), p); err != nil || res.IsError {
					t.Errorf("lsp hover: %v %q", err, resultText(res))
				}
				prog := a.waitProgress(func(p []*mcp.ProgressNotificationParams) bool { return len(p) > 0 })
				if len(prog) == 0 || !strings.Contains(prog[0].Message, "starting gopls") {
					t.Errorf("lsp hover's progress: %+v; want gopls's start first", prog)
				}
			}

			checkImageLink(t, a.cs)
		})
	}
}

// checkImageLink calls eval with pngCell on cs and checks that the image
// comes back as a resource link, not inline, whose resources/read gives
// the PNG of the sha256 the result names.
func checkImageLink(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "eval", Arguments: map[string]any{"code": pngCell, "description": "show a large random image as the value"}})
	if err != nil || res.IsError {
		t.Fatalf("eval image: %v %q", err, resultText(res))
	}
	var link *mcp.ResourceLink
	var sum string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.ResourceLink:
			link = c
		case *mcp.ImageContent:
			t.Errorf("a %d-byte image came inline", len(c.Data))
		case *mcp.TextContent:
			if _, after, ok := strings.Cut(c.Text, "sha256 "); ok {
				sum = strings.Fields(after)[0]
			}
		}
	}
	if link == nil || link.MIMEType != "image/png" {
		t.Fatalf("no image link in the result: %+v", res.Content)
	}
	rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: link.URI})
	if err != nil || len(rr.Contents) != 1 {
		t.Fatalf("resources/read %s: %v", link.URI, err)
	}
	got := sha256.Sum256(rr.Contents[0].Blob)
	if hex.EncodeToString(got[:]) != sum || !bytes.HasPrefix(rr.Contents[0].Blob, []byte("\x89PNG")) {
		t.Errorf("resources/read gave %d bytes of sha256 %x; the cell's image has %s", len(rr.Contents[0].Blob), got, sum)
	}
}

// TestHostModernCancel: a 2026-07-28 client that gives up on a call (closes
// its request) stops the work: the cell sleeping in the conversation's
// kernel is interrupted before it writes its second marker, and the next
// call in the conversation runs at once with the kernel's state kept.
func TestHostModernCancel(t *testing.T) {
	base := t.TempDir()
	hp := startHostProc(t, base)
	ws := filepath.Join(base, "root", "alpha")
	a := openRev(t, hp.url, "2026-07-28", "t-ops-0123456789", "cancel-conversation-01")
	a.checkCancel(t, ws)
}

// TestHostEvalKeepAlive: a cell that prints nothing for longer than the
// keep-alive interval (15 s) still sends its 2026-07-28 client progress
// notifications saying it runs, so that the client does not give up on it.
func TestHostEvalKeepAlive(t *testing.T) {
	hp := startHostProc(t, t.TempDir())
	a := openRev(t, hp.url, "2026-07-28", "t-ops-0123456789", "keep-alive-conversation")
	p := &mcp.CallToolParams{Name: "eval", Arguments: map[string]any{"code": "import time\ntime.sleep(17)\nprint('woke')", "description": "stay silent past the keep-alive interval"}}
	p.SetProgressToken("cell")
	res, err := a.cs.CallTool(context.Background(), p)
	if err != nil || res.IsError || !strings.Contains(resultText(res), "woke") {
		t.Fatalf("eval: %v %q", err, resultText(res))
	}
	prog := a.waitProgress(func(p []*mcp.ProgressNotificationParams) bool { return len(p) > 0 })
	if len(prog) == 0 || !strings.Contains(prog[0].Message, "eval: still running") || prog[0].ProgressToken != "cell" {
		t.Errorf("progress during a silent 17 s cell: %+v; want eval: still running", prog)
	}
}

// waitProgress returns the progress notifications once done holds for
// them, or as they are after ten seconds: the go-sdk client hands a
// notification to its handler apart from the call's result, so the last may
// come just after the call returned.
func (rc *revClient) waitProgress(done func([]*mcp.ProgressNotificationParams) bool) []*mcp.ProgressNotificationParams {
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		rc.mu.Lock()
		p := slices.Clone(rc.progress)
		rc.mu.Unlock()
		if done(p) || time.Now().After(end) {
			return p
		}
	}
}

// TestHostRawModernRequests posts MCP 2026-07-28 requests to tether serve
// --http as the revision's text writes them, with no SDK: server/discover,
// then a tools/call of read in a conversation.
func TestHostRawModernRequests(t *testing.T) {
	hp := startHostProc(t, t.TempDir())
	post := func(method, name, params string) (int, string) {
		body := `{"jsonrpc":"2.0","id":7,"method":"` + method + `","params":` + params + `}`
		req := testenv.PostMCP(hp.url+"/mcp/alpha", "t-ops-0123456789", body, "MCP-Protocol-Version", "2026-07-28",
			"Mcp-Method", method, "Mcp-Name", name, server.ConversationHeader, "raw-e2e-conversation-1")
		resp, b := testenv.Do(t, req)
		return resp.StatusCode, string(b)
	}
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"curl","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}}`
	code, body := post("server/discover", "", `{`+meta+`}`)
	if code != 200 || !strings.Contains(body, `"supportedVersions":["2026-07-28"`) || !strings.Contains(body, `"id":7`) {
		t.Errorf("server/discover: %d %s", code, body)
	}
	code, body = post("tools/call", "read", `{"name":"read","arguments":{"path":"a.go"},`+meta+`}`)
	if code != 200 || !strings.Contains(body, `old(1)`) || !strings.Contains(body, `"resultType":"complete"`) || !strings.Contains(body, `"tether/conversationNew":true`) {
		t.Errorf("tools/call read: %d %s", code, body)
	}
}

// writeBigTree writes 400 Go files under dir/big, 20 to a folder, each
// calling old once: enough for an ast_grep to report progress.
func writeBigTree(dir string) {
	for i := range 400 {
		sub := filepath.Join(dir, "big", fmt.Sprintf("p%02d", i%20))
		os.MkdirAll(sub, 0o755)
		os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%03d.go", i)), fmt.Appendf(nil, "package p\n\nfunc f%d() { old(%d) }\n", i, i), 0o644)
	}
}

// checkToolsAndState checks that tools/list names want, that read reads
// a.go, and that an eval variable is kept from one call to the next.
func (rc *revClient) checkToolsAndState(t *testing.T, rev string, want ...string) {
	t.Helper()
	var names []string
	for _, tool := range listTools(t, rc.cs) {
		names = append(names, tool.Name)
	}
	for _, w := range want {
		if !slices.Contains(names, w) {
			t.Errorf("tools/list lacks %s: %v", w, names)
		}
	}
	if text, isErr := callText(t, rc.cs, "read", map[string]any{"path": "a.go"}); isErr || !strings.Contains(text, "old(1)") {
		t.Errorf("read: error %v %q", isErr, text)
	}
	if text, isErr := callText(t, rc.cs, "eval", map[string]any{"code": "kept = 'v-" + rev + "'", "description": "set a variable to keep for the next call"}); isErr {
		t.Fatalf("eval: %s", text)
	}
	if text, isErr := callText(t, rc.cs, "eval", map[string]any{"code": "print(kept)", "description": "print the variable the last call set"}); isErr || !strings.Contains(text, "v-"+rev) {
		t.Errorf("eval state across calls: error %v %q", isErr, text)
	}
}

// checkCancel sets an eval variable, starts a cell that marks dir's
// started.txt and sleeps, and gives up on the call once the cell runs: the
// call must fail, the cell must not reach finished.txt, and the next call
// must run at once with the variable kept.
func (rc *revClient) checkCancel(t *testing.T, dir string) {
	t.Helper()
	if text, isErr := callText(t, rc.cs, "eval", map[string]any{"code": "kept = 41", "description": "set a variable before the cancelled cell"}); isErr {
		t.Fatalf("eval: %s", text)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := rc.cs.CallTool(ctx, &mcp.CallToolParams{Name: "eval", Arguments: map[string]any{
			"code":        "import time\nopen('started.txt', 'w').write('1')\ntime.sleep(120)\nopen('finished.txt', 'w').write('1')",
			"description": "sleep long enough to be cancelled by the client"}})
		done <- err
	}()
	awaitMarker[error](t, filepath.Join(dir, "started.txt"), nil)
	cancel()
	if err := <-done; err == nil {
		t.Error("the cancelled call returned no error")
	}
	text, isErr := callText(t, rc.cs, "eval", map[string]any{"code": "print(kept + 1)", "description": "read the variable after the cancelled cell"})
	if isErr || !strings.Contains(text, "42") {
		t.Errorf("the next call after the cancel: error %v %q", isErr, text)
	}
	if _, err := os.Stat(filepath.Join(dir, "finished.txt")); err == nil {
		t.Error("the cancelled cell ran to its end")
	}
}
