package tools

import "context"
import "fmt"
import "path/filepath"
import "slices"
import "strings"
import "time"

import "github.com/google/jsonschema-go/jsonschema"
import "github.com/tetherhq/tether/bridges/dap"

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
			if err := r.reg.Register(debugTool(sv, r.WorkDir(), conv)); err != nil {
				return nil, err
			}
			// Breakpoints follow the edits of the files they are in.
			r.reg.WrapWriters(debugFollowEdits(sv, conv, r.WorkDir()))
			// Run.Close ends the conversation's session: adapter and program tree.
			return func() error { sv.Forget(conv); return nil }, nil
		},
		tools: func() []Tool { return []Tool{debugTool(dap.NewSupervisor(dap.Config{}), "", "")} },
	})
}

// debugRequest is one debug op and its arguments: the debug tool's
// arguments.
type debugRequest struct {
	Op    string `json:"op" jsonschema:"the operation"`
	File  string `json:"file,omitempty" jsonschema:"breakpoints (required) with lines or breakpoints, goto (required, with line): source file, relative to the working dir"`
	Lines []int  `json:"lines,omitempty" jsonschema:"breakpoints: 1-based lines of file; with no breakpoints either, clears the file" bounds:"items.minimum=1"`
	// Breakpoints are file's breakpoints with kinds; lines and
	// breakpoints add up.
	Breakpoints []debugBreakpoint `json:"breakpoints,omitempty" jsonschema:"breakpoints: breakpoints of file with a condition (stop only where the expression is true), a hit_condition (stop only on the hits it selects, e.g. \"3\" or \">= 3\", in the adapter's syntax) or a log_message (a logpoint: print the message, {expression} interpolated, to the session's output and do not stop); an adapter that lacks a kind refuses it and says what it offers"`
	// FunctionBreakpoints replace the conversation's function
	// breakpoints; an empty list clears them.
	FunctionBreakpoints []string `json:"function_breakpoints,omitempty" jsonschema:"breakpoints: functions to stop in (Go: main.add, pkg.(*T).M; Python: add; JavaScript: add, Class.method), replacing the previous ones; [] clears them"`
	// ExceptionFilters choose among the adapter's exception filters.
	ExceptionFilters []string `json:"exception_filters,omitempty" jsonschema:"breakpoints: the adapter's exception filters to stop on (debugpy: raised, uncaught, userUnhandled; lldb: cpp_throw, cpp_catch...), replacing its defaults; [] stops on no exception; an id the adapter lacks is refused, naming those it offers"`
	// Its description names adapters from the table (debugTool).
	Program   string   `json:"program,omitempty"`
	Args      []string `json:"args,omitempty" jsonschema:"launch: the program's arguments"`
	Port      int      `json:"port,omitempty" jsonschema:"attach (required without pid): the port the program's debug server listens on (node: its --inspect port)" bounds:"minimum=1,maximum=65535"`
	PID       int      `json:"pid,omitempty" jsonschema:"attach (required without port): a running process to attach to by its process id; the adapter is inferred from what it runs (a Go binary: delve; python: debugpy, which needs gdb and ptrace; node: its inspector, opened with SIGUSR1; else lldb) unless adapter names one, and the result says which and why; no project (root marker) is needed; terminate detaches and leaves it running; the adapter then runs outside the sandbox (ptrace needs it), so a host (serve --http) refuses it: attach by port instead" bounds:"minimum=1"`
	Host      string   `json:"host,omitempty" jsonschema:"attach: the host of port (default 127.0.0.1)"`
	ThreadID  int      `json:"thread_id,omitempty" jsonschema:"continue, pause, step_*, stack, scopes, evaluate, set_expression, read_memory, write_memory, disassemble, data_breakpoints, restart_frame, goto, step_back, reverse_continue, completions, exception_info: thread (default: the last stopped one)"`
	FrameID   int      `json:"frame_id,omitempty" jsonschema:"scopes, evaluate, set_expression, read_memory, write_memory, disassemble, data_breakpoints (a watch without reference), restart_frame, completions: frame id from stack (default: the top frame)"`
	Reference int      `json:"reference,omitempty" jsonschema:"variables, set_variable (required): a scope's or variable's reference" bounds:"minimum=1"`
	// Start is the first child variables lists, or the first frame stack
	// lists (0-based): the next page of a container longer than
	// dap.MaxVariables or of a stack deeper than dap.MaxStackFrames.
	Start      int    `json:"start,omitempty" bounds:"minimum=0"`
	Expression string `json:"expression,omitempty" jsonschema:"evaluate, set_expression (required): expression in the program's language; read_memory, write_memory, disassemble: an address or pointer (&x) to look at, instead of memory_reference; completions (required): the text to complete, as typed in a debug console"`
	// Adapter picks an adapter by id instead of inferring it from the
	// program, the attached process or the root markers.
	// Its enum is the supervisor's adapter table (debugTool).
	Adapter string `json:"adapter,omitempty" jsonschema:"launch, attach: adapter id, when it cannot be inferred from the program, the attached process (pid) or the root markers (port)"`
	// Test runs tests instead of the program (dap.LaunchArgs.Test).
	Test string `json:"test,omitempty" bounds:"minLength=1"`
	// Session picks a child session (dap.Supervisor.UseSession).
	Session int `json:"session,omitempty" jsonschema:"continue, pause, step_*, threads, stack, scopes, variables, evaluate and the optional ops: drive child session N, one the adapter started (startDebugging; status lists them); default: the session launch or attach started" bounds:"minimum=0"`
	// The optional ops' arguments (debug_more.go).
	Name            string `json:"name,omitempty" jsonschema:"set_variable (required): the variable to set, a child of reference"`
	Value           string `json:"value,omitempty" jsonschema:"set_variable, set_expression (required): the new value, an expression in the program's language"`
	MemoryReference string `json:"memory_reference,omitempty" jsonschema:"read_memory, write_memory, disassemble: where to look, a memory_reference from evaluate or variables (or expression instead; disassemble's default is the frame's instruction pointer)"`
	Offset          int    `json:"offset,omitempty" jsonschema:"read_memory, write_memory: bytes past the address to start at; disassemble: instructions past it (negative: before)"`
	Count           int    `json:"count,omitempty" jsonschema:"read_memory: bytes to read (default 64, at most 1024); disassemble: instructions (default 20, at most 50)" bounds:"minimum=0"`
	// The further optional ops' arguments and custom's (debug_ops.go).
	Watch     []debugWatch   `json:"watch,omitempty" jsonschema:"data_breakpoints (required): the variables to watch (watchpoints), replacing the previous ones; [] clears them; at most 16"`
	Addresses []string       `json:"addresses,omitempty" jsonschema:"instruction_breakpoints (required): instruction addresses to stop at (one disassemble lists; with no address it starts at the frame's instruction pointer), replacing the previous ones; [] clears them; at most 16"`
	Data      string         `json:"data,omitempty" jsonschema:"write_memory (required): the bytes to write, in hex (\"2a000000\": the 32-bit little-endian 42), at most 1024, where memory_reference or expression says (plus offset)"`
	Line      int            `json:"line,omitempty" jsonschema:"goto (required, with file): the 1-based line to jump to, in the stopped frame's function; the code between is not run" bounds:"minimum=1"`
	Column    int            `json:"column,omitempty" jsonschema:"completions: the 1-based cursor column in expression (default: its end)" bounds:"minimum=0"`
	Command   string         `json:"command,omitempty" jsonschema:"custom (required): the adapter's request name (e.g. source, stepInTargets, loadedSources); the requests tether sends for its own ops (launch, continue, setBreakpoints...) are refused, naming the op to use"`
	Arguments map[string]any `json:"arguments,omitempty" jsonschema:"custom: the request's arguments, a JSON object as the adapter documents it"`
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
// programs, native executables (the first, then "(or pass adapter gdb)"
// for the others) and Go tests, for the debug tool's text.
func adapterRoles(table []dap.Adapter) (goAdapter, native, goTests string) {
	goAdapter, native, goTests = "the Go adapter", "the native one", "the Go adapter"
	var natives []string
	for _, a := range slices.Backward(table) {
		switch {
		case a.GoExecutables:
			goAdapter = a.ID
		case a.Executables:
			natives = append([]string{a.ID}, natives...)
		}
		if a.TestRunner == "go" {
			goTests = a.ID
		}
	}
	if len(natives) > 0 {
		native = natives[0]
		if len(natives) > 1 {
			native += " (or pass adapter " + strings.Join(natives[1:], ", ") + ")"
		}
	}
	return goAdapter, native, goTests
}

// describeDebugArgs sets the descriptions of program and test, which name
// adapters of the table.
func describeDebugArgs(s *jsonschema.Schema, table []dap.Adapter) {
	goAdapter, native, goTests := adapterRoles(table)
	s.Properties["program"].Description = "launch (required): a .py, .go, .js, .mjs, .cjs, .ts, .php, .rb or .pl file, a Go package dir, a package.json (args[0] names the script to run), a test file (x_test.go, test_x.py, x.test.js: its tests run), " +
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
	"output", "terminate", "set_variable", "set_expression", "modules", "loaded_sources", "read_memory", "write_memory", "disassemble",
	"data_breakpoints", "instruction_breakpoints", "restart", "restart_frame", "goto", "step_back", "reverse_continue",
	"completions", "exception_info", "custom"}

// debugReply is an op's structured result: the same facts as its text.
type debugReply struct {
	Adapters []dap.AdapterStatus `json:"adapters,omitempty"`
	// Adapter is the adapter a launch or attach started, and
	// AdapterReason why that one (named, or inferred from what).
	Adapter       string                `json:"adapter,omitempty"`
	AdapterReason string                `json:"adapter_reason,omitempty"`
	Session       string                `json:"session,omitempty"`
	Stop          *dap.Stop             `json:"stop,omitempty"`
	Exited        *dap.Exit             `json:"exited,omitempty"`
	Breakpoints   []dap.BreakpointState `json:"breakpoints,omitempty"`
	Threads       []dap.Thread          `json:"threads,omitempty"`
	Frames        []dap.Frame           `json:"frames,omitempty"`
	Scopes        []dap.Scope           `json:"scopes,omitempty"`
	Variables     []dap.Variable        `json:"variables,omitempty"`
	Value         *dap.Variable         `json:"value,omitempty"`
	Output        string                `json:"output,omitempty"`
	// ExceptionFilters are the filters the adapter offers, which chosen.
	ExceptionFilters []dap.ExceptionFilter `json:"exception_filters,omitempty"`
	Modules          []dap.Module          `json:"modules,omitempty"`
	Memory           *dap.Memory           `json:"memory,omitempty"`
	Instructions     []dap.Instruction     `json:"instructions,omitempty"`
	Children         []dap.Child           `json:"children,omitempty"`
	// Placed are the data or instruction breakpoints set.
	Placed      []dap.Placed       `json:"placed,omitempty"`
	Written     *dap.Written       `json:"written,omitempty"`
	Completions []dap.Completion   `json:"completions,omitempty"`
	Exception   *dap.ExceptionInfo `json:"exception,omitempty"`
	Answer      *dap.Answer        `json:"answer,omitempty"`
}

// debugTool returns the debug tool bound to a supervisor, a working dir and a
// conversation (docs/tools.md, "debug"). It is exec tier and
// Serial: the session is state across calls.
func debugTool(sv *dap.Supervisor, workDir, conversationID string) Tool {
	table := sv.AdapterTable()
	_, _, goTests := adapterRoles(table)
	return typedTuned(Tool{
		Name: "debug",
		Tier: TierExec,
		Description: "Drive a debugger over the Debug Adapter Protocol; adapters: " + dap.DescribeSupport(table) + ". " +
			"One session per conversation, ended after " + spellDuration(sv.TTL()) + "; a second launch is refused until you terminate the first. " +
			"Typical use: breakpoints (file, lines) -> launch (program, args) -> stack / scopes / variables / evaluate -> step_over / continue -> output -> terminate. " +
			"attach takes pid (a running process) or port (and host). An adapter's child sessions (startDebugging) are listed by status and stops; pass session N to drive one. breakpoints also takes breakpoints with a condition, hit_condition or log_message (a logpoint prints and does not stop), function_breakpoints and exception_filters, where the adapter offers them. " +
			"To debug tests, launch the test file (x_test.go, test_x.py, x.test.js) or pass test with a test name (Go: " + goTests + "'s test mode; Python: pytest; JavaScript: node:test). " +
			"Every op that stops the program returns where it stopped, the source line and the top frames; an uncaught exception, a panic or a signal stops it there and names it. " +
			fmt.Sprintf("variables lists %d children and stack %d frames at a time: pass start to page through a longer container or a deeper stack. ", dap.MaxVariables, dap.MaxStackFrames) +
			"ops: " + strings.Join(debugOps, ", ") + "; " + strings.Join(dap.OptionalOps(), ", ") + " work where the adapter's capabilities offer them, and are refused naming what it offers otherwise. " +
			fmt.Sprintf("custom sends the adapter any other request by command name with arguments; its answer is cut at %d bytes. ", dap.MaxCustomAnswer) +
			"Use adapters to see which debuggers can start here and why not. " +
			"Calls run one at a time (a second call waits for the first to end): do not call debug in parallel.",
		Serial:  true,
		Preview: previewFor(previewDebug),
	}, func(s *jsonschema.Schema) {
		s.Properties["adapter"].Enum = stringsAsAny(dap.AdapterIDs(table))
		describeDebugArgs(s, table)
	}, func(ctx context.Context, call *Call, req debugRequest) (*Result, *debugReply, error) {
		text, rep, err := debugDo(ctx, sv, conversationID, workDir, req)
		if err != nil {
			return nil, nil, err
		}
		return Text(text), rep, nil
	})
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

// debugCall is one op's call: the supervisor, the conversation, its
// working dir (absolute) and the request.
type debugCall struct {
	sv   *dap.Supervisor
	conv string
	root string
	req  debugRequest
}

// debugNeeds is what an op needs beyond what its schema checks.
type debugNeeds struct {
	// session: the op drives one session, the main one or child session N
	// (dap.Supervisor.UseSession); an op without it refuses session.
	session bool
	// args checks the request's arguments before the call; nil: nothing
	// more to check.
	args func(debugRequest) error
}

// drives is what an op that drives one session needs.
var drives = debugNeeds{session: true}

// debugAction is one op of the debug tool.
type debugAction interface {
	needs() debugNeeds
	// do makes the op's call and renders what it found: the text and the
	// structured reply.
	do(ctx context.Context, c debugCall) (string, *debugReply, error)
}

// action is an op (gopls's one function per feature): call makes the one
// Supervisor call the op is, and render says what it returned, in text and
// in the structured reply.
type action[T any] struct {
	need   debugNeeds
	call   func(context.Context, debugCall) (T, error)
	render func(debugCall, T, *debugReply) string
}

func (a action[T]) needs() debugNeeds { return a.need }

func (a action[T]) do(ctx context.Context, c debugCall) (string, *debugReply, error) {
	res, err := a.call(ctx, c)
	if err != nil {
		return "", nil, err
	}
	r := &debugReply{}
	return a.render(c, res, r), r, nil
}

// debugActions are the debug tool's ops (debugOps lists them in order); a
// file per group: debug_session.go (adapters, status, launch, attach,
// output, terminate), debug_breakpoints.go, debug_run.go (continue,
// pause, steps), debug_inspect.go (threads, stack, scopes, variables,
// evaluate), debug_more.go (the optional ops) and debug_ops.go (the
// further optional ops and custom).
var debugActions = map[string]debugAction{
	"adapters":    action[[]dap.AdapterStatus]{call: callAdapters, render: renderAdapters},
	"status":      action[*debugStatus]{call: callStatus, render: renderStatus},
	"breakpoints": action[*debugBreakpointsSet]{need: debugNeeds{args: needBreakpointsTarget}, call: callBreakpoints, render: renderBreakpoints},
	"launch":      action[*dap.Started]{call: callLaunch, render: renderStarted},
	"attach":      action[*dap.Started]{call: callAttach, render: renderStarted},
	"continue":    action[*dap.Outcome]{need: drives, call: callResume((*dap.Supervisor).Continue), render: renderOutcome},
	"pause":       action[*dap.Outcome]{need: drives, call: callResume((*dap.Supervisor).Pause), render: renderOutcome},
	"step_over":   action[*dap.Outcome]{need: drives, call: callResume((*dap.Supervisor).StepOver), render: renderOutcome},
	"step_in":     action[*dap.Outcome]{need: drives, call: callResume((*dap.Supervisor).StepIn), render: renderOutcome},
	"step_out":    action[*dap.Outcome]{need: drives, call: callResume((*dap.Supervisor).StepOut), render: renderOutcome},
	"threads":     action[*dap.Threads]{need: drives, call: callThreads, render: renderThreads},
	"stack":       action[*dap.Stack]{need: drives, call: callStack, render: renderStack},
	"scopes":      action[*dap.Scopes]{need: drives, call: callScopes, render: renderScopes},
	"variables":   action[*dap.Variables]{need: drives, call: callVariables, render: renderVariables},
	"evaluate":    action[*dap.Variable]{need: drives, call: callEvaluate, render: renderEvaluation},
	"output":      action[*dap.Output]{call: callOutput, render: renderOutput},
	"terminate":   action[*dap.Terminated]{call: callTerminate, render: renderTerminated},

	"set_variable":   action[*dap.Variable]{need: drives, call: callSetVariable, render: renderSetVariable},
	"set_expression": action[*dap.Variable]{need: drives, call: callSetExpression, render: renderSetExpression},
	"modules":        action[*dap.Modules]{need: drives, call: callModules, render: renderModules},
	"loaded_sources": action[*dap.Sources]{need: drives, call: callLoadedSources, render: renderSources},
	"read_memory":    action[*dap.Memory]{need: drives, call: callReadMemory, render: renderMemory},
	"disassemble":    action[*dap.Disassembly]{need: drives, call: callDisassemble, render: renderDisassembly},

	"write_memory":            action[*dap.Written]{need: drives, call: callWriteMemory, render: renderWritten},
	"data_breakpoints":        action[[]dap.Placed]{need: debugNeeds{session: true, args: needWatch}, call: callDataBreakpoints, render: renderPlaced},
	"instruction_breakpoints": action[[]dap.Placed]{need: debugNeeds{session: true, args: needAddresses}, call: callInstructionBreakpoints, render: renderPlaced},
	"restart":                 action[*dap.Outcome]{need: drives, call: callRestart, render: renderOutcome},
	"restart_frame":           action[*dap.Outcome]{need: drives, call: callRestartFrame, render: renderOutcome},
	"goto":                    action[*dap.Outcome]{need: drives, call: callGoto, render: renderOutcome},
	"step_back":               action[*dap.Outcome]{need: drives, call: callResume((*dap.Supervisor).StepBack), render: renderOutcome},
	"reverse_continue":        action[*dap.Outcome]{need: drives, call: callResume((*dap.Supervisor).ReverseContinue), render: renderOutcome},
	"completions":             action[*dap.Completions]{need: drives, call: callCompletions, render: renderCompletions},
	"exception_info":          action[*dap.ExceptionInfo]{need: drives, call: callExceptionInfo, render: renderExceptionInfo},
	"custom":                  action[*dap.Answer]{need: debugNeeds{session: true, args: needCommand}, call: callCustom, render: renderAnswer},
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
	act, known := debugActions[req.Op]
	var needs debugNeeds
	if known {
		needs = act.needs()
	}
	if needs.session {
		if err := sv.UseSession(conv, req.Session); err != nil {
			return "", nil, err
		}
	} else if req.Session != 0 {
		return "", nil, fmt.Errorf("debug: %s does not take session; it applies to the whole session and its children", req.Op)
	}
	switch {
	case req.Op == "":
		return "", nil, fmt.Errorf("debug: missing op; use one of %s", strings.Join(debugOps, ", "))
	case !known:
		return "", nil, fmt.Errorf("debug: unknown op %q; use one of %s", req.Op, strings.Join(debugOps, ", "))
	}
	if needs.args != nil {
		if err := needs.args(req); err != nil {
			return "", nil, err
		}
	}
	return act.do(ctx, debugCall{sv: sv, conv: conv, root: root, req: req})
}
