package main

import "bufio"
import "context"
import "encoding/json"
import "errors"
import "io"
import "net/http"
import "net/http/cookiejar"
import "os"
import "os/exec"
import "path/filepath"
import "strings"
import "testing"

import "github.com/creack/pty"
import "github.com/modelcontextprotocol/go-sdk/mcp"

import "github.com/tetherhq/tether/internal/testenv"

// TestServeAskUser: ask_user in `tether serve` asks the go-sdk client through
// MCP elicitation: answered, declined (a skip), and a client without the
// capability (fails at once).
func TestServeAskUser(t *testing.T) {
	args := map[string]any{
		"question": "Which database should the service use?",
		"context":  "I assume Postgres.",
		"options":  []map[string]any{{"label": "Postgres", "description": "managed"}, {"label": "SQLite"}},
	}
	tests := []struct {
		name    string
		elicit  func(*mcp.ElicitRequest) (*mcp.ElicitResult, error)
		want    string
		wantErr bool
	}{
		{"answered", func(req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if !strings.Contains(req.Params.Message, "Which database") || !strings.Contains(req.Params.Message, "I assume Postgres.") {
				t.Errorf("elicitation message = %q", req.Params.Message)
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"choice": "SQLite"}}, nil
		}, "Chosen: SQLite", false},
		{"declined", func(*mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		}, "skipped this question. Continue on your stated assumption", false},
		{"no elicitation capability", nil, "no human is connected", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cs := mcpSession(t, workdir(t, nil), nil, tc.elicit)
			text, isErr := callText(t, cs, "ask_user", args)
			if isErr != tc.wantErr || !strings.Contains(text, tc.want) {
				t.Errorf("ask_user = %q (error %v), want %q (error %v)", text, isErr, tc.want, tc.wantErr)
			}
		})
	}
}

// TestServeVibe: --vibe with --worker wires the vibe_* tools to real worker
// processes; without --vibe they are not there.
func TestServeVibe(t *testing.T) {
	script, err := filepath.Abs(filepath.Join("..", "..", "workers", "testdata", "echo.sh"))
	if err != nil {
		t.Fatal(err)
	}
	cs := mcpSession(t, workdir(t, nil), []string{"--vibe", "--worker", "fast=sh " + script}, nil)
	text, isErr := callText(t, cs, "vibe_spawn", map[string]any{"brief": "count the files", "label": "counter"})
	if isErr || !strings.Contains(text, "Started worker w1") {
		t.Fatalf("vibe_spawn = %q", text)
	}
	text, isErr = callText(t, cs, "vibe_wait", map[string]any{"worker_id": "w1"})
	if isErr || !strings.Contains(text, "label=counter tier=fast\ncount the files") {
		t.Fatalf("vibe_wait = %q", text)
	}
	text, _ = callText(t, cs, "vibe_list", map[string]any{})
	if !strings.Contains(text, "w1  counter  fast  done") {
		t.Errorf("vibe_list = %q", text)
	}
	// MCP's structuredContent must be an object: the list is under "workers".
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "vibe_list", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	var listed struct {
		Workers []struct {
			ID, Label, Status string
		} `json:"workers"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &listed); err != nil || len(listed.Workers) != 1 || listed.Workers[0].ID != "w1" || listed.Workers[0].Status != "done" {
		t.Errorf("vibe_list structuredContent = %s (%v), want {\"workers\": [w1 done]}", raw, err)
	}

	plain := mcpSession(t, workdir(t, nil), nil, nil)
	if _, isErr := callText(t, plain, "vibe_list", map[string]any{}); !isErr {
		t.Error("vibe_list answered without --vibe")
	}

	out, err := exec.Command(tetherBin(t), "serve", "--workdir", t.TempDir(), "--vibe").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--vibe needs a worker command") {
		t.Errorf("serve --vibe without --worker: %v %s", err, out)
	}
}

// TestServeVibeKeepsRunLimits: under --surface plan --approve deny a worker
// cannot write files. vibe_spawn is refused until the operator configures
// workers (--worker-surface); then a worker that is tether itself keeps to the
// limits passed in its environment, whatever its own flags say.
func TestServeVibeKeepsRunLimits(t *testing.T) {
	// The worker tries to write with the loosest flags it can give itself.
	worker := "fast=" + tetherBin(t) + ` call --workdir . --surface default --approve allow write '{"path":"worker.txt","content":"x"}'`
	tests := []struct {
		name  string
		flags []string
		want  string // in vibe_wait's report; "" = spawn refused
	}{
		{"no worker surface", nil, ""},
		{"worker surface plan", []string{"--worker-surface", "plan"}, "the plan surface allows only read-tier tools"},
		{"worker surface default, policy deny", []string{"--worker-surface", "default"}, "denied"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := workdir(t, nil)
			args := append([]string{"--surface", "plan", "--approve", "deny", "--vibe", "--worker", worker}, tc.flags...)
			cs := mcpSession(t, dir, args, nil)
			text, isErr := callText(t, cs, "vibe_spawn", map[string]any{"brief": "write worker.txt", "label": "writer"})
			if tc.want == "" {
				if !isErr || !strings.Contains(text, "--worker-surface") {
					t.Fatalf("vibe_spawn on plan = %q (error %v), want a refusal naming --worker-surface", text, isErr)
				}
				return
			}
			if isErr {
				t.Fatalf("vibe_spawn = %q", text)
			}
			text, _ = callText(t, cs, "vibe_wait", map[string]any{"worker_id": "w1"})
			if !strings.Contains(text, "failed") || !strings.Contains(strings.ToLower(text), tc.want) || !strings.Contains(text, "runs as a vibe worker") {
				t.Errorf("worker report = %q, want a failed write (%q)", text, tc.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "worker.txt")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the worker wrote worker.txt (%v)", err)
			}
		})
	}
}

// TestServeConsoleFlag: --console serves the operator console on loopback and
// prints a one-time login link on stderr; the plain page holds no secret and
// opens only after that login, the link works once, and with no logged-in
// page open and a client that cannot elicit, ask_user fails at once.
func TestServeConsoleFlag(t *testing.T) {
	// A worker that looks for the secret where it could: its environment and
	// tether's command line and environment.
	snoop := `fast=env; tr '\0' '\n' < /proc/$PPID/cmdline; tr '\0' '\n' < /proc/$PPID/environ`
	cmd := exec.Command(tetherBin(t), "serve", "--workdir", workdir(t, nil), "--console", "127.0.0.1:0", "--vibe", "--worker", snoop)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "v0"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		cs.Close()
		cmd.Wait()
	}()
	lines := bufio.NewScanner(stderr)
	var login string
	for login == "" && lines.Scan() {
		if u, ok := strings.CutPrefix(lines.Text(), "tether: operator console at "); ok {
			login = u
		}
	}
	go io.Copy(io.Discard, stderr)
	base, secret, ok := strings.Cut(login, "login?secret=")
	if !strings.HasPrefix(login, "http://127.0.0.1:") || !ok || len(secret) < 32 {
		t.Fatalf("no one-time login link on stderr (got %q)", login)
	}
	get := func(c *http.Client, url string) (int, string) {
		t.Helper()
		res, err := c.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		return res.StatusCode, string(body)
	}
	if code, body := get(http.DefaultClient, base); code != http.StatusUnauthorized || strings.Contains(body, secret) {
		t.Errorf("console page without the login: %d %q, want 401 without the secret", code, body)
	}
	text, isErr := callText(t, cs, "ask_user", map[string]any{"question": "Name?"})
	if !isErr || !strings.Contains(text, "no operator console page is open") || !strings.Contains(text, "elicitation") {
		t.Errorf("ask_user with nobody connected = %q (error %v)", text, isErr)
	}
	if text, isErr := callText(t, cs, "vibe_spawn", map[string]any{"brief": "find the console secret", "label": "snoop"}); isErr {
		t.Fatalf("vibe_spawn: %s", text)
	}
	if text, _ := callText(t, cs, "vibe_wait", map[string]any{"worker_id": "w1"}); !strings.Contains(text, "TETHER_WORKER_ID=w1") || strings.Contains(text, secret) {
		t.Errorf("the worker's environment or view of tether holds the console secret (or the worker did not run):\n%s", text)
	}
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	if code, body := get(browser, login); code != http.StatusOK || !strings.Contains(body, "tether operator console") || strings.Contains(body, secret) {
		t.Fatalf("console page after the login: %d", code)
	}
	if code, _ := get(&http.Client{}, login); code != http.StatusForbidden {
		t.Errorf("second use of the login link: %d, want 403", code)
	}
}

// TestCallAskUserInTerminal: `tether call ask_user` run in a terminal (a
// pseudo-terminal here) shows the numbered card and returns the typed choice.
func TestCallAskUserInTerminal(t *testing.T) {
	cmd := exec.Command(tetherBin(t), "call", "--workdir", workdir(t, nil), "ask_user",
		`{"question":"Which database should the service use?","options":[{"label":"Postgres"},{"label":"SQLite"}]}`)
	ptmx, err := pty.Start(cmd)
	if err != nil {
		t.Fatalf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	scr := testenv.NewScreen(ptmx)
	card := scr.Expect(t, "> ")
	if !strings.Contains(card, "2) SQLite") {
		t.Errorf("card:\n%s", card)
	}
	ptmx.WriteString("2\n")
	out := card + scr.Rest(t) // until the process ends
	if err := cmd.Wait(); err != nil {
		t.Errorf("tether call: %v\n%s", err, out)
	}
	if !strings.Contains(out, "Chosen: SQLite") {
		t.Errorf("output lacks the answer:\n%s", out)
	}
}
