//go:build linux

package main

import "bufio"
import "context"
import "fmt"
import "io"
import "net/http"
import "os"
import "os/exec"
import "path/filepath"
import "regexp"
import "slices"
import "strconv"
import "strings"
import "syscall"
import "testing"
import "time"

import "github.com/modelcontextprotocol/go-sdk/mcp"
import "github.com/tetherhq/tether/internal/testenv"

// startHost runs `tether serve --http 127.0.0.1:0` over a root with
// workspaces alpha and beta and returns the process and its base URL.
func startHost(t *testing.T, extra ...string) (*exec.Cmd, string) {
	cmd, url, _ := startHostIn(t, t.TempDir(), extra...)
	return cmd, url
}

// startHostIn is startHost with the root and tokens file under base; it
// also returns the tokens file's path.
func startHostIn(t *testing.T, base string, extra ...string) (*exec.Cmd, string, string) {
	t.Helper()
	hp := startHostProc(t, base, extra...)
	return hp.cmd, hp.url, hp.tokens
}

// hostProc is a running `tether serve --http`: its base URL, its tokens
// file, and the base URL of its --metrics-addr when given.
type hostProc struct {
	cmd                  *exec.Cmd
	url, tokens, metrics string
}

// hostRoot makes the host's root under base, with workspaces alpha and beta
// holding the same a.go, and a tokens file giving t-ops-0123456789 every
// workspace.
func hostRoot(t *testing.T, base string) (root, tokens string) {
	t.Helper()
	root = filepath.Join(base, "root")
	for _, ws := range []string{"alpha", "beta"} {
		os.MkdirAll(filepath.Join(root, ws), 0o755)
		os.WriteFile(filepath.Join(root, ws, "a.go"), []byte("package a\n\nfunc f() { old(1) }\n"), 0o644)
	}
	tokens = filepath.Join(base, "tokens.json")
	os.WriteFile(tokens, []byte(`{"t-ops-0123456789": ["*"], "t-beta-0123456789": ["beta"]}`), 0o600)
	return root, tokens
}

// startHostProc is startHostIn returning the whole hostProc.
func startHostProc(t *testing.T, base string, extra ...string) hostProc {
	t.Helper()
	var hp hostProc
	root, tokens := hostRoot(t, base)
	hp.tokens = tokens
	args := []string{"serve", "--http", "127.0.0.1:0", "--root", root, "--tokens", hp.tokens, "--log-level", "info"}
	if !slices.Contains(extra, "--approve") {
		args = append(args, "--approve", "allow")
	}
	args = append(args, extra...)
	hp.cmd = exec.Command(tetherBin(t), args...)
	stderr, err := hp.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := hp.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		hp.cmd.Process.Kill()
		hp.cmd.Wait()
	})
	sc := bufio.NewScanner(stderr)
	re := regexp.MustCompile(`\b(metrics_)?addr"?[=:]"?(127\.0\.0\.1:\d+)`)
	for sc.Scan() {
		m := re.FindStringSubmatch(sc.Text())
		switch {
		case m != nil && m[1] != "":
			hp.metrics = "http://" + m[2]
		case m != nil:
			go io.Copy(os.Stderr, stderr)
			hp.url = "http://" + m[2]
			return hp
		}
		fmt.Fprintln(os.Stderr, sc.Text())
	}
	t.Fatal("tether serve --http exited before it listened")
	return hp
}

func openHostSession(t *testing.T, url, ws string) *mcp.ClientSession {
	t.Helper()
	return openHostSessionRetries(t, url, ws, -1)
}

// openHostSessionRetries opens a session whose client reconnects its event
// stream up to retries times (-1: never; 0: the go-sdk's default, 5).
func openHostSessionRetries(t *testing.T, url, ws string, retries int) *mcp.ClientSession {
	t.Helper()
	return openHostSessionAs(t, url, ws, "t-ops-0123456789", retries)
}

// openHostSessionAs is openHostSessionRetries with token: t-ops-0123456789
// may open every workspace of hostRoot's, t-beta-0123456789 only beta.
func openHostSessionAs(t *testing.T, url, ws, token string, retries int) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "v0"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: url + "/mcp/" + ws, HTTPClient: &http.Client{Transport: testenv.Bearer(token)}, MaxRetries: retries,
	}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// kernelPid starts session cs's Python kernel and returns its pid.
func kernelPid(t *testing.T, cs *mcp.ClientSession) int {
	t.Helper()
	text, isErr := callText(t, cs, "eval", map[string]any{"code": "import os\nprint('pid', os.getpid(), os.readlink('/proc/self/ns/pid'))", "description": "print the process id of the kernel"})
	m := regexp.MustCompile(`pid (\d+) (\S+)`).FindStringSubmatch(text)
	if isErr || m == nil {
		t.Fatalf("eval: error %v\n%s", isErr, text)
	}
	// The cell's pid is its PID namespace's (the sandbox's).
	pid, _ := strconv.Atoi(m[1])
	if host := testenv.HostPidInNS(m[2], pid); host != 0 {
		return host
	}
	t.Fatalf("the kernel's pid %d is not found in its namespace %s", pid, m[2])
	return 0
}

// waitGone waits until pid is no live process; the bound is only there so a
// leak fails the test instead of hanging it.
func waitGone(t *testing.T, pid int, what string) {
	t.Helper()
	for end := time.Now().Add(2 * time.Minute); testenv.Alive(pid); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%s (pid %d) still runs", what, pid)
		}
	}
}

// TestHostIdleSessionEndsItsKernel: a session left idle past --session-idle
// is closed with its run, and the run's Python kernel is gone from /proc.
func TestHostIdleSessionEndsItsKernel(t *testing.T) {
	_, url := startHost(t, "--session-idle", "1s")
	cs := openHostSession(t, url, "alpha")
	defer cs.Close()
	pid := kernelPid(t, cs)
	waitGone(t, pid, "the idle session's kernel")
}

// TestHostSIGTERMDrains: on SIGTERM the host closes every session's run and
// exits 0; no kernel is left.
// awaitMarker waits, two minutes at the most, for the file marker that a
// call writes once it is under way; a value on ended (nil: none) says the
// call ended first, which fails the test as the wait running out does.
func awaitMarker[T any](t *testing.T, marker string, ended <-chan T) {
	t.Helper()
	for end := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(marker); err == nil {
			return
		}
		select {
		case v := <-ended:
			t.Fatalf("the call ended before it wrote its marker %s: %v", marker, v)
		default:
		}
		if time.Now().After(end) {
			t.Fatalf("the call did not write its marker %s within 2m", marker)
		}
	}
}

func TestHostSIGTERMDrains(t *testing.T) {
	cmd, url := startHost(t)
	a := openHostSession(t, url, "alpha")
	defer a.Close()
	b := openHostSession(t, url, "beta")
	defer b.Close()
	pa, pb := kernelPid(t, a), kernelPid(t, b)
	if pa == pb {
		t.Fatalf("two sessions share the kernel %d", pa)
	}
	if resp, _ := testenv.Get(t, url+"/healthz"); resp.StatusCode != http.StatusOK {
		t.Fatalf("/healthz: %v", resp)
	}
	_, metrics := testenv.Get(t, url+"/metrics")
	m := regexp.MustCompile(`(?m)^tether_child_processes (\d+)`).FindSubmatch(metrics)
	if m == nil {
		t.Errorf("/metrics lacks tether_child_processes:\n%s", metrics)
	} else if n, _ := strconv.Atoi(string(m[1])); n < 2 {
		t.Errorf("/metrics counts fewer child processes than the two kernels:\n%s", metrics)
	}
	for _, want := range []string{"tether_sessions_open 2", `tether_tool_calls_total{outcome="ok",tool="eval"} 2`, "tether_tree_store_bytes", "process_resident_memory_bytes"} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("tether after SIGTERM: %v", err)
	}
	waitGone(t, pa, "alpha's kernel")
	waitGone(t, pb, "beta's kernel")
}

// initStatus posts an initialize to url's workspace alpha with token.
func initStatus(t *testing.T, url, token string) int {
	t.Helper()
	return httpStatus(t, "POST", url+"/mcp/alpha", token, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}`)
}

// httpStatus sends method to url with a bearer token ("" none) and body (""
// none; else an MCP message) and returns the status.
func httpStatus(t *testing.T, method, url, token, body string) int {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestHostSIGHUPReloadsTokens: after the tokens file changes and SIGHUP, the
// new token opens sessions and the removed one gets 401.
func TestHostSIGHUPReloadsTokens(t *testing.T) {
	cmd, url, tokens := startHostIn(t, t.TempDir())
	if got := initStatus(t, url, "t-new-0123456789"); got != http.StatusUnauthorized {
		t.Fatalf("a token not yet in the file: %d", got)
	}
	if err := os.WriteFile(tokens, []byte(`{"t-new-0123456789": ["alpha"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd.Process.Signal(syscall.SIGHUP)
	// The reload happens on the signal's own goroutine: wait for it (the
	// bound only turns a missed reload into a failure instead of a hang).
	for end := time.Now().Add(time.Minute); initStatus(t, url, "t-new-0123456789") != http.StatusOK; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the new token was never accepted after SIGHUP")
		}
	}
	if got := initStatus(t, url, "t-ops-0123456789"); got != http.StatusUnauthorized {
		t.Errorf("the removed token after SIGHUP: %d, want 401", got)
	}
}

// TestHostSIGTERMLetsRunningCallFinish: a call running when SIGTERM comes
// finishes and its result reaches the client before the host exits.
func TestHostSIGTERMLetsRunningCallFinish(t *testing.T) {
	base := t.TempDir()
	cmd, url, _ := startHostIn(t, base)
	// The client reconnects its event stream as go-sdk clients do by
	// default: the drain closes the session's standalone stream once the
	// call's result is written, and a client that may not reconnect fails
	// the whole session at once, racing its own reading of that result
	// (seen in CI under load).
	cs := openHostSessionRetries(t, url, "alpha", 0)
	defer cs.Close()
	// In the workspace: the cell's sandbox writes nowhere else.
	marker := filepath.Join(base, "root", "alpha", "started")
	type result struct {
		text  string
		isErr bool
	}
	done := make(chan result, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "eval", Arguments: map[string]any{
			"code":        fmt.Sprintf("import time\nopen(%q, 'w').close()\ntime.sleep(2)\nprint('finished')", marker),
			"description": "mark the start then sleep two seconds",
		}})
		if err != nil {
			done <- result{err.Error(), true}
			return
		}
		done <- result{resultText(res), res.IsError}
	}()
	// Bounded, and a call that ends before its cell wrote the marker says
	// why instead of leaving the wait to the suite's timeout.
	awaitMarker(t, marker, done)
	cmd.Process.Signal(syscall.SIGTERM)
	r := <-done
	if r.isErr || !strings.Contains(r.text, "finished") {
		t.Errorf("the running call after SIGTERM: error %v\n%s", r.isErr, r.text)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("tether after SIGTERM: %v", err)
	}
}

// TestHostStagedEditsStayInTheirSession: an edit staged by ast_edit in one
// session cannot be accepted from another session on another workspace, and
// only its own session's accept writes it, to its own workspace.
func TestHostStagedEditsStayInTheirSession(t *testing.T) {
	base := t.TempDir()
	_, url, _ := startHostIn(t, base)
	a := openHostSession(t, url, "alpha")
	defer a.Close()
	b := openHostSession(t, url, "beta")
	defer b.Close()
	if text, isErr := callText(t, a, "ast_edit", map[string]any{"pattern": "old($A)", "rewrite": "fresh($A)", "language": "go"}); isErr || !strings.Contains(text, "edit_1") {
		t.Fatalf("alpha's ast_edit: error %v\n%s", isErr, text)
	}
	if text, isErr := callText(t, b, "resolve", map[string]any{"edit_id": "edit_1", "action": "accept"}); !isErr {
		t.Errorf("beta accepted alpha's staged edit:\n%s", text)
	}
	alpha, beta := filepath.Join(base, "root", "alpha", "a.go"), filepath.Join(base, "root", "beta", "a.go")
	if got := testenv.FileText(alpha) + testenv.FileText(beta); strings.Contains(got, "fresh") {
		t.Fatalf("a staged edit was written before its session accepted it:\n%s", got)
	}
	if text, isErr := callText(t, a, "resolve", map[string]any{"edit_id": "edit_1", "action": "accept"}); isErr {
		t.Fatalf("alpha's accept: %s", text)
	}
	if !strings.Contains(testenv.FileText(alpha), "fresh(1)") || strings.Contains(testenv.FileText(beta), "fresh") {
		t.Errorf("after alpha's accept: alpha %q, beta %q", testenv.FileText(alpha), testenv.FileText(beta))
	}
}

// TestHostSIGTERMEndsEverySessionsProcesses: with two sessions each running
// a Python kernel and gopls, one a debug session (debugpy) and the other a
// call still running, SIGTERM lets the call finish with its result, tether
// exits 0, and every process it had started (kernels, language servers,
// debug adapters, debuggees and theirs) is gone from /proc.
func TestHostSIGTERMEndsEverySessionsProcesses(t *testing.T) {
	if _, err := exec.LookPath("gopls"); err != nil {
		testenv.Missing(t, "gopls")
	}
	debugpy := exec.Command("/usr/bin/python3", "-c", "import debugpy").Run() == nil
	if !debugpy && testenv.RequirePeers() {
		t.Fatal("Debian's python3 with python3-debugpy is not available")
	}
	base := t.TempDir()
	hp := startHostProc(t, base)
	// In the workspace: the cell's sandbox writes nowhere else.
	marker := filepath.Join(base, "root", "alpha", "started")
	running := make(chan string, 1)
	for _, ws := range []string{"alpha", "beta"} {
		os.WriteFile(filepath.Join(base, "root", ws, "go.mod"), []byte("module "+ws+"\n\ngo 1.21\n"), 0o644)
		cs := openHostSession(t, hp.url, ws)
		defer cs.Close()
		kernelPid(t, cs)
		if text, isErr := callText(t, cs, "lsp", map[string]any{"action": "hover", "file": "a.go", "line": 3, "symbol": "f"}); isErr {
			t.Fatalf("%s's hover: %s", ws, text)
		}
		if ws == "beta" && debugpy {
			// A debug session too: its adapter and the program it stopped.
			os.WriteFile(filepath.Join(base, "root", ws, "loop.py"), []byte("import time\n\nn = 0\nwhile True:\n    n += 1\n    time.sleep(0.05)\n"), 0o644)
			os.WriteFile(filepath.Join(base, "root", ws, "requirements.txt"), nil, 0o644)
			callText(t, cs, "debug", map[string]any{"op": "breakpoints", "file": "loop.py", "lines": []int{5}})
			if text, _ := callText(t, cs, "debug", map[string]any{"op": "launch", "program": "loop.py"}); !strings.Contains(text, "loop.py:5") {
				t.Fatalf("beta's debug launch did not stop at its breakpoint:\n%s", text)
			}
		}
		if ws == "alpha" {
			go func() {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "eval", Arguments: map[string]any{
					"code":        fmt.Sprintf("import time\nopen(%q, 'w').close()\ntime.sleep(2)\nprint('finished')", marker),
					"description": "mark the start then sleep two seconds",
				}})
				switch {
				case err != nil:
					running <- "error: " + err.Error()
				case res.IsError || len(res.Content) == 0:
					running <- fmt.Sprintf("tool error: %v", res.Content)
				default:
					text, _ := res.Content[0].(*mcp.TextContent)
					running <- fmt.Sprint(text)
				}
			}()
		}
	}
	// Every wait is bounded: a cell that cannot write its marker, or a host
	// that does not exit, fails the test instead of hanging the suite.
	awaitMarker(t, marker, running)
	pids, ok := descendantPids(hp.cmd.Process.Pid)
	if !ok {
		t.Fatal("/proc cannot be read")
	}
	names := map[string]int{}
	for _, p := range pids {
		name, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", p))
		names[strings.TrimSpace(string(name))]++
	}
	if names["gopls"] < 2 || names["python3"]+names["python"] < 2 {
		t.Fatalf("before SIGTERM the host runs %v, want two gopls and two Python kernels", names)
	}
	hp.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case r := <-running:
		if !strings.Contains(r, "finished") {
			t.Errorf("the call running at SIGTERM: %s", r)
		}
	case <-time.After(2 * time.Minute):
		t.Errorf("the call running at SIGTERM got no result within 2m")
	}
	exited := make(chan error, 1)
	go func() { exited <- hp.cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("tether after SIGTERM: %v", err)
		}
	case <-time.After(2 * time.Minute):
		hp.cmd.Process.Kill()
		<-exited
		t.Fatal("tether did not exit within 2m of SIGTERM")
	}
	for _, p := range pids {
		waitGone(t, p, "a process of the host's sessions")
	}
	testenv.RequireNoProcs(t, filepath.Join(base, "root"))
}

// TestHostSIGTERMCutsCallsPastDrain: a call still running when --drain has
// passed is cut: its client gets an error instead of waiting for good, tether
// exits 1 saying so, and the session's kernel is gone.
func TestHostSIGTERMCutsCallsPastDrain(t *testing.T) {
	base := t.TempDir()
	hp := startHostProc(t, base, "--drain", "1s")
	cs := openHostSession(t, hp.url, "alpha")
	defer cs.Close()
	pid := kernelPid(t, cs)
	// In the workspace: the cell's sandbox writes nowhere else.
	marker := filepath.Join(base, "root", "alpha", "started")
	done := make(chan error, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "eval", Arguments: map[string]any{
			"code":        fmt.Sprintf("import time\nopen(%q, 'w').close()\ntime.sleep(600)\nprint('finished')", marker),
			"description": "mark the start then sleep ten minutes",
		}})
		if err == nil && !res.IsError {
			err = fmt.Errorf("the cut call succeeded: %v", res.Content)
		} else {
			err = nil
		}
		done <- err
	}()
	// Every wait is bounded: a cell that cannot write its marker, or a host
	// that does not exit, fails the test instead of hanging the suite.
	awaitMarker(t, marker, done)
	hp.cmd.Process.Signal(syscall.SIGTERM)
	exited := make(chan error, 1)
	go func() { exited <- hp.cmd.Wait() }()
	select {
	case err := <-exited:
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Errorf("tether after SIGTERM with a call past --drain: %v, want exit 1", err)
		}
	case <-time.After(2 * time.Minute):
		hp.cmd.Process.Kill()
		<-exited
		t.Fatal("tether did not exit within 2m of SIGTERM with --drain 1s")
	}
	waitGone(t, pid, "the session's kernel")
	select {
	case err := <-done:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(2 * time.Minute):
		t.Error("the cut call's client got no answer within 2m of tether's exit")
	}
}
