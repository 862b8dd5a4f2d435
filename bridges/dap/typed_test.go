package dap_test

import "context"
import "errors"
import "testing"

import "github.com/tetherhq/tether/bridges/dap"

// TestFakeTypedMethods drives the Supervisor's methods directly and checks
// the facts each returns: pending then placed breakpoints, the first stop,
// a stack page past the first, a variables page, a statement's empty value,
// the output, and what terminate ended.
func TestFakeTypedMethods(t *testing.T) {
	sv, root := fakeSupervisor(t, &fakeAdapter{nVars: 120, nFrames: 45}, dap.Config{})
	ctx := context.Background()
	bp, err := sv.SetBreakpoints(ctx, "c", root, "prog.fake", []int{2, 2, 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(bp.Lines) != 2 || bp.Lines[0] != 1 || len(bp.States) != 2 || !bp.States[0].Pending {
		t.Fatalf("lines sorted and deduplicated, pending before launch: %+v", bp)
	}
	st, err := sv.Launch(ctx, "c", root, dap.LaunchArgs{Program: "prog.fake"})
	if err != nil {
		t.Fatal(err)
	}
	if st.Title == "" || st.Session == "" || st.Outcome.Stop == nil || st.Outcome.Running || st.Outcome.Exited != nil {
		t.Fatalf("launch should stop: %+v", st)
	}
	if len(st.Breakpoints) != 2 || st.Breakpoints[0].Pending {
		t.Fatalf("breakpoints are sent at launch: %+v", st.Breakpoints)
	}
	stack, err := sv.Stack(ctx, "c", 0, 30)
	if err != nil {
		t.Fatal(err)
	}
	if stack.Start != 30 || len(stack.Frames) != 15 || stack.Total != 45 || !stack.Exact || stack.ThreadID == 0 {
		t.Fatalf("stack from 30: %+v", stack)
	}
	vars, err := sv.Variables(ctx, "c", 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	if vars.Elements || vars.Start != 100 || vars.End != 120 || vars.Total != 120 || vars.Next != 0 || len(vars.Variables) != 20 {
		t.Fatalf("variables from 100: %+v", vars)
	}
	status, err := sv.Status("c")
	if err != nil {
		t.Fatal(err)
	}
	if status.Session == "" || status.Stop == nil || status.BreakpointLines != 2 || status.BreakpointFiles != 1 {
		t.Fatalf("status: %+v", status)
	}
	out, err := sv.Output("c")
	if err != nil || out.FromEnded {
		t.Fatalf("output of the live session: %+v, %v", out, err)
	}
	term, err := sv.Terminate("c")
	if err != nil || term.Session == "" || term.Attached {
		t.Fatalf("terminate: %+v, %v", term, err)
	}
	if term, err = sv.Terminate("c"); err != nil || term.Session != "" || term.Previous == "" {
		t.Fatalf("terminate with none live says why the last one ended: %+v, %v", term, err)
	}
	if out, err = sv.Output("c"); err != nil || !out.FromEnded || out.Ended == "" {
		t.Fatalf("output after the end is the ended session's: %+v, %v", out, err)
	}
	if _, err := sv.Continue(ctx, "c", 0); err == nil || errors.Is(err, context.Canceled) {
		t.Fatalf("continue with no session: %v", err)
	}
}
