package dap_test

import "context"
import "os"
import "path/filepath"
import "strconv"
import "strings"
import "syscall"
import "testing"
import "time"

import "github.com/tetherhq/tether/bridges/dap"
import "github.com/tetherhq/tether/internal/proc"
import "github.com/tetherhq/tether/internal/testenv"

// goStepper prints a line, then adds forever: a process to attach to.
const goStepper = `package main

import (
	"fmt"
	"time"
)

func step(n int) int {
	return n + 1
}

func main() {
	fmt.Println("ready")
	n := 0
	for {
		n = step(n)
		time.Sleep(10 * time.Millisecond)
	}
}
`

// TestAttachPIDDelve: a Go process tether did not start is attached by pid
// with real dlv, stops at a breakpoint, and is detached alive: terminate
// leaves it running, and it runs on past the cleared breakpoint.
func TestAttachPIDDelve(t *testing.T) {
	t.Parallel()
	needDelve(t)
	root := testenv.Workspace(t, goFiles("ticker", goStepper))
	buildIn(t, root, testenv.RequireBinary(t, "go"), "build", "-gcflags=all=-N -l", "-o", "ticker", ".")
	pid := startReady(t, root, "./ticker")

	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()
	msg := doErr(t, sv, "c", root, request{Op: "attach", PID: pid, Port: 1234})
	if !strings.Contains(msg, "not both") {
		t.Fatal(msg)
	}
	do(t, sv, "c", root, request{Op: "breakpoints", File: "main.go", Lines: []int{9}})
	a := do(t, sv, "c", root, request{Op: "attach", PID: pid})
	if a.Stop == nil || a.Stop.Line != 9 {
		t.Fatalf("attach by pid should stop at the breakpoint in step: %s", a)
	}
	if !strings.Contains(a.Session, "attach pid") {
		t.Fatalf("the session should name the pid it attached to: %s", a.Session)
	}
	// Landlock refuses ptrace of a process outside the sandbox, so the
	// adapter runs unsandboxed, and the result says so and why.
	if proc.SandboxStatus().Files() && !strings.Contains(a.Started.Sandbox, "sandbox: none for this session: attached by pid") {
		t.Fatalf("an attach by pid should say its adapter runs outside the sandbox, and why: %q", a.Started.Sandbox)
	}
	evaluates(t, sv, root, "n >= 0", "true")
	term := do(t, sv, "c", root, request{Op: "terminate"})
	if !term.Terminated.Attached {
		t.Fatal(term)
	}
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("the attached process should be alive after terminate: %v", err)
	}
	// Detached and released, it runs: not stopped, not traced.
	st := procState(t, pid)
	if st.state == "t" || st.state == "T" || st.tracer != "0" {
		t.Fatalf("the process should run untraced after detach: state %s, TracerPid %s", st.state, st.tracer)
	}
	// A second attach to the same process works: the first let go of it.
	a = do(t, sv, "c", root, request{Op: "attach", PID: pid})
	if a.Stop == nil || a.Stop.Line != 9 {
		t.Fatalf("attaching again should stop at the breakpoint again: %s", a)
	}
	do(t, sv, "c", root, request{Op: "terminate"})
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("the attached process should be alive after the second terminate: %v", err)
	}
}

// TestAttachPIDInfersAdapter: a Go process built outside the workspace,
// in a module of its own, is attached by pid with no adapter named and no
// go.mod in the working dir: its build info names delve, the result says
// so and why, the program is paused and its stack read, and terminate
// leaves it running.
func TestAttachPIDInfersAdapter(t *testing.T) {
	t.Parallel()
	needDelve(t)
	elsewhere := t.TempDir()
	testenv.WriteFiles(t, elsewhere, goFiles("example.com/ticker", goStepper))
	buildIn(t, elsewhere, testenv.RequireBinary(t, "go"), "build", "-gcflags=all=-N -l", "-o", "ticker", ".")
	pid := startReady(t, elsewhere, "./ticker")
	root := testenv.Workspace(t, map[string]string{"notes.txt": "no project here\n"})

	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()
	a := do(t, sv, "c", root, request{Op: "attach", PID: pid})
	st := a.Started
	if st.Adapter != "delve" || !strings.Contains(st.AdapterReason, "is a Go binary") ||
		!strings.Contains(st.AdapterReason, "example.com/ticker") || !strings.Contains(st.AdapterReason, strconv.Itoa(pid)) {
		t.Fatalf("attach by pid should infer delve from the build info and say why: %q %q", st.Adapter, st.AdapterReason)
	}
	if !a.Outcome.Running {
		t.Fatalf("with no breakpoint the attached program should run on: %s", a)
	}
	p := do(t, sv, "c", root, request{Op: "pause"})
	if p.Stop == nil || p.Stop.Reason != "pause" {
		t.Fatalf("pause should stop the attached program: %s", p)
	}
	s := do(t, sv, "c", root, request{Op: "stack", ThreadID: p.Stop.ThreadID})
	var inMain bool
	for _, f := range s.Frames {
		if f.Name == "main.main" && filepath.Dir(f.File) == elsewhere {
			inMain = true
		}
	}
	if !inMain {
		t.Fatalf("the paused goroutine's stack should run through main.main in %s: %s", elsewhere, s)
	}
	terminateLeavesAlive(t, sv, root, pid)
	if st := procState(t, pid); st.state == "t" || st.state == "T" || st.tracer != "0" {
		t.Fatalf("the process should run untraced after detach: state %s, TracerPid %s", st.state, st.tracer)
	}
}

// TestAttachPIDNamesWhatItRuns: with no adapter named, attach by pid picks
// the adapter from what the process runs, and a process it cannot tell
// (gone) is refused saying to name one.
func TestAttachPIDNamesWhatItRuns(t *testing.T) {
	t.Parallel()
	sleep := testenv.RequireBinary(t, "sleep")
	root := testenv.Workspace(t, map[string]string{"notes.txt": "x\n"})
	cmd := server(root, sleep, "600")
	startServer(t, cmd)
	sv := dap.NewSupervisor(dap.Config{Adapters: []dap.Adapter{{ID: "gdbish", Executables: true, Commands: [][]string{{"no-such-adapter-binary"}}, AttachPID: map[string]any{"pid": "${pid}"}}}})
	defer sv.Close()
	msg := doErr(t, sv, "c", root, request{Op: "attach", PID: cmd.Process.Pid})
	for _, want := range []string{"gdbish adapter cannot start", "is a native executable", "binary missing"} {
		if !strings.Contains(msg, want) {
			t.Fatalf("a native process should go to the native adapter, which is missing here; want %q in: %s", want, msg)
		}
	}
	if strings.Contains(msg, "marker") {
		t.Fatalf("an attach by pid should not ask for a root marker: %s", msg)
	}
}

type pstate struct{ state, tracer string }

// procState reads a process's state letter and tracer pid from /proc.
func procState(t *testing.T, pid int) pstate {
	t.Helper()
	out, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	var st pstate
	for _, l := range strings.Split(string(out), "\n") {
		k, v, _ := strings.Cut(l, ":")
		v = strings.TrimSpace(v)
		switch k {
		case "State":
			st.state, _, _ = strings.Cut(v, " ")
		case "TracerPid":
			st.tracer = v
		}
	}
	return st
}

// pyStepper prints a line, then counts forever.
const pyStepper = `import sys
import time


def step(n):
    return n + 1


print("ready", flush=True)
n = 0
while True:
    n = step(n)
    time.sleep(0.01)
`

// TestAttachPIDDebugpy: a Python process tether did not start is attached
// by pid with real debugpy (which injects itself with gdb), stops at a
// breakpoint, and is detached alive. Where gdb cannot call into the process
// (some kernels and sandboxes refuse it) the attach fails and must say
// why and what to do instead.
func TestAttachPIDDebugpy(t *testing.T) {
	t.Parallel()
	py := python(t)
	testenv.RequireBinary(t, "gdb")
	root := testenv.Workspace(t, map[string]string{"requirements.txt": "", "stepper.py": pyStepper})
	pid := startReady(t, root, py, "stepper.py")
	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()
	do(t, sv, "c", root, request{Op: "breakpoints", File: "stepper.py", Lines: []int{6}})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	a, err := call(sv, ctx, "c", root, request{Op: "attach", PID: pid})
	if err != nil {
		if !strings.Contains(err.Error(), "Code injection") || !strings.Contains(err.Error(), "attach by port instead") {
			t.Fatalf("a failed attach by pid should say why and what to do: %v", err)
		}
		t.Logf("attach by pid refused here, and says why: %v", err)
		return
	}
	if a.Stop == nil || a.Stop.Line != 6 {
		t.Fatalf("attach by pid should stop at the breakpoint in step: %s", a)
	}
	if a.Started.Adapter != "debugpy" || !strings.Contains(a.Started.AdapterReason, "is a python interpreter") {
		t.Fatalf("attach by pid should infer debugpy from the python process and say so: %q %q", a.Started.Adapter, a.Started.AdapterReason)
	}
	evaluates(t, sv, root, "n >= 0", "True")
	terminateLeavesAlive(t, sv, root, pid)
}

// terminateLeavesAlive ends the attached session and requires the process
// pid to be alive after it.
func terminateLeavesAlive(t *testing.T, sv *dap.Supervisor, root string, pid int) {
	t.Helper()
	do(t, sv, "c", root, request{Op: "terminate"})
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("the attached process should be alive after terminate: %v", err)
	}
}

// cStepper prints a line, then counts forever.
const cStepper = `#include <stdio.h>
#include <unistd.h>

static int step(int n) {
	return n + 1;
}

int main(void) {
	int n = 0;
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		n = step(n);
		usleep(10000);
	}
}
`

// TestAttachPIDLLDB: a C process tether did not start is attached by pid
// with real lldb-dap, stops at a breakpoint, and is detached alive.
func TestAttachPIDLLDB(t *testing.T) {
	t.Parallel()
	cc := needLLDB(t)
	root := testenv.Workspace(t, map[string]string{"stepper.c": cStepper})
	gcc(t, cc, root, "stepper", "stepper.c")
	pid := startReady(t, root, "./stepper")
	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()
	do(t, sv, "c", root, request{Op: "breakpoints", File: "stepper.c", Lines: []int{5}})
	a := do(t, sv, "c", root, request{Op: "attach", PID: pid})
	if a.Started.Adapter != "lldb" || !strings.Contains(a.Started.AdapterReason, "is a native executable") {
		t.Fatalf("attach by pid should infer lldb from the C process and say so: %q %q", a.Started.Adapter, a.Started.AdapterReason)
	}
	if a.Stop == nil {
		a = do(t, sv, "c", root, request{Op: "status"})
	}
	if a.Stop == nil || a.Stop.Line != 5 {
		t.Fatalf("attach by pid should stop at the breakpoint in step: %s", a)
	}
	evaluates(t, sv, root, "n >= 0", "true")
	terminateLeavesAlive(t, sv, root, pid)
	if st := procState(t, pid); st.state == "t" || st.state == "T" || st.tracer != "0" {
		t.Fatalf("the process should run untraced after detach: state %s, TracerPid %s", st.state, st.tracer)
	}
}

// TestAttachPIDRefusedOnStrictHost: where every process must run sandboxed
// (a host, serve --http), an attach by pid, which needs its adapter outside
// the sandbox to trace the process, is refused before any adapter starts,
// saying why and to attach by port to a debug server instead. Not parallel:
// it changes the process-wide sandbox options, and parallel tests start
// only after it has put them back.
func TestAttachPIDRefusedOnStrictHost(t *testing.T) {
	st := proc.SandboxStatus()
	if !st.Files() {
		t.Skipf("no sandbox here: %s", st)
	}
	prev := st.Options()
	defer proc.Configure(prev)
	o := prev
	o.Strict = true
	proc.Configure(o)

	root := testenv.Workspace(t, map[string]string{"main.go": "package main\n"})
	cmd := server(root, testenv.RequireBinary(t, "sleep"), "600")
	startServer(t, cmd)
	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()
	for _, adapter := range []string{"delve", "debugpy", "lldb", ""} {
		msg := doErr(t, sv, "c", root, request{Op: "attach", PID: cmd.Process.Pid, Adapter: adapter})
		for _, want := range []string{"refused on this host", "outside the sandbox", "attach with port"} {
			if !strings.Contains(msg, want) {
				t.Fatalf("adapter %q: the refusal should say %q: %s", adapter, want, msg)
			}
		}
	}
	if err := syscall.Kill(cmd.Process.Pid, 0); err != nil {
		t.Fatalf("the refused attach should leave the process alone: %v", err)
	}
}
