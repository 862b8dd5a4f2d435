package tools

// The debug tool's further optional ops (data and instruction
// breakpoints, write_memory, restart, restart_frame, goto, step_back,
// reverse_continue, completions, exception_info) and custom, any adapter
// request by name: each a call of the Supervisor and its rendering.

import "context"
import "encoding/hex"
import "encoding/json"
import "fmt"
import "strings"

import "github.com/tetherhq/tether/bridges/dap"

// debugWatch is one data breakpoint of op data_breakpoints.
type debugWatch struct {
	Name         string `json:"name" jsonschema:"the variable to watch: a child of reference (from scopes or variables), or with no reference an expression in the frame (frame_id, default the top frame)"`
	Reference    int    `json:"reference,omitempty" jsonschema:"the scope's or parent variable's reference name is listed under" bounds:"minimum=0"`
	Access       string `json:"access,omitempty" jsonschema:"what stops the program: write (default), read or readWrite" bounds:"enum=write|read|readWrite"`
	Condition    string `json:"condition,omitempty" jsonschema:"stop only where this expression is true"`
	HitCondition string `json:"hit_condition,omitempty" jsonschema:"stop only on the hits this selects"`
}

// needWatch refuses data_breakpoints without watch.
func needWatch(req debugRequest) error {
	if req.Watch == nil {
		return fmt.Errorf("debug: data_breakpoints needs watch: the variables to watch, each a name (and the reference it is listed under); [] clears them")
	}
	return nil
}

// needAddresses refuses instruction_breakpoints without addresses.
func needAddresses(req debugRequest) error {
	if req.Addresses == nil {
		return fmt.Errorf("debug: instruction_breakpoints needs addresses: instruction addresses from stack or disassemble; [] clears them")
	}
	return nil
}

func callDataBreakpoints(ctx context.Context, c debugCall) ([]dap.Placed, error) {
	ws := make([]dap.Watch, len(c.req.Watch))
	for i, w := range c.req.Watch {
		ws[i] = dap.Watch{Name: w.Name, Reference: w.Reference, ThreadID: c.req.ThreadID, FrameID: c.req.FrameID, Access: w.Access, Condition: w.Condition, HitCondition: w.HitCondition}
	}
	return c.sv.SetDataBreakpoints(ctx, c.conv, ws)
}

func callInstructionBreakpoints(ctx context.Context, c debugCall) ([]dap.Placed, error) {
	bps := make([]dap.InstructionBreakpoint, len(c.req.Addresses))
	for i, a := range c.req.Addresses {
		bps[i] = dap.InstructionBreakpoint{Reference: a}
	}
	return c.sv.SetInstructionBreakpoints(ctx, c.conv, bps)
}

func renderPlaced(c debugCall, ps []dap.Placed, r *debugReply) string {
	r.Placed = ps
	kind := strings.ReplaceAll(c.req.Op, "_", " ")
	if len(ps) == 0 {
		return "cleared the " + kind
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s set:", len(ps), kind)
	for _, p := range ps {
		fmt.Fprintf(&b, "\n- %s", p.Target)
		if p.Access != "" {
			fmt.Fprintf(&b, " (%s)", p.Access)
		}
		if p.Verified {
			b.WriteString(": placed")
		} else {
			b.WriteString(": not placed")
		}
		if p.File != "" && p.Line > 0 {
			fmt.Fprintf(&b, " at %s:%d", relTo(c.root, p.File), p.Line)
		}
		if p.Description != "" && p.Description != p.Target {
			fmt.Fprintf(&b, "; %s", p.Description)
		}
		if p.Message != "" {
			fmt.Fprintf(&b, "; the adapter says: %s", p.Message)
		}
	}
	return b.String()
}

func callWriteMemory(ctx context.Context, c debugCall) (*dap.Written, error) {
	data, err := hex.DecodeString(strings.Join(strings.Fields(c.req.Data), ""))
	if err != nil {
		return nil, fmt.Errorf("debug: write_memory: data is not hex bytes (e.g. \"2a000000\" for the 32-bit little-endian 42): %w", err)
	}
	return c.sv.WriteMemory(ctx, c.conv, memoryArgs(c.req), data)
}

func renderWritten(_ debugCall, w *dap.Written, r *debugReply) string {
	r.Written = w
	return fmt.Sprintf("wrote %d byte(s) at memory_reference %s, offset %d; read_memory shows them", w.Bytes, w.Reference, w.Offset)
}

func callRestart(ctx context.Context, c debugCall) (*dap.Outcome, error) {
	return c.sv.Restart(ctx, c.conv)
}

func callRestartFrame(ctx context.Context, c debugCall) (*dap.Outcome, error) {
	return c.sv.RestartFrame(ctx, c.conv, c.req.ThreadID, c.req.FrameID)
}

func callGoto(ctx context.Context, c debugCall) (*dap.Outcome, error) {
	return c.sv.Goto(ctx, c.conv, c.root, c.req.File, c.req.Line, c.req.ThreadID)
}

func callCompletions(ctx context.Context, c debugCall) (*dap.Completions, error) {
	return c.sv.Completions(ctx, c.conv, c.req.Expression, c.req.Column, c.req.ThreadID, c.req.FrameID)
}

func renderCompletions(_ debugCall, cs *dap.Completions, r *debugReply) string {
	r.Completions = cs.Items
	if len(cs.Items) == 0 {
		return fmt.Sprintf("no completions of %q at column %d (the adapter offered none)", cs.Text, cs.Column)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d completion(s) of %q at column %d", cs.Total, cs.Text, cs.Column)
	if cs.Total > len(cs.Items) {
		fmt.Fprintf(&b, "; the first %d shown: type more of the name to narrow them", len(cs.Items))
	}
	for _, it := range cs.Items {
		fmt.Fprintf(&b, "\n- %s", it.Label)
		if it.Type != "" {
			fmt.Fprintf(&b, " (%s)", it.Type)
		}
		if it.Text != "" {
			fmt.Fprintf(&b, " inserts %q", it.Text)
		}
		if it.Detail != "" {
			fmt.Fprintf(&b, ": %s", it.Detail)
		}
	}
	return b.String()
}

func callExceptionInfo(ctx context.Context, c debugCall) (*dap.ExceptionInfo, error) {
	return c.sv.ExceptionInfo(ctx, c.conv, c.req.ThreadID)
}

func renderExceptionInfo(_ debugCall, ex *dap.ExceptionInfo, r *debugReply) string {
	r.Exception = ex
	var b strings.Builder
	fmt.Fprintf(&b, "thread %d stopped on %s", ex.ThreadID, ex.ID)
	if ex.Description != "" && ex.Description != ex.ID {
		fmt.Fprintf(&b, ": %s", ex.Description)
	}
	if ex.BreakMode != "" {
		fmt.Fprintf(&b, " (break mode %s)", ex.BreakMode)
	}
	if d := ex.Details; d != nil {
		writeExceptionDetails(&b, *d, "")
	}
	return b.String()
}

func writeExceptionDetails(b *strings.Builder, d dap.ExceptionDetails, indent string) {
	if d.TypeName != "" {
		fmt.Fprintf(b, "\n%stype: %s", indent, d.TypeName)
	}
	if d.Message != "" {
		fmt.Fprintf(b, "\n%smessage: %s", indent, d.Message)
	}
	if d.EvaluateName != "" {
		fmt.Fprintf(b, "\n%sevaluate %s for the exception object", indent, d.EvaluateName)
	}
	if d.StackTrace != "" {
		fmt.Fprintf(b, "\n%sstack trace:\n%s", indent, strings.TrimRight(d.StackTrace, "\n"))
	}
	for _, in := range d.Inner {
		fmt.Fprintf(b, "\n%sinner exception:", indent)
		writeExceptionDetails(b, in, indent+"  ")
	}
}

// needCommand refuses custom without command.
func needCommand(req debugRequest) error {
	if strings.TrimSpace(req.Command) == "" {
		return fmt.Errorf("debug: custom needs command: the adapter's request name (e.g. \"source\", \"stepInTargets\"), with arguments its JSON object")
	}
	return nil
}

func callCustom(ctx context.Context, c debugCall) (*dap.Answer, error) {
	var args json.RawMessage
	if c.req.Arguments != nil {
		b, err := json.Marshal(c.req.Arguments)
		if err != nil {
			return nil, fmt.Errorf("debug: custom: arguments: %w", err)
		}
		args = b
	}
	return c.sv.Custom(ctx, c.conv, c.req.Command, args)
}

func renderAnswer(_ debugCall, a *dap.Answer, r *debugReply) string {
	r.Answer = a
	if a.Body == "" {
		return fmt.Sprintf("the adapter answered %s with success and no body", a.Command)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "the adapter's answer to %s", a.Command)
	if a.Cut {
		fmt.Fprintf(&b, " (the first %d of %d bytes: ask for less, e.g. with the request's own paging or count arguments)", len(a.Body), a.Bytes)
	}
	b.WriteString(":\n")
	b.WriteString(a.Body)
	return b.String()
}
