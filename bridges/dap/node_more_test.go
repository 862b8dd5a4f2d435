package dap_test

import "bufio"
import "path/filepath"
import "regexp"
import "strconv"
import "strings"
import "sync/atomic"
import "syscall"
import "testing"
import "time"

import "github.com/tetherhq/tether/bridges/dap"
import "github.com/tetherhq/tether/internal/testenv"

// jsCounterLib is a module with a class method; jsCounterMain requires it
// and calls an arrow function and the method three times.
const (
	jsCounterLib = `class Counter {
  constructor() { this.n = 0; }
  bump(by) {
    this.n += by;
    return this.n;
  }
}
module.exports = { Counter };
`
	jsCounterMain = `const { Counter } = require("./lib");
const twice = (x) => {
  return x * 2;
};
const c = new Counter();
for (let i = 0; i < 3; i++) c.bump(twice(i));
console.log("count", c.n);
`
)

// TestNodeFunctionBreakpoints: in real node, function breakpoints by name
// (an arrow assigned to a name, Class.method in a module not loaded yet)
// are looked up in the project's sources and stop at the function's first
// statement, as a function breakpoint; a name declared nowhere is
// unverified and says why; cleared, the program runs to its end.
func TestNodeFunctionBreakpoints(t *testing.T) {
	t.Parallel()
	testenv.RequireBinary(t, "node")
	root := testenv.Workspace(t, map[string]string{"package.json": "{}\n", "main.js": jsCounterMain, "lib.js": jsCounterLib})
	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()
	pending := do(t, sv, "c", root, request{Op: "functions", Functions: []string{"twice", "Counter.bump", "nosuch"}})
	if len(pending.Breakpoints) != 3 || !pending.Breakpoints[0].Pending {
		t.Fatalf("function breakpoints set before launch should be pending: %s", pending)
	}
	l := do(t, sv, "c", root, request{Op: "launch", Program: "main.js"})
	if l.Stop == nil || l.Stop.Reason != "function breakpoint" || filepath.Base(l.Stop.File) != "main.js" || l.Stop.Line != 3 {
		t.Fatalf("launch should stop in twice at its first statement: %s", l)
	}
	bps := map[string]dap.BreakpointState{}
	for _, b := range l.Breakpoints {
		bps[b.Function] = b
	}
	for fn, want := range map[string]struct {
		file string
		line int
	}{"twice": {"main.js", 3}, "Counter.bump": {"lib.js", 4}} {
		b := bps[fn]
		if !b.Verified || filepath.Base(b.File) != want.file || b.ActualLine != want.line {
			t.Fatalf("function breakpoint %s should be verified at %s:%d: %+v", fn, want.file, want.line, b)
		}
	}
	if b := bps["nosuch"]; b.Verified || !strings.Contains(b.Message, "no function nosuch") {
		t.Fatalf("a function declared nowhere should be unverified, saying so: %+v", b)
	}
	evaluates(t, sv, root, "x", "0")
	c := do(t, sv, "c", root, request{Op: "continue"})
	if c.Stop == nil || c.Stop.Reason != "function breakpoint" || filepath.Base(c.Stop.File) != "lib.js" || c.Stop.Line != 4 {
		t.Fatalf("continue should stop in Counter.bump: %s", c)
	}
	evaluates(t, sv, root, "by", "0")
	do(t, sv, "c", root, request{Op: "functions", Functions: []string{}})
	runsToEnd(t, sv, root, "count 6")
	testenv.RequireNoProcs(t, root)
}

// jsLazy, once the file its argument names plus ".go" exists, loads the
// module its argument names and calls its later() every 50ms.
const jsLazy = `const fs = require("node:fs");
console.log("ready");
let m = null;
let i = 0;
setInterval(() => {
  if (!m && fs.existsSync(process.argv[2] + ".go")) m = require(process.argv[2]);
  if (m) m.later(i++);
}, 50);
`

// TestNodeFunctionBreakpointLoadedLater: attached to a node that loads a
// module only later, a function breakpoint declared in that module is not
// found at attach, and is looked up when node loads the module: a call
// then stops there.
func TestNodeFunctionBreakpointLoadedLater(t *testing.T) {
	t.Parallel()
	node := testenv.RequireBinary(t, "node")
	elsewhere := t.TempDir()
	lib := filepath.Join(elsewhere, "lib.js")
	testenv.WriteFiles(t, elsewhere, map[string]string{"lazy.js": jsLazy, "lib.js": "exports.later = function later(x) {\n  return x + 1;\n};\n"})
	pid := startReady(t, elsewhere, node, "--inspect-port=0", "lazy.js", lib)
	root := testenv.Workspace(t, map[string]string{"notes.txt": "x\n"})
	sv := dap.NewSupervisor(dap.Config{StopWait: time.Second})
	defer sv.Close()
	do(t, sv, "c", root, request{Op: "functions", Functions: []string{"later"}})
	a := do(t, sv, "c", root, request{Op: "attach", PID: pid})
	if a.Stop != nil || len(a.Breakpoints) != 1 || a.Breakpoints[0].Verified || !strings.Contains(a.Breakpoints[0].Message, "no function later") {
		t.Fatalf("before node loads lib.js, later is found nowhere, and says so: %s", a)
	}
	testenv.WriteFiles(t, elsewhere, map[string]string{"lib.js.go": ""})
	deadline := time.Now().Add(time.Minute)
	st := do(t, sv, "c", root, request{Op: "status"})
	for st.Stop == nil && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		st = do(t, sv, "c", root, request{Op: "status"})
	}
	if st.Stop == nil || st.Stop.Reason != "function breakpoint" || st.Stop.File != lib || st.Stop.Line != 2 {
		t.Fatalf("a call of later after node loaded lib.js should stop there: %s", st)
	}
	evaluates(t, sv, root, "typeof x", `"number"`)
	terminateLeavesAlive(t, sv, root, pid)
}

// jsTicker steps a counter every 10ms and prints every 20th step; it
// serves HTTP on a port of its own too, counting the requests.
const jsTicker = `function step(n) {
  return n + 1;
}
let n = 0;
let appHits = 0;
require("node:http").createServer((req, res) => { appHits++; res.end("app"); }).listen(0, "127.0.0.1", () => {
  console.log("ready");
  setInterval(() => {
    n = step(n);
    if (n % 20 === 0) console.log("tick", n);
  }, 10);
});
`

// nodeTicker is a node program tether did not start: its pid, the port
// its inspector listens on (0: none opened at start) and the last tick it
// printed.
type nodeTicker struct {
	pid, port int
	ticks     atomic.Int64
}

// startTicker runs src (jsTicker) as ticker.js in dir with node's flags
// and waits for it to print "ready"; with an --inspect flag it reads the inspector's port from
// stderr. The process group is killed when the test ends.
func startTicker(t *testing.T, dir, src string, flags ...string) *nodeTicker {
	t.Helper()
	node := testenv.RequireBinary(t, "node")
	testenv.WriteFiles(t, dir, map[string]string{"ticker.js": src})
	cmd := server(dir, node, append(flags, "ticker.js")...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	startServer(t, cmd)
	tk := &nodeTicker{pid: cmd.Process.Pid}
	out := bufio.NewScanner(stdout)
	if !out.Scan() || out.Text() != "ready" {
		t.Fatalf("the ticker did not start: %q %v", out.Text(), out.Err())
	}
	go func() {
		for out.Scan() {
			if n, err := strconv.Atoi(strings.TrimPrefix(out.Text(), "tick ")); err == nil {
				tk.ticks.Store(int64(n))
			}
		}
	}()
	listening := regexp.MustCompile(`Debugger listening on ws://127\.0\.0\.1:(\d+)/`)
	errs := bufio.NewScanner(stderr)
	for strings.HasPrefix(strings.Join(flags, " "), "--inspect=") && tk.port == 0 && errs.Scan() {
		if m := listening.FindStringSubmatch(errs.Text()); m != nil {
			tk.port, _ = strconv.Atoi(m[1])
		}
	}
	go func() {
		for errs.Scan() {
		}
	}()
	return tk
}

// runsOn requires the ticker to be alive and stepping after a detach.
func (tk *nodeTicker) runsOn(t *testing.T) {
	t.Helper()
	if err := syscall.Kill(tk.pid, 0); err != nil {
		t.Fatalf("the attached node should be alive after terminate: %v", err)
	}
	from := tk.ticks.Load()
	deadline := time.Now().Add(30 * time.Second)
	for tk.ticks.Load() <= from+20 {
		if time.Now().After(deadline) {
			t.Fatalf("the attached node should run on after terminate: its ticks stayed at %d", tk.ticks.Load())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestNodeAttachPort: a node started with --inspect on a port of its own
// choosing is attached by that port, the adapter named by the working
// dir's package.json; a line breakpoint stops it, evaluate reads its
// state, and terminate detaches and leaves it running.
func TestNodeAttachPort(t *testing.T) {
	t.Parallel()
	root := testenv.Workspace(t, map[string]string{"package.json": "{}\n"})
	tk := startTicker(t, root, jsTicker, "--inspect=127.0.0.1:0")
	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()
	do(t, sv, "c", root, request{Op: "breakpoints", File: "ticker.js", Lines: []int{2}})
	a := do(t, sv, "c", root, request{Op: "attach", Port: tk.port})
	if a.Started.Adapter != "node" || !strings.Contains(a.Started.AdapterReason, "package.json") {
		t.Fatalf("attach by port should take the node adapter for package.json and say so: %q %q", a.Started.Adapter, a.Started.AdapterReason)
	}
	if a.Stop == nil || a.Stop.Reason != "breakpoint" || filepath.Base(a.Stop.File) != "ticker.js" || a.Stop.Line != 2 {
		t.Fatalf("attach should stop at the breakpoint in step: %s", a)
	}
	evaluates(t, sv, root, "n >= 0", "true")
	term := do(t, sv, "c", root, request{Op: "terminate"})
	if !term.Terminated.Attached {
		t.Fatalf("terminate should say the program was attached: %s", term)
	}
	tk.runsOn(t)
	// Nothing listens on a port: the refusal says how to start node.
	msg := doErr(t, sv, "c", root, request{Op: "attach", Port: unusedPort(t), Adapter: "node"})
	if !strings.Contains(msg, "node's inspector") || !strings.Contains(msg, "--inspect=") {
		t.Fatalf("attaching where no inspector listens should say how to start one: %s", msg)
	}
}

// TestNodeAttachPID: a node started outside the workspace with no
// inspector open is attached by pid with no adapter named: the adapter is
// inferred from the process, SIGUSR1 opens its inspector (on a port of its
// choosing, --inspect-port=0, found among its sockets, beside the
// program's own HTTP server, asked once), a function
// breakpoint is found in the script node loaded, and terminate leaves the
// program running; a second attach finds the inspector open.
func TestNodeAttachPID(t *testing.T) {
	t.Parallel()
	elsewhere := t.TempDir()
	tk := startTicker(t, elsewhere, jsTicker, "--inspect-port=0")
	root := testenv.Workspace(t, map[string]string{"notes.txt": "no project here\n"})
	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()
	do(t, sv, "c", root, request{Op: "functions", Functions: []string{"step"}})
	for round := range 2 {
		a := do(t, sv, "c", root, request{Op: "attach", PID: tk.pid})
		if a.Started.Adapter != "node" || !strings.Contains(a.Started.AdapterReason, "node interpreter") {
			t.Fatalf("attach by pid should infer the node adapter from the process and say so: %q %q", a.Started.Adapter, a.Started.AdapterReason)
		}
		if a.Stop == nil || a.Stop.Reason != "function breakpoint" || a.Stop.File != filepath.Join(elsewhere, "ticker.js") || a.Stop.Line != 2 {
			t.Fatalf("round %d: attach should stop in step at its function breakpoint: %s", round, a)
		}
		if len(a.Breakpoints) != 1 || !a.Breakpoints[0].Verified || a.Breakpoints[0].ActualLine != 2 {
			t.Fatalf("round %d: the function breakpoint should be verified at line 2: %s", round, a)
		}
		evaluates(t, sv, root, "typeof n", `"number"`)
		if round == 0 {
			// The program's own server was asked once whether it is the
			// inspector, not at every poll for the inspector SIGUSR1 opens.
			evaluates(t, sv, root, "appHits", "1")
		}
		do(t, sv, "c", root, request{Op: "terminate"})
		tk.runsOn(t)
	}
}

// TestNodeFunctionBreakpointOnObject: a function no source declares (made
// with new Function, kept in a global) is found by evaluating its name in
// the attached program, and its next call stops, as a function breakpoint.
func TestNodeFunctionBreakpointOnObject(t *testing.T) {
	t.Parallel()
	root := testenv.Workspace(t, map[string]string{"package.json": "{}\n"})
	tk := startTicker(t, root, `globalThis.tickHook = new Function("n", "return n + 1");
console.log("ready");
let n = 0;
setInterval(() => {
  n = tickHook(n);
  if (n % 20 === 0) console.log("tick", n);
}, 10);
`, "--inspect=127.0.0.1:0")
	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()
	do(t, sv, "c", root, request{Op: "functions", Functions: []string{"tickHook"}})
	a := do(t, sv, "c", root, request{Op: "attach", Port: tk.port})
	if len(a.Breakpoints) != 1 || !a.Breakpoints[0].Verified || !strings.Contains(a.Breakpoints[0].Message, "evaluates to") {
		t.Fatalf("tickHook should be set on the function it evaluates to, saying so: %s", a)
	}
	if a.Stop == nil || a.Stop.Reason != "function breakpoint" {
		t.Fatalf("the next call of tickHook should stop, as a function breakpoint: %s", a)
	}
	evaluates(t, sv, root, "typeof n", `"number"`)
	do(t, sv, "c", root, request{Op: "terminate"})
	tk.runsOn(t)
}
