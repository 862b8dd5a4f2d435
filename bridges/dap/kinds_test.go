package dap_test

import "strings"
import "testing"

import "github.com/tetherhq/tether/bridges/dap"
import "github.com/tetherhq/tether/internal/testenv"

// pyCount calls tick five times; line 3 runs once per call.
const pyCount = `def tick(i):
    total = i * 10
    return total


for i in range(5):
    tick(i)
print("done")
`

// goLoop calls add five times from a loop.
const goLoop = `package main

import "fmt"

func add(a, b int) int {
	return a + b
}

func main() {
	sum := 0
	for i := 0; i < 5; i++ {
		sum = add(sum, i)
	}
	fmt.Println("sum", sum)
}
`

// TestHitConditionDebugpy: a breakpoint with hit condition 3 stops on the
// third hit only (i == 2), and continuing runs to the end.
func TestHitConditionDebugpy(t *testing.T) {
	t.Parallel()
	sv, root := pyTarget("debugpy", "count.py", pyCount).start(t)
	bp := do(t, sv, "c", root, request{Op: "breakpoints", File: "count.py", Breakpoints: []dap.SourceBreakpoint{{Line: 3, HitCondition: "3"}}})
	if len(bp.Breakpoints) != 1 || bp.Breakpoints[0].HitCondition != "3" || !bp.Breakpoints[0].Pending {
		t.Fatalf("the pending breakpoint should keep its hit condition: %s", bp)
	}
	launchStops(t, sv, root, 3, "count.py")
	evaluates(t, sv, root, "i", "2")
	// After the third hit the program runs to its end.
	runsToEnd(t, sv, root)
	testenv.RequireNoProcs(t, root)
}

// TestConditionDelve: a conditional breakpoint stops where the condition
// holds, and only there.
func TestConditionDelve(t *testing.T) {
	t.Parallel()
	sv, root := goTarget("delve", "loop", goLoop).start(t)
	do(t, sv, "c", root, request{Op: "breakpoints", File: "main.go", Breakpoints: []dap.SourceBreakpoint{{Line: 12, Condition: "i == 3"}}})
	launchStops(t, sv, root, 12, ".")
	evaluates(t, sv, root, "i", "3")
	evaluates(t, sv, root, "sum", "3")
	// The condition holds once.
	runsToEnd(t, sv, root)
}

// TestFunctionBreakpointDelve: a function breakpoint on main.add stops in
// add; a live change to a line logpoint prints without stopping.
func TestFunctionBreakpointDelve(t *testing.T) {
	t.Parallel()
	sv, root := goTarget("delve", "loop", goLoop).start(t)
	do(t, sv, "c", root, request{Op: "functions", Functions: []string{"main.add"}})
	l := do(t, sv, "c", root, request{Op: "launch", Program: "."})
	if l.Stop == nil || l.Stop.Line != 5 || len(l.Stop.Frames) == 0 || !strings.Contains(l.Stop.Frames[0].Name, "add") {
		t.Fatalf("launch should stop in add at the function breakpoint: %s", l)
	}
	if len(l.Breakpoints) != 1 || l.Breakpoints[0].Function != "main.add" || !l.Breakpoints[0].Verified {
		t.Fatalf("the function breakpoint should be verified: %s", l)
	}
	// Filters delve does not offer are refused, naming what it offers.
	msg := doErr(t, sv, "c", root, request{Op: "exception_filters", Filters: []string{"raised"}})
	if !strings.Contains(msg, "delve") || !strings.Contains(msg, "function breakpoints") {
		t.Fatal(msg)
	}
	do(t, sv, "c", root, request{Op: "functions", Functions: []string{}})
	do(t, sv, "c", root, request{Op: "breakpoints", File: "main.go", Breakpoints: []dap.SourceBreakpoint{{Line: 6, LogMessage: "adding {a} and {b}"}}})
	logsWithoutStop(t, sv, root, do(t, sv, "c", root, request{Op: "continue"}), "adding 0 and 1", "sum 10")
}

// TestLogpointDebugpy: a logpoint writes each hit to the output and never
// stops; an exception filter the adapter lacks is refused naming those it
// offers.
func TestLogpointDebugpy(t *testing.T) {
	t.Parallel()
	sv, root := pyTarget("debugpy", "count.py", pyCount).start(t)
	do(t, sv, "c", root, request{Op: "breakpoints", File: "count.py", Breakpoints: []dap.SourceBreakpoint{{Line: 3, LogMessage: "total is {total}"}}})
	do(t, sv, "c", root, request{Op: "exception_filters", Filters: []string{"nosuch"}})
	msg := doErr(t, sv, "c", root, request{Op: "launch", Program: "count.py"})
	if !strings.Contains(msg, "debugpy") || !strings.Contains(msg, `"nosuch"`) || !strings.Contains(msg, "uncaught") {
		t.Fatal(msg)
	}
	do(t, sv, "c", root, request{Op: "exception_filters", Filters: []string{"uncaught"}})
	logsWithoutStop(t, sv, root, do(t, sv, "c", root, request{Op: "launch", Program: "count.py"}), "total is 40", "done")
}

// TestFakeRefusesKinds: an adapter whose initialize answer offers no
// conditions, hit conditions, logpoints, function breakpoints or exception
// filters has each refused, naming the adapter and what it offers: on the
// live session at once, and for kept ones at launch.
func TestFakeRefusesKinds(t *testing.T) {
	sv, root := fakeSupervisor(t, &fakeAdapter{}, dap.Config{})
	do(t, sv, "c", root, request{Op: "breakpoints", File: "prog.fake", Breakpoints: []dap.SourceBreakpoint{{Line: 2, Condition: "x > 1"}}})
	msg := doErr(t, sv, "c", root, request{Op: "launch", Program: "prog.fake"})
	if !strings.Contains(msg, "the fake adapter has no breakpoint conditions; it offers line breakpoints, no exception filters") || !strings.Contains(msg, "launch again") {
		t.Fatal(msg)
	}
	do(t, sv, "c", root, request{Op: "breakpoints", File: "prog.fake", Lines: []int{2}})
	if l := do(t, sv, "c", root, request{Op: "launch", Program: "prog.fake"}); l.Stop == nil {
		t.Fatalf("plain line breakpoints should still work: %s", l)
	}
	for _, tc := range []struct {
		req  request
		want string
	}{
		{request{Op: "breakpoints", File: "prog.fake", Breakpoints: []dap.SourceBreakpoint{{Line: 2, HitCondition: "3"}}}, "no breakpoint hit conditions"},
		{request{Op: "breakpoints", File: "prog.fake", Breakpoints: []dap.SourceBreakpoint{{Line: 2, LogMessage: "x"}}}, "no breakpoint log messages"},
		{request{Op: "breakpoints", File: "prog.fake", Breakpoints: []dap.SourceBreakpoint{{Line: 2}, {Line: 2, Condition: "y"}}}, "line 2 is given twice"},
		{request{Op: "functions", Functions: []string{"main"}}, "the fake adapter has no function breakpoints"},
		{request{Op: "exception_filters", Filters: []string{"raised"}}, `the fake adapter has no exception filter "raised"`},
	} {
		if msg := doErr(t, sv, "c", root, tc.req); !strings.Contains(msg, tc.want) || !strings.Contains(msg, "it offers") && !strings.Contains(msg, "twice") {
			t.Errorf("got %q, want %q and what the adapter offers", msg, tc.want)
		}
	}
	// A refusal changed nothing: the line breakpoint is still set.
	if st := do(t, sv, "c", root, request{Op: "status"}); st.Status.BreakpointLines != 1 {
		t.Fatalf("a refused change should keep the breakpoints: %s", st)
	}
}
