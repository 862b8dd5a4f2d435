package dap_test

import "context"
import "path/filepath"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/bridges/dap"

// cMemory keeps a number and a string on the stack where the breakpoint
// (line 8) can read them.
const cMemory = `#include <stdio.h>
#include <string.h>

int main(void) {
	int x = 41;
	char buf[16];
	strcpy(buf, "hello memory");
	printf("%s %d\n", buf, x);
	return 0;
}
`

// cMem is cMemory built as mem, debugged with lldb-dap.
var cMem = cTarget("lldb", "mem", "main.c", cMemory)

// setsVariable sets name in the top frame's first scope to value, requires
// the adapter's answer and an evaluate of name to give value, and returns
// the scope's reference.
func setsVariable(t *testing.T, sv *dap.Supervisor, root, name, value string) int {
	t.Helper()
	ref := do(t, sv, "c", root, request{Op: "scopes"}).Scopes[0].Reference
	v, err := sv.SetVariable(ctxT(t), "c", ref, name, value)
	if err != nil {
		t.Fatal(err)
	}
	if v.Value != value {
		t.Fatalf("set_variable %s = %s answered %+v", name, value, v)
	}
	evaluates(t, sv, root, name, value)
	return ref
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// TestMoreOpsLLDB: with real lldb-dap on a program gcc built,
// disassemble lists the instructions at the stop, bounded at
// MaxInstructions; set_variable changes a local the program then prints;
// modules lists the program; the ops lldb-dap lacks is refused naming the
// adapter and the ops it offers.
func TestMoreOpsLLDB(t *testing.T) {
	t.Parallel()
	sv, root := breakAt{cMem, "main.c", 8}.stopped(t)
	ctx := ctxT(t)

	// lldb-dap 19 has no readMemory (TestReadMemoryLLDB uses a newer one).
	if _, err := sv.ReadMemory(ctx, "c", dap.MemoryArgs{Expression: "&x"}); err != nil && (!strings.Contains(err.Error(), "the lldb adapter cannot read memory") || !strings.Contains(err.Error(), "disassemble")) {
		t.Fatalf("read_memory, where lldb-dap lacks it, should be refused naming lldb and what it offers: %v", err)
	}

	_, err := sv.LoadedSources(ctx, "c", 0)
	refused(t, err, "loaded_sources", "the lldb adapter cannot", "disassemble")

	d, err := sv.Disassemble(ctx, "c", dap.MemoryArgs{Count: 500})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Cut || len(d.Instructions) == 0 || len(d.Instructions) > dap.MaxInstructions || d.Instructions[0].Text == "" || d.Instructions[0].Address == "" {
		t.Fatalf("disassemble should list instructions at the stop, at most %d: %+v", dap.MaxInstructions, d)
	}
	t.Logf("disassemble: %d instructions, first %+v", len(d.Instructions), d.Instructions[0])

	mods, err := sv.Modules(ctx, "c", 0)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, mod := range mods.Modules {
		found = found || mod.Name == "mem"
	}
	if !found || len(mods.Modules) > dap.MaxModules {
		t.Fatalf("modules should list the program mem: %+v", mods)
	}

	if x := localVar(t, sv, root, "x"); x.Value != "41" {
		t.Fatalf("x before set_variable: %+v", x)
	}
	setsVariable(t, sv, root, "x", "7")

	do(t, sv, "c", root, request{Op: "breakpoints", File: "main.c"})
	// The program should print the value set_variable gave x.
	runsToEnd(t, sv, root, "hello memory 7")
}

// TestSetVariableDelve: set_variable on a Go local changes what the
// program computes from it; an op delve lacks is refused naming delve.
func TestSetVariableDelve(t *testing.T) {
	t.Parallel()
	sv, root := breakAt{goTarget("delve", "loop", goLoop), "main.go", 12}.stopped(t)
	ctx := ctxT(t)
	ref := setsVariable(t, sv, root, "sum", "100")
	_, err := sv.SetVariable(ctx, "c", ref, "nosuch", "1")
	refused(t, err, "set_variable of a missing variable", "the adapter says")
	_, err = sv.LoadedSources(ctx, "c", 0)
	refused(t, err, "loaded_sources", "the delve adapter cannot", "set_variable")
	do(t, sv, "c", root, request{Op: "breakpoints", File: "main.go"})
	// The loop should add to the value set (100+0+1+2+3+4).
	runsToEnd(t, sv, root, "sum 110")
}

// TestSetVariableDebugpy: set_variable and set_expression on Python
// locals change what the program returns; modules lists loaded modules,
// bounded and paged.
func TestSetVariableDebugpy(t *testing.T) {
	t.Parallel()
	src := "def tick(i):\n    total = i * 10\n    return total\n\n\nprint('got', tick(4))\n"
	sv, root := breakAt{pyTarget("debugpy", "tick.py", src), "tick.py", 3}.stopped(t)
	ctx := ctxT(t)
	setsVariable(t, sv, root, "total", "7")
	v, err := sv.SetExpression(ctx, "c", "total", "total * 6", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if v.Value != "42" {
		t.Fatalf("set_expression total = total * 6 answered %+v", v)
	}
	mods, err := sv.Modules(ctx, "c", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(mods.Modules) == 0 || len(mods.Modules) > dap.MaxModules {
		t.Fatalf("modules should list up to %d modules: %+v", dap.MaxModules, mods)
	}
	_, err = sv.ReadMemory(ctx, "c", dap.MemoryArgs{Expression: "total"})
	refused(t, err, "read_memory", "the debugpy adapter cannot read memory")
	// The program should return the value set.
	runsToEnd(t, sv, root, "got 42")
}

// goMemory keeps a long string and a slice where the breakpoint (line 11)
// can read them; delve gives memory references to strings and slices.
const goMemory = `package main

import (
	"fmt"
	"strings"
)

func main() {
	msg := strings.Repeat("hello memory ", 100)
	xs := []int64{41, 42}
	fmt.Println(len(msg), xs)
}
`

// TestReadMemoryDelve: with real delve (lldb-dap 19 has no readMemory),
// read_memory reads a slice's and a string's bytes, by variable name and by
// the memory_reference variables gives, bounded at MaxMemory, and disassemble lists the instructions at the stop;
// a negative count is refused.
func TestReadMemoryDelve(t *testing.T) {
	t.Parallel()
	sv, root := breakAt{goTarget("delve", "mem", goMemory), "main.go", 11}.stopped(t)
	ctx := ctxT(t)
	m, err := sv.ReadMemory(ctx, "c", dap.MemoryArgs{Expression: "xs", Count: 16})
	if err != nil {
		t.Fatal(err)
	}
	// delve bounds a slice's reference by its length in elements, and
	// says the rest is unreadable.
	if len(m.Data) == 0 || m.Data[0] != 41 || len(m.Data)+m.Unreadable != 16 || m.Cut {
		t.Fatalf("read_memory xs should start with 41 as little-endian bytes, the rest counted unreadable: %+v", m)
	}
	ref := localVar(t, sv, root, "msg").MemoryReference
	if ref == "" {
		t.Fatal("delve should give the string msg a memory reference")
	}
	m, err = sv.ReadMemory(ctx, "c", dap.MemoryArgs{Reference: ref, Count: 5000})
	if err != nil {
		t.Fatal(err)
	}
	if !m.Cut || len(m.Data) == 0 || len(m.Data) > dap.MaxMemory || !strings.HasPrefix(string(m.Data), "hello memory hello") {
		t.Fatalf("read_memory of msg should start with its bytes, cut at %d: %+v\n%s", dap.MaxMemory, m, m.Dump())
	}
	t.Logf("read_memory:\n%s", m.Dump()[:min(len(m.Dump()), 300)])
	d, err := sv.Disassemble(ctx, "c", dap.MemoryArgs{Count: 5})
	if err != nil || len(d.Instructions) != 5 || d.Cut || d.Instructions[0].Text == "" {
		t.Fatalf("disassemble 5 should list 5 instructions: %+v %v", d, err)
	}
	if _, err := sv.ReadMemory(ctx, "c", dap.MemoryArgs{Expression: "xs", Count: -1}); err == nil || !strings.Contains(err.Error(), "read_memory: count -1 is not a byte count") {
		t.Errorf("read_memory of -1 bytes: %v", err)
	}
	if _, err := sv.Disassemble(ctx, "c", dap.MemoryArgs{Count: -2}); err == nil || !strings.Contains(err.Error(), "disassemble: count -2 is not an instruction count") {
		t.Errorf("disassemble of -2 instructions: %v", err)
	}
	runsToEnd(t, sv, root, "1300 [41 42]")
}

// TestAdapterOpsMatchCapabilities: the optional ops each built-in adapter's
// table entry lists (Adapter.Ops, which help and docs show) are the ones
// its real capabilities offer.
func TestAdapterOpsMatchCapabilities(t *testing.T) {
	t.Parallel()
	table := dap.DefaultAdapters()
	want := map[string][]string{}
	for _, a := range table {
		want[a.ID] = a.Ops
	}
	for _, tg := range []target{goTarget("delve", "loop", goLoop), pyTarget("debugpy", "count.py", pyCount), cMem} {
		t.Run(tg.name, func(t *testing.T) {
			t.Parallel()
			sv, root := tg.start(t)
			l := do(t, sv, "c", root, request{Op: "launch", Program: tg.program})
			if strings.Join(l.Started.Ops, ",") != strings.Join(want[tg.name], ",") {
				t.Errorf("%s offers %v; its table entry says %v", tg.name, l.Started.Ops, want[tg.name])
			}
		})
	}
}

// TestFollowEditDelve: with real delve stopped at a breakpoint, an edit
// that adds two lines above it moves the kept breakpoint two lines down
// and sends it to delve again, which places it.
func TestFollowEditDelve(t *testing.T) {
	t.Parallel()
	sv, root := breakAt{goTarget("delve", "loop", goLoop), "main.go", 12}.stopped(t)
	file := filepath.Join(root, "main.go")
	if got := sv.BreakpointFiles("c"); len(got) != 1 || got[0] != file {
		t.Fatalf("BreakpointFiles = %v", got)
	}
	after := strings.Replace(goLoop, "func add(", "// add adds.\n// It is small.\nfunc add(", 1)
	m, err := sv.FollowEdit(ctxT(t), "c", file, []byte(goLoop), []byte(after))
	if err != nil {
		t.Fatal(err)
	}
	if m == nil || len(m.To) != 1 || m.From[0] != 12 || m.To[0] != 14 || m.Adapter != "delve" || !m.Running {
		t.Fatalf("the breakpoint should move from 12 to 14: %+v", m)
	}
	if len(m.States) != 1 || m.States[0].Line != 14 || !m.States[0].Verified {
		t.Fatalf("delve should place the moved breakpoint: %+v", m.States)
	}
	if m, err := sv.FollowEdit(ctxT(t), "c", file, []byte(after), []byte(after+"// end\n")); err != nil || m != nil {
		t.Fatalf("an edit below the breakpoint should move nothing: %+v %v", m, err)
	}
}

// pySleeps stops at line 8, then sleeps while a continue waits for it;
// the lines the test's edit moves its breakpoints to (7, 10) never run.
const pySleeps = `import time


def never():
    return 1


print("start")
time.sleep(4)
`

// TestFollowEditWhileRunning: an edit made while a continue waits for the
// program is not held up by it; the breakpoints move with the edit once
// the continue ends.
func TestFollowEditWhileRunning(t *testing.T) {
	t.Parallel()
	sv, root := pyTarget("debugpy", "sleeps.py", pySleeps).start(t)
	do(t, sv, "c", root, request{Op: "breakpoints", File: "sleeps.py", Lines: []int{5, 8}})
	launchStops(t, sv, root, 8, "sleeps.py")
	contDone := make(chan *reply, 1)
	go func() {
		r, _ := call(sv, ctxT(t), "c", root, request{Op: "continue"})
		contDone <- r
	}()
	file := filepath.Join(root, "sleeps.py")
	after := "# one\n# two\n" + pySleeps
	// Wait (bounded) until the continue holds the conversation: it then
	// waits seconds for the program.
	for i := 0; i < 500 && !sv.Busy("c"); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	m, err := sv.FollowEdit(ctxT(t), "c", file, []byte(pySleeps), []byte(after))
	if err != nil || m == nil || !m.Deferred {
		t.Fatalf("an edit during the continue should be queued, not wait: %+v %v", m, err)
	}
	select {
	case r := <-contDone:
		t.Fatalf("FollowEdit waited for the continue to end: %s", r)
	default:
	}
	if r := <-contDone; r == nil || r.Exited == nil {
		t.Fatalf("the continue should run the program to its end: %s", r)
	}
	// The queued edit is followed once the continue lets go of the
	// conversation, on its own goroutine: a bounded poll, generous for a
	// loaded machine (it ends as soon as the lines moved).
	var lines []int
	for i := 0; i < 1500; i++ {
		lines = nil
		for _, b := range sv.KeptBreakpoints("c", file) {
			lines = append(lines, b.Line)
		}
		if len(lines) == 2 && lines[0] == 7 && lines[1] == 10 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the queued edit should move the breakpoints 5, 8 to 7, 10: %v", lines)
}
