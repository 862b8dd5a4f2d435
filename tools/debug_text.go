package tools

// The debug tool's text: what each op's facts say to the model.

import "fmt"
import "path/filepath"
import "strings"
import "time"

import "github.com/tetherhq/tether/bridges/dap"
import "github.com/tetherhq/tether/internal/textcut"

// Bounds of the end of a program's output shown when it exits.
const (
	exitTailLines = 20
	exitTailBytes = 2000
)

func writeAdapters(b *strings.Builder, root string, sts []dap.AdapterStatus) {
	fmt.Fprintf(b, "debug adapters for %s:\n", root)
	for _, st := range sts {
		if st.Usable {
			cmd := strings.NewReplacer("${socket}", "<socket tether listens on>", "${port}", "<free port tether picks>").Replace(strings.Join(st.Command, " "))
			fmt.Fprintf(b, "- %s: usable (marker %s; %s)\n", st.ID, st.Marker, cmd)
		} else {
			fmt.Fprintf(b, "- %s: unavailable: %s\n", st.ID, st.Reason)
		}
	}
}

func writeStatus(b *strings.Builder, st *dap.Status) {
	if st.Session != "" {
		fmt.Fprintf(b, "live: %s", st.Session)
		if st.Stop != nil {
			b.WriteString("\n")
			writeStop(b, st.Stop)
		}
	} else {
		b.WriteString("no debug session is running")
		if st.Ended != "" {
			fmt.Fprintf(b, "; %s", st.Ended)
		}
	}
	if st.BreakpointLines > 0 {
		fmt.Fprintf(b, "\n%d breakpoint(s) requested in %d file(s)", st.BreakpointLines, st.BreakpointFiles)
	}
}

// writeOutcome says where the program stopped, that it ended (with the end
// of its output), or that it runs.
func writeOutcome(b *strings.Builder, o *dap.Outcome) {
	if o.AlreadyStopped {
		b.WriteString("already stopped; ")
	}
	switch {
	case o.Stop != nil:
		writeStop(b, o.Stop)
		if o.StackError != "" {
			fmt.Fprintf(b, "\nits stack could not be read: %s; continue or step to run on", o.StackError)
		}
	case o.Exited != nil:
		writeExit(b, o.Exited)
	case o.Running && o.Waited == 0:
		b.WriteString("the program is running; use pause to stop it, or set breakpoints and wait with status")
	case o.Running:
		fmt.Fprintf(b, "the program is running (no stop within %s); use pause to stop it, or status / continue later", o.Waited.Round(time.Millisecond))
	}
}

func writeExit(b *strings.Builder, ex *dap.Exit) {
	if ex.Session > 0 {
		fmt.Fprintf(b, "child session %d ended (the session goes on): ", ex.Session)
	}
	switch {
	case ex.Known:
		fmt.Fprintf(b, "the program exited with code %d", ex.Code)
	case ex.Unreported:
		fmt.Fprintf(b, "the program (pid %d) exited, but the %s adapter has not reported its end or exit code", ex.PID, ex.Adapter)
		if len(ex.Leftovers) > 0 {
			fmt.Fprintf(b, ": processes it started still run and hold its output open; ending the session killed them: %s", strings.Join(ex.Leftovers, "; "))
		}
	default:
		b.WriteString("the program ended")
	}
	if ex.OutputBytes == 0 {
		b.WriteString("; it wrote no output")
		return
	}
	tail := textcut.LastLines(strings.TrimRight(ex.Output, "\n"), exitTailLines)
	if t := textcut.Suffix(tail, exitTailBytes); len(t) < len(tail) {
		tail = "(cut) …" + t
	}
	fmt.Fprintf(b, "; %d bytes of output kept", ex.OutputBytes)
	if ex.OutputDropped > 0 {
		fmt.Fprintf(b, " (%d earlier bytes dropped)", ex.OutputDropped)
	}
	fmt.Fprintf(b, ", the end of it (op output for all):\n%s", tail)
}

func writeStop(b *strings.Builder, st *dap.Stop) {
	where := "an unknown location"
	if st.File != "" {
		where = fmt.Sprintf("%s:%d", st.File, st.Line)
	}
	if st.Session > 0 {
		fmt.Fprintf(b, "child session %d (%q; pass session %d to drive it): ", st.Session, st.SessionName, st.Session)
	}
	fmt.Fprintf(b, "stopped (%s) at %s on thread %d", st.Reason, where, st.ThreadID)
	if st.Description != "" && st.Description != st.Reason && !strings.Contains(st.Exception, st.Description) {
		fmt.Fprintf(b, ": %s", st.Description)
	}
	if st.Exception != "" {
		fmt.Fprintf(b, "\nexception: %s", st.Exception)
	}
	if st.Source != "" {
		fmt.Fprintf(b, "\n  %d | %s", st.Line, st.Source)
	} else if st.SourceOutside {
		b.WriteString("\n  (source outside the workspace: not shown)")
	}
	if f := st.UserFrame; f != nil {
		fmt.Fprintf(b, "\nin the program's own code: [frame %d] %s at %s:%d", f.ID, f.Name, f.File, f.Line)
		if st.UserSource != "" {
			fmt.Fprintf(b, "\n  %d | %s", f.Line, st.UserSource)
		}
	}
	if len(st.Frames) > 0 {
		b.WriteString("\ntop frames:")
		writeFrames(b, st.Frames)
	}
}

func writeFrames(b *strings.Builder, fr []dap.Frame) {
	for _, f := range fr {
		fmt.Fprintf(b, "\n- [frame %d] %s", f.ID, f.Name)
		if f.File != "" {
			fmt.Fprintf(b, " at %s:%d", f.File, f.Line)
		}
	}
}

func writeThreads(b *strings.Builder, th *dap.Threads) {
	fmt.Fprintf(b, "%d thread(s)", th.Total)
	if len(th.Threads) < th.Total {
		fmt.Fprintf(b, ", %d of %d shown (the stopped thread first)", len(th.Threads), th.Total)
	}
	if th.Running {
		// delve lists a placeholder ("-1 Current") while the program runs.
		b.WriteString(" while the program runs (an adapter may list only a placeholder then; pause for the real list)")
	}
	for _, t := range th.Threads {
		fmt.Fprintf(b, "\n- %d %s", t.ID, t.Name)
	}
}

// writeStack says which frames of how many are shown and how to page on;
// threadGiven: the call named the thread, so the next page must too.
func writeStack(b *strings.Builder, st *dap.Stack, threadGiven bool) {
	fmt.Fprintf(b, "thread %d: ", st.ThreadID)
	start, fr, n := st.Start, st.Frames, st.Total
	end := start + len(fr) // one past the last frame shown
	switch {
	case start == 0 && n <= end:
		fmt.Fprintf(b, "%d frame(s)", len(fr))
	case start == 0 && st.Exact:
		fmt.Fprintf(b, "%d of %d frames shown (the outermost %d cut)", len(fr), n, n-end)
	case start == 0:
		fmt.Fprintf(b, "%d of more than %d frames shown", len(fr), n)
	case st.Exact:
		fmt.Fprintf(b, "frames %d-%d of %d", start, end-1, n)
	default:
		fmt.Fprintf(b, "frames %d-%d of more than %d", start, end-1, n)
	}
	if n > end {
		fmt.Fprintf(b, "; for more, call stack with start %d", end)
		if threadGiven {
			fmt.Fprintf(b, " and thread_id %d", st.ThreadID)
		}
	}
	writeFrames(b, fr)
}

func writeScopes(b *strings.Builder, sc *dap.Scopes) {
	fmt.Fprintf(b, "frame %d: %d scope(s)", sc.FrameID, len(sc.Scopes))
	for _, s := range sc.Scopes {
		fmt.Fprintf(b, "\n- %s (reference %d)", s.Name, s.Reference)
		if s.Expensive {
			b.WriteString(" (expensive)")
		}
	}
}

func writeVariables(b *strings.Builder, vs *dap.Variables) {
	switch {
	case vs.Elements && vs.End-vs.Start < vs.Total:
		fmt.Fprintf(b, "elements %d-%d of %d", vs.Start, vs.End-1, vs.Total)
	case vs.Elements:
		fmt.Fprintf(b, "%d element(s)", vs.Total)
	case vs.Total == 0:
		fmt.Fprintf(b, "no variables under reference %d: it has no children, or it is not a reference of the current stop (take reference from scopes (or from a variable listed by variables) at the current stop: references do not survive a step or continue)", vs.Reference)
		return
	case vs.Start > 0 || vs.End < vs.Total:
		fmt.Fprintf(b, "children %d-%d of %d", vs.Start, vs.End-1, vs.Total)
	default:
		fmt.Fprintf(b, "%d variable(s)", vs.Total)
	}
	if vs.Next > 0 {
		fmt.Fprintf(b, "; for more, call variables with reference %d and start %d", vs.Reference, vs.Next)
	}
	cut := 0
	for _, v := range vs.Variables {
		if v.Cut {
			cut++
		}
	}
	if cut > 0 {
		fmt.Fprintf(b, "; %d value(s) cut at %d chars", cut, dap.MaxValueLen)
	}
	for _, v := range vs.Variables {
		writeVariable(b, v)
	}
}

func writeVariable(b *strings.Builder, v dap.Variable) {
	fmt.Fprintf(b, "\n- %s", v.Name)
	if v.Type != "" {
		fmt.Fprintf(b, " (%s)", v.Type)
	}
	fmt.Fprintf(b, " = %s", v.Value)
	writeRef(b, v)
}

func writeRef(b *strings.Builder, v dap.Variable) {
	switch {
	case v.Reference != 0 && v.Indexed > 0:
		fmt.Fprintf(b, " [reference %d, %d elements]", v.Reference, v.Indexed)
	case v.Reference != 0:
		fmt.Fprintf(b, " [reference %d]", v.Reference)
	}
	if v.MemoryReference != "" {
		fmt.Fprintf(b, " [memory_reference %s]", v.MemoryReference)
	}
}

func writeEvaluation(b *strings.Builder, expr string, v *dap.Variable) {
	if v.Value == "" && v.Type == "" && v.Reference == 0 {
		// A statement (debugpy runs "import os" in the frame) has no value.
		fmt.Fprintf(b, "%s: evaluated; it has no value", expr)
		return
	}
	fmt.Fprintf(b, "%s = %s", expr, v.Value)
	if v.Type != "" {
		fmt.Fprintf(b, " (%s)", v.Type)
	}
	writeRef(b, *v)
}

func writeOutput(b *strings.Builder, out *dap.Output) {
	switch {
	case out.Bytes == 0 && out.Dropped == 0:
		b.WriteString("no output from the program yet")
	case out.Dropped > 0:
		fmt.Fprintf(b, "output cut: the last %d bytes shown, %d earlier bytes dropped\n%s", out.Bytes, out.Dropped, out.Text)
	default:
		fmt.Fprintf(b, "%d bytes of output\n%s", out.Bytes, out.Text)
	}
	if out.FromEnded {
		fmt.Fprintf(b, "\n(from the ended session: %s)", out.Ended)
	}
}

func writeTerminated(b *strings.Builder, t *dap.Terminated) {
	switch {
	case t.Session == "" && t.Previous != "":
		b.WriteString("no session is running; " + t.Previous)
	case t.Session == "":
		b.WriteString("no session is running; nothing to terminate")
	case t.Attached:
		b.WriteString("ended " + t.Session + "; detached from the attached program, which keeps running (it was started outside tether); the adapter tether started, if any, was killed")
	default:
		b.WriteString("terminated " + t.Session + "; the adapter and the program's whole process tree were killed")
	}
}

func writeBreakpoints(b *strings.Builder, root string, st []dap.BreakpointState) {
	b.WriteString("breakpoints:")
	for _, s := range st {
		if s.Function != "" {
			fmt.Fprintf(b, "\n- function %s ", s.Function)
			if s.File != "" && s.ActualLine != 0 {
				fmt.Fprintf(b, "(%s:%d) ", relTo(root, s.File), s.ActualLine)
			}
		} else {
			fmt.Fprintf(b, "\n- %s:%d ", relTo(root, s.File), s.Line)
		}
		if s.Condition != "" {
			fmt.Fprintf(b, "if %s ", s.Condition)
		}
		if s.HitCondition != "" {
			fmt.Fprintf(b, "on hit %s ", s.HitCondition)
		}
		if s.LogMessage != "" {
			fmt.Fprintf(b, "logs %q (does not stop) ", s.LogMessage)
		}
		if s.Function != "" && s.ActualLine != 0 {
			s.ActualLine = 0 // shown with the function
		}
		switch {
		case s.Pending:
			b.WriteString("pending")
		case s.Verified:
			b.WriteString("verified")
			if s.ActualLine != 0 && s.ActualLine != s.Line {
				fmt.Fprintf(b, " (moved to line %d)", s.ActualLine)
			}
		default:
			b.WriteString("NOT verified")
			if s.Message == "" {
				b.WriteString(": the adapter placed it on no code (a line without a statement, a file the program is not built from, or code not loaded yet); the program will not stop there unless it is verified later")
			}
		}
		if s.Message != "" {
			fmt.Fprintf(b, ": %s", s.Message)
		}
	}
}

// writeFilters says which exception filters are chosen, and what the
// adapter offers when a session is live.
func writeFilters(b *strings.Builder, chosen []string, offered []dap.ExceptionFilter) {
	if len(chosen) == 0 {
		b.WriteString("exception filters: none (the program stops on no exception)")
	} else {
		fmt.Fprintf(b, "exception filters: %s", strings.Join(chosen, ", "))
	}
	if offered == nil {
		b.WriteString("; no session yet: checked against the adapter's filters at launch or attach")
		return
	}
	if len(offered) == 0 {
		b.WriteString("; the adapter offers no exception filters")
		return
	}
	var all []string
	for _, f := range offered {
		all = append(all, fmt.Sprintf("%s (%s)", f.ID, f.Label))
	}
	fmt.Fprintf(b, "; the adapter offers %s", strings.Join(all, ", "))
}

// relTo is p relative to root when it lies under it, else p.
func relTo(root, p string) string {
	if r, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}
