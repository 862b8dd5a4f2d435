package tools

// The debug tool's breakpoints op: a file's line breakpoints, the
// function breakpoints and the exception filters, each when given.

import "context"
import "fmt"
import "strings"

import "github.com/tetherhq/tether/bridges/dap"

// needBreakpointsTarget refuses a breakpoints op that names none of what
// it sets.
func needBreakpointsTarget(req debugRequest) error {
	if req.File != "" || req.FunctionBreakpoints != nil || req.ExceptionFilters != nil {
		return nil
	}
	if len(req.Lines) > 0 || len(req.Breakpoints) > 0 {
		return fmt.Errorf("debug: breakpoints needs file with lines or breakpoints (the source file they are in, relative to the working dir)")
	}
	return fmt.Errorf("debug: breakpoints needs file (with lines or breakpoints; neither clears the file), function_breakpoints, or exception_filters")
}

// debugBreakpointsSet is what op breakpoints set: each part nil when the
// request did not give it.
type debugBreakpointsSet struct {
	file    *dap.Breakpoints
	funcs   []dap.BreakpointState // nil: not given; empty: cleared
	filters []dap.ExceptionFilter // the adapter's, when filters were given
}

func callBreakpoints(ctx context.Context, c debugCall) (*debugBreakpointsSet, error) {
	req, set := c.req, &debugBreakpointsSet{}
	if req.File != "" {
		args := dap.BreakpointsArgs{File: req.File, Lines: req.Lines}
		for _, x := range req.Breakpoints {
			args.Breakpoints = append(args.Breakpoints, dap.SourceBreakpoint(x))
		}
		bp, err := c.sv.SetSourceBreakpoints(ctx, c.conv, c.root, args)
		if err != nil {
			return nil, err
		}
		set.file = bp
	}
	if req.FunctionBreakpoints != nil {
		st, err := c.sv.SetFunctionBreakpoints(ctx, c.conv, req.FunctionBreakpoints)
		if err != nil {
			return nil, err
		}
		set.funcs = append([]dap.BreakpointState{}, st...)
	}
	if req.ExceptionFilters != nil {
		fs, err := c.sv.SetExceptionFilters(ctx, c.conv, req.ExceptionFilters)
		if err != nil {
			return nil, err
		}
		set.filters = fs
	}
	return set, nil
}

func renderBreakpoints(c debugCall, set *debugBreakpointsSet, r *debugReply) string {
	var b strings.Builder
	if set.file != nil {
		r.Breakpoints = append(r.Breakpoints, set.file.States...)
		if len(set.file.Lines) == 0 {
			fmt.Fprintf(&b, "cleared breakpoints in %s\n", relTo(c.root, set.file.File))
		}
	}
	if set.funcs != nil {
		r.Breakpoints = append(r.Breakpoints, set.funcs...)
		if len(set.funcs) == 0 {
			b.WriteString("cleared the function breakpoints\n")
		}
	}
	if len(r.Breakpoints) > 0 {
		writeBreakpoints(&b, c.root, r.Breakpoints)
		b.WriteString("\n")
	}
	if c.req.ExceptionFilters != nil {
		r.ExceptionFilters = set.filters
		writeFilters(&b, c.req.ExceptionFilters, set.filters)
	}
	return strings.TrimRight(b.String(), "\n")
}
