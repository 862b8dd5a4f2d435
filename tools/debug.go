package tools

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/tetherhq/tether/bridges/dap"
)

func init() {
	addFamily(family{
		name: "debug",
		// Registered when the run has a debug-session supervisor, a
		// working dir and a conversation id. Whether an adapter can start is
		// checked per call (op adapters says why not).
		wired: func(cfg *Config) bool {
			return cfg.Debug != nil && cfg.WorkDir != "" && cfg.ConversationID != ""
		},
		register: func(r *Run) (func() error, error) {
			sv, conv := r.cfg.Debug, r.cfg.ConversationID
			if err := r.Registry().Register(DebugTool(sv, r.WorkDir(), conv)); err != nil {
				return nil, err
			}
			// Breakpoints follow the edits of the files they are in.
			r.Registry().WrapWriters(debugFollowEdits(sv, conv, r.WorkDir()))
			// Run.Close ends the conversation's session: adapter and program tree.
			return func() error { sv.Forget(conv); return nil }, nil
		},
		tools: func() []Tool { return []Tool{DebugTool(dap.NewSupervisor(dap.Config{}), "", "")} },
	})
}

// debugRequest is one debug op and its arguments: the debug tool's
// arguments.
type debugRequest struct {
	Op    string `json:"op" jsonschema:"the operation"`
	File  string `json:"file,omitempty" jsonschema:"breakpoints (required) with lines or breakpoints: source file, relative to the working dir"`
	Lines []int  `json:"lines,omitempty" jsonschema:"breakpoints: 1-based lines of file; with no breakpoints either, clears the file" bounds:"items.minimum=1"`
	// Breakpoints are file's breakpoints with kinds; lines and
	// breakpoints add up.
	Breakpoints []debugBreakpoint `json:"breakpoints,omitempty" jsonschema:"breakpoints: breakpoints of file with a condition (stop only where the expression is true), a hit_condition (stop only on the hits it selects, e.g. \"3\" or \">= 3\", in the adapter's syntax) or a log_message (a logpoint: print the message, {expression} interpolated, to the session's output and do not stop); an adapter that lacks a kind refuses it and says what it offers"`
	// FunctionBreakpoints replace the conversation's function
	// breakpoints; an empty list clears them.
	FunctionBreakpoints []string `json:"function_breakpoints,omitempty" jsonschema:"breakpoints: functions to stop in (Go: main.add, pkg.(*T).M; Python: add), replacing the previous ones; [] clears them"`
	// ExceptionFilters choose among the adapter's exception filters.
	ExceptionFilters []string `json:"exception_filters,omitempty" jsonschema:"breakpoints: the adapter's exception filters to stop on (debugpy: raised, uncaught, userUnhandled; lldb: cpp_throw, cpp_catch...), replacing its defaults; [] stops on no exception; an id the adapter lacks is refused, naming those it offers"`
	// Its description names adapters from the table (DebugTool).
	Program   string   `json:"program,omitempty"`
	Args      []string `json:"args,omitempty" jsonschema:"launch: the program's arguments"`
	Port      int      `json:"port,omitempty" jsonschema:"attach (required without pid): the port the program's debug server listens on" bounds:"minimum=1,maximum=65535"`
	PID       int      `json:"pid,omitempty" jsonschema:"attach (required without port): a running process to attach to by its process id (delve, lldb; debugpy needs gdb and ptrace); terminate detaches and leaves it running; the adapter then runs outside the sandbox (ptrace needs it), so a host (serve --http) refuses it: attach by port instead" bounds:"minimum=1"`
	Host      string   `json:"host,omitempty" jsonschema:"attach: the host of port (default 127.0.0.1)"`
	ThreadID  int      `json:"thread_id,omitempty" jsonschema:"continue, pause, step_*, stack, scopes, evaluate, set_expression, read_memory, disassemble: thread (default: the last stopped one)"`
	FrameID   int      `json:"frame_id,omitempty" jsonschema:"scopes, evaluate, set_expression, read_memory, disassemble: frame id from stack (default: the top frame)"`
	Reference int      `json:"reference,omitempty" jsonschema:"variables, set_variable (required): a scope's or variable's reference" bounds:"minimum=1"`
	// Start is the first child variables lists, or the first frame stack
	// lists (0-based): the next page of a container longer than
	// dap.MaxVariables or of a stack deeper than dap.MaxStackFrames.
	Start      int    `json:"start,omitempty" bounds:"minimum=0"`
	Expression string `json:"expression,omitempty" jsonschema:"evaluate, set_expression (required): expression in the program's language; read_memory, disassemble: an address or pointer (&x) to look at, instead of memory_reference"`
	// Adapter picks an adapter by id instead of inferring it from the program
	// or the root markers.
	// Its enum is the supervisor's adapter table (DebugTool).
	Adapter string `json:"adapter,omitempty" jsonschema:"launch, attach: adapter id, when it cannot be inferred from the program or the root markers"`
	// Test runs tests instead of the program (dap.LaunchArgs.Test).
	Test string `json:"test,omitempty" bounds:"minLength=1"`
	// Session picks a child session (dap.Supervisor.UseSession).
	Session int `json:"session,omitempty" jsonschema:"continue, pause, step_*, threads, stack, scopes, variables, evaluate and the optional ops: drive child session N, one the adapter started (startDebugging; status lists them); default: the session launch or attach started" bounds:"minimum=0"`
	// The optional ops' arguments (debug_more.go).
	Name            string `json:"name,omitempty" jsonschema:"set_variable (required): the variable to set, a child of reference"`
	Value           string `json:"value,omitempty" jsonschema:"set_variable, set_expression (required): the new value, an expression in the program's language"`
	MemoryReference string `json:"memory_reference,omitempty" jsonschema:"read_memory, disassemble: where to look, a memory_reference from evaluate or variables (or expression instead; disassemble's default is the frame's instruction pointer)"`
	Offset          int    `json:"offset,omitempty" jsonschema:"read_memory: bytes past the address to start at; disassemble: instructions past it (negative: before)"`
	Count           int    `json:"count,omitempty" jsonschema:"read_memory: bytes to read (default 64, at most 1024); disassemble: instructions (default 20, at most 50)" bounds:"minimum=0"`
}

// debugBreakpoint is one line breakpoint with its kinds.
type debugBreakpoint struct {
	Line         int    `json:"line" jsonschema:"1-based line of file" bounds:"minimum=1"`
	Condition    string `json:"condition,omitempty" jsonschema:"stop only where this expression, in the program's language, is true"`
	HitCondition string `json:"hit_condition,omitempty" jsonschema:"stop only on the hits this selects (\"3\": the third)"`
	LogMessage   string `json:"log_message,omitempty" jsonschema:"do not stop: print this, with {expression} replaced by its value, to the session's output"`
}

// tuneSchema lists the ops and says what start pages by.
func (debugRequest) tuneSchema(s *jsonschema.Schema) {
	s.Properties["op"].Enum = stringsAsAny(debugOps)
	s.Properties["start"].Description = fmt.Sprintf("variables: first child to list (0-based), to page through a container longer than %d; "+
		"stack: first frame to list (0 is the top), to page through a stack deeper than %d; modules, loaded_sources: first to list", dap.MaxVariables, dap.MaxStackFrames)
}

// adapterRoles names, from an adapter table, the adapters that launch Go
// programs, native executables and Go tests, for the debug tool's text.
func adapterRoles(table []dap.Adapter) (goAdapter, native, goTests string) {
	goAdapter, native, goTests = "the Go adapter", "the native one", "the Go adapter"
	for _, a := range slices.Backward(table) {
		switch {
		case a.GoExecutables:
			goAdapter = a.ID
		case a.Executables:
			native = a.ID
		}
		if a.TestRunner == "go" {
			goTests = a.ID
		}
	}
	return goAdapter, native, goTests
}

// describeDebugArgs sets the descriptions of program and test, which name
// adapters of the table.
func describeDebugArgs(s *jsonschema.Schema, table []dap.Adapter) {
	goAdapter, native, goTests := adapterRoles(table)
	s.Properties["program"].Description = "launch (required): a .py, .go, .js, .mjs, .cjs or .ts file, a Go package dir, a package.json (args[0] names the script to run), a test file (x_test.go, test_x.py, x.test.js: its tests run), " +
		"or an executable built with debug info (a Go binary or test binary goes to " + goAdapter + ", others to " + native + ")"
	s.Properties["test"].Description = "launch: run tests instead of the program: a test name (Go: TestParse or TestParse/subtest, in " + goTests + "'s test mode; " +
		"Python: test_parse or TestClass::test_parse, under pytest; JavaScript: a node:test test name), or \"" + dap.AllTests + "\" for every test of program (a package dir, a test file or a directory)"
}

// DebugOps returns the debug tool's ops, in the order its schema lists them
// (for help text and docs made from them).
func DebugOps() []string { return slices.Clone(debugOps) }

// debugOps lists the debug tool's ops.
var debugOps = []string{"adapters", "status", "breakpoints", "launch", "attach", "continue", "pause",
	"step_over", "step_in", "step_out", "threads", "stack", "scopes", "variables", "evaluate",
	"output", "terminate", "set_variable", "set_expression", "modules", "loaded_sources", "read_memory", "disassemble"}

// debugReply is an op's structured result: the same facts as its text.
type debugReply struct {
	Adapters    []dap.AdapterStatus   `json:"adapters,omitempty"`
	Session     string                `json:"session,omitempty"`
	Stop        *dap.Stop             `json:"stop,omitempty"`
	Exited      *dap.Exit             `json:"exited,omitempty"`
	Breakpoints []dap.BreakpointState `json:"breakpoints,omitempty"`
	Threads     []dap.Thread          `json:"threads,omitempty"`
	Frames      []dap.Frame           `json:"frames,omitempty"`
	Scopes      []dap.Scope           `json:"scopes,omitempty"`
	Variables   []dap.Variable        `json:"variables,omitempty"`
	Value       *dap.Variable         `json:"value,omitempty"`
	Output      string                `json:"output,omitempty"`
	// ExceptionFilters are the filters the adapter offers, which chosen.
	ExceptionFilters []dap.ExceptionFilter `json:"exception_filters,omitempty"`
	Modules          []dap.Module          `json:"modules,omitempty"`
	Memory           *dap.Memory           `json:"memory,omitempty"`
	Instructions     []dap.Instruction     `json:"instructions,omitempty"`
	Children         []dap.Child           `json:"children,omitempty"`
}

// DebugTool returns the debug tool bound to a supervisor, a working dir and a
// conversation (docs/tools.md, "debug"). It is exec tier and
// Serial: the session is state across calls.
func DebugTool(sv *dap.Supervisor, workDir, conversationID string) Tool {
	table := sv.AdapterTable()
	_, _, goTests := adapterRoles(table)
	return Tool{
		Name: "debug",
		Tier: TierExec,
		Description: "Drive a debugger over the Debug Adapter Protocol; adapters: " + dap.DescribeSupport(table) + ". " +
			"One session per conversation, ended after " + spellDuration(sv.TTL()) + "; a second launch is refused until you terminate the first. " +
			"Typical use: breakpoints (file, lines) -> launch (program, args) -> stack / scopes / variables / evaluate -> step_over / continue -> output -> terminate. " +
			"attach takes pid (a running process) or port (and host). An adapter's child sessions (startDebugging) are listed by status and stops; pass session N to drive one. breakpoints also takes breakpoints with a condition, hit_condition or log_message (a logpoint prints and does not stop), function_breakpoints and exception_filters, where the adapter offers them. " +
			"To debug tests, launch the test file (x_test.go, test_x.py, x.test.js) or pass test with a test name (Go: " + goTests + "'s test mode; Python: pytest; JavaScript: node:test). " +
			"Every op that stops the program returns where it stopped, the source line and the top frames; an uncaught exception, a panic or a signal stops it there and names it. " +
			fmt.Sprintf("variables lists %d children and stack %d frames at a time: pass start to page through a longer container or a deeper stack. ", dap.MaxVariables, dap.MaxStackFrames) +
			"ops: " + strings.Join(debugOps, ", ") + "; " + strings.Join(dap.OptionalOps(), ", ") + " work where the adapter's capabilities offer them, and are refused naming what it offers otherwise. Use adapters to see which debuggers can start here and why not. " +
			"Calls run one at a time (a second call waits for the first to end): do not call debug in parallel.",
		InputSchema: schemaForRun[debugRequest](func(s *jsonschema.Schema) {
			s.Properties["adapter"].Enum = stringsAsAny(dap.AdapterIDs(table))
			describeDebugArgs(s, table)
		}),
		Serial:  true,
		Preview: previewDebug,
		Handler: func(ctx context.Context, call *Call) (*Result, error) {
			var req debugRequest
			if err := call.Decode(&req); err != nil {
				return nil, err
			}
			text, rep, err := debugDo(ctx, sv, conversationID, workDir, req)
			if err != nil {
				return nil, err
			}
			return &Result{Content: []Content{{Type: TextContent, Text: text}}, Structured: rep}, nil
		},
	}
}

// spellDuration says d for a sentence: "30 minutes", "1 hour", "90 seconds".
func spellDuration(d time.Duration) string {
	unit := func(n int64, name string) string {
		if n == 1 {
			return "1 " + name
		}
		return fmt.Sprintf("%d %ss", n, name)
	}
	switch {
	case d >= time.Hour && d%time.Hour == 0:
		return unit(int64(d/time.Hour), "hour")
	case d >= time.Minute && d%time.Minute == 0:
		return unit(int64(d/time.Minute), "minute")
	case d >= time.Second && d%time.Second == 0:
		return unit(int64(d/time.Second), "second")
	}
	return d.String()
}

// debugBreakpoints is op breakpoints: file's line breakpoints, the function
// breakpoints and the exception filters, each when given.
func debugBreakpoints(ctx context.Context, sv *dap.Supervisor, conv, root string, req debugRequest, b *strings.Builder, r *debugReply) error {
	if req.File == "" && req.FunctionBreakpoints == nil && req.ExceptionFilters == nil {
		if len(req.Lines) > 0 || len(req.Breakpoints) > 0 {
			return fmt.Errorf("debug: breakpoints needs file with lines or breakpoints (the source file they are in, relative to the working dir)")
		}
		return fmt.Errorf("debug: breakpoints needs file (with lines or breakpoints; neither clears the file), function_breakpoints, or exception_filters")
	}
	if req.File != "" {
		args := dap.BreakpointsArgs{File: req.File, Lines: req.Lines}
		for _, x := range req.Breakpoints {
			args.Breakpoints = append(args.Breakpoints, dap.SourceBreakpoint(x))
		}
		bp, err := sv.SetSourceBreakpoints(ctx, conv, root, args)
		if err != nil {
			return err
		}
		r.Breakpoints = append(r.Breakpoints, bp.States...)
		if len(bp.Lines) == 0 {
			fmt.Fprintf(b, "cleared breakpoints in %s\n", relTo(root, bp.File))
		}
	}
	if req.FunctionBreakpoints != nil {
		st, err := sv.SetFunctionBreakpoints(ctx, conv, req.FunctionBreakpoints)
		if err != nil {
			return err
		}
		r.Breakpoints = append(r.Breakpoints, st...)
		if len(st) == 0 {
			b.WriteString("cleared the function breakpoints\n")
		}
	}
	if len(r.Breakpoints) > 0 {
		writeBreakpoints(b, root, r.Breakpoints)
		b.WriteString("\n")
	}
	if req.ExceptionFilters != nil {
		fs, err := sv.SetExceptionFilters(ctx, conv, req.ExceptionFilters)
		if err != nil {
			return err
		}
		r.ExceptionFilters = fs
		writeFilters(b, req.ExceptionFilters, fs)
	}
	text := strings.TrimRight(b.String(), "\n")
	b.Reset()
	b.WriteString(text)
	return nil
}

// debugDo performs one op for a conversation whose working directory is
// root, and says what it found.
func debugDo(ctx context.Context, sv *dap.Supervisor, conv, root string, req debugRequest) (string, *debugReply, error) {
	if conv == "" {
		return "", nil, fmt.Errorf("debug: no conversation id; debug sessions belong to a conversation")
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return "", nil, fmt.Errorf("debug: working dir: %w", err)
	}
	var b strings.Builder
	r := &debugReply{}
	if drivesSession(req.Op) {
		if err := sv.UseSession(conv, req.Session); err != nil {
			return "", nil, err
		}
	} else if req.Session != 0 {
		return "", nil, fmt.Errorf("debug: %s does not take session; it applies to the whole session and its children", req.Op)
	}
	switch req.Op {
	case "adapters":
		r.Adapters = sv.Adapters(ctx, root)
		writeAdapters(&b, root, r.Adapters)
	case "status":
		st, err := sv.Status(conv)
		if err != nil {
			return "", nil, err
		}
		r.Session, r.Stop, r.Children = st.Session, st.Stop, sv.Children(conv)
		writeStatus(&b, st)
	case "breakpoints":
		if err := debugBreakpoints(ctx, sv, conv, root, req, &b, r); err != nil {
			return "", nil, err
		}
	case "launch", "attach":
		var st *dap.Started
		if req.Op == "launch" {
			ReportStep(ctx, "debug: launching "+req.Program+" (starting the debug adapter)")
		} else {
			ReportStep(ctx, fmt.Sprintf("debug: attaching (pid %d, port %d; starting the debug adapter)", req.PID, req.Port))
		}
		if req.Op == "launch" {
			st, err = sv.Launch(ctx, conv, root, dap.LaunchArgs{Program: req.Program, Args: req.Args, Adapter: req.Adapter, Test: req.Test})
		} else {
			st, err = sv.Attach(ctx, conv, root, dap.AttachArgs{PID: req.PID, Port: req.Port, Host: req.Host, Adapter: req.Adapter})
		}
		if err != nil {
			return "", nil, err
		}
		r.Breakpoints, r.Session, r.Stop, r.Exited = st.Breakpoints, st.Session, st.Outcome.Stop, st.Outcome.Exited
		fmt.Fprintf(&b, "started %s\n", st.Title)
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
			writeBreakpoints(&b, root, st.Breakpoints)
		}
	case "continue", "pause", "step_over", "step_in", "step_out":
		run := map[string]func(context.Context, string, int) (*dap.Outcome, error){
			"continue": sv.Continue, "pause": sv.Pause, "step_over": sv.StepOver, "step_in": sv.StepIn, "step_out": sv.StepOut,
		}[req.Op]
		o, err := run(ctx, conv, req.ThreadID)
		if err != nil {
			return "", nil, err
		}
		r.Stop, r.Exited = o.Stop, o.Exited
		writeOutcome(&b, o)
	case "threads":
		th, err := sv.Threads(ctx, conv)
		if err != nil {
			return "", nil, err
		}
		r.Threads = th.Threads
		writeThreads(&b, th)
	case "stack":
		st, err := sv.Stack(ctx, conv, req.ThreadID, req.Start)
		if err != nil {
			return "", nil, err
		}
		r.Frames = st.Frames
		writeStack(&b, st, req.ThreadID != 0)
	case "scopes":
		sc, err := sv.Scopes(ctx, conv, req.ThreadID, req.FrameID)
		if err != nil {
			return "", nil, err
		}
		r.Scopes = sc.Scopes
		writeScopes(&b, sc)
	case "variables":
		vs, err := sv.Variables(ctx, conv, req.Reference, req.Start)
		if err != nil {
			return "", nil, err
		}
		r.Variables = vs.Variables
		writeVariables(&b, vs)
	case "evaluate":
		v, err := sv.Evaluate(ctx, conv, req.Expression, req.ThreadID, req.FrameID)
		if err != nil {
			return "", nil, err
		}
		r.Value = v
		writeEvaluation(&b, req.Expression, v)
	case "output":
		out, err := sv.Output(conv)
		if err != nil {
			return "", nil, err
		}
		r.Output = out.Text
		writeOutput(&b, out)
	case "terminate":
		t, err := sv.Terminate(conv)
		if err != nil {
			return "", nil, err
		}
		writeTerminated(&b, t)
	case "":
		return "", nil, fmt.Errorf("debug: missing op; use one of %s", strings.Join(debugOps, ", "))
	default:
		if ok, err := debugMore(ctx, sv, conv, req, &b, r); ok {
			if err != nil {
				return "", nil, err
			}
			break
		}
		if !slices.Contains(debugOps, req.Op) {
			return "", nil, fmt.Errorf("debug: unknown op %q; use one of %s", req.Op, strings.Join(debugOps, ", "))
		}
	}
	text := b.String()
	switch req.Op {
	case "adapters", "launch", "attach", "continue", "pause", "step_over", "step_in", "step_out", "output", "read_memory":
		text = strings.TrimRight(text, "\n")
	}
	return text, r, nil
}
