package dap

import "time"

// The facts the Supervisor's methods return. JSON tags name them as the
// debug tool reports them.

// Status is a conversation's debug state (op status).
type Status struct {
	// Session describes the live session ("" when none is live): adapter,
	// what it debugs, when it started and ends, and its state.
	Session string
	// Stop is where the live session's program is stopped; nil while it
	// runs.
	Stop *Stop
	// Ended says why the last session ended, when none is live and one
	// ran before.
	Ended string
	// BreakpointLines lines are requested in BreakpointFiles files.
	BreakpointLines, BreakpointFiles int
}

// Breakpoints is what SetBreakpoints made of one file's breakpoints.
type Breakpoints struct {
	// File is the file's absolute path.
	File string
	// Lines are the requested lines, sorted and deduplicated; none clears
	// the file.
	Lines []int
	// Breakpoints are the requested breakpoints, by line.
	Breakpoints []SourceBreakpoint
	// States are what the adapter made of them, or pending ones when no
	// session is live.
	States []BreakpointState
}

// SourceBreakpoint is one line breakpoint and what else it does: with
// Condition it stops only where the expression is true, with HitCondition
// only on the hits the expression selects ("3", ">= 3", "% 2": the syntax is
// the adapter's), and with LogMessage it does not stop at all but writes
// the message (with {expressions} interpolated) to the session's output. An
// adapter that lacks a kind refuses it (DAP setBreakpoints).
type SourceBreakpoint struct {
	Line         int    `json:"line"`
	Condition    string `json:"condition,omitempty"`
	HitCondition string `json:"hit_condition,omitempty"`
	LogMessage   string `json:"log_message,omitempty"`
}

// BreakpointsArgs are SetBreakpoints' arguments: the breakpoints of one
// file, as plain Lines or as Breakpoints with conditions, hit conditions
// and log messages (both together add up; a line given twice is refused).
type BreakpointsArgs struct {
	File        string
	Lines       []int
	Breakpoints []SourceBreakpoint
}

// LaunchArgs are Launch's arguments.
type LaunchArgs struct {
	// Program is a source file, a package directory or a native executable,
	// relative to the working dir.
	Program string
	// Args are the program's arguments.
	Args []string
	// Adapter picks an adapter by id instead of inferring it from the
	// program.
	Adapter string
	// Test runs tests instead of the program: a test's name (Go: TestParse
	// or TestParse/subtest; pytest: test_parse or TestClass::test_parse), or
	// AllTests for every test of Program. A Go _test.go file or a pytest
	// file (test_*.py, *_test.py) runs its own tests without it.
	Test string
}

// AttachArgs are Attach's arguments: PID, or Port (with Host).
type AttachArgs struct {
	// PID is a running process to attach to by its process id; the
	// adapter is started and attaches to it itself (ptrace). Ending the
	// session detaches from it and leaves it running.
	PID int
	// Port is the port the program's debug server listens on, on Host
	// (127.0.0.1 when empty).
	Port int
	Host string
	// Adapter picks an adapter by id instead of inferring it: by pid from
	// what the process runs (a Go binary, a python or node interpreter, a
	// native executable), by port from the root markers.
	Adapter string
}

// Started is a new session and what its program did first.
type Started struct {
	// Title names the session: adapter, what it debugs, when it started
	// and when its TTL ends it.
	Title string
	// Adapter is the adapter's id, and AdapterReason why it is that one
	// ("named by the adapter argument", "inferred from process 4242:
	// /srv/ticker is a Go binary ...").
	Adapter, AdapterReason string
	// Session is Title plus the session's state after Outcome.
	Session string
	// Outcome is where the program stopped, or that it ended or runs.
	Outcome Outcome
	// Breakpoints are the conversation's breakpoints as the adapter placed
	// them.
	Breakpoints []BreakpointState
	// Sandbox says what confines the adapter and the program, when that is
	// not the whole sandbox or the network is the operator's choice.
	Sandbox string
	// Limits says the caps the adapter and the program run under
	// ("processes: at most 256 processes and threads at once (cgroup v2
	// pids.max), ...") or why there is none.
	Limits string
	// Ops are the optional ops (OptionalOps) the adapter's capabilities
	// offer.
	Ops []string
}

// Outcome is what became of the program after it was started, continued,
// stepped or paused: exactly one of Stop, Exited, or Running.
type Outcome struct {
	// AlreadyStopped: a pause found the program stopped already; Stop is
	// where.
	AlreadyStopped bool
	// Stop is where the program stopped.
	Stop *Stop
	// StackError, for a stop, says why its stack could not be read (delve's
	// program halted at entry has no goroutine yet).
	StackError string
	// Exited says the program ended; the session ended with it.
	Exited *Exit
	// Running: no stop came within Waited (0: none was waited for).
	Running bool
	Waited  time.Duration
}

// Stop says where the program stopped: the top frame's file and line, the
// source text of that line, and the top frames.
type Stop struct {
	// Session is the child session that stopped (0: the session itself),
	// SessionName its name.
	Session     int    `json:"session,omitempty"`
	SessionName string `json:"session_name,omitempty"`
	Reason      string `json:"reason"`
	Description string `json:"description,omitempty"`
	ThreadID    int    `json:"thread_id"`
	File        string `json:"file,omitempty"`
	Line        int    `json:"line,omitempty"`
	Source      string `json:"source,omitempty"`
	// SourceOutside is set when File lies outside the working dir (the
	// runtime, a library elsewhere) or leads out of it through a symbolic
	// link: its source is not read, so Source is empty.
	SourceOutside bool `json:"source_outside,omitempty"`
	// Exception names the exception of an exception stop ("KeyError:
	// 'missing'", "panic: assignment to entry in nil map").
	Exception string `json:"exception,omitempty"`
	// UserFrame is the innermost frame in the program's own project when
	// the top frame is elsewhere (the runtime, a library), and UserSource
	// its source line.
	UserFrame  *Frame  `json:"user_frame,omitempty"`
	UserSource string  `json:"user_source,omitempty"`
	Frames     []Frame `json:"frames,omitempty"`
}

// Exit says the program ended.
type Exit struct {
	// Session is the child session that ended (0: the session itself).
	Session int  `json:"session,omitempty"`
	Code    int  `json:"code"`
	Known   bool `json:"known"` // the adapter reported the exit code

	// Unreported: the launched program's process exited but the adapter
	// has not reported its end (processes it left hold its output open);
	// PID was its process id and Leftovers are those processes, which
	// ending the session killed.
	Unreported bool     `json:"-"`
	PID        int      `json:"-"`
	Adapter    string   `json:"-"`
	Leftovers  []string `json:"-"`
	// Output is the program's kept output (as Output.Text), OutputBytes its
	// size and OutputDropped how many earlier bytes were dropped.
	Output        string `json:"-"`
	OutputBytes   int    `json:"-"`
	OutputDropped int    `json:"-"`
}

// BreakpointState is one requested breakpoint and what the adapter made of it.
type BreakpointState struct {
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	// Function names a function breakpoint (File and Line are then empty).
	Function     string `json:"function,omitempty"`
	Condition    string `json:"condition,omitempty"`
	HitCondition string `json:"hit_condition,omitempty"`
	LogMessage   string `json:"log_message,omitempty"`
	ID           int    `json:"id,omitempty"`
	Verified     bool   `json:"verified"`
	Pending      bool   `json:"pending,omitempty"` // not sent yet: no session
	ActualLine   int    `json:"actual_line,omitempty"`
	Message      string `json:"message,omitempty"`
}

// Threads are the debuggee's threads, at most MaxThreads of Total; when
// cut, the thread that last stopped leads.
type Threads struct {
	Threads []Thread
	Total   int
	// Running: the program runs, and an adapter may list only a
	// placeholder then.
	Running bool
}

// Thread is one thread of the debuggee.
type Thread struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

// Stack is one page of a thread's frames: Frames start at frame Start (0
// is the top), at most MaxStackFrames.
type Stack struct {
	ThreadID int
	Start    int
	Frames   []Frame
	// Total is how many frames the thread has; when Exact is false it has
	// more than that (counting stopped there).
	Total int
	Exact bool
}

// Frame is one stack frame.
type Frame struct {
	ID     int    `json:"id"`
	Name   string `json:"name"`
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
	// Instruction is the frame's instruction pointer as a memory
	// reference (disassemble's default), when the adapter gives one.
	Instruction string `json:"instruction,omitempty"`
}

// Scopes are the scopes of one frame.
type Scopes struct {
	FrameID int
	Scopes  []Scope
}

// Scope is one scope of a frame; Reference lists its variables.
type Scope struct {
	Name      string `json:"name"`
	Reference int    `json:"reference"`
	Expensive bool   `json:"expensive,omitempty"`
}

// Variables is one page of the children of a variables reference, at most
// MaxVariables.
type Variables struct {
	Reference int
	Variables []Variable
	// Elements: the reference is a container the adapter counted (an
	// array, slice or map) and pages itself; Total counts its elements
	// and Start to End (one past) are the elements asked for. Otherwise
	// Total counts the children and Start to End are the ones shown.
	Elements   bool
	Total      int
	Start, End int
	// Next is the start of the next page, 0 on the last.
	Next int
}

// Variable is one variable (or an evaluation result). Reference, when not
// zero, lists its children.
type Variable struct {
	Name      string `json:"name,omitempty"`
	Value     string `json:"value"`
	Type      string `json:"type,omitempty"`
	Reference int    `json:"reference,omitempty"`
	// Indexed is how many elements (array, slice, map entries) the adapter
	// says Reference holds; variables pages through them with start.
	Indexed int  `json:"indexed,omitempty"`
	Cut     bool `json:"cut,omitempty"` // Value was cut at MaxValueLen
	// MemoryReference locates the value in memory (read_memory), when
	// the adapter gives one.
	MemoryReference string `json:"memory_reference,omitempty"`
}

// Output is the debuggee's kept stdout and stderr, a header line at each
// switch of stream.
type Output struct {
	Text string
	// Bytes are kept, Dropped earlier ones dropped (OutputLimit).
	Bytes, Dropped int
	// Ended, when no session is live, says why the session whose output
	// this is ended.
	Ended string
	// FromEnded: the output is the ended session's.
	FromEnded bool
}

// Terminated is what Terminate ended.
type Terminated struct {
	// Session describes the session ended; "" when none was live.
	Session string
	// Attached: the session was attached, so the program keeps running.
	Attached bool
	// Previous says why the last session ended, when none was live.
	Previous string
}
