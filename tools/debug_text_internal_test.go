package tools

import "context"
import "slices"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/bridges/dap"

// TestDebugText pins what the debug tool says about each kind of answer the
// supervisor gives: the cut notes and what to do next, which tests that
// drive the real adapters check as facts (bridges/dap).
//
// Over 120 lines: a table of the supervisor's answers, one row per kind,
// and what each must say.
func TestDebugText(t *testing.T) {
	stop := &dap.Stop{Reason: "breakpoint", ThreadID: 1, File: "/p/main.py", Line: 10, Source: "y = add(x, 1)",
		Frames: []dap.Frame{{ID: 3, Name: "main", File: "/p/main.py", Line: 10}}}
	cutVars := make([]dap.Variable, 50)
	for i := range cutVars {
		cutVars[i] = dap.Variable{Name: "v", Value: "1", Cut: i < 5}
	}
	frames := make([]dap.Frame, 30)
	threads := make([]dap.Thread, dap.MaxThreads)
	cases := []struct {
		name  string
		write func(b *strings.Builder)
		want  []string // in this order
		not   []string
	}{
		{"stop", func(b *strings.Builder) { writeOutcome(b, &dap.Outcome{Stop: stop}) },
			[]string{"stopped (breakpoint) at /p/main.py:10 on thread 1", "\n  10 | y = add(x, 1)", "\ntop frames:\n- [frame 3] main at /p/main.py:10"}, nil},
		{"exception in the runtime", func(b *strings.Builder) {
			writeStop(b, &dap.Stop{Reason: "exception", Description: "panic", ThreadID: 1, File: "/go/src/runtime/map.go", Line: 5,
				Exception: "panic: assignment to entry in nil map", UserFrame: &dap.Frame{ID: 2, Name: "main.main", File: "/p/main.go", Line: 7}, UserSource: "m[1] = 2"})
		}, []string{"stopped (exception) at /go/src/runtime/map.go:5", "\nexception: panic: assignment to entry in nil map",
			"\nin the program's own code: [frame 2] main.main at /p/main.go:7", "\n  7 | m[1] = 2"}, []string{": panic\n"}},
		{"stop outside the workspace", func(b *strings.Builder) {
			writeStop(b, &dap.Stop{Reason: "breakpoint", ThreadID: 1, File: "/elsewhere/secret.py", Line: 1, SourceOutside: true})
		}, []string{"stopped (breakpoint) at /elsewhere/secret.py:1 on thread 1", "\n  (source outside the workspace: not shown)"}, []string{" | "}},
		{"stop without a stack", func(b *strings.Builder) {
			writeOutcome(b, &dap.Outcome{Stop: &dap.Stop{Reason: "entry", ThreadID: 1}, StackError: "no goroutine"})
		}, []string{"stopped (entry) at an unknown location on thread 1", "\nits stack could not be read: no goroutine; continue or step to run on"}, nil},
		{"already stopped", func(b *strings.Builder) { writeOutcome(b, &dap.Outcome{AlreadyStopped: true, Stop: stop}) },
			[]string{"already stopped; stopped (breakpoint)"}, nil},
		{"running", func(b *strings.Builder) { writeOutcome(b, &dap.Outcome{Running: true, Waited: 3 * time.Second}) },
			[]string{"the program is running (no stop within 3s); use pause to stop it, or status / continue later"}, nil},
		{"running, not waited", func(b *strings.Builder) { writeOutcome(b, &dap.Outcome{Running: true}) },
			[]string{"the program is running; use pause to stop it, or set breakpoints and wait with status"}, nil},
		{"exit", func(b *strings.Builder) {
			writeOutcome(b, &dap.Outcome{Exited: &dap.Exit{Code: 3, Known: true, Output: "--- stdout ---\nbye\n", OutputBytes: 4}})
		}, []string{"the program exited with code 3; 4 bytes of output kept, the end of it (op output for all):\n--- stdout ---\nbye"}, nil},
		{"exit unreported", func(b *strings.Builder) {
			writeExit(b, &dap.Exit{Unreported: true, PID: 42, Adapter: "debugpy", Leftovers: []string{"77 sleep 600"}})
		}, []string{"the program (pid 42) exited, but the debugpy adapter has not reported its end or exit code: processes it started still run and hold its output open; ending the session killed them: 77 sleep 600; it wrote no output"}, nil},
		{"exit output cut", func(b *strings.Builder) {
			writeExit(b, &dap.Exit{Output: strings.Repeat("é", 3000), OutputBytes: 6000, OutputDropped: 10})
		}, []string{"the program ended; 6000 bytes of output kept (10 earlier bytes dropped), the end of it (op output for all):\n(cut) …" + strings.Repeat("é", 1000)}, nil},
		{"breakpoints", func(b *strings.Builder) {
			writeBreakpoints(b, "/p", []dap.BreakpointState{{File: "/p/main.c", Line: 7, Verified: true, ActualLine: 8},
				{File: "/p/other.c", Line: 1}, {File: "/p/x.c", Line: 99, Message: "no code at line 99"}, {File: "/q/y.c", Line: 2, Pending: true}})
		}, []string{"breakpoints:\n- main.c:7 verified (moved to line 8)", "\n- other.c:1 NOT verified: the adapter placed it on no code", "will not stop there",
			"\n- x.c:99 NOT verified: no code at line 99", "\n- /q/y.c:2 pending"}, nil},
		{"threads cut, running", func(b *strings.Builder) { writeThreads(b, &dap.Threads{Threads: threads, Total: 130, Running: true}) },
			[]string{"130 thread(s), 100 of 130 shown (the stopped thread first) while the program runs"}, nil},
		{"stack cut", func(b *strings.Builder) {
			writeStack(b, &dap.Stack{ThreadID: 1, Frames: frames, Total: 45, Exact: true}, false)
		},
			[]string{"thread 1: 30 of 45 frames shown (the outermost 15 cut); for more, call stack with start 30\n"}, []string{"thread_id"}},
		{"stack page", func(b *strings.Builder) {
			writeStack(b, &dap.Stack{ThreadID: 4, Start: 30, Frames: frames[:15], Total: 45, Exact: true}, true)
		},
			[]string{"thread 4: frames 30-44 of 45\n"}, []string{"for more"}},
		{"stack deeper than counted", func(b *strings.Builder) { writeStack(b, &dap.Stack{ThreadID: 4, Frames: frames, Total: 2000}, true) },
			[]string{"thread 4: 30 of more than 2000 frames shown; for more, call stack with start 30 and thread_id 4"}, nil},
		{"variables children", func(b *strings.Builder) {
			writeVariables(b, &dap.Variables{Reference: 1, Variables: cutVars, Total: 120, End: 50, Next: 50})
		}, []string{"children 0-49 of 120; for more, call variables with reference 1 and start 50; 5 value(s) cut at 400 chars\n- v = 1"}, nil},
		{"variables elements, last page", func(b *strings.Builder) {
			writeVariables(b, &dap.Variables{Reference: 9, Elements: true, Total: 200, Start: 150, End: 200})
		}, []string{"elements 150-199 of 200"}, []string{"for more"}},
		{"variables all elements", func(b *strings.Builder) {
			writeVariables(b, &dap.Variables{Reference: 9, Elements: true, Total: 3, End: 3,
				Variables: []dap.Variable{{Name: "[0]", Value: "[1 2]", Type: "[]int", Reference: 12, Indexed: 2}}})
		}, []string{"3 element(s)\n- [0] ([]int) = [1 2] [reference 12, 2 elements]"}, nil},
		{"variables none", func(b *strings.Builder) { writeVariables(b, &dap.Variables{Reference: 5}) },
			[]string{"no variables under reference 5: it has no children, or it is not a reference of the current stop (take reference from scopes"}, nil},
		{"evaluate", func(b *strings.Builder) {
			writeEvaluation(b, "x + 1", &dap.Variable{Name: "x + 1", Value: "42", Type: "int"})
		},
			[]string{"x + 1 = 42 (int)"}, nil},
		{"evaluate a statement", func(b *strings.Builder) { writeEvaluation(b, "import os", &dap.Variable{Name: "import os"}) },
			[]string{"import os: evaluated; it has no value"}, nil},
		{"scopes", func(b *strings.Builder) {
			writeScopes(b, &dap.Scopes{FrameID: 3, Scopes: []dap.Scope{{Name: "Locals", Reference: 4}, {Name: "Globals", Reference: 5, Expensive: true}}})
		}, []string{"frame 3: 2 scope(s)\n- Locals (reference 4)\n- Globals (reference 5) (expensive)"}, nil},
		{"output cut", func(b *strings.Builder) {
			writeOutput(b, &dap.Output{Text: "--- stdout ---\nx\n", Bytes: 4000, Dropped: 16000})
		},
			[]string{"output cut: the last 4000 bytes shown, 16000 earlier bytes dropped\n--- stdout ---\nx"}, nil},
		{"output of an ended session", func(b *strings.Builder) {
			writeOutput(b, &dap.Output{FromEnded: true, Ended: "the debugpy session ended at 10:00:00: terminated on request"})
		}, []string{"no output from the program yet\n(from the ended session: the debugpy session ended"}, nil},
		{"status live", func(b *strings.Builder) {
			writeStatus(b, &dap.Status{Session: "fake session (launch prog.fake)", Stop: stop, BreakpointLines: 2, BreakpointFiles: 1})
		}, []string{"live: fake session (launch prog.fake)\nstopped (breakpoint)", "\n2 breakpoint(s) requested in 1 file(s)"}, nil},
		{"status none", func(b *strings.Builder) { writeStatus(b, &dap.Status{}) }, []string{"no debug session is running"}, []string{";"}},
		{"status ended", func(b *strings.Builder) { writeStatus(b, &dap.Status{Ended: "its fixed TTL of 4s expired"}) },
			[]string{"no debug session is running; its fixed TTL of 4s expired"}, nil},
		{"terminate launch", func(b *strings.Builder) { writeTerminated(b, &dap.Terminated{Session: "S"}) },
			[]string{"terminated S; the adapter and the program's whole process tree were killed"}, nil},
		{"terminate attach", func(b *strings.Builder) { writeTerminated(b, &dap.Terminated{Session: "S", Attached: true}) },
			[]string{"ended S; detached from the attached program, which keeps running"}, nil},
		{"terminate nothing", func(b *strings.Builder) { writeTerminated(b, &dap.Terminated{}) },
			[]string{"no session is running; nothing to terminate"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			tc.write(&b)
			got := b.String()
			at := 0
			for _, w := range tc.want {
				i := strings.Index(got[at:], w)
				if i < 0 {
					t.Fatalf("want %q (after byte %d) in:\n%s", w, at, got)
				}
				at += i + len(w)
			}
			for _, w := range tc.not {
				if strings.Contains(got, w) {
					t.Fatalf("%q should not be in:\n%s", w, got)
				}
			}
		})
	}
}

// TestDebugDoOps: an op the schema would refuse still gets a clear answer
// from the dispatch, which lists the ops; an op that applies to the whole
// session refuses session; and breakpoints needs something to set.
func TestDebugDoOps(t *testing.T) {
	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()
	for _, tc := range []struct {
		req  debugRequest
		want string
	}{
		{debugRequest{Op: ""}, "debug: missing op; use one of adapters, status"},
		{debugRequest{Op: "frobnicate"}, `debug: unknown op "frobnicate"; use one of adapters`},
		{debugRequest{Op: "frobnicate", Session: 2}, "debug: frobnicate does not take session"},
		{debugRequest{Op: "status", Session: 2}, "debug: status does not take session; it applies to the whole session"},
		{debugRequest{Op: "breakpoints"}, "debug: breakpoints needs file (with lines or breakpoints; neither clears the file)"},
		{debugRequest{Op: "breakpoints", Lines: []int{3}}, "debug: breakpoints needs file with lines or breakpoints"},
		{debugRequest{Op: "continue"}, "debug: no debug session is running"},
	} {
		_, _, err := debugDo(context.Background(), sv, "c", t.TempDir(), tc.req)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.req, err, tc.want)
		}
	}
}

// TestDebugActions: every op the schema lists has an action and every
// action is listed; the ops that drive one session (runs, steps,
// inspection, the optional ops and custom) take session, the others
// refuse it.
func TestDebugActions(t *testing.T) {
	for _, op := range debugOps {
		if _, ok := debugActions[op]; !ok {
			t.Errorf("op %s has no action", op)
		}
	}
	if len(debugActions) != len(debugOps) {
		t.Errorf("%d actions for %d ops", len(debugActions), len(debugOps))
	}
	driving := append([]string{"continue", "pause", "step_over", "step_in", "step_out", "threads", "stack", "scopes", "variables", "evaluate", "custom"}, dap.OptionalOps()...)
	for op, a := range debugActions {
		if got, want := a.needs().session, slices.Contains(driving, op); got != want {
			t.Errorf("op %s: drives a session %v, want %v", op, got, want)
		}
	}
}

// TestDebugToolNumbers: the description and schema state the bridge's
// limits and the configured TTL.
func TestDebugToolNumbers(t *testing.T) {
	for ttl, want := range map[time.Duration]string{0: "ended after 30 minutes", time.Hour: "ended after 1 hour", 90 * time.Second: "ended after 90 seconds"} {
		sv := dap.NewSupervisor(dap.Config{TTL: ttl})
		tool := debugTool(sv, t.TempDir(), "c")
		sv.Close()
		if !strings.Contains(tool.Description, want) || !strings.Contains(tool.Description, "variables lists 50 children and stack 30 frames at a time") {
			t.Errorf("TTL %s: %s", ttl, tool.Description)
		}
		if !strings.Contains(string(tool.InputSchema), "longer than 50; stack: first frame to list (0 is the top), to page through a stack deeper than 30") {
			t.Errorf("schema: %s", tool.InputSchema)
		}
	}
}
