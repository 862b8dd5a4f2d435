package main

import "bufio"
import "bytes"
import "context"
import "encoding/json"
import "fmt"
import "io"
import "os"
import "os/exec"
import "path/filepath"
import "runtime"
import "sort"
import "strings"
import "sync"
import "syscall"
import "testing"

import "github.com/modelcontextprotocol/go-sdk/mcp"
import "github.com/tetherhq/tether/internal/testenv"

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// tetherBin builds the cgo-free tether binary once per test process.
func tetherBin(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "tether-e2e")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "tether")
		if runtime.GOOS == "windows" {
			binPath += ".exe"
		}
		cmd := exec.Command("go", "build", "-o", binPath, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

func workdir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, files)
	return dir
}

// startServe starts `tether serve` with args, for a test that talks to it
// over its stdin and stdout as a minimal client would; the buffer gathers
// what it writes to stderr.
func startServe(t *testing.T, args ...string) (*exec.Cmd, io.WriteCloser, io.ReadCloser, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(tetherBin(t), append([]string{"serve"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, stdout := testenv.StartPiped(t, cmd)
	return cmd, stdin, stdout, &stderr
}

// TestCall drives `tether call` for each file tool.
func TestCall(t *testing.T) {
	bin := tetherBin(t)
	dir := workdir(t, map[string]string{"a.txt": "one\ntwo\n"})
	tests := []struct {
		name     string
		args     []string
		wantCode int
		stdout   string // substring
		stderr   string // substring
		file     string // a.txt afterwards ("" = unchecked)
	}{
		{"read", []string{"read", `{"path":"a.txt"}`}, 0, "     1\tone\n     2\ttwo", "", "one\ntwo\n"},
		{"read json", []string{"--json", "read", `{"path":"a.txt","offset":2}`}, 0, `"text": "     2\ttwo`, "", ""},
		{"write without approver fails closed", []string{"write", `{"path":"a.txt","content":"x"}`}, 1, "", "fail closed", "one\ntwo\n"},
		{"write", []string{"--approve", "allow", "write", `{"path":"a.txt","content":"uno\ntwo\n"}`}, 0, "wrote 8 bytes (2 lines) to a.txt (updated)", "", "uno\ntwo\n"},
		{"edit", []string{"--approve", "write=allow", "edit", `{"path":"a.txt","old_string":"two","new_string":"dos"}`}, 0, "replaced 1 occurrence at line 2", "", "uno\ndos\n"},
		{"edit ambiguous", []string{"--approve", "allow", "edit", `{"path":"a.txt","old_string":"o","new_string":"0"}`}, 1, "", "matches 2 places", "uno\ndos\n"},
		{"apply_patch", []string{"--approve", "allow", "apply_patch", `{"patch":"*** Begin Patch\n*** Update File: a.txt\n uno\n-dos\n+tres\n*** Add File: b/c.txt\n+new\n*** End Patch"}`}, 0, "A b/c.txt", "", "uno\ntres\n"},
		{"plan surface refuses write", []string{"--surface", "plan", "--approve", "allow", "write", `{"path":"a.txt","content":"x"}`}, 1, "", "the plan surface allows only read-tier tools", "uno\ntres\n"},
		{"deny", []string{"--approve", "deny", "write", `{"path":"a.txt","content":"x"}`}, 1, "", "denied by policy", "uno\ntres\n"},
		{"bad args", []string{"read", `{"path":1}`}, 1, "", `argument "path": expected a string, got number 1`, ""},
		{"escape", []string{"read", `{"path":"../../etc/passwd"}`}, 1, "", "outside the working directory", ""},
		{"unknown tool", []string{"frobnicate"}, 1, "", `unknown tool "frobnicate"`, ""},
		{"not json", []string{"read", `{path:a}`}, 2, "", "not valid JSON", ""},
		{"debug adapters", []string{"--approve", "exec=allow", "debug", `{"op":"adapters"}`}, 0, "dart: unavailable", "", ""},
		{"debug without approval fails closed", []string{"debug", `{"op":"status"}`}, 1, "", "fail closed", ""},
		{"debug adapters from a file", []string{"--approve", "allow", "--debug-adapters", "testdata/debug-adapters.json", "debug", `{"op":"adapters"}`}, 0, "- node: unavailable: marker missing: none of package.json", "", ""},
		{"lsp status", []string{"lsp", `{"action":"status"}`}, 0, "rust-analyzer (rust): not running: no root marker for rust", "", ""},
		{"lsp needs a symbol", []string{"lsp", `{"action":"definition","file":"a.txt","line":1}`}, 1, "", "lsp: symbol is required: pass a substring of line 1 naming what you mean; line 1 of a.txt is: `uno`", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"call", "--workdir", dir}, tt.args...)
			cmd := exec.Command(bin, args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.wantCode || !strings.Contains(stdout.String(), tt.stdout) || !strings.Contains(stderr.String(), tt.stderr) {
				t.Fatalf("exit %d (want %d)\nstdout: %s\nstderr: %s", code, tt.wantCode, stdout.String(), stderr.String())
			}
			if tt.file != "" {
				if got := testenv.FileText(filepath.Join(dir, "a.txt")); got != tt.file {
					t.Fatalf("a.txt = %q, want %q", got, tt.file)
				}
			}
		})
	}
	if got := testenv.FileText(filepath.Join(dir, "b", "c.txt")); got != "new\n" {
		t.Errorf("b/c.txt = %q", got)
	}
}

// surfaceTools is what each surface lists, as `tether tools` and serve's
// tools/list both say.
var surfaceTools = []struct {
	surface string
	want    []string
}{
	{"default", []string{"apply_patch", "ask_user", "ast_edit", "ast_grep", "ast_tree", "debug", "edit", "eval", "lsp", "lsp_apply", "lsp_check", "lsp_command", "lsp_format", "lsp_rename", "lsp_request", "map", "notebook", "notebook_edit", "notebook_run", "read", "rename_file", "resolve", "symbol_edit", "write"}},
	{"plan", []string{"ask_user", "ast_grep", "ast_tree", "lsp", "map", "notebook", "read"}},
	{"readonly", []string{"ask_user", "ast_grep", "ast_tree", "lsp", "map", "notebook", "read"}},
}

func TestToolsCommand(t *testing.T) {
	bin := tetherBin(t)
	dir := t.TempDir()
	for _, c := range surfaceTools {
		out, err := exec.Command(bin, "tools", "--workdir", dir, "--surface", c.surface, "--json").Output()
		if err != nil {
			t.Fatal(err)
		}
		var list []struct {
			Name        string          `json:"name"`
			Tier        string          `json:"tier"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if err := json.Unmarshal(out, &list); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range list {
			got = append(got, e.Name)
			if e.Tier == "" || !strings.Contains(compact(e.InputSchema), `"type":"object"`) {
				t.Errorf("%s: tier %q schema %s", e.Name, e.Tier, e.InputSchema)
			}
		}
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("%s surface lists %v, want %v", c.surface, got, c.want)
		}
	}
	// Every argument of every tool says what it is: the model sees nothing
	// else.
	out, err := exec.Command(bin, "tools", "--workdir", dir, "--json", "--vibe", "--worker", "fast=cat").Output()
	if err != nil {
		t.Fatal(err)
	}
	var all []struct {
		Name        string `json:"name"`
		Tier        string `json:"tier"`
		InputSchema struct {
			Properties map[string]struct {
				Description string `json:"description"`
			} `json:"properties"`
		} `json:"inputSchema"`
	}
	if err := json.Unmarshal(out, &all); err != nil {
		t.Fatal(err)
	}
	// docs/tools.md's tier table, plus the file tools.
	tiers := map[string]string{
		"read": "read", "lsp": "read", "ast_grep": "read", "ast_tree": "read", "map": "read", "ask_user": "read", "notebook": "read",
		"vibe_spawn": "read", "vibe_send": "read", "vibe_wait": "read", "vibe_kill": "read", "vibe_list": "read",
		"write": "write", "edit": "write", "apply_patch": "write", "lsp_rename": "write", "ast_edit": "write", "resolve": "write",
		"lsp_apply": "write", "rename_file": "write", "lsp_format": "write", "lsp_request": "write", "notebook_edit": "write", "symbol_edit": "write",
		"debug": "exec", "eval": "exec", "notebook_run": "exec", "lsp_check": "exec", "lsp_command": "exec",
	}
	if len(all) != len(tiers) {
		t.Errorf("with everything wired, %d tools are listed, want the %d of docs/tools.md's tier table", len(all), len(tiers))
	}
	for _, tool := range all {
		if want, ok := tiers[tool.Name]; !ok || tool.Tier != want {
			t.Errorf("%s: tier %q, want %q (docs/tools.md's tier table)", tool.Name, tool.Tier, want)
		}
		for name, p := range tool.InputSchema.Properties {
			if p.Description == "" {
				t.Errorf("%s: argument %q has no description", tool.Name, name)
			}
		}
	}
	// The text listing shows each description whole: apply_patch's format
	// spans several lines and is useless cut after its first.
	out, err = exec.Command(bin, "tools", "--workdir", dir).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\n  *** Begin Patch\n", "\n  *** Update File: path\n", "\n  *** End Patch\n"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("tools listing lacks %q:\n%s", want, out)
		}
	}
}

// mcpSession starts `tether serve` and connects the go-sdk client to it over
// the process's stdio, at the client's default revision (2026-07-28).
// elicit, when non-nil, makes the client declare the elicitation capability
// and answer with it.
func mcpSession(t *testing.T, dir string, flags []string, elicit func(*mcp.ElicitRequest) (*mcp.ElicitResult, error)) *mcp.ClientSession {
	t.Helper()
	return mcpSessionAt(t, dir, "", flags, elicit)
}

// mcpSessionAt is mcpSession with the client asking for revision rev ("":
// the client's default).
func mcpSessionAt(t *testing.T, dir, rev string, flags []string, elicit func(*mcp.ElicitRequest) (*mcp.ElicitResult, error)) *mcp.ClientSession {
	t.Helper()
	opts := &mcp.ClientOptions{}
	if elicit != nil {
		opts.ElicitationHandler = func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) { return elicit(req) }
	}
	cs := serveSession(t, dir, rev, flags, opts, nil)
	if got := cs.InitializeResult().ProtocolVersion; rev != "" && got != rev {
		t.Fatalf("connected at %s, want %s", got, rev)
	}
	return cs
}

// serveSession starts `tether serve --workdir dir` with flags and connects
// a go-sdk client with opts to its stdio, asking for revision rev ("": the
// client's default); wire, when not nil, logs the messages exchanged. The
// test's cleanup closes the session and requires the process to have
// exited because the client went away.
func serveSession(t *testing.T, dir, rev string, flags []string, opts *mcp.ClientOptions, wire io.Writer) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(tetherBin(t), append([]string{"serve", "--workdir", dir}, flags...)...)
	cmd.Stderr = os.Stderr
	var transport mcp.Transport = &mcp.CommandTransport{Command: cmd}
	if wire != nil {
		transport = &mcp.LoggingTransport{Transport: transport, Writer: wire}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "v0"}, opts)
	cs, err := client.Connect(context.Background(), transport, &mcp.ClientSessionOptions{ProtocolVersion: rev})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		if cmd.ProcessState == nil {
			cmd.Wait()
		}
		if cmd.ProcessState == nil || !cmd.ProcessState.Exited() {
			t.Errorf("tether serve did not exit when the client went away: %v", cmd.ProcessState)
		}
	})
	return cs
}

func callText(t *testing.T, cs *mcp.ClientSession, name string, args any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	return resultText(res), res.IsError
}

// resultText is a tool result's text: its text parts and a line for each
// image ("[image image/png 1234]"), one a line ("" for no result).
func resultText(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
		case *mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("[image %s %d]", c.MIMEType, len(c.Data)))
		}
	}
	return strings.Join(parts, "\n")
}

// listTools returns the tools cs's server lists.
func listTools(t *testing.T, cs *mcp.ClientSession) []*mcp.Tool {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Tools
}

func TestServeMCPClient(t *testing.T) {
	png := "\x89PNG\r\n\x1a\nfake"
	t.Run("surfaces", func(t *testing.T) {
		for _, c := range surfaceTools {
			dir := workdir(t, map[string]string{"a.txt": "a\n"})
			cs := mcpSession(t, dir, []string{"--surface", c.surface, "--approve", "allow"}, nil)
			var got []string
			for _, tool := range listTools(t, cs) {
				got = append(got, tool.Name)
				if (tool.Name == "read" || tool.Name == "ask_user" || tool.Name == "lsp" || tool.Name == "ast_grep" || tool.Name == "ast_tree" || tool.Name == "map" || tool.Name == "notebook") != tool.Annotations.ReadOnlyHint {
					t.Errorf("%s: readOnlyHint %v", tool.Name, tool.Annotations.ReadOnlyHint)
				}
			}
			sort.Strings(got)
			if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Errorf("%s: tools/list = %v, want %v", c.surface, got, c.want)
			}
			if c.surface != "default" {
				// Hidden tools are refused by name, with the reason.
				for _, hidden := range []string{"write", "edit", "apply_patch"} {
					text, isErr := callText(t, cs, hidden, map[string]any{"path": "a.txt", "content": "x"})
					if !isErr || !strings.Contains(text, "allows only read-tier tools") {
						t.Errorf("%s: hidden %s gave %q", c.surface, hidden, text)
					}
				}
				if got := testenv.FileText(filepath.Join(dir, "a.txt")); got != "a\n" {
					t.Errorf("a hidden tool wrote a.txt: %q", got)
				}
			}
		}
	})

	for _, rev := range []string{"2026-07-28", "2025-11-25"} {
		t.Run("elicitation approve and decline "+rev, func(t *testing.T) {
			dir := workdir(t, map[string]string{"a.txt": "a\n", "pic.png": png})
			var mu sync.Mutex
			answer := "accept"
			var asked []string
			cs := mcpSessionAt(t, dir, rev, []string{"--approve", "ask"}, func(req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				mu.Lock()
				defer mu.Unlock()
				asked = append(asked, req.Params.Message)
				return &mcp.ElicitResult{Action: answer}, nil
			})
			text, isErr := callText(t, cs, "write", map[string]any{"path": "a.txt", "content": "approved\n"})
			if isErr || testenv.FileText(filepath.Join(dir, "a.txt")) != "approved\n" {
				t.Fatalf("approved write: %q, file %q", text, testenv.FileText(filepath.Join(dir, "a.txt")))
			}
			mu.Lock()
			answer = "decline"
			mu.Unlock()
			text, isErr = callText(t, cs, "edit", map[string]any{"path": "a.txt", "old_string": "approved", "new_string": "declined"})
			if !isErr || !strings.Contains(text, "declined") || testenv.FileText(filepath.Join(dir, "a.txt")) != "approved\n" {
				t.Fatalf("declined edit: %q, file %q", text, testenv.FileText(filepath.Join(dir, "a.txt")))
			}
			mu.Lock()
			answer = "cancel"
			mu.Unlock()
			if _, isErr := callText(t, cs, "apply_patch", map[string]any{"patch": "*** Begin Patch\n*** Delete File: a.txt\n*** End Patch"}); !isErr {
				t.Fatal("cancelled apply_patch ran")
			}
			// Reads never ask.
			text, isErr = callText(t, cs, "read", map[string]any{"path": "pic.png"})
			if isErr || !strings.Contains(text, "[image image/png 12]") {
				t.Errorf("image read: %q", text)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(asked) != 3 || !strings.Contains(asked[0], "write") || !strings.Contains(asked[0], "approved") {
				t.Errorf("asked %q", asked)
			}
		})
	}

	t.Run("no elicitation capability fails closed", func(t *testing.T) {
		dir := workdir(t, map[string]string{"a.txt": "a\n"})
		cs := mcpSession(t, dir, nil, nil)
		text, isErr := callText(t, cs, "write", map[string]any{"path": "a.txt", "content": "x"})
		if !isErr || !strings.Contains(text, "fail closed") || !strings.Contains(text, "elicitation") {
			t.Errorf("write without elicitation: %q", text)
		}
		if testenv.FileText(filepath.Join(dir, "a.txt")) != "a\n" {
			t.Error("the write ran")
		}
		text, isErr = callText(t, cs, "read", map[string]any{"path": "a.txt"})
		if isErr || text != "     1\ta" {
			t.Errorf("read: %q", text)
		}
		text, isErr = callText(t, cs, "read", map[string]any{"path": 5})
		if !isErr || !strings.Contains(text, `argument "path": expected a string`) {
			t.Errorf("invalid args: %q", text)
		}
	})
}

// TestServeJSONRPCScript drives `tether serve` with raw newline-delimited
// JSON-RPC written to its stdin, as a minimal client would.
func TestServeJSONRPCScript(t *testing.T) {
	dir := workdir(t, map[string]string{"a.txt": "hello\n"})
	cmd, stdin, stdout, stderr := startServe(t, "--workdir", dir)
	script := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"script","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read","arguments":{"path":"a.txt"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"write","arguments":{"path":"a.txt","content":"x"}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"read","arguments":{"path":"../outside"}}}`,
	}
	go func() {
		for _, line := range script {
			io.WriteString(stdin, line+"\n")
		}
	}()
	type response struct {
		ID     int             `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	got := map[int]response{}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for len(got) < 5 && sc.Scan() {
		var r response
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("not JSON-RPC: %s", sc.Text())
		}
		if r.ID != 0 {
			got[r.ID] = r
		}
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("serve exited with %v after stdin closed\n%s", err, stderr.String())
	}
	if len(got) < 5 {
		t.Fatalf("got %d responses: %v\nstderr: %s", len(got), got, stderr.String())
	}
	if !strings.Contains(string(got[1].Result), `"protocolVersion":"2025-06-18"`) {
		t.Errorf("initialize: %s", got[1].Result)
	}
	for _, n := range []string{`"name":"read"`, `"name":"write"`, `"name":"edit"`, `"name":"apply_patch"`} {
		if !strings.Contains(string(got[2].Result), n) {
			t.Errorf("tools/list lacks %s: %s", n, got[2].Result)
		}
	}
	type callResult struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	check := func(id int, wantErr bool, want string) {
		var cr callResult
		if err := json.Unmarshal(got[id].Result, &cr); err != nil || len(cr.Content) == 0 {
			t.Errorf("call %d: %s %v", id, got[id].Result, got[id].Error)
			return
		}
		if cr.IsError != wantErr || !strings.Contains(cr.Content[0].Text, want) {
			t.Errorf("call %d: isError=%v %q, want %q", id, cr.IsError, cr.Content[0].Text, want)
		}
	}
	check(3, false, "     1\thello")
	check(4, true, "did not declare the elicitation capability")
	check(5, true, "outside the working directory")
	if testenv.FileText(filepath.Join(dir, "a.txt")) != "hello\n" {
		t.Error("the refused write ran")
	}
}

// TestCallArgsFromStdin: "-" reads the arguments from stdin.
func TestCallArgsFromStdin(t *testing.T) {
	dir := workdir(t, map[string]string{"a.txt": "from stdin\n"})
	cmd := exec.Command(tetherBin(t), "call", "--workdir", dir, "read", "-")
	cmd.Stdin = strings.NewReader(`{"path":"a.txt"}`)
	out, err := cmd.Output()
	if err != nil || string(out) != "     1\tfrom stdin\n" {
		t.Fatalf("%v %q", err, out)
	}
}

// TestServeExitsOnSignal: SIGTERM ends `tether serve`, which closes its run
// (and with it every process a family started) and exits 0.
func TestServeExitsOnSignal(t *testing.T) {
	dir := workdir(t, nil)
	cmd, stdin, stdout, _ := startServe(t, "--workdir", dir)
	defer stdin.Close()
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"s","version":"0"}}}`+"\n")
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || !strings.Contains(line, `"id":1`) {
		t.Fatalf("initialize: %v %q", err, line)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("serve after SIGTERM: %v", err)
	}
}
