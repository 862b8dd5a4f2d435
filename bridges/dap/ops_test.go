package dap_test

import "encoding/binary"
import "encoding/json"
import "fmt"
import "slices"
import "strings"
import "testing"

import "github.com/tetherhq/tether/bridges/dap"
import "github.com/tetherhq/tether/internal/testenv"

// stoppedAt requires an outcome to be a stop at line for reason (any
// reason when "").
func stoppedAt(t *testing.T, what string, o *dap.Outcome, err error, line int, reason string) *dap.Stop {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if o == nil || o.Stop == nil || o.Stop.Line != line || (reason != "" && o.Stop.Reason != reason) {
		b, _ := json.Marshal(o)
		t.Fatalf("%s should stop at line %d (%s): %s", what, line, reason, b)
	}
	return o.Stop
}

// goWatch changes sum and xs on every turn of its loop (lines 9 and 10).
const goWatch = `package main

import "fmt"

func main() {
	xs := []int64{41, 42}
	sum := 0
	for i := 0; i < 5; i++ {
		sum += i
		xs[0] += int64(i)
	}
	fmt.Println("sum", sum, xs)
}
`

// TestWatchWriteMemoryDelve: with real delve stopped in goLoop's loop,
// write_memory writes a new value into xs that evaluate reads back; a
// data breakpoint on sum is placed and cleared; an instruction breakpoint
// at the stop's instruction stops there on the next turn; restart runs
// the program again from the start, to that instruction with i back at 0;
// a watch delve cannot place and goto, which delve lacks, are refused.
func TestWatchWriteMemoryDelve(t *testing.T) {
	t.Parallel()
	sv, root := breakAt{goTarget("delve", "watch", goWatch), "main.go", 9}.stopped(t)
	ctx := ctxT(t)

	data := binary.LittleEndian.AppendUint64(nil, 1000)
	w, err := sv.WriteMemory(ctx, "c", dap.MemoryArgs{Expression: "xs"}, data)
	if err != nil || w.Bytes != 8 {
		t.Fatalf("write_memory of sum: %+v %v", w, err)
	}
	evaluates(t, sv, root, "xs[0]", "1000")

	// A watch on sum, placed by delve. (Hardware watchpoints, delve's and
	// lldb's, do not fire in a VM without debug registers: where it stops
	// is not asserted.)
	ps, err := sv.SetDataBreakpoints(ctx, "c", []dap.Watch{{Name: "sum"}})
	if err != nil || len(ps) != 1 || !ps[0].Verified || ps[0].Access != "write" || ps[0].Target != "sum" {
		t.Fatalf("data_breakpoints on sum: %+v %v", ps, err)
	}
	if ps, err = sv.SetDataBreakpoints(ctx, "c", nil); err != nil || len(ps) != 0 {
		t.Fatalf("clearing the data breakpoints: %+v %v", ps, err)
	}
	st := do(t, sv, "c", root, request{Op: "stack"}).Frames[0]
	do(t, sv, "c", root, request{Op: "breakpoints", File: "main.go"})

	// An instruction breakpoint at the top frame's instruction: the next
	// turn of the loop stops there.
	ip := st.Instruction
	ibs, err := sv.SetInstructionBreakpoints(ctx, "c", []dap.InstructionBreakpoint{{Reference: ip}})
	if err != nil || len(ibs) != 1 || !ibs[0].Verified {
		t.Fatalf("instruction_breakpoints at %s: %+v %v", ip, ibs, err)
	}
	o, err := sv.Continue(ctx, "c", 0)
	stop := stoppedAt(t, "continue onto the instruction breakpoint", o, err, 9, "")
	if stop.Frames[0].Instruction != ip {
		t.Fatalf("the instruction breakpoint stopped at %s, not %s", stop.Frames[0].Instruction, ip)
	}
	evaluates(t, sv, root, "i", "1")

	// restart: the program runs again from the start, to the same
	// instruction with i at 0.
	o, err = sv.Restart(ctx, "c")
	stoppedAt(t, "restart", o, err, 9, "")
	evaluates(t, sv, root, "i", "0")

	// A watch on what is not a variable is refused with delve's reason.
	// A watch delve cannot place comes back unverified, with its reason.
	ps, err = sv.SetDataBreakpoints(ctx, "c", []dap.Watch{{Name: "42"}})
	if err != nil || len(ps) != 1 || ps[0].Verified || ps[0].Message == "" {
		t.Fatalf("a watch on a constant should be unverified, with delve's reason: %+v %v", ps, err)
	}
	_, err = sv.Goto(ctx, "c", root, "main.go", 10, 0)
	refused(t, err, "goto where delve lacks it", "the delve adapter cannot jump to a line", "data_breakpoints")
}

// pyJump computes total in two steps, then fails on a missing key.
const pyJump = `def tick(i):
    total = i * 10
    total = total + 1
    return total


print("got", tick(4))
d = {}
print(d["missing"])
`

// TestGotoCompletionsDebugpy: with real debugpy stopped at tick's return,
// goto jumps back a line, which runs again; completions completes a
// local's name; custom sends a request by name and bounds its answer, and
// refuses a request tether sends for an op of its own; exception_info
// describes the uncaught KeyError the program stops on; restart, which
// debugpy lacks, is refused naming what it offers.
func TestGotoCompletionsDebugpy(t *testing.T) {
	t.Parallel()
	sv, root := breakAt{pyTarget("debugpy", "jump.py", pyJump), "jump.py", 4}.stopped(t)
	ctx := ctxT(t)
	evaluates(t, sv, root, "total", "41")

	o, err := sv.Goto(ctx, "c", root, "jump.py", 3, 0)
	stoppedAt(t, "goto line 3", o, err, 3, "goto")
	o, err = sv.StepOver(ctx, "c", 0)
	stoppedAt(t, "step_over the jumped-to line", o, err, 4, "")
	evaluates(t, sv, root, "total", "42")
	_, err = sv.Goto(ctx, "c", root, "jump.py", 1000, 0)
	refused(t, err, "goto past the end", "line 1000")

	cs, err := sv.Completions(ctx, "c", "tot", 0, 0, 0)
	if err != nil || cs.Column != 4 || !slices.ContainsFunc(cs.Items, func(c dap.Completion) bool { return c.Label == "total" }) {
		t.Fatalf("completions of tot should offer total: %+v %v", cs, err)
	}

	a, err := sv.Custom(ctx, "c", "threads", nil)
	if err != nil || !strings.Contains(a.Body, "MainThread") || a.Cut {
		t.Fatalf("custom threads: %+v %v", a, err)
	}
	frame := do(t, sv, "c", root, request{Op: "stack"}).Frames[0].ID
	args := fmt.Sprintf(`{"expression": "'x' * 100000", "frameId": %d, "context": "repl"}`, frame)
	a, err = sv.Custom(ctx, "c", "evaluate", json.RawMessage(args))
	if err != nil || !a.Cut || len(a.Body) > dap.MaxCustomAnswer || a.Bytes <= dap.MaxCustomAnswer {
		t.Fatalf("custom evaluate of a long string should be cut at %d bytes: %d bytes, cut %v, %v", dap.MaxCustomAnswer, a.Bytes, a.Cut, err)
	}
	_, err = sv.Custom(ctx, "c", "continue", json.RawMessage(`{"threadId": 1}`))
	refused(t, err, "custom continue", "use op continue")
	_, err = sv.Custom(ctx, "c", "evaluate", json.RawMessage(`[1]`))
	refused(t, err, "custom with arguments not an object", "must be a JSON object")

	_, err = sv.Restart(ctx, "c")
	refused(t, err, "restart", "the debugpy adapter cannot restart the program", "goto, completions, exception_info")

	o, err = sv.Continue(ctx, "c", 0)
	stoppedAt(t, "continue to the KeyError", o, err, 9, "exception")
	ex, err := sv.ExceptionInfo(ctx, "c", 0)
	if err != nil || !strings.Contains(ex.ID, "KeyError") || !strings.Contains(ex.Description, "missing") {
		t.Fatalf("exception_info should describe the KeyError: %+v %v", ex, err)
	}
	if ex.Details == nil || !strings.Contains(ex.Details.StackTrace, "jump.py") {
		t.Fatalf("exception_info should give the traceback: %+v", ex.Details)
	}
}

// cWatch adds to sum in a loop (line 6), then reads through a null
// pointer (line 10).
const cWatch = `#include <stdio.h>

int main(void) {
	int sum = 0;
	for (int i = 0; i < 6; i++) {
		sum += i;
	}
	printf("sum %d\n", sum);
	int *p = 0;
	return *p;
}
`

// TestWatchRestartLLDB: with real lldb-dap stopped in cWatch's loop, a
// data breakpoint on sum (by its scope's reference) is placed and
// cleared; completions completes a local's name; restart runs the program
// again to its breakpoint with i back at 0; exception_info describes the
// signal the null read stops on; goto, which lldb-dap 19 lacks, is refused
// naming what it offers.
func TestWatchRestartLLDB(t *testing.T) {
	t.Parallel()
	sv, root := breakAt{cTarget("lldb", "watch", "main.c", cWatch), "main.c", 6}.stopped(t)
	ctx := ctxT(t)

	ref := do(t, sv, "c", root, request{Op: "scopes"}).Scopes[0].Reference
	ps, err := sv.SetDataBreakpoints(ctx, "c", []dap.Watch{{Name: "sum", Reference: ref, Access: "write"}})
	if err != nil || len(ps) != 1 || !ps[0].Verified || ps[0].Description == "" {
		t.Fatalf("data_breakpoints on sum: %+v %v", ps, err)
	}
	t.Logf("watch: %+v", ps[0])
	if ps, err = sv.SetDataBreakpoints(ctx, "c", []dap.Watch{}); err != nil || len(ps) != 0 {
		t.Fatalf("clearing the data breakpoints: %+v %v", ps, err)
	}
	_, err = sv.SetDataBreakpoints(ctx, "c", []dap.Watch{{Name: "sum", Reference: ref, Access: "sometimes"}})
	refused(t, err, "a watch with an unknown access", `access "sometimes" is not one of write, read, readWrite`)

	cs, err := sv.Completions(ctx, "c", "su", 0, 0, 0)
	if err != nil || !slices.ContainsFunc(cs.Items, func(c dap.Completion) bool { return c.Label == "sum" || strings.HasPrefix(c.Label, "sum ") }) {
		t.Fatalf("completions of su should offer sum: %+v %v", cs, err)
	}

	o, err := sv.Continue(ctx, "c", 0)
	stoppedAt(t, "continue", o, err, 6, "breakpoint")
	evaluates(t, sv, root, "i", "1")
	o, err = sv.Restart(ctx, "c")
	stoppedAt(t, "restart", o, err, 6, "")
	evaluates(t, sv, root, "i", "0")

	do(t, sv, "c", root, request{Op: "breakpoints", File: "main.c"})
	o, err = sv.Continue(ctx, "c", 0)
	stoppedAt(t, "continue to the null read", o, err, 10, "exception")
	ex, err := sv.ExceptionInfo(ctx, "c", 0)
	if err != nil || !strings.Contains(ex.ID+ex.Description, "SIGSEGV") {
		t.Fatalf("exception_info should name the SIGSEGV: %+v %v", ex, err)
	}
	_, err = sv.Goto(ctx, "c", root, "main.c", 4, 0)
	refused(t, err, "goto", "the lldb adapter cannot jump to a line", "data_breakpoints, restart")
}

// jsRestart counts add's calls before it returns (line 5).
const jsRestart = `let calls = 0;
function add(a, b) {
  calls++;
  const s = a + b;
  return s;
}
console.log(add(1, 2), calls);
`

// TestRestartFrameNode: with real node stopped at add's return, through
// tether's own adapter, restart_frame runs add again from its first line
// (its side effects so far stay: calls is still 1), and the program then
// counts a second call; completions, which node's adapter lacks, is
// refused naming what it offers.
func TestRestartFrameNode(t *testing.T) {
	t.Parallel()
	needNode := func(t *testing.T) string { return testenv.RequireBinary(t, "node") }
	tg := target{name: "node", need: needNode, files: map[string]string{"package.json": "{}\n", "add.js": jsRestart}, program: "add.js"}
	sv, root := breakAt{tg, "add.js", 5}.stopped(t)
	ctx := ctxT(t)
	evaluates(t, sv, root, "calls", "1")

	o, err := sv.RestartFrame(ctx, "c", 0, 0)
	stoppedAt(t, "restart_frame", o, err, 3, "restart")
	evaluates(t, sv, root, "calls", "1")
	o, err = sv.StepOver(ctx, "c", 0)
	stoppedAt(t, "step_over", o, err, 4, "")
	evaluates(t, sv, root, "calls", "2")

	_, err = sv.Completions(ctx, "c", "cal", 0, 0, 0)
	refused(t, err, "completions", "the node adapter cannot complete expressions", "restart_frame, exception_info")
	do(t, sv, "c", root, request{Op: "breakpoints", File: "add.js"})
	runsToEnd(t, sv, root, "3 2")
}

// cTicks runs for about six seconds after its first tick.
const cTicks = `#include <stdio.h>
#include <unistd.h>
int main(void) {
	for (int i = 0; i < 6; i++) {
		printf("tick %d\n", i);
		fflush(stdout);
		sleep(1);
	}
	printf("done\n");
	return 7;
}
`

// TestRestartKeepsTheProgramLLDB: after a restart, the first program's
// end is not the new one's: a continue that runs for seconds ends with
// the new program's own exit code and all its output.
func TestRestartKeepsTheProgramLLDB(t *testing.T) {
	t.Parallel()
	sv, root := breakAt{cTarget("lldb", "ticks", "main.c", cTicks), "main.c", 5}.stopped(t)
	ctx := ctxT(t)
	o, err := sv.Restart(ctx, "c")
	stoppedAt(t, "restart", o, err, 5, "")
	do(t, sv, "c", root, request{Op: "breakpoints", File: "main.c"})
	c := do(t, sv, "c", root, request{Op: "continue"})
	if c.Exited == nil || !c.Exited.Known || c.Exited.Code != 7 || !strings.Contains(c.Exited.Output, "done") {
		t.Fatalf("the restarted program should run to its own end, exit code 7 after \"done\": %s", c)
	}
}
