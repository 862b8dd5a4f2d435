package dap_test

import "context"
import "os"
import "path/filepath"
import "regexp"
import "strconv"
import "strings"
import "syscall"
import "testing"
import "time"

import "github.com/tetherhq/tether/bridges/dap"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/internal/testenv/dapscript"

// scriptedEntry is an adapter table entry for the scripted adapter: started
// by tether on a port it picks (address ""), or already running at address.
func scriptedEntry(t *testing.T, transport dap.Transport, address string) dap.Adapter {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	a := dap.Adapter{ID: "scripted", Extensions: []string{".scripted"}, Transport: transport,
		Launch: map[string]any{"program": "${program}", "cwd": "${cwd}"}}
	switch {
	case address != "":
		a.Address = address
	case transport == dap.TCP:
		a.Commands = [][]string{{exe, dapscript.Arg, "tcp", "${port}"}}
	default:
		a.Commands = [][]string{{exe, dapscript.Arg, "stdio"}}
	}
	return a
}

// driveScripted launches the scripted adapter's program and drives what
// its reverse requests started: the program runInTerminal ran (its output
// in the session's, killed by terminate), the unknown reverse request
// refused, and the child session startDebugging asked for (listed by
// status, stopped at entry, its threads, stack, variables and evaluate
// reached with session 1, continued to its end while the session lives).
func driveScripted(t *testing.T, entry dap.Adapter) {
	root := testenv.Workspace(t, map[string]string{"main.scripted": "parent\n", "child.txt": "one\ntwo\n"})
	table := dap.MergeAdapters(dap.DefaultAdapters(), []dap.Adapter{entry})
	sv := dap.NewSupervisor(dap.Config{Adapters: table, StopWait: time.Minute})
	defer sv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	l := do(t, sv, "c", root, request{Op: "launch", Program: "main.scripted"})
	if l.Stop == nil || l.Stop.Session != 1 || l.Stop.SessionName != "scripted child" || l.Stop.Reason != "entry" || l.Stop.ThreadID != 7 {
		t.Fatalf("launch should report the child session stopped at entry: %s", l)
	}
	if len(l.Stop.Frames) == 0 || l.Stop.Frames[0].Name != "childMain" {
		t.Fatalf("the child's stop should show its frames: %s", l)
	}

	// The program runInTerminal ran is the session's: its output is the
	// session's output, and it runs until the session ends.
	var out *dap.Output
	var pid int
	for i := 0; i < 1200; i++ { // bounded, generous for a loaded machine
		o, err := sv.Output("c")
		if err != nil {
			t.Fatal(err)
		}
		out = o
		if m := regexp.MustCompile(`runInTerminal pid (\d+)`).FindStringSubmatch(o.Text); m != nil && strings.Contains(o.Text, "terminal says hi") {
			pid, _ = strconv.Atoi(m[1])
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if pid == 0 || syscall.Kill(pid, 0) != nil {
		t.Fatalf("runInTerminal should have started the program (running) and captured its output: pid %d\n%s", pid, out.Text)
	}
	if !strings.Contains(out.Text, "frobnicate answered success=false: tether does not serve the reverse request \"frobnicate\"") {
		t.Fatalf("an unknown reverse request should be refused with an error response:\n%s", out.Text)
	}
	if !strings.Contains(out.Text, "runInTerminal in / answered success=false: runInTerminal: cwd / is outside the project") {
		t.Fatalf("runInTerminal outside the project should be refused:\n%s", out.Text)
	}
	if !strings.Contains(out.Text, "startDebugging answered success=true") {
		t.Fatalf("startDebugging should be answered with success:\n%s", out.Text)
	}

	st := do(t, sv, "c", root, request{Op: "status"})
	if !strings.Contains(st.Session, `1 "scripted child" stopped (entry) on thread 7`) {
		t.Fatalf("status should list the child session: %s", st.Session)
	}
	if k := sv.Children("c"); len(k) != 1 || k[0].Index != 1 || k[0].Name != "scripted child" || !strings.HasPrefix(k[0].State, "stopped (entry)") {
		t.Fatalf("status should list the child session as data: %+v", k)
	}
	// The parent has no stop; session 1 is the child.
	if err := sv.UseSession("c", 2); err == nil || !strings.Contains(err.Error(), "1 child session") {
		t.Fatalf("a child session that does not exist should be refused, counting those that do: %v", err)
	}
	// Breakpoints and exception filters set now reach the child too.
	do(t, sv, "c", root, request{Op: "breakpoints", File: "child.txt", Lines: []int{2}})
	do(t, sv, "c", root, request{Op: "exception_filters", Filters: []string{}})
	if o, err := sv.Output("c"); err != nil || !strings.Contains(o.Text, "child setBreakpoints child.txt 1") || !strings.Contains(o.Text, "child setExceptionBreakpoints []") {
		t.Fatalf("breakpoints set while the child lives should be sent to it too: %v\n%s", err, o.Text)
	}
	if err := sv.UseSession("c", 1); err != nil {
		t.Fatal(err)
	}
	th := do(t, sv, "c", root, request{Op: "threads"})
	if len(th.Threads) != 1 || th.Threads[0].ID != 7 || th.Threads[0].Name != "child main" {
		t.Fatalf("threads of session 1 should be the child's: %s", th)
	}
	if sk := do(t, sv, "c", root, request{Op: "stack"}); len(sk.Frames) != 1 || sk.Frames[0].Name != "childMain" {
		t.Fatalf("stack of session 1 should be the child's: %s", sk)
	}
	if v := localVar(t, sv, root, "answer"); v.Value != "42" {
		t.Fatalf("the child's variable: %+v", v)
	}
	evaluates(t, sv, root, "x", "child says x")
	c := do(t, sv, "c", root, request{Op: "continue"})
	if c.Exited == nil || c.Exited.Code != 3 || c.Exited.Session != 1 {
		t.Fatalf("continue should run the child to its end (code 3): %s", c)
	}
	if err := sv.UseSession("c", 0); err != nil {
		t.Fatal(err)
	}
	st = do(t, sv, "c", root, request{Op: "status"})
	if !strings.Contains(st.Session, `1 "scripted child" ended`) || !strings.Contains(st.Session, "running") {
		t.Fatalf("the session should live on with its child ended: %s", st.Session)
	}
	if th := do(t, sv, "c", root, request{Op: "threads"}); len(th.Threads) != 1 || th.Threads[0].Name != "parent main" {
		t.Fatalf("threads without session should be the parent's: %s", th)
	}
	// loaded_sources, which the scripted adapter offers, comes in pages.
	src, err := sv.LoadedSources(ctx, "c", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(src.Sources) != dap.MaxSources || src.Total != 120 || src.Next != dap.MaxSources || src.Sources[0].File != "/src/s0.js" {
		t.Fatalf("loaded_sources should list the first %d of 120 and say where the next page starts: %+v", dap.MaxSources, src)
	}
	if src, err = sv.LoadedSources(ctx, "c", 100); err != nil || len(src.Sources) != 20 || src.Next != 0 {
		t.Fatalf("the last page of loaded_sources: %+v %v", src, err)
	}
	if _, err = sv.LoadedSources(ctx, "c", 500); err == nil || !strings.Contains(err.Error(), "start 0 to 119") {
		t.Fatalf("a start past the end should be refused, saying the range: %v", err)
	}
	do(t, sv, "c", root, request{Op: "terminate"})
	for i := 0; i < 1500 && syscall.Kill(pid, 0) == nil; i++ { // SIGKILL is asynchronous
		time.Sleep(20 * time.Millisecond)
	}
	if syscall.Kill(pid, 0) == nil {
		t.Fatalf("terminate should kill the program runInTerminal started (pid %d)", pid)
	}
	testenv.RequireNoProcs(t, root)
}

// TestScriptedTCPReverseRequests: a scripted adapter tether starts
// sandboxed on a free TCP port serves runInTerminal and startDebugging
// (its child on a new connection), and the child session is driven.
func TestScriptedTCPReverseRequests(t *testing.T) {
	t.Parallel()
	driveScripted(t, scriptedEntry(t, dap.TCP, ""))
}

// TestScriptedTCPRunning: the same with an adapter that already runs at
// host:port: tether starts nothing and connects there, twice.
func TestScriptedTCPRunning(t *testing.T) {
	t.Parallel()
	driveScripted(t, scriptedEntry(t, dap.TCP, dapscript.Listen(t)))
}

// TestScriptedStdioChild: on stdio, startDebugging's child is a new
// adapter process.
func TestScriptedStdioChild(t *testing.T) {
	t.Parallel()
	driveScripted(t, scriptedEntry(t, dap.Stdio, ""))
}

// TestTCPAdapterWithoutNetwork: with no network for debug adapters, the
// sandbox keeps a TCP adapter from listening where tether can connect, so
// its start is refused, saying what to change.
func TestTCPAdapterWithoutNetwork(t *testing.T) {
	withoutNetwork(t)
	root := testenv.Workspace(t, map[string]string{"main.scripted": "parent\n"})
	table := dap.MergeAdapters(dap.DefaultAdapters(), []dap.Adapter{scriptedEntry(t, dap.TCP, "")})
	sv := dap.NewSupervisor(dap.Config{Adapters: table})
	defer sv.Close()
	msg := doErr(t, sv, "c", root, request{Op: "launch", Program: "main.scripted"})
	if !strings.Contains(msg, "serves DAP over TCP") || !strings.Contains(msg, "give debug adapters the network") {
		t.Fatal(msg)
	}
}

// TestLoadTCPAdapters: a tcp entry names its port with ${port} or gives
// the address of a running adapter, not both; docs/tools.md's example
// entries (js-debug, java-debug, netcoredbg) load.
func TestLoadTCPAdapters(t *testing.T) {
	cases := []struct {
		json, err string
	}{
		{`[{"id":"a","transport":"tcp","commands":[["srv","--port","${port}"]]}]`, ""},
		{`[{"id":"a","transport":"tcp","address":"127.0.0.1:4711"}]`, ""},
		{`[{"id":"a","transport":"tcp","commands":[["srv"]]}]`, "needs ${port}"},
		{`[{"id":"a","transport":"tcp","address":"127.0.0.1:4711","commands":[["srv","${port}"]]}]`, "not both"},
		{`[{"id":"a","address":"127.0.0.1:4711"}]`, "address needs transport"},
		{`[{"id":"a","transport":"tcp","address":"nowhere"}]`, "not host:port"},
		{`[{"id":"a","transport":"udp","commands":[["srv"]]}]`, "unknown transport"},
	}
	for _, c := range cases {
		_, err := dap.LoadAdapters(strings.NewReader(c.json))
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.json, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: want an error saying %q, got %v", c.json, c.err, err)
		}
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "tools.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	i := strings.Index(text, "Examples (these adapters are not installed here")
	if i < 0 {
		t.Fatal("docs/tools.md has no example adapter entries")
	}
	block := text[i:]
	block = block[strings.Index(block, "```json")+len("```json"):]
	block = block[:strings.Index(block, "```")]
	list, err := dap.LoadAdapters(strings.NewReader(block))
	if err != nil {
		t.Fatalf("docs/tools.md's example entries do not load: %v", err)
	}
	if ids := strings.Join(dap.AdapterIDs(list), ","); ids != "js-debug,java-debug,netcoredbg" {
		t.Fatalf("docs/tools.md's examples: %s", ids)
	}
}
