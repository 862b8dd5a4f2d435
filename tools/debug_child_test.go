package tools_test

import "os"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/bridges/dap"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/internal/testenv/dapscript"
import "github.com/tetherhq/tether/tools"

// The test binary is also the scripted adapter (dapscript.Arg).
func init() { dapscript.Main() }

// TestDebugToolChildSessions: through the tool, a scripted adapter tether
// starts on a TCP port runs its program with runInTerminal (its output in
// op output) and starts a child session with startDebugging; launch and
// status name the child, session 1 drives it to its end, and without
// session the ops reach the main session.
func TestDebugToolChildSessions(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	entry := dap.Adapter{ID: "scripted", Extensions: []string{".scripted"}, Transport: dap.TCP,
		Commands: [][]string{{exe, dapscript.Arg, "tcp", "${port}"}},
		Launch:   map[string]any{"program": "${program}", "cwd": "${cwd}"}}
	sv := dap.NewSupervisor(dap.Config{Adapters: dap.MergeAdapters(dap.DefaultAdapters(), []dap.Adapter{entry})})
	defer sv.Close()
	dir := testenv.Workspace(t, map[string]string{"main.scripted": "parent\n"})
	run := debugRun(t, dir, "c1", sv, tools.SurfaceDefault)
	call := func(args string) string {
		t.Helper()
		return mustCall(t, run, "debug", args)
	}
	if out := call(`{"op":"launch","program":"main.scripted"}`); !strings.Contains(out, `child session 1 ("scripted child"; pass session 1 to drive it): stopped (entry)`) {
		t.Fatalf("launch should name the child session that stopped: %s", out)
	}
	if out := call(`{"op":"status"}`); !strings.Contains(out, `child sessions (pass session N to drive one): 1 "scripted child" stopped (entry) on thread 7`) {
		t.Fatalf("status should list the child session: %s", out)
	}
	if out := call(`{"op":"threads","session":1}`); !strings.Contains(out, "child main") {
		t.Fatalf("threads of session 1 should be the child's: %s", out)
	}
	if out := call(`{"op":"evaluate","expression":"x","session":1}`); !strings.Contains(out, "child says x") {
		t.Fatalf("evaluate in session 1 should reach the child: %s", out)
	}
	if out := call(`{"op":"continue","session":1}`); !strings.Contains(out, "child session 1 ended (the session goes on): the program exited with code 3") {
		t.Fatalf("continue should run the child to its end: %s", out)
	}
	if out := call(`{"op":"threads"}`); !strings.Contains(out, "parent main") {
		t.Fatalf("threads without session should be the main session's: %s", out)
	}
	// The program runInTerminal started writes when it gets to run.
	out := ""
	for i := 0; i < 1200 && !strings.Contains(out, "terminal says hi"); i++ { // bounded, generous for a loaded machine
		if i > 0 {
			time.Sleep(50 * time.Millisecond)
		}
		out = call(`{"op":"output"}`)
	}
	if !strings.Contains(out, "terminal says hi") || !strings.Contains(out, "child continued") {
		t.Fatalf("the runInTerminal program's and the child's output should be the session's: %q", out)
	}
	call(`{"op":"terminate"}`)
	testenv.RequireNoProcs(t, dir)
}
