package tools

// The debug tool's run ops: continue, pause and the steps, each one call
// of the Supervisor whose outcome says where the program stopped.

import "context"
import "strings"

import "github.com/tetherhq/tether/bridges/dap"

// callResume is the call of a run op: method runs the program (of the
// session the call drives) on the request's thread.
func callResume(method func(*dap.Supervisor, context.Context, string, int) (*dap.Outcome, error)) func(context.Context, debugCall) (*dap.Outcome, error) {
	return func(ctx context.Context, c debugCall) (*dap.Outcome, error) {
		return method(c.sv, ctx, c.conv, c.req.ThreadID)
	}
}

// renderOutcome says where the program stopped, that it ended, or that it
// runs.
func renderOutcome(_ debugCall, o *dap.Outcome, r *debugReply) string {
	r.Stop, r.Exited = o.Stop, o.Exited
	var b strings.Builder
	writeOutcome(&b, o)
	return strings.TrimRight(b.String(), "\n")
}
