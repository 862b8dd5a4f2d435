package tools

// The debug tool's inspection ops: threads, stack, scopes, variables and
// evaluate, each a call and its rendering.

import "context"
import "strings"

import "github.com/tetherhq/tether/bridges/dap"

func callThreads(ctx context.Context, c debugCall) (*dap.Threads, error) {
	return c.sv.Threads(ctx, c.conv)
}

func renderThreads(_ debugCall, th *dap.Threads, r *debugReply) string {
	r.Threads = th.Threads
	return written(th, writeThreads)
}

func callStack(ctx context.Context, c debugCall) (*dap.Stack, error) {
	return c.sv.Stack(ctx, c.conv, c.req.ThreadID, c.req.Start)
}

func renderStack(c debugCall, st *dap.Stack, r *debugReply) string {
	r.Frames = st.Frames
	var b strings.Builder
	writeStack(&b, st, c.req.ThreadID != 0)
	return b.String()
}

func callScopes(ctx context.Context, c debugCall) (*dap.Scopes, error) {
	return c.sv.Scopes(ctx, c.conv, c.req.ThreadID, c.req.FrameID)
}

func renderScopes(_ debugCall, sc *dap.Scopes, r *debugReply) string {
	r.Scopes = sc.Scopes
	return written(sc, writeScopes)
}

func callVariables(ctx context.Context, c debugCall) (*dap.Variables, error) {
	return c.sv.Variables(ctx, c.conv, c.req.Reference, c.req.Start)
}

func renderVariables(_ debugCall, vs *dap.Variables, r *debugReply) string {
	r.Variables = vs.Variables
	return written(vs, writeVariables)
}

func callEvaluate(ctx context.Context, c debugCall) (*dap.Variable, error) {
	return c.sv.Evaluate(ctx, c.conv, c.req.Expression, c.req.ThreadID, c.req.FrameID)
}

func renderEvaluation(c debugCall, v *dap.Variable, r *debugReply) string {
	r.Value = v
	var b strings.Builder
	writeEvaluation(&b, c.req.Expression, v)
	return b.String()
}
