package dap_test

import "bufio"
import "context"
import "fmt"
import "path/filepath"
import "strconv"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/bridges/dap"
import "github.com/tetherhq/tether/internal/testenv"

// stopAt sets one breakpoint, launches program and requires the stop there.
func stopAt(t *testing.T, sv *dap.Supervisor, root, file string, line int, program string, args ...string) *reply {
	t.Helper()
	do(t, sv, "c", root, request{Op: "breakpoints", File: file, Lines: []int{line}})
	return launchStops(t, sv, root, line, program, args...)
}

// launchStops launches program and requires it to stop at line.
func launchStops(t *testing.T, sv *dap.Supervisor, root string, line int, program string, args ...string) *reply {
	t.Helper()
	l := do(t, sv, "c", root, request{Op: "launch", Program: program, Args: args})
	if l.Stop == nil || l.Stop.Line != line {
		t.Fatalf("launch should stop at line %d:\n%s", line, l)
	}
	return l
}

// breakAt is a target and the line it is stopped at.
type breakAt struct {
	target
	file string
	line int
}

// stopped starts the target (see target.start) and stops it at its line
// (see stopAt).
func (b breakAt) stopped(t *testing.T) (*dap.Supervisor, string) {
	t.Helper()
	sv, root := b.start(t)
	stopAt(t, sv, root, b.file, b.line, b.program)
	return sv, root
}

// localVar lists the top frame's first scope and returns the variable name.
func localVar(t *testing.T, sv *dap.Supervisor, root, name string) dap.Variable {
	t.Helper()
	sc := do(t, sv, "c", root, request{Op: "scopes"})
	if len(sc.Scopes) == 0 {
		t.Fatal("no scopes")
	}
	return findVar(t, do(t, sv, "c", root, request{Op: "variables", Reference: sc.Scopes[0].Reference}).Variables, name)
}

func needLLDB(t *testing.T) string {
	t.Helper()
	if testenv.LookPath("lldb-dap") == "" && testenv.LookPath("lldb-dap-19") == "" {
		testenv.Missing(t, "lldb-dap (lldb-19)")
	}
	return testenv.RequireBinary(t, "gcc")
}

func gcc(t *testing.T, cc, root, out string, srcs ...string) {
	t.Helper()
	buildIn(t, root, cc, append([]string{"-g", "-O0", "-o", out}, srcs...)...)
}

const goBig = `package main

import "fmt"

type K struct{ A, B int }

type V struct{ X []int }

func main() {
	big := make([]int, 200)
	for i := range big {
		big[i] = i
	}
	m := map[int]int{}
	for i := 0; i < 150; i++ {
		m[i] = i
	}
	mk := map[K]V{}
	for i := 0; i < 60; i++ {
		mk[K{i, i}] = V{[]int{i}}
	}
	fmt.Println(len(big), len(m), len(mk))
}
`

const cBig = `#include <stdio.h>

int main(void) {
	int big[200];
	for (int i = 0; i < 200; i++) big[i] = i;
	printf("%d\n", big[199]);
	return 0;
}
`

// TestVariablesPaging: a container longer than the cap of 50 says how many
// elements it has and pages through all of them with start, through the
// adapter's own paging (delve, lldb-dap: indexedVariables) so that delve
// shows more than the 64 elements it loads by itself.
func TestVariablesPaging(t *testing.T) {
	t.Parallel()
	cases := []struct {
		breakAt
		first string // name of element 150
	}{
		{breakAt: breakAt{target{name: "delve", need: needDelve, files: goFiles("big", goBig), program: "."}, "main.go", 22},
			first: "[150]"},
		{breakAt: breakAt{cTarget("lldb", "big", "main.c", cBig), "main.c", 6}, first: "[150]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sv, root := tc.stopped(t)
			big := localVar(t, sv, root, "big")
			if big.Indexed != 200 || big.Reference == 0 {
				t.Fatalf("big should say it has 200 elements: %+v", big)
			}
			if strings.Contains(big.Value, "loaded 64/200") {
				t.Fatalf("delve's own cut should not show once tether pages: %q", big.Value)
			}
			p0 := do(t, sv, "c", root, request{Op: "variables", Reference: big.Reference})
			if len(p0.Variables) != dap.MaxVariables || !isPage(p0, true, 0, 50, 200, 50) {
				t.Fatalf("first page: %d variables\n%s", len(p0.Variables), p0)
			}
			p3 := do(t, sv, "c", root, request{Op: "variables", Reference: big.Reference, Start: 150})
			if len(p3.Variables) != 50 || p3.Variables[0].Name != tc.first || p3.Variables[0].Value != "150" || p3.Variables[49].Value != "199" {
				t.Fatalf("page from 150: %+v", p3.Variables)
			}
			if !isPage(p3, true, 150, 200, 200, 0) {
				t.Fatalf("the last page says it is the last:\n%s", p3)
			}
			msg := doErr(t, sv, "c", root, request{Op: "variables", Reference: big.Reference, Start: 200})
			if !strings.Contains(msg, "past the end") || !strings.Contains(msg, "200 elements") {
				t.Fatal(msg)
			}
			if tc.name == "delve" {
				// A map pages the same way; its first page leads with len().
				m := localVar(t, sv, root, "m")
				if m.Indexed != 150 {
					t.Fatalf("m: %+v", m)
				}
				last := do(t, sv, "c", root, request{Op: "variables", Reference: m.Reference, Start: 100})
				if len(last.Variables) != 50 || !isPage(last, true, 100, 150, 150, 0) {
					t.Fatalf("map page from 100: %d\n%s", len(last.Variables), last)
				}
				// Composite keys and values: two variables an element
				// ([key i], [val i]); a page holds 25 elements and the next
				// starts right after them.
				mk := localVar(t, sv, root, "mk")
				p := do(t, sv, "c", root, request{Op: "variables", Reference: mk.Reference})
				if len(p.Variables) != 50 || !isPage(p, true, 0, 25, 60, 25) ||
					p.Variables[49].Name != "[val 24]" {
					t.Fatalf("map of composite keys: %d\n%s", len(p.Variables), p)
				}
			}
			do(t, sv, "c", root, request{Op: "terminate"})
		})
	}
	// debugpy counts no elements: its children list is paged by tether.
	t.Run("debugpy", func(t *testing.T) {
		t.Parallel()
		sv, root := breakAt{pyTarget("debugpy", "main.py", "big = list(range(80))\nprint(len(big))\n"), "main.py", 2}.stopped(t)
		ev := do(t, sv, "c", root, request{Op: "evaluate", Expression: "big"})
		p0 := do(t, sv, "c", root, request{Op: "variables", Reference: ev.Value.Reference})
		if len(p0.Variables) != dap.MaxVariables || !isPage(p0, false, 0, 50, -1, 50) {
			t.Fatalf("first page: %s", p0)
		}
		p1 := do(t, sv, "c", root, request{Op: "variables", Reference: ev.Value.Reference, Start: 50})
		seen := map[string]bool{}
		for _, v := range append(p0.Variables, p1.Variables...) {
			if seen[v.Name] {
				t.Fatalf("%s listed twice across pages", v.Name)
			}
			seen[v.Name] = true
		}
		found := false
		for _, v := range p1.Variables {
			found = found || v.Value == "79"
		}
		if !found || p1.Vars.Next != 0 {
			t.Fatalf("the second page should hold the last element and be the last:\n%s", p1)
		}
	})
}

const pyRaise = `def f(d):
    return d["missing"]


f({})
`

const goPanic = `package main

func main() {
	var m map[string]int
	m["x"] = 1
}
`

const cSegv = `#include <stddef.h>

static int deref(int *p) {
	return *p;
}

int main(void) {
	return deref(NULL);
}
`

// TestExceptionStops: a program that fails stops where it failed and says
// with what (an uncaught Python exception, a Go panic, a signal), naming the
// program's own frame when the stop is in the runtime; continue then ends it
// with its exit code. sys.exit(3) is an exit, not a stop.
func TestExceptionStops(t *testing.T) {
	t.Parallel()
	cases := []struct {
		target
		exception []string
		line      int // of the stop, or of the program's own frame
		user      bool
		code      int
	}{
		{target: pyTarget("debugpy", "main.py", pyRaise),
			exception: []string{"KeyError", "missing"}, line: 2, code: 1},
		{target: target{name: "delve", need: needDelve, files: goFiles("p", goPanic), program: "."},
			exception: []string{"panic", "assignment to entry in nil map"}, line: 5, user: true, code: 2},
		{target: cTarget("lldb", "seg", "seg.c", cSegv),
			exception: []string{"SIGSEGV"}, line: 4, code: 11},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sv, root := tc.start(t)
			l := do(t, sv, "c", root, request{Op: "launch", Program: tc.program})
			st := l.Stop
			if st == nil || st.Reason != "exception" {
				t.Fatalf("launch should stop at the failure:\n%s", l)
			}
			for _, w := range tc.exception {
				if !strings.Contains(st.Exception, w) {
					t.Fatalf("the stop should name the exception (%q): %q\n%s", w, st.Exception, l)
				}
			}
			line := st.Line
			if tc.user {
				if st.UserFrame == nil {
					t.Fatalf("a stop in the runtime should name the program's own frame:\n%s", l)
				}
				line = st.UserFrame.Line
				// The runtime's file lies outside the working dir: its path
				// alone, never its line; the program's own frame keeps its.
				if st.Source != "" || !st.SourceOutside || st.UserSource == "" {
					t.Fatalf("a stop in the runtime shows its path alone and the program's own line:\n%+v", st)
				}
			}
			if line != tc.line {
				t.Fatalf("stopped at line %d, want %d:\n%s", line, tc.line, l)
			}
			c := do(t, sv, "c", root, request{Op: "continue"})
			if c.Exited == nil || !c.Exited.Known || c.Exited.Code != tc.code {
				t.Fatalf("continue should end the program with code %d:\n%s", tc.code, c)
			}
			testenv.RequireNoProcs(t, root)
		})
	}
	t.Run("debugpy-sys.exit", func(t *testing.T) {
		t.Parallel()
		sv, root := pyTarget("debugpy", "main.py", "import sys\nprint('bye')\nsys.exit(3)\n").start(t)
		l := do(t, sv, "c", root, request{Op: "launch", Program: "main.py"})
		if l.Exited == nil || l.Exited.Code != 3 || !strings.Contains(l.Exited.Output, "bye") {
			t.Fatalf("sys.exit(3) should end the program with code 3 and its output:\n%s", l)
		}
	})
}

// pyOrphan leaves a child running that holds the program's output open.
const pyOrphan = `import subprocess
subprocess.Popen(["sleep", "600"])
print("parent done")
`

// pyEscapee leaves a child running in a session of its own (out of the
// program's process group) that holds the program's output open.
const pyEscapee = `import subprocess
subprocess.Popen(["sleep", "600"], start_new_session=True)
print("parent done")
`

// TestProgramEndsWhileChildRuns: the program exits while a child it started
// still holds its output open, so debugpy does not report the end; launch
// says the program exited at once (not after the stop wait), and the child
// dies with the session, whether it stayed in the program's process group
// or left it.
func TestProgramEndsWhileChildRuns(t *testing.T) {
	t.Parallel()
	python(t)
	for name, prog := range map[string]string{"same group": pyOrphan, "own session": pyEscapee} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			root := testenv.Workspace(t, map[string]string{"requirements.txt": "", "main.py": prog})
			// A stop wait longer than the test's own deadline: answering
			// "running" after it would not do.
			sv := dap.NewSupervisor(dap.Config{StopWait: 24 * 60 * 60 * 1e9})
			defer sv.Close()
			l := do(t, sv, "c", root, request{Op: "launch", Program: "main.py"})
			if l.Exited == nil || !l.Exited.Unreported || !strings.Contains(strings.Join(l.Exited.Leftovers, "; "), "sleep 600") {
				t.Fatalf("launch should say the program exited and what it left running:\n%s", l)
			}
			testenv.RequireNoProcs(t, root)
			st := do(t, sv, "c", root, request{Op: "status"})
			if st.Session != "" {
				t.Fatal(st)
			}
		})
	}
}

// TestProgramEndedUnwatchedWhileChildRuns: a program that ends while no op
// waits for it, leaving a child in a session of its own that holds its
// output open (so the adapter never reports the end), frees the session at
// the next status, which says so, and the child dies with it.
func TestProgramEndedUnwatchedWhileChildRuns(t *testing.T) {
	t.Parallel()
	python(t)
	root := testenv.Workspace(t, map[string]string{"requirements.txt": "", "main.py": pyEscapee})
	// A stop wait of 1ns: launch answers "running" at once.
	sv := dap.NewSupervisor(dap.Config{StopWait: 1})
	defer sv.Close()
	l := do(t, sv, "c", root, request{Op: "launch", Program: "main.py"})
	if l.Exited == nil {
		if st := awaitEnded(t, sv, root); !strings.Contains(st.Status.Ended, "sleep 600") {
			t.Fatalf("status after the program ended: %s", st)
		}
	}
	testenv.RequireNoProcs(t, root)
}

// TestBreakpointsNotPlaced: a breakpoint the adapter cannot place says so
// and what it means, whether or not the adapter gives a message.
func TestBreakpointsNotPlaced(t *testing.T) {
	t.Parallel()
	cc := needLLDB(t)
	root := testenv.Workspace(t, map[string]string{"main.c": cProgram, "other.c": "int unused(void) { return 1; }\n"})
	gcc(t, cc, root, "hello", "main.c")
	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()
	do(t, sv, "c", root, request{Op: "breakpoints", File: "other.c", Lines: []int{1}})
	l := stopAt(t, sv, root, "main.c", 7, "hello")
	var other *dap.BreakpointState
	for i, b := range l.Breakpoints {
		if filepath.Base(b.File) == "other.c" {
			other = &l.Breakpoints[i]
		}
	}
	if other == nil || other.Verified || other.Pending {
		t.Fatalf("a breakpoint in a file the program is not built from:\n%s", l)
	}
	// evaluate: an adapter error carries no trailing blank lines, and a
	// frame id that is no frame of this stop says where frame ids come from.
	msg := doErr(t, sv, "c", root, request{Op: "evaluate", Expression: "x", FrameID: 1})
	if !strings.Contains(msg, "take frame_id from stack") {
		t.Fatal(msg)
	}
	msg = doErr(t, sv, "c", root, request{Op: "evaluate", Expression: "nosuch"})
	if !strings.Contains(msg, "nosuch") || strings.TrimSpace(msg) != msg {
		t.Fatalf("%q", msg)
	}
	do(t, sv, "c", root, request{Op: "terminate"})
}

// TestEvaluateStatement: debugpy runs a statement in the frame; the answer
// says it has no value instead of "import os = ".
func TestEvaluateStatement(t *testing.T) {
	t.Parallel()
	sv, root := breakAt{pyTarget("debugpy", "main.py", pyProgram), "main.py", 10}.stopped(t)
	ev := do(t, sv, "c", root, request{Op: "evaluate", Expression: "import os"})
	if v := ev.Value; v == nil || v.Value != "" || v.Type != "" || v.Reference != 0 {
		t.Fatal(ev)
	}
	if ev = do(t, sv, "c", root, request{Op: "evaluate", Expression: "os.sep"}); ev.Value == nil || ev.Value.Value != "'/'" {
		t.Fatalf("the statement should have run in the frame: %s", ev)
	}
	msg := doErr(t, sv, "c", root, request{Op: "evaluate", Expression: "nosuch"})
	if !strings.HasSuffix(msg, "name 'nosuch' is not defined") {
		t.Fatalf("%q", msg)
	}
	do(t, sv, "c", root, request{Op: "terminate"})
}

const goMany = `package main

import "fmt"

func work(i int) int {
	return i * 2
}

func main() {
	block, done := make(chan int), make(chan int)
	for i := 0; i < 300; i++ {
		go func() { <-block }()
	}
	// The goroutine that stops is the newest: the last listed by id.
	go func() { done <- work(299) }()
	fmt.Println(<-done)
}
`

// TestManyGoroutines: threads is capped at 100, says so, and never cuts the
// thread that stopped.
func TestManyGoroutines(t *testing.T) {
	t.Parallel()
	testenv.RequireBinary(t, "go")
	testenv.RequireBinary(t, "dlv")
	root := testenv.Workspace(t, map[string]string{"go.mod": "module many\n\ngo 1.21\n", "main.go": goMany})
	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()
	l := stopAt(t, sv, root, "main.go", 6, ".")
	th := do(t, sv, "c", root, request{Op: "threads"})
	if len(th.Threads) != 100 || th.ThreadList.Total <= 100 {
		t.Fatalf("threads should be capped at 100 and say so: %d\n%s", len(th.Threads), th)
	}
	if th.Threads[0].ID != l.Stop.ThreadID {
		t.Fatalf("the stopped thread %d should lead the list: %+v", l.Stop.ThreadID, th.Threads[:3])
	}
	st := do(t, sv, "c", root, request{Op: "stack", ThreadID: l.Stop.ThreadID})
	if len(st.Frames) == 0 || !strings.Contains(st.Frames[0].Name, "main.work") {
		t.Fatalf("stack of the stopped goroutine: %s", st)
	}
	do(t, sv, "c", root, request{Op: "terminate"})
}

// deepPython and deepGo stop in depth's recursion (see pyDeep, goDeep).
var (
	deepPython = pyTarget("debugpy", "deep.py", pyDeep)
	deepGo     = target{name: "delve", need: needDelve, files: goFiles("deep", goDeep), program: "."}
)

const pyDeep = `def depth(n):
    if n == 0:
        return 0
    return 1 + depth(n - 1)


print(depth(50))
`

const goDeep = `package main

import "fmt"

func depth(n int) int {
	if n == 0 {
		return 0
	}
	return 1 + depth(n-1)
}

func main() {
	fmt.Println(depth(50))
}
`

// cDeep reads stdin first: under lldb-dap the program must read end-of-file
// (as under delve and debugpy), not block on a terminal nobody types into.
const cDeep = `#include <stdio.h>

int depth(int n) {
	if (n == 0) {
		return 0;
	}
	return 1 + depth(n - 1);
}

int main(void) {
	char buf[64];
	printf(fgets(buf, sizeof buf, stdin) ? "line\n" : "eof\n");
	return depth(50);
}
`

// TestStackCountsFrames: stack shows 30 frames of a deeper stack and says
// how many there are, counted (delve's totalFrames is a guess: shown + 50).
func TestStackCountsFrames(t *testing.T) {
	t.Parallel()
	cases := []struct {
		breakAt
		total int // depth's 51 frames plus the callers
	}{
		{breakAt: breakAt{deepPython, "deep.py", 3}, total: 52},
		{breakAt: breakAt{deepGo, "main.go", 7}, total: 54},
		{breakAt: breakAt{cTarget("lldb", "deep", "deep.c", cDeep), "deep.c", 5}, total: 55},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sv, root := tc.stopped(t)
			st := do(t, sv, "c", root, request{Op: "stack"})
			if len(st.Frames) != dap.MaxStackFrames || st.Stack.Start != 0 || st.Stack.Total != tc.total || !st.Stack.Exact {
				t.Fatalf("want 30 of exactly %d frames:\n%s", tc.total, st)
			}
			rest := do(t, sv, "c", root, request{Op: "stack", Start: 30})
			if len(rest.Frames) != tc.total-30 || rest.Stack.Start != 30 || rest.Stack.Total != tc.total || !rest.Stack.Exact {
				t.Fatalf("stack start 30 should show frames 30-%d:\n%s", tc.total-1, rest)
			}
			if rest.Frames[0].ID == st.Frames[0].ID || rest.Frames[0].Line == 0 {
				t.Fatalf("the second page should start at frame 30, not the top:\n%s", rest)
			}
			if _, err := call(sv, context.Background(), "c", root, request{Op: "stack", Start: tc.total}); err == nil || !strings.Contains(err.Error(), "past the end") {
				t.Fatalf("start past the last frame: %v", err)
			}
			// A frame id from the second page is usable.
			if sc := do(t, sv, "c", root, request{Op: "scopes", FrameID: rest.Frames[0].ID}); len(sc.Scopes) == 0 {
				t.Fatalf("scopes of a frame from the second page:\n%s", sc)
			}
			if tc.name == "lldb" {
				if out := do(t, sv, "c", root, request{Op: "output"}); !strings.Contains(out.Output, "eof") {
					t.Fatalf("the program should read end-of-file from stdin: %q", out.Output)
				}
			}
			do(t, sv, "c", root, request{Op: "terminate"})
		})
	}
}

const goTicker = `package main

import (
	"fmt"
	"time"
)

func main() {
	for i := 0; ; i++ {
		fmt.Println("tick", i)
		time.Sleep(20 * time.Millisecond)
	}
}
`

// TestAttachDelveHeadlessDetach: attach to a multi-client dlv --headless
// server whose program is halted at entry (no --continue): pause reports the
// stop even though a program that has not started has no stack to show;
// a breakpoint stops it; terminate detaches leaving the program running
// with the breakpoint gone (delve keeps both across a disconnect otherwise,
// so the program stayed halted with no client).
func TestAttachDelveHeadlessDetach(t *testing.T) {
	t.Parallel()
	root := testenv.Workspace(t, goFiles("tick", goTicker))
	cmd, port := delveServer(t, root, "tick")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	startServer(t, cmd)
	ticks := make(chan string, 1000)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			ticks <- sc.Text()
		}
		close(ticks)
	}()

	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()
	a := do(t, sv, "c", root, request{Op: "attach", Port: port})
	if a.Stop != nil {
		t.Fatalf("attach without breakpoints: %s", a)
	}
	p := do(t, sv, "c", root, request{Op: "pause"})
	if p.Stop == nil || p.Stop.Reason != "pause" {
		t.Fatalf("pause should report the stop even without a stack:\n%s", p)
	}
	do(t, sv, "c", root, request{Op: "breakpoints", File: "main.go", Lines: []int{10}})
	c := do(t, sv, "c", root, request{Op: "continue"})
	if c.Stop == nil || c.Stop.Line != 10 {
		t.Fatalf("continue should stop at the breakpoint:\n%s", c)
	}
	ev := do(t, sv, "c", root, request{Op: "evaluate", Expression: "i"})
	if ev.Value == nil {
		t.Fatal(ev)
	}
	at, _ := strconv.Atoi(ev.Value.Value)
	term := do(t, sv, "c", root, request{Op: "terminate"})
	if term.Terminated.Session == "" || !term.Terminated.Attached {
		t.Fatal(term)
	}
	// Running on, past the breakpoint's line again: two more ticks.
	want := fmt.Sprintf("tick %d", at+2)
	guard := time.NewTimer(2 * time.Minute) // a hang guard, not a timing assertion
	defer guard.Stop()
	for {
		select {
		case line, ok := <-ticks:
			if !ok {
				t.Fatal("the program ended; it should run on after the detach")
			}
			if line == want {
				return
			}
		case <-guard.C:
			t.Fatalf("no %q: the program stayed halted after terminate detached", want)
		}
	}
}

// TestProgramEndedUnwatched: a program that ends while no op waits for it
// (it outran the stop wait) frees the session: status says how it ended and
// the next launch is not refused as "already live".
func TestProgramEndedUnwatched(t *testing.T) {
	t.Parallel()
	python(t)
	root := testenv.Workspace(t, map[string]string{"requirements.txt": "", "main.py": "import sys\nprint('bye')\nsys.exit(3)\n"})
	// A stop wait of 1ns: launch answers "running" at once.
	sv := dap.NewSupervisor(dap.Config{StopWait: 1})
	defer sv.Close()
	l := do(t, sv, "c", root, request{Op: "launch", Program: "main.py"})
	if l.Exited != nil {
		return // it ended within the launch after all: nothing to check
	}
	if st := awaitEnded(t, sv, root); !strings.Contains(st.Status.Ended, "exited with code 3") {
		t.Fatalf("status after the program ended: %s", st)
	}
	if out := do(t, sv, "c", root, request{Op: "output"}); !strings.Contains(out.Output, "bye") {
		t.Fatal(out)
	}
	do(t, sv, "c", root, request{Op: "launch", Program: "main.py"})
	do(t, sv, "c", root, request{Op: "terminate"})
}

// TestAttachNothingListens: attaching lldb-dap to a port nothing listens on
// says so (lldb-dap itself only says "failed to attach to a process"), and
// debugpy's direct connection says the same in its words.
func TestAttachNothingListens(t *testing.T) {
	t.Parallel()
	needLLDB(t)
	root := testenv.Workspace(t, map[string]string{"loop.c": cLoop, "requirements.txt": ""})
	// Nothing will listen: no need to wait for a server to start.
	sv := dap.NewSupervisor(dap.Config{AttachWait: 1})
	defer sv.Close()
	port := unusedPort(t)
	msg := doErr(t, sv, "c", root, request{Op: "attach", Port: port, Adapter: "lldb"})
	if !strings.Contains(msg, fmt.Sprintf("nothing listens on port %d", port)) {
		t.Fatal(msg)
	}
	msg = doErr(t, sv, "c", root, request{Op: "attach", Port: port, Adapter: "debugpy"})
	if !strings.Contains(msg, "nothing accepts connections") {
		t.Fatal(msg)
	}
	if st := do(t, sv, "c", root, request{Op: "status"}); st.Session != "" {
		t.Fatal(st)
	}
}

// TestEvaluateInFrame: evaluate with frame_id evaluates in that frame; a
// frame id that is no frame of the current stop is refused (delve evaluated
// it in the top frame instead: a plausible wrong answer), one from before a
// step included.
func TestEvaluateInFrame(t *testing.T) {
	t.Parallel()
	cases := []struct {
		breakAt
	}{
		{breakAt: breakAt{deepGo, "main.go", 7}},
		{breakAt: breakAt{deepPython, "deep.py", 3}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sv, root := tc.stopped(t)
			st := do(t, sv, "c", root, request{Op: "stack"})
			ev := do(t, sv, "c", root, request{Op: "evaluate", Expression: "n", FrameID: st.Frames[2].ID})
			if ev.Value == nil || ev.Value.Value != "2" {
				t.Fatalf("n in the third frame: %s", ev)
			}
			msg := doErr(t, sv, "c", root, request{Op: "evaluate", Expression: "n", FrameID: 987654})
			if !strings.Contains(msg, "frame_id 987654 is not a frame of the current stop") {
				t.Fatal(msg)
			}
			if tc.name == "delve" {
				old := st.Frames[2].ID
				do(t, sv, "c", root, request{Op: "step_over"})
				msg = doErr(t, sv, "c", root, request{Op: "evaluate", Expression: "n", FrameID: old})
				if !strings.Contains(msg, "not a frame of the current stop") {
					t.Fatal(msg)
				}
			}
			do(t, sv, "c", root, request{Op: "terminate"})
		})
	}
}
