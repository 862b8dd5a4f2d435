package dap_test

import "context"
import "fmt"
import "os"
import "os/exec"
import "path/filepath"
import "strconv"
import "strings"
import "syscall"
import "testing"
import "time"

import "github.com/tetherhq/tether/bridges/dap"
import "github.com/tetherhq/tether/internal/testenv"

// scenario is the Done-when walk through one adapter: breakpoint, launch,
// stop there, stack, scopes, a variable's value, evaluate, step, continue to
// exit, output.
type scenario struct {
	files      map[string]string
	prepare    func(t *testing.T, root string) // build step
	program    string
	args       []string
	bpFile     string
	bpLine     int
	stopName   string // function of the top frame at the breakpoint
	varName    string
	varValue   string
	expr       string
	exprValue  string
	stepLine   int // line after step_over
	wantOutput string
	badRef     bool // the adapter refuses an unknown variables reference
}

func runScenario(t *testing.T, sc scenario) {
	root := testenv.Workspace(t, sc.files)
	if sc.prepare != nil {
		sc.prepare(t, root)
	}
	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()
	const conv = "c1"

	bp := do(t, sv, conv, root, request{Op: "breakpoints", File: sc.bpFile, Lines: []int{sc.bpLine}})
	if len(bp.Breakpoints) != 1 || !bp.Breakpoints[0].Pending {
		t.Fatalf("breakpoint before launch should be pending: %+v", bp.Breakpoints)
	}
	l := do(t, sv, conv, root, request{Op: "launch", Program: sc.program, Args: sc.args})
	if l.Stop == nil {
		t.Fatalf("launch did not stop at the breakpoint:\n%s", l)
	}
	if l.Stop.Line != sc.bpLine || filepath.Base(l.Stop.File) != sc.bpFile {
		t.Fatalf("stopped at %s:%d, want %s:%d", l.Stop.File, l.Stop.Line, sc.bpFile, sc.bpLine)
	}
	if l.Stop.Source == "" || len(l.Stop.Frames) == 0 {
		t.Fatalf("a stop must carry its source line and top frames: %+v", l.Stop)
	}
	if len(l.Breakpoints) != 1 || !l.Breakpoints[0].Verified {
		t.Fatalf("breakpoint not verified at launch: %+v", l.Breakpoints)
	}

	st := do(t, sv, conv, root, request{Op: "stack"})
	if len(st.Frames) == 0 || !strings.Contains(st.Frames[0].Name, sc.stopName) {
		t.Fatalf("top frame %+v, want %s", st.Frames, sc.stopName)
	}
	th := do(t, sv, conv, root, request{Op: "threads"})
	if len(th.Threads) == 0 {
		t.Fatal("no threads")
	}
	scopes := do(t, sv, conv, root, request{Op: "scopes", FrameID: st.Frames[0].ID})
	if len(scopes.Scopes) == 0 {
		t.Fatal("no scopes")
	}
	if sc.badRef {
		// A reference the adapter does not know says where to get one.
		if _, err := call(sv, context.Background(), conv, root, request{Op: "variables", Reference: 987654}); err == nil || !strings.Contains(err.Error(), "take reference from scopes") {
			t.Fatalf("variables with an unknown reference: %v, want the adapter's refusal and where references come from", err)
		}
		// So does a thread id it does not know.
		if _, err := call(sv, context.Background(), conv, root, request{Op: "stack", ThreadID: 987654}); err == nil || !strings.Contains(err.Error(), "take thread_id from threads") {
			t.Fatalf("stack of an unknown thread: %v, want the adapter's refusal and where thread ids come from", err)
		}
	}
	vars := do(t, sv, conv, root, request{Op: "variables", Reference: scopes.Scopes[0].Reference})
	if v := findVar(t, vars.Variables, sc.varName); v.Value != sc.varValue {
		t.Fatalf("%s = %q, want %q", sc.varName, v.Value, sc.varValue)
	}
	ev := do(t, sv, conv, root, request{Op: "evaluate", Expression: sc.expr, FrameID: st.Frames[0].ID})
	if ev.Value == nil || ev.Value.Value != sc.exprValue {
		t.Fatalf("evaluate %s = %+v, want %s", sc.expr, ev.Value, sc.exprValue)
	}
	step := do(t, sv, conv, root, request{Op: "step_over"})
	if step.Stop == nil || step.Stop.Line != sc.stepLine {
		t.Fatalf("step_over: %+v, want a stop at line %d", step.Stop, sc.stepLine)
	}
	status := do(t, sv, conv, root, request{Op: "status"})
	if status.Stop == nil || status.Stop.Line != sc.stepLine {
		t.Fatalf("status after step: %+v", status.Stop)
	}
	cont := do(t, sv, conv, root, request{Op: "continue"})
	if cont.Exited == nil {
		t.Fatalf("continue did not run to the end:\n%s", cont)
	}
	out := do(t, sv, conv, root, request{Op: "output"})
	if !strings.Contains(out.Output, sc.wantOutput) {
		t.Fatalf("output %q lacks %q", out.Output, sc.wantOutput)
	}
	// Only the program's own output: not delve's "Building <dir>".
	if strings.Contains(out.Output, "Building") {
		t.Fatalf("output holds the adapter's chatter: %q", out.Output)
	}
	testenv.RequireNoProcs(t, root)

	// Again, and terminate while stopped: nothing may be left paused.
	l = do(t, sv, conv, root, request{Op: "launch", Program: sc.program, Args: sc.args})
	if l.Stop == nil {
		t.Fatalf("relaunch did not stop: %s", l)
	}
	if len(testenv.ProcsIn(root)) == 0 {
		t.Fatal("no adapter or debuggee in the process table while stopped")
	}
	do(t, sv, conv, root, request{Op: "terminate"})
	testenv.RequireNoProcs(t, root)
}

const goProgram = `package main

import "fmt"

func add(a, b int) int {
	return a + b
}

func main() {
	x := 41
	y := add(x, 1)
	fmt.Println("hello", y)
}
`

func TestDelve(t *testing.T) {
	t.Parallel()
	testenv.RequireBinary(t, "dlv")
	testenv.RequireBinary(t, "go")
	runScenario(t, scenario{
		files:   map[string]string{"go.mod": "module hello\n\ngo 1.21\n", "main.go": goProgram},
		program: ".", bpFile: "main.go", bpLine: 11, stopName: "main.main",
		varName: "x", varValue: "41", expr: "x + 1", exprValue: "42",
		stepLine: 12, wantOutput: "hello 42", badRef: true,
	})
}

const pyProgram = `import sys


def add(a, b):
    return a + b


def main():
    x = 41
    y = add(x, 1)
    print("hello", y, sys.argv[1:])


main()
`

func TestDebugpy(t *testing.T) {
	t.Parallel()
	python(t)
	runScenario(t, scenario{
		files:   map[string]string{"requirements.txt": "", "main.py": pyProgram},
		program: "main.py", args: []string{"a b", "$HOME"}, bpFile: "main.py", bpLine: 10, stopName: "main",
		varName: "x", varValue: "41", expr: "x + 1", exprValue: "42",
		stepLine: 11, wantOutput: "hello 42 ['a b', '$HOME']",
	})
}

const cProgram = `#include <stdio.h>

int add(int a, int b) { return a + b; }

int main(void) {
	int x = 41;
	int y = add(x, 1);
	printf("hello %d\n", y);
	return 0;
}
`

func TestLLDB(t *testing.T) {
	t.Parallel()
	if testenv.LookPath("lldb-dap") == "" && testenv.LookPath("lldb-dap-19") == "" {
		testenv.Missing(t, "lldb-dap (lldb-19)")
	}
	cc := testenv.RequireBinary(t, "gcc")
	runScenario(t, scenario{
		files: map[string]string{"main.c": cProgram},
		prepare: func(t *testing.T, root string) {
			cmd := exec.Command(cc, "-g", "-O0", "-o", "hello", "main.c")
			cmd.Dir = root
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("gcc: %v\n%s", err, out)
			}
		},
		program: "hello", bpFile: "main.c", bpLine: 7, stopName: "main",
		varName: "x", varValue: "41", expr: "x + 1", exprValue: "42",
		stepLine: 8, wantOutput: "hello 42",
	})
}

const pyLoop = `import time


def main():
    n = 0
    while True:
        n += 1
        time.sleep(0.05)


main()
`

// pySpawn starts a child in its own session (out of the debuggee's process
// group) before looping, to show terminate kills the whole tree.
const pySpawn = `import subprocess
import time

child = subprocess.Popen(["sleep", "600"], start_new_session=True)
n = 0
while True:
    n += 1
    time.sleep(0.05)
`

// TestSessionRules: a second launch is refused with the live session's
// description, terminate leaves no process behind (the debuggee's own
// children included), and a short TTL ends the session and the next call
// says why.
func TestSessionRules(t *testing.T) {
	t.Parallel()
	python(t)
	root := testenv.Workspace(t, map[string]string{"pyproject.toml": "", "loop.py": pySpawn})
	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()

	do(t, sv, "a", root, request{Op: "breakpoints", File: "loop.py", Lines: []int{7}})
	l := do(t, sv, "a", root, request{Op: "launch", Program: "loop.py"})
	if l.Stop == nil || l.Stop.Line != 7 {
		t.Fatalf("launch: %+v", l.Stop)
	}
	if live := strings.Join(testenv.ProcsIn(root), "\n"); !strings.Contains(live, "sleep 600") || !strings.Contains(live, "loop.py") {
		t.Fatalf("the debuggee and its child should be in the process table while the session is live:\n%s", live)
	}
	msg := doErr(t, sv, "a", root, request{Op: "launch", Program: "loop.py"})
	if !strings.Contains(msg, "already live") || !strings.Contains(msg, "debugpy session (launch loop.py") {
		t.Fatalf("second launch refusal should describe the live session: %s", msg)
	}
	msg = doErr(t, sv, "a", root, request{Op: "attach", Port: 1})
	if !strings.Contains(msg, "already live") {
		t.Fatalf("attach while live: %s", msg)
	}
	// Another conversation has its own session slot.
	do(t, sv, "b", root, request{Op: "status"})

	term := do(t, sv, "a", root, request{Op: "terminate"})
	if term.Terminated.Session == "" || term.Terminated.Attached {
		t.Fatal(term)
	}
	testenv.RequireNoProcs(t, root)

	// TTL: launch again, let the TTL pass, and the next call says why. The
	// TTL counts from the session's start and holds during the launch's wait
	// for its stop too: on a loaded machine the launch itself may be what
	// the TTL ends.
	ttl := 4 * time.Second
	sv = dap.NewSupervisor(dap.Config{TTL: ttl})
	defer sv.Close()
	do(t, sv, "a", root, request{Op: "breakpoints", File: "loop.py", Lines: []int{7}})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if l, err := call(sv, ctx, "a", root, request{Op: "launch", Program: "loop.py"}); err != nil {
		if !strings.Contains(err.Error(), "TTL of 4s expired") {
			t.Fatalf("relaunch: %v", err)
		}
	} else if l.Stop == nil {
		t.Fatalf("relaunch: %s", l)
	}
	// Wait on what the test can see: status says the TTL ended the session
	// (a bounded poll, not a sleep for the TTL).
	var st *reply
	for i := 0; i < 600; i++ {
		st = do(t, sv, "a", root, request{Op: "status"})
		if strings.Contains(st.Status.Ended, "TTL") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if st.Session != "" || !strings.Contains(st.Status.Ended, "TTL of 4s expired") {
		t.Fatalf("status after the TTL: %s", st)
	}
	msg = doErr(t, sv, "a", root, request{Op: "stack"})
	if !strings.Contains(msg, "TTL of 4s expired") {
		t.Fatalf("the next call should say the TTL ended the session: %s", msg)
	}
	testenv.RequireNoProcs(t, root)

	// The TTL passing while an op waits for a stop (here a launch with no
	// breakpoint, which waits up to StopWait) ends the session then, and the
	// op says so instead of "the program is running".
	do(t, sv, "a", root, request{Op: "breakpoints", File: "loop.py"})
	msg = doErr(t, sv, "a", root, request{Op: "launch", Program: "loop.py"})
	if !strings.Contains(msg, "TTL of 4s expired") {
		t.Fatalf("launch outliving the TTL: %s", msg)
	}
	testenv.RequireNoProcs(t, root)
}

func TestAdapters(t *testing.T) {
	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()
	root := testenv.Workspace(t, map[string]string{"pubspec.yaml": "name: x\n", "go.mod": "module x\n"})
	r := do(t, sv, "c", root, request{Op: "adapters"})
	byID := map[string]dap.AdapterStatus{}
	for _, a := range r.Adapters {
		byID[a.ID] = a
	}
	if d := byID["dart"]; d.Usable || !strings.Contains(d.Reason, "binary missing") || !strings.Contains(d.Reason, "dart") {
		t.Fatalf("dart should be unavailable with the reason: %+v", d)
	}
	if d := byID["debugpy"]; d.Usable || !strings.Contains(d.Reason, "marker missing") {
		t.Fatalf("debugpy without a marker: %+v", d)
	}
	if testenv.LookPath("dlv") != "" {
		if d := byID["delve"]; !d.Usable || d.Marker != "go.mod" {
			t.Fatalf("delve with go.mod and dlv installed: %+v", d)
		}
	}
	// Launching through an unusable adapter says why.
	if err := os.WriteFile(filepath.Join(root, "main.dart"), []byte("void main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	msg := doErr(t, sv, "c", root, request{Op: "launch", Program: "main.dart"})
	if !strings.Contains(msg, "dart adapter cannot start") || !strings.Contains(msg, "see op adapters") {
		t.Fatal(msg)
	}
	// A C or Rust source file is not a program lldb can launch: the error
	// says to build it, before any adapter starts.
	csrc := testenv.Workspace(t, map[string]string{"main.c": "int main(void) { return 0; }\n", "lib.rs": "fn main() {}\n", "Cargo.toml": "[package]\n"})
	for _, src := range []string{"main.c", "lib.rs"} {
		msg = doErr(t, sv, "c", csrc, request{Op: "launch", Program: src})
		if !strings.Contains(msg, "is source") || !strings.Contains(msg, "launch the executable") {
			t.Fatalf("launch %s: %s", src, msg)
		}
	}
	// No root marker: the error says where a session can start.
	bare := testenv.Workspace(t, map[string]string{"app.py": "print(1)\n"})
	msg = doErr(t, sv, "c", bare, request{Op: "launch", Program: "app.py"})
	if !strings.Contains(msg, "marker missing") || !strings.Contains(msg, "project root") {
		t.Fatal(msg)
	}
}

// TestDebugpyPrefersVenv: a project's .venv python is used for the program
// even when the adapter itself runs from another python.
func TestDebugpyPrefersVenv(t *testing.T) {
	t.Parallel()
	py := python(t)
	root := testenv.Workspace(t, map[string]string{"setup.py": "", "main.py": "import sys\nprint(sys.prefix)\n"})
	cmd := exec.Command(py, "-m", "venv", "--system-site-packages", "--without-pip", filepath.Join(root, ".venv"))
	if out, err := cmd.CombinedOutput(); err != nil {
		testenv.Missing(t, fmt.Sprintf("python3 -m venv (python3-venv): %v %s", err, out))
	}
	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()
	r := do(t, sv, "c", root, request{Op: "adapters"})
	for _, a := range r.Adapters {
		if a.ID == "debugpy" && (!a.Usable || a.Command[0] != filepath.Join(root, ".venv/bin/python")) {
			t.Fatalf("debugpy should run from the project's .venv: %+v", a)
		}
	}
	l := do(t, sv, "c", root, request{Op: "launch", Program: "main.py"})
	if l.Exited == nil {
		t.Fatalf("launch without breakpoints should run to the end: %s", l)
	}
	out := do(t, sv, "c", root, request{Op: "output"})
	if !strings.Contains(out.Output, filepath.Join(root, ".venv")) {
		t.Fatalf("the program did not run in the project's venv: %q", out.Output)
	}
	testenv.RequireNoProcs(t, root)
}

func TestAttachDebugpy(t *testing.T) {
	t.Parallel()
	py := python(t)
	root := testenv.Workspace(t, map[string]string{"requirements.txt": "", "loop.py": pyLoop})
	port := testenv.FreeLoopback(t).Port
	cmd := server(root, py, "-m", "debugpy", "--listen", fmt.Sprintf("127.0.0.1:%d", port), "--wait-for-client", "loop.py")
	startServer(t, cmd)

	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()
	attachStops(t, sv, root, port, "loop.py", 7)
	evaluates(t, sv, root, "n >= 0", "True")
	term := do(t, sv, "c", root, request{Op: "terminate"})
	if term.Terminated.Session == "" || !term.Terminated.Attached {
		t.Fatal(term)
	}
	// Detaching leaves the program it did not start running.
	if syscall.Kill(cmd.Process.Pid, 0) != nil {
		t.Fatal("the attached program should keep running after terminate detaches")
	}
}

func TestAttachDelve(t *testing.T) {
	t.Parallel()
	root := testenv.Workspace(t, goFiles("hello", goProgram))
	cmd, port := delveServer(t, root, "hello")
	startServer(t, cmd)

	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()
	attachStops(t, sv, root, port, "main.go", 11)
	evaluates(t, sv, root, "x", "41")
	do(t, sv, "c", root, request{Op: "terminate"})
}

// TestPauseAndLiveBreakpoints: a program launched without breakpoints runs;
// pause stops it where it is; a breakpoint set while live is verified at once
// and continue stops there; clearing it lets the program run again.
func TestPauseAndLiveBreakpoints(t *testing.T) {
	t.Parallel()
	python(t)
	root := testenv.Workspace(t, map[string]string{"requirements.txt": "", "loop.py": pyLoop})
	// StopWait bounds how long launch and continue wait for a stop; the loop
	// never stops by itself, so both come back saying it runs.
	sv := dap.NewSupervisor(dap.Config{StopWait: 3 * time.Second})
	defer sv.Close()
	l := do(t, sv, "c", root, request{Op: "launch", Program: "loop.py"})
	if l.Stop != nil || l.Exited != nil || !l.Outcome.Running || l.Outcome.Waited != 3*time.Second {
		t.Fatalf("launch without breakpoints of an endless loop should report it running:\n%s", l)
	}
	msg := doErr(t, sv, "c", root, request{Op: "step_over"})
	if !strings.Contains(msg, "running, not stopped") {
		t.Fatal(msg)
	}
	if th := do(t, sv, "c", root, request{Op: "threads"}); !th.ThreadList.Running {
		t.Fatalf("threads of a running program should say it runs: %s", th)
	}
	// Looking at frames of a running program says it runs (lldb-dap
	// answered an empty stack), instead of "0 frame(s)".
	for _, op := range []string{"stack", "scopes", "evaluate"} {
		msg := doErr(t, sv, "c", root, request{Op: op, Expression: "n"})
		if !strings.Contains(msg, "the program is running") || !strings.Contains(msg, "pause") {
			t.Fatal(msg)
		}
	}
	p := stopOf(t, sv, root, do(t, sv, "c", root, request{Op: "pause"}))
	if p.Reason != "pause" || filepath.Base(p.File) != "loop.py" || p.Source == "" {
		t.Fatalf("pause: %+v", p)
	}
	again := do(t, sv, "c", root, request{Op: "pause"})
	if again.Stop == nil || !again.Outcome.AlreadyStopped {
		t.Fatalf("pause while stopped should say where it is: %s", again)
	}
	bp := do(t, sv, "c", root, request{Op: "breakpoints", File: "loop.py", Lines: []int{7}})
	if len(bp.Breakpoints) != 1 || bp.Breakpoints[0].Pending || !bp.Breakpoints[0].Verified {
		t.Fatalf("a breakpoint set while live should be sent and verified: %+v", bp.Breakpoints)
	}
	cs := stopOf(t, sv, root, do(t, sv, "c", root, request{Op: "continue"}))
	if cs.Line != 7 || cs.Reason != "breakpoint" {
		t.Fatalf("continue should stop at the new breakpoint: %+v", cs)
	}
	so := do(t, sv, "c", root, request{Op: "step_out"})
	if so.Stop == nil {
		t.Fatalf("step_out: %s", so)
	}
	do(t, sv, "c", root, request{Op: "breakpoints", File: "loop.py"})
	c := do(t, sv, "c", root, request{Op: "continue"})
	if c.Stop != nil {
		t.Fatalf("with the breakpoint cleared the loop should run: %s", c)
	}
	do(t, sv, "c", root, request{Op: "terminate"})
	testenv.RequireNoProcs(t, root)
}

// stopOf returns r's stop. The op waits a short StopWait in this test; on a
// loaded machine the stop may come later, so status is polled for it.
func stopOf(t *testing.T, sv *dap.Supervisor, root string, r *reply) *dap.Stop {
	t.Helper()
	for i := 0; r.Stop == nil && i < 300; i++ {
		time.Sleep(100 * time.Millisecond)
		r = do(t, sv, "c", root, request{Op: "status"})
	}
	if r.Stop == nil {
		t.Fatalf("the program never stopped:\n%s", r)
	}
	return r.Stop
}

func TestDelveBuildError(t *testing.T) {
	t.Parallel()
	testenv.RequireBinary(t, "dlv")
	testenv.RequireBinary(t, "go")
	root := testenv.Workspace(t, map[string]string{"go.mod": "module broken\n\ngo 1.21\n",
		"main.go": "package main\n\nfunc main() {\n\tundefinedThing()\n}\n"})
	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()
	msg := doErr(t, sv, "c", root, request{Op: "launch", Program: "."})
	if !strings.HasPrefix(msg, "debug: ") || !strings.Contains(msg, "undefinedThing") {
		t.Fatalf("a build failure should carry the compiler's message: %s", msg)
	}
	// The failed launch left nothing live.
	st := do(t, sv, "c", root, request{Op: "status"})
	if st.Session != "" {
		t.Fatal(st)
	}
	testenv.RequireNoProcs(t, root)
	if ents, _ := filepath.Glob(filepath.Join(root, "__debug_bin*")); len(ents) > 0 {
		t.Fatalf("delve's build output was left in the working dir: %v", ents)
	}
}

const cLoop = `#include <unistd.h>

int main(void) {
	int n = 0;
	for (;;) {
		n++;
		usleep(50000);
	}
}
`

// TestAttachLLDB attaches lldb-dap to a program served by lldb-server's
// gdbserver on a port.
func TestAttachLLDB(t *testing.T) {
	t.Parallel()
	cc := needLLDB(t)
	lldbServer := testenv.LookPath("lldb-server-19")
	if lldbServer == "" {
		lldbServer = testenv.RequireBinary(t, "lldb-server")
	}
	root := testenv.Workspace(t, map[string]string{"loop.c": cLoop})
	gcc(t, cc, root, "loop", "loop.c")
	port := testenv.FreeLoopback(t).Port
	// lldb-server starts ./loop in a process group of its own, and terminate
	// detaches from an attached program (it is not ours), so the test ends
	// it after the server's group.
	t.Cleanup(func() {
		for _, p := range testenv.ProcsIn(root) {
			if pid, err := strconv.Atoi(strings.Fields(p)[0]); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	startServer(t, server(root, lldbServer, "gdbserver", fmt.Sprintf("127.0.0.1:%d", port), "./loop"))

	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()
	do(t, sv, "c", root, request{Op: "breakpoints", File: "loop.c", Lines: []int{6}})
	a := do(t, sv, "c", root, request{Op: "attach", Port: port})
	st := a.Stop
	for i := 0; i < 5 && (st == nil || st.Line != 6); i++ {
		st = stopOf(t, sv, root, do(t, sv, "c", root, request{Op: "continue"}))
	}
	if st == nil || st.Line != 6 {
		t.Fatalf("attach + continue should stop at the breakpoint: %+v", st)
	}
	evaluates(t, sv, root, "n >= 0", "true")
	do(t, sv, "c", root, request{Op: "terminate"})
}

// TestAdapterTableFromJSON: a user-supplied entry joins the table and drives a
// real adapter (debugpy through Debian's python, by its own id).
func TestAdapterTableFromJSON(t *testing.T) {
	t.Parallel()
	py := python(t)
	root := testenv.Workspace(t, map[string]string{"script.py": pyProgram})
	table := fmt.Sprintf(`[{"id": "mydebugpy", "markers": ["*.py"], "extensions": [".py"],
		"commands": [[%q, "-m", "debugpy.adapter"]], "probe": ["-c", "import debugpy"],
		"launch": {"program": "${program}", "args": "${args}", "cwd": "${cwd}", "python": ["${interpreter}"],
		           "console": "internalConsole"},
		"evaluate_context": "repl"}]`, py)
	extra, err := dap.LoadAdapters(strings.NewReader(table))
	if err != nil {
		t.Fatal(err)
	}
	sv := dap.NewSupervisor(dap.Config{Adapters: dap.MergeAdapters(dap.DefaultAdapters(), extra)})
	defer sv.Close()
	r := do(t, sv, "c", root, request{Op: "adapters"})
	if last := r.Adapters[len(r.Adapters)-1]; last.ID != "mydebugpy" || !last.Usable || last.Marker != "script.py" {
		t.Fatalf("the user's adapter should be listed and usable: %+v", last)
	}
	do(t, sv, "c", root, request{Op: "breakpoints", File: "script.py", Lines: []int{10}})
	l := do(t, sv, "c", root, request{Op: "launch", Program: "script.py", Adapter: "mydebugpy"})
	if l.Stop == nil || l.Stop.Line != 10 || !strings.HasPrefix(l.Session, "mydebugpy session") {
		t.Fatalf("launch through the user's adapter: %s", l)
	}
	do(t, sv, "c", root, request{Op: "terminate"})
	testenv.RequireNoProcs(t, root)

	for _, bad := range []string{`{}`, `[{"id": "x"}]`, `[{"id": "x", "commands": [["y"]], "transport": "pigeon"}]`, `[{"id": "x", "commands": [["y"]], "colour": 1}]`} {
		if _, err := dap.LoadAdapters(strings.NewReader(bad)); err == nil || !strings.HasPrefix(err.Error(), "dap: adapter table") {
			t.Errorf("%s: want an adapter table error, got %v", bad, err)
		}
	}
}

// TestLaunchInSubproject: in a workspace that is a directory of projects
// (tool/pyproject.toml, nothing at the top), launching tool/main.py finds the
// project root by walking up from the program, as lsp finds a file's root, and
// the program runs there.
func TestLaunchInSubproject(t *testing.T) {
	t.Parallel()
	python(t)
	root := testenv.Workspace(t, map[string]string{
		"tool/pyproject.toml": "",
		"tool/main.py":        "import os\nprint('cwd', os.path.basename(os.getcwd()))\nx = 41\nprint(x)\n",
	})
	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()
	do(t, sv, "a", root, request{Op: "breakpoints", File: "tool/main.py", Lines: []int{4}})
	l := do(t, sv, "a", root, request{Op: "launch", Program: "tool/main.py"})
	if l.Stop == nil || l.Stop.Line != 4 {
		t.Fatalf("launch tool/main.py: %s", l)
	}
	c := do(t, sv, "a", root, request{Op: "continue"})
	if c.Exited == nil || !strings.Contains(c.Exited.Output, "cwd tool") {
		t.Fatalf("continue: %s", c)
	}
}

// pyForker keeps starting children in sessions of their own (no parent
// link survives its death, no process group holds them), as a server
// spawning workers does.
const pyForker = `import subprocess
import time

n = 0
while True:
    n += 1
    subprocess.Popen(["sleep", "600"], start_new_session=True)
    time.sleep(0.02)
`

// TestTerminateLeavesNothing: ending a launched program that keeps starting
// children in sessions of their own leaves none of them behind: the tree is
// frozen and killed, never ended politely first (a polite end orphaned a
// child started after the tree was recorded).
func TestTerminateLeavesNothing(t *testing.T) {
	t.Parallel()
	python(t)
	root := testenv.Workspace(t, map[string]string{"pyproject.toml": "", "forker.py": pyForker})
	t.Cleanup(func() {
		for _, p := range testenv.ProcsIn(root) {
			if pid, err := strconv.Atoi(strings.Fields(p)[0]); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	// The program runs on after continue: the op returns once StopWait passes.
	sv := dap.NewSupervisor(dap.Config{StopWait: time.Second})
	defer sv.Close()
	for round := 0; round < 2; round++ {
		do(t, sv, "a", root, request{Op: "breakpoints", File: "forker.py", Lines: []int{8}})
		l := do(t, sv, "a", root, request{Op: "launch", Program: "forker.py"})
		if l.Stop == nil || l.Stop.Line != 8 {
			t.Fatalf("launch should stop at line 8: %s", l)
		}
		do(t, sv, "a", root, request{Op: "breakpoints", File: "forker.py"})
		do(t, sv, "a", root, request{Op: "continue"})
		do(t, sv, "a", root, request{Op: "terminate"})
		testenv.RequireNoProcs(t, root)
	}
}
