package tools

// The debug tool's session ops: adapters, status, launch, attach, output
// and terminate, each a call and its rendering.

import "context"
import "fmt"
import "strings"

import "github.com/tetherhq/tether/bridges/dap"

func callAdapters(ctx context.Context, c debugCall) ([]dap.AdapterStatus, error) {
	return c.sv.Adapters(ctx, c.root), nil
}

func renderAdapters(c debugCall, sts []dap.AdapterStatus, r *debugReply) string {
	r.Adapters = sts
	var b strings.Builder
	writeAdapters(&b, c.root, sts)
	return strings.TrimRight(b.String(), "\n")
}

// debugStatus is what op status reports: the conversation's state and the
// session's children.
type debugStatus struct {
	st       *dap.Status
	children []dap.Child
}

func callStatus(_ context.Context, c debugCall) (*debugStatus, error) {
	st, err := c.sv.Status(c.conv)
	if err != nil {
		return nil, err
	}
	return &debugStatus{st: st, children: c.sv.Children(c.conv)}, nil
}

func renderStatus(_ debugCall, s *debugStatus, r *debugReply) string {
	r.Session, r.Stop, r.Children = s.st.Session, s.st.Stop, s.children
	var b strings.Builder
	writeStatus(&b, s.st)
	return b.String()
}

func callLaunch(ctx context.Context, c debugCall) (*dap.Started, error) {
	req := c.req
	ReportStep(ctx, "debug: launching "+req.Program+" (starting the debug adapter)")
	return c.sv.Launch(ctx, c.conv, c.root, dap.LaunchArgs{Program: req.Program, Args: req.Args, Adapter: req.Adapter, Test: req.Test})
}

func callAttach(ctx context.Context, c debugCall) (*dap.Started, error) {
	req := c.req
	ReportStep(ctx, fmt.Sprintf("debug: attaching (pid %d, port %d; starting the debug adapter)", req.PID, req.Port))
	return c.sv.Attach(ctx, c.conv, c.root, dap.AttachArgs{PID: req.PID, Port: req.Port, Host: req.Host, Adapter: req.Adapter})
}

// renderStarted says what a launch or attach started, what confines it,
// where the program stopped (or that it ended) and the breakpoints' state.
func renderStarted(c debugCall, st *dap.Started, r *debugReply) string {
	r.Breakpoints, r.Session, r.Stop, r.Exited = st.Breakpoints, st.Session, st.Outcome.Stop, st.Outcome.Exited
	r.Adapter, r.AdapterReason = st.Adapter, st.AdapterReason
	var b strings.Builder
	fmt.Fprintf(&b, "started %s\n", st.Title)
	if st.AdapterReason != "" {
		fmt.Fprintf(&b, "adapter %s: %s\n", st.Adapter, st.AdapterReason)
	}
	if st.Sandbox != "" {
		fmt.Fprintf(&b, "%s\n", st.Sandbox)
	}
	if st.Limits != "" {
		fmt.Fprintf(&b, "limits: %s\n", st.Limits)
	}
	if len(st.Ops) > 0 {
		fmt.Fprintf(&b, "the adapter also offers %s\n", strings.Join(st.Ops, ", "))
	}
	writeOutcome(&b, &st.Outcome)
	if len(st.Breakpoints) > 0 {
		b.WriteString("\n")
		writeBreakpoints(&b, c.root, st.Breakpoints)
	}
	return strings.TrimRight(b.String(), "\n")
}

func callOutput(_ context.Context, c debugCall) (*dap.Output, error) {
	return c.sv.Output(c.conv)
}

func renderOutput(_ debugCall, out *dap.Output, r *debugReply) string {
	r.Output = out.Text
	var b strings.Builder
	writeOutput(&b, out)
	return strings.TrimRight(b.String(), "\n")
}

func callTerminate(_ context.Context, c debugCall) (*dap.Terminated, error) {
	return c.sv.Terminate(c.conv)
}

func renderTerminated(_ debugCall, t *dap.Terminated, _ *debugReply) string {
	return written(t, writeTerminated)
}
