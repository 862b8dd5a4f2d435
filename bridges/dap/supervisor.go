package dap

import (
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	godap "github.com/google/go-dap"
)

// Limits on what one op returns.
const (
	MaxStackFrames = 30  // stack: frames returned
	MaxVariables   = 50  // variables: children returned
	MaxValueLen    = 400 // variables, evaluate: characters of one value
	topFrames      = 5   // frames shown with every stop
)

// Config configures a Supervisor. The zero value of each field means its default.
type Config struct {
	// Adapters is the adapter table (DefaultAdapters when nil).
	Adapters []Adapter
	// TTL is a session's fixed lifetime (30 minutes); when it passes the
	// session is terminated and the next call says so.
	TTL time.Duration
	// StartTimeout bounds starting an adapter and the launch handshake, which
	// includes delve building a Go program (2 minutes).
	StartTimeout time.Duration
	// StopWait bounds how long launch, continue, step and pause wait for the
	// program to stop before answering "still running" (30 seconds).
	StopWait time.Duration
	// AttachWait bounds how long attach waits for the port to listen (a
	// debug server still starting) before saying nothing listens there (30
	// seconds).
	AttachWait time.Duration
	// OutputLimit is how many bytes of debuggee output are kept (64 KiB).
	OutputLimit int
	// RequestTimeout bounds the adapter's answer to one request, such as
	// stackTrace or evaluate (30 seconds).
	RequestTimeout time.Duration

	// connector, set only by tests, replaces starting an adapter process:
	// fault injection with an in-process fake adapter.
	connector func() io.ReadWriteCloser
}

func (c Config) withDefaults() Config {
	if c.Adapters == nil {
		c.Adapters = DefaultAdapters()
	}
	if c.TTL <= 0 {
		c.TTL = 30 * time.Minute
	}
	if c.StartTimeout <= 0 {
		c.StartTimeout = 2 * time.Minute
	}
	if c.StopWait <= 0 {
		c.StopWait = 30 * time.Second
	}
	if c.AttachWait <= 0 {
		c.AttachWait = 30 * time.Second
	}
	if c.RequestTimeout <= 0 {
		c.RequestTimeout = 30 * time.Second
	}
	if c.OutputLimit <= 0 {
		c.OutputLimit = 64 << 10
	}
	return c
}

// Supervisor owns the debug sessions of many conversations: at most one live
// session per conversation, each with a fixed TTL. Calls for one
// conversation are serialized. See SPEC.md, "debug: drive a debugger".
type Supervisor struct {
	cfg Config

	mu     sync.Mutex
	convs  map[string]*conversation
	closed bool
}

// conversation is one conversation's debug state.
type conversation struct {
	mu          sync.Mutex // serializes calls
	live        *session
	last        *session // the most recent ended session (its output stays readable)
	endReason   string   // why the last session ended, for the next call
	breakpoints map[string][]int
	bpStates    []BreakpointState
	ttlTimer    *time.Timer
}

// NewSupervisor returns a Supervisor with cfg's settings.
func NewSupervisor(cfg Config) *Supervisor {
	return &Supervisor{cfg: cfg.withDefaults(), convs: map[string]*conversation{}}
}

// Request is one debug op and its arguments (SPEC.md's debug table).
type Request struct {
	Op        string   `json:"op"`
	File      string   `json:"file,omitempty"`
	Lines     []int    `json:"lines,omitempty"`
	Program   string   `json:"program,omitempty"`
	Args      []string `json:"args,omitempty"`
	Port      int      `json:"port,omitempty"`
	ThreadID  int      `json:"thread_id,omitempty"`
	FrameID   int      `json:"frame_id,omitempty"`
	Reference int      `json:"reference,omitempty"`
	// Start is the first child variables lists, or the first frame stack
	// lists (0-based): the next page of a container longer than
	// MaxVariables or of a stack deeper than MaxStackFrames.
	Start      int    `json:"start,omitempty"`
	Expression string `json:"expression,omitempty"`
	// Adapter picks an adapter by id instead of inferring it from the program
	// or the root markers.
	Adapter string `json:"adapter,omitempty"`
}

// Ops lists the op names Do accepts.
var Ops = []string{"adapters", "status", "breakpoints", "launch", "attach", "continue", "pause",
	"step_over", "step_in", "step_out", "threads", "stack", "scopes", "variables", "evaluate",
	"output", "terminate"}

// Reply is an op's result: Text for the agent, plus the same facts as fields.
type Reply struct {
	Text        string            `json:"-"`
	Adapters    []AdapterStatus   `json:"adapters,omitempty"`
	Session     string            `json:"session,omitempty"`
	Stop        *Stop             `json:"stop,omitempty"`
	Exited      *Exit             `json:"exited,omitempty"`
	Breakpoints []BreakpointState `json:"breakpoints,omitempty"`
	Threads     []Thread          `json:"threads,omitempty"`
	Frames      []Frame           `json:"frames,omitempty"`
	Scopes      []Scope           `json:"scopes,omitempty"`
	Variables   []Variable        `json:"variables,omitempty"`
	Value       *Variable         `json:"value,omitempty"`
	Output      string            `json:"output,omitempty"`
}

// Stop says where the program stopped: the top frame's file and line, the
// source text of that line, and the top frames.
type Stop struct {
	Reason      string `json:"reason"`
	Description string `json:"description,omitempty"`
	ThreadID    int    `json:"thread_id"`
	File        string `json:"file,omitempty"`
	Line        int    `json:"line,omitempty"`
	Source      string `json:"source,omitempty"`
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

// buildStop describes a stop: the top frames and the source line of the
// top one, the exception for an exception stop, and, when the top frame is
// outside the program's project (a panic in the runtime, a signal in libc),
// the innermost frame inside it.
func (s *session) buildStop(ctx context.Context, stop godap.StoppedEventBody, last int) (*Stop, error) {
	st := &Stop{Reason: stop.Reason, Description: stop.Description, ThreadID: stop.ThreadId}
	if st.ThreadID == 0 {
		st.ThreadID = last
	}
	if st.ThreadID == 0 {
		if ths, err := s.threads(ctx); err == nil && len(ths) > 0 {
			st.ThreadID = ths[0].ID
		}
	}
	fr, _, err := s.frames(ctx, st.ThreadID, 0, MaxStackFrames)
	if err != nil {
		return nil, err
	}
	if len(fr) > 0 {
		st.File, st.Line = fr[0].File, fr[0].Line
		st.Source = sourceLine(fr[0].File, fr[0].Line)
		if !s.inProject(fr[0].File) {
			for i := 1; i < len(fr); i++ {
				if s.inProject(fr[i].File) {
					f := fr[i]
					st.UserFrame = &f
					st.UserSource = sourceLine(f.File, f.Line)
					break
				}
			}
		}
	}
	st.Frames = fr[:min(len(fr), topFrames)]
	if stop.Reason == "exception" && s.caps.SupportsExceptionInfoRequest {
		var resp godap.ExceptionInfoResponse
		if err := s.c.call(ctx, "exceptionInfo", &godap.ExceptionInfoArguments{ThreadId: st.ThreadID}, &resp); err == nil {
			st.Exception = exceptionText(resp.Body)
		}
	}
	return st, nil
}

// exceptionText is "KeyError: 'missing'" from an exceptionInfo answer.
func exceptionText(b godap.ExceptionInfoResponseBody) string {
	id, desc := strings.TrimSpace(b.ExceptionId), strings.TrimSpace(b.Description)
	if desc == "" && b.Details != nil {
		desc = strings.TrimSpace(b.Details.Message)
	}
	var t string
	switch {
	case desc == "" || desc == id:
		t = id
	case id == "" || strings.HasPrefix(desc, id):
		t = desc
	default:
		t = id + ": " + desc
	}
	return cut(t, MaxValueLen)
}

// inProject reports whether file lies in the session's project directory.
func (s *session) inProject(file string) bool {
	return file != "" && s.root != "" && strings.HasPrefix(filepath.Clean(file), s.root+string(filepath.Separator))
}

// Exit says the program ended.
type Exit struct {
	Code  int  `json:"code"`
	Known bool `json:"known"` // the adapter reported the exit code
}

// BreakpointState is one requested breakpoint and what the adapter made of it.
type BreakpointState struct {
	File       string `json:"file"`
	Line       int    `json:"line"`
	ID         int    `json:"id,omitempty"`
	Verified   bool   `json:"verified"`
	Pending    bool   `json:"pending,omitempty"` // not sent yet: no session
	ActualLine int    `json:"actual_line,omitempty"`
	Message    string `json:"message,omitempty"`
}

// Thread is one thread of the debuggee.
type Thread struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

// Frame is one stack frame.
type Frame struct {
	ID     int    `json:"id"`
	Name   string `json:"name"`
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
}

// Scope is one scope of a frame; Reference lists its variables.
type Scope struct {
	Name      string `json:"name"`
	Reference int    `json:"reference"`
	Expensive bool   `json:"expensive,omitempty"`
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
}

// Adapters reports, for a root directory, which adapters can start and why not.
func (sv *Supervisor) Adapters(ctx context.Context, root string) []AdapterStatus {
	var out []AdapterStatus
	for _, a := range sv.cfg.Adapters {
		st, _ := checkAdapter(ctx, a, root)
		out = append(out, st)
	}
	return out
}

func (sv *Supervisor) conv(id string) (*conversation, error) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if sv.closed {
		return nil, errors.New("debug: the debug supervisor is closed")
	}
	c := sv.convs[id]
	if c == nil {
		c = &conversation{breakpoints: map[string][]int{}}
		sv.convs[id] = c
	}
	return c, nil
}

// Do performs one op for a conversation whose working directory is root.
// Errors say what failed and what to do next.
func (sv *Supervisor) Do(ctx context.Context, conversationID, root string, req Request) (*Reply, error) {
	if conversationID == "" {
		return nil, errors.New("debug: no conversation id; debug sessions belong to a conversation")
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("debug: working dir: %w", err)
	}
	c, err := sv.conv(conversationID)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	sv.reap(c)

	switch req.Op {
	case "adapters":
		return sv.opAdapters(ctx, root), nil
	case "status":
		return sv.opStatus(c), nil
	case "breakpoints":
		return sv.opBreakpoints(ctx, c, root, req)
	case "launch", "attach":
		return sv.opStart(ctx, c, root, req)
	case "output":
		return sv.opOutput(c)
	case "terminate":
		return sv.opTerminate(c)
	case "":
		return nil, fmt.Errorf("debug: missing op; use one of %s", strings.Join(Ops, ", "))
	}
	if !slices.Contains(Ops, req.Op) {
		return nil, fmt.Errorf("debug: unknown op %q; use one of %s", req.Op, strings.Join(Ops, ", "))
	}
	s := c.live
	if s == nil {
		if c.endReason != "" {
			return nil, fmt.Errorf("debug: no session is running: %s; start a new one with op launch or attach", c.endReason)
		}
		return nil, errNoSession
	}
	switch req.Op {
	case "stack", "scopes", "variables", "evaluate":
		s.mu.Lock()
		running := s.running || s.stop == nil
		s.mu.Unlock()
		if running {
			return nil, fmt.Errorf("debug: %s: the program is running, so it has no frames to look at; pause it, or set a breakpoint and continue, then %s", req.Op, req.Op)
		}
	}
	var r *Reply
	switch req.Op {
	case "continue", "pause", "step_over", "step_in", "step_out":
		r, err = sv.opRun(ctx, c, s, req)
	case "threads":
		r, err = sv.opThreads(ctx, s)
	case "stack":
		r, err = sv.opStack(ctx, s, req)
	case "scopes":
		r, err = sv.opScopes(ctx, s, req)
	case "variables":
		r, err = sv.opVariables(ctx, s, req)
	case "evaluate":
		r, err = sv.opEvaluate(ctx, s, req)
	}
	if err != nil {
		select {
		case <-s.c.done:
			sv.end(c, "the debug adapter went away: "+s.withStderr(err).Error())
			return nil, fmt.Errorf("debug: %s failed because the adapter went away: %w; start a new session with launch", req.Op, s.withStderr(err))
		default:
		}
		return nil, prefixDebug(err)
	}
	return r, nil
}

// prefixDebug makes err's message start with "debug: " (replacing the
// lower layer's "dap: "); errors.Is/As still see err.
func prefixDebug(err error) error {
	msg := err.Error()
	if strings.HasPrefix(msg, "debug: ") {
		return err
	}
	return &debugError{msg: "debug: " + strings.TrimPrefix(msg, "dap: "), err: err}
}

type debugError struct {
	msg string
	err error
}

func (e *debugError) Error() string { return e.msg }
func (e *debugError) Unwrap() error { return e.err }

// reap ends a session whose adapter died on its own; the caller holds c.mu.
// A program that ended while no op waited for it (it ran past the stop
// wait) frees the slot too, so the next launch is not refused.
func (sv *Supervisor) reap(c *conversation) {
	s := c.live
	if s == nil {
		return
	}
	s.mu.Lock()
	exited, terminated, code := s.exited, s.terminated, s.exitCode
	gone := s.debuggeeGone && s.kind == "launch"
	s.mu.Unlock()
	switch {
	case exited:
		sv.end(c, fmt.Sprintf("the program exited with code %d (op output shows what it wrote)", code))
		return
	case terminated:
		sv.end(c, "the program ended (op output shows what it wrote)")
		return
	}
	// The adapter never reports the end of a program whose leftovers hold
	// its output open.
	if gone {
		if w := s.outputHolders(); len(w) > 0 {
			var left []string
			for _, h := range w {
				if l := procLine(h); l != "" {
					left = append(left, l)
				}
			}
			sv.end(c, fmt.Sprintf("the program exited, but the %s adapter did not report its exit code: processes it started held its output open and were killed with the session: %s (op output shows what it wrote)", s.adapter.ID, strings.Join(left, "; ")))
			return
		}
	}
	select {
	case <-s.c.done:
		sv.end(c, "the debug adapter exited: "+s.withStderr(s.c.closeErr()).Error())
	default:
	}
}

// end tears the live session down and records why; the caller holds c.mu.
func (sv *Supervisor) end(c *conversation, reason string) {
	s := c.live
	if s == nil {
		return
	}
	if c.ttlTimer != nil {
		c.ttlTimer.Stop()
		c.ttlTimer = nil
	}
	s.shutdown(2 * time.Second)
	c.live = nil
	c.last = s
	c.endReason = fmt.Sprintf("the %s session ended at %s: %s", s.adapter.ID, time.Now().UTC().Format("15:04:05"), reason)
}

func (sv *Supervisor) opAdapters(ctx context.Context, root string) *Reply {
	sts := sv.Adapters(ctx, root)
	var b strings.Builder
	fmt.Fprintf(&b, "debug adapters for %s:\n", root)
	for _, st := range sts {
		if st.Usable {
			cmd := strings.ReplaceAll(strings.Join(st.Command, " "), "${socket}", "<socket tether listens on>")
			fmt.Fprintf(&b, "- %s: usable (marker %s; %s)\n", st.ID, st.Marker, cmd)
		} else {
			fmt.Fprintf(&b, "- %s: unavailable: %s\n", st.ID, st.Reason)
		}
	}
	return &Reply{Text: strings.TrimRight(b.String(), "\n"), Adapters: sts}
}

func (sv *Supervisor) opStatus(c *conversation) *Reply {
	r := &Reply{}
	var b strings.Builder
	if s := c.live; s != nil {
		r.Session = s.describe()
		fmt.Fprintf(&b, "live: %s", r.Session)
		s.mu.Lock()
		stop := s.stop
		running := s.running
		last := s.lastThread
		s.mu.Unlock()
		if stop != nil && !running {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			if st, err := s.buildStop(ctx, *stop, last); err == nil {
				r.Stop = st
			} else {
				r.Stop = &Stop{Reason: stop.Reason, Description: stop.Description, ThreadID: stop.ThreadId}
			}
			cancel()
			b.WriteString("\n")
			writeStop(&b, r.Stop)
		}
	} else {
		b.WriteString("no debug session is running")
		if c.endReason != "" {
			fmt.Fprintf(&b, "; %s", c.endReason)
		}
	}
	if n := countLines(c.breakpoints); n > 0 {
		fmt.Fprintf(&b, "\n%d breakpoint(s) requested in %d file(s)", n, len(c.breakpoints))
	}
	r.Text = b.String()
	return r
}

func countLines(m map[string][]int) int {
	n := 0
	for _, ls := range m {
		n += len(ls)
	}
	return n
}

func (sv *Supervisor) opBreakpoints(ctx context.Context, c *conversation, root string, req Request) (*Reply, error) {
	if req.File == "" {
		return nil, errors.New("debug: breakpoints needs file (and lines; empty lines clears the file)")
	}
	file := req.File
	if !filepath.IsAbs(file) {
		file = filepath.Join(root, file)
	}
	file = filepath.Clean(file)
	if fi, err := os.Stat(file); err != nil || fi.IsDir() {
		return nil, fmt.Errorf("debug: breakpoints: %s is not a file; give a source file path relative to the working dir", req.File)
	}
	lines := slices.Clone(req.Lines)
	n := -1 // lines in the file, counted when needed
	for _, l := range lines {
		if l <= 0 {
			return nil, fmt.Errorf("debug: breakpoints: line %d is not a line number (lines are 1-based)", l)
		}
		if n < 0 {
			n = fileLines(file)
		}
		if n >= 0 && l > n {
			return nil, fmt.Errorf("debug: breakpoints: line %d is past the end of %s (%d lines); no breakpoint was set or changed", l, req.File, n)
		}
	}
	slices.Sort(lines)
	lines = slices.Compact(lines)
	if len(lines) == 0 {
		delete(c.breakpoints, file)
	} else {
		c.breakpoints[file] = lines
	}
	r := &Reply{}
	if s := c.live; s != nil {
		st, err := s.setBreakpoints(ctx, file, lines)
		if err != nil {
			return nil, prefixDebug(s.withStderr(err))
		}
		r.Breakpoints = st
		c.bpStates = mergeStates(c.bpStates, file, st)
	} else {
		for _, l := range lines {
			r.Breakpoints = append(r.Breakpoints, BreakpointState{File: file, Line: l, Pending: true,
				Message: "no session yet: sent to the adapter at launch or attach"})
		}
		c.bpStates = mergeStates(c.bpStates, file, r.Breakpoints)
	}
	var b strings.Builder
	if len(lines) == 0 {
		fmt.Fprintf(&b, "cleared breakpoints in %s", relTo(root, file))
	} else {
		writeBreakpoints(&b, root, r.Breakpoints)
	}
	r.Text = b.String()
	return r, nil
}

func mergeStates(all []BreakpointState, file string, st []BreakpointState) []BreakpointState {
	var out []BreakpointState
	for _, s := range all {
		if s.File != file {
			out = append(out, s)
		}
	}
	return append(out, st...)
}

// pickAdapter chooses the adapter for a launch or attach.
func (sv *Supervisor) pickAdapter(ctx context.Context, root string, req Request, program string) (*resolved, error) {
	table := sv.cfg.Adapters
	find := func(id string) (Adapter, bool) {
		for _, a := range table {
			if a.ID == id {
				return a, true
			}
		}
		return Adapter{}, false
	}
	var chosen Adapter
	switch {
	case req.Adapter != "":
		a, ok := find(req.Adapter)
		if !ok {
			var ids []string
			for _, a := range table {
				ids = append(ids, a.ID)
			}
			return nil, fmt.Errorf("debug: unknown adapter %q; use one of %s", req.Adapter, strings.Join(ids, ", "))
		}
		chosen = a
	case req.Op == "launch":
		a, err := adapterForProgram(table, program)
		if err != nil {
			return nil, err
		}
		chosen = a
	default: // attach: the first adapter whose marker is in root and that can attach
		var why []string
		for _, a := range table {
			if a.Attach == nil {
				continue
			}
			if findMarker(a.Markers, root) != "" {
				chosen = a
				break
			}
			why = append(why, a.ID)
		}
		if chosen.ID == "" {
			return nil, fmt.Errorf("debug: attach: no root marker in %s names the adapter (tried %s); pass adapter", root, strings.Join(why, ", "))
		}
	}
	if req.Op == "attach" && chosen.Attach == nil {
		return nil, fmt.Errorf("debug: the %s adapter cannot attach by port", chosen.ID)
	}
	if req.Op == "launch" {
		root = projectDir(chosen, root, program)
	}
	st, r := checkAdapter(ctx, chosen, root)
	if r == nil {
		return nil, fmt.Errorf("debug: the %s adapter cannot start here: %s; %s", chosen.ID, st.Reason, startHint(st.Reason))
	}
	return r, nil
}

// projectDir returns the directory nearest to program, between program's own
// and root (both included), that has one of a's markers; root when none has.
// A program in a subproject (tool/main.py next to tool/pyproject.toml) runs
// in that project, as lsp finds a file's root by walking up.
func projectDir(a Adapter, root, program string) string {
	dir := program
	if fi, err := os.Stat(program); err != nil || !fi.IsDir() {
		dir = filepath.Dir(program)
	}
	for {
		if dir == root || !strings.HasPrefix(dir, root+string(filepath.Separator)) {
			return root
		}
		if findMarker(a.Markers, dir) != "" {
			return dir
		}
		dir = filepath.Dir(dir)
	}
}

// adapterForProgram infers the adapter from the program: its extension, the
// source files of a package directory, or a native executable.
func adapterForProgram(table []Adapter, program string) (Adapter, error) {
	fi, err := os.Stat(program)
	if err != nil {
		return Adapter{}, fmt.Errorf("debug: launch: program %s does not exist; give a path relative to the working dir", program)
	}
	if fi.IsDir() {
		ents, _ := os.ReadDir(program)
		for _, a := range table {
			for _, e := range ents {
				if !e.IsDir() && slices.Contains(a.Extensions, filepath.Ext(e.Name())) {
					return a, nil
				}
			}
		}
		return Adapter{}, fmt.Errorf("debug: launch: no adapter launches the directory %s; give a program file or pass adapter", program)
	}
	ext := filepath.Ext(program)
	native := isNative(program)
	for _, a := range table {
		if slices.Contains(a.Extensions, ext) {
			if a.Executables && !native {
				// lldb lists .c and .rs to be picked for their programs, but
				// launches only what was built from them.
				return Adapter{}, fmt.Errorf("debug: launch: %s is source; build it with debug info (gcc -g, cargo build) and launch the executable", program)
			}
			return a, nil
		}
	}
	if native {
		for _, a := range table {
			if a.Executables {
				return a, nil
			}
		}
	}
	if ext == ".c" || ext == ".cc" || ext == ".cpp" || ext == ".rs" {
		return Adapter{}, fmt.Errorf("debug: launch: %s is source; build it with debug info (gcc -g, cargo build) and launch the executable", program)
	}
	return Adapter{}, fmt.Errorf("debug: launch: no adapter launches %s; pass adapter, or launch a .go, .py, .dart file or a native executable", program)
}

func isNative(p string) bool {
	f, err := elf.Open(p)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

func (sv *Supervisor) opStart(ctx context.Context, c *conversation, root string, req Request) (*Reply, error) {
	if s := c.live; s != nil {
		return nil, fmt.Errorf("debug: %s refused: a session is already live: %s; terminate it first", req.Op, s.describe())
	}
	var program string
	var args map[string]any
	if req.Op == "launch" {
		if req.Program == "" {
			return nil, errors.New("debug: launch needs program (a file or package dir relative to the working dir)")
		}
		program = req.Program
		if !filepath.IsAbs(program) {
			program = filepath.Join(root, program)
		}
		program = filepath.Clean(program)
	} else if req.Port <= 0 || req.Port > 65535 {
		return nil, errors.New("debug: attach needs port (the port the program's debug server listens on)")
	}
	a, err := sv.pickAdapter(ctx, root, req, program)
	if err != nil {
		return nil, err
	}
	workDir := root // names in replies stay relative to it
	if req.Op == "launch" {
		root = a.root // the program's project, at or below the working dir
	}
	mode := "exec"
	if fi, err := os.Stat(program); err == nil && (fi.IsDir() || slices.Contains(a.Extensions, filepath.Ext(program))) {
		mode = "debug"
	}
	scratch, err := os.MkdirTemp("", "tether-dap-")
	if err != nil {
		return nil, fmt.Errorf("debug: making a scratch dir: %w", err)
	}
	vars := map[string]any{
		"${program}": program, "${args}": stringsToAny(req.Args), "${cwd}": root,
		"${interpreter}": a.interpreter, "${port}": req.Port, "${mode}": mode,
		"${scratch}": scratch,
	}
	tmpl := a.Launch
	if req.Op == "attach" {
		tmpl = a.Attach
	}
	args, _ = expand(tmpl, vars).(map[string]any)
	if args == nil {
		args = map[string]any{}
	}
	if req.Op == "launch" {
		if _, ok := args["program"]; !ok {
			args["program"] = program
		}
	}
	// Breakpoints are sent with absolute paths.
	s, states, err := sv.startSession(ctx, a, root, scratch, req.Op, args, req.Port, c.breakpoints)
	if err != nil {
		return nil, prefixDebug(err)
	}
	if req.Op == "attach" {
		s.program = ""
	} else {
		s.program = relTo(workDir, program)
	}
	c.live = s
	c.endReason = ""
	c.bpStates = states
	c.ttlTimer = time.AfterFunc(sv.cfg.TTL, func() { sv.expire(c, s) })

	r := &Reply{Breakpoints: states}
	var b strings.Builder
	fmt.Fprintf(&b, "started %s\n", s.title())
	// A launched program runs to its first stop; an attached one is waited
	// for only when a breakpoint may stop it (else it runs until pause).
	wait := sv.cfg.StopWait
	if req.Op == "attach" && len(c.breakpoints) == 0 {
		wait = 0
	}
	if err := sv.afterRun(ctx, c, s, 0, wait, r, &b); err != nil {
		return nil, err
	}
	s.refreshBreakpoints(r.Breakpoints)
	if len(r.Breakpoints) > 0 {
		b.WriteString("\n")
		writeBreakpoints(&b, workDir, r.Breakpoints)
	}
	r.Session = s.describe()
	r.Text = strings.TrimRight(b.String(), "\n")
	return r, nil
}

func stringsToAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// expire is the TTL timer's callback.
func (sv *Supervisor) expire(c *conversation, s *session) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.live != s {
		return
	}
	sv.end(c, fmt.Sprintf("its fixed TTL of %s expired; the adapter and the program were killed", sv.cfg.TTL))
}

// afterRun waits for the program to stop (or end) and fills r and b with where
// it stopped; the caller holds c.mu.
func (sv *Supervisor) afterRun(ctx context.Context, c *conversation, s *session, afterSeq int, wait time.Duration, r *Reply, b *strings.Builder) error {
	var out stopOutcome
	if wait > 0 {
		// The TTL holds during the wait too: the timer's own end waits for
		// this op to release the conversation.
		ttlDue := false
		if left := time.Until(s.deadline); left < wait {
			wait, ttlDue = max(left, time.Millisecond), true
		}
		out = s.waitStop(ctx, afterSeq, wait)
		if out == outRunning && ttlDue && ctx.Err() == nil {
			sv.end(c, fmt.Sprintf("its fixed TTL of %s expired while waiting for the program to stop; the adapter and the program were killed", sv.cfg.TTL))
			return fmt.Errorf("debug: %s; start a new session with launch or attach", c.endReason)
		}
	} else {
		out = outRunning
		s.mu.Lock()
		if s.stopSeq > afterSeq {
			out = outStopped
		}
		s.mu.Unlock()
	}
	switch out {
	case outStopped:
		s.mu.Lock()
		stop := *s.stop
		last := s.lastThread
		s.mu.Unlock()
		st, err := s.buildStop(ctx, stop, last)
		if err != nil {
			// Still a stop: say so, and why there is no stack (delve's
			// program halted at entry has no goroutine yet).
			st = &Stop{Reason: stop.Reason, Description: stop.Description, ThreadID: stop.ThreadId}
			if st.ThreadID == 0 {
				st.ThreadID = last
			}
			r.Stop = st
			writeStop(b, st)
			fmt.Fprintf(b, "\nits stack could not be read: %s; continue or step to run on", strings.TrimPrefix(err.Error(), "dap: "))
			return nil
		}
		r.Stop = st
		writeStop(b, st)
	case outExited:
		s.mu.Lock()
		ex := &Exit{Code: s.exitCode, Known: s.exited}
		silent := s.debuggeeGone && !s.exited && !s.terminated
		pid, pgid, holders := s.debuggeePID, s.debuggeePgid, s.holders
		s.mu.Unlock()
		r.Exited = ex
		switch {
		case ex.Known:
			fmt.Fprintf(b, "the program exited with code %d", ex.Code)
		case silent:
			fmt.Fprintf(b, "the program (pid %d) exited, but the %s adapter has not reported its end or exit code", pid, s.adapter.ID)
			var left []string
			for _, h := range holders {
				if l := procLine(h); l != "" {
					left = append(left, l)
				}
			}
			if len(left) == 0 && pgid > 0 {
				left = groupMembers(pgid)
			}
			if len(left) > 0 {
				fmt.Fprintf(b, ": processes it started still run and hold its output open; ending the session killed them: %s", strings.Join(left, "; "))
			}
		default:
			b.WriteString("the program ended")
		}
		text, size, dropped := s.out.render()
		if size == 0 {
			b.WriteString("; it wrote no output")
		} else {
			tail := lastLines(strings.TrimRight(text, "\n"), 20)
			if len(tail) > 2000 {
				i := len(tail) - 2000
				for i < len(tail) && (tail[i]&0xC0) == 0x80 {
					i++
				}
				tail = "(cut) …" + tail[i:]
			}
			fmt.Fprintf(b, "; %d bytes of output kept", size)
			if dropped > 0 {
				fmt.Fprintf(b, " (%d earlier bytes dropped)", dropped)
			}
			fmt.Fprintf(b, ", the end of it (op output for all):\n%s", tail)
		}
		if ex.Known {
			sv.end(c, fmt.Sprintf("the program exited with code %d", ex.Code))
		} else {
			sv.end(c, "the program ended")
		}
	case outGone:
		err := s.withStderr(s.c.closeErr())
		sv.end(c, "the debug adapter went away: "+err.Error())
		return fmt.Errorf("debug: the adapter went away: %w", err)
	case outRunning:
		if err := ctx.Err(); err != nil && wait > 0 {
			return fmt.Errorf("debug: gave up waiting for the program to stop (%w); it may still be running: check status", err)
		}
		if wait == 0 {
			b.WriteString("the program is running; use pause to stop it, or set breakpoints and wait with status")
			break
		}
		fmt.Fprintf(b, "the program is running (no stop within %s); use pause to stop it, or status / continue later", wait.Round(time.Millisecond))
	}
	return nil
}

// opRun: continue, pause, step_over, step_in, step_out.
func (sv *Supervisor) opRun(ctx context.Context, c *conversation, s *session, req Request) (*Reply, error) {
	thread := req.ThreadID
	s.mu.Lock()
	if thread == 0 {
		thread = s.lastThread
	}
	seq := s.stopSeq
	running := s.running || s.stop == nil
	s.mu.Unlock()
	if thread == 0 {
		ths, err := s.threads(ctx)
		if err != nil {
			return nil, err
		}
		if len(ths) == 0 {
			return nil, errors.New("debug: the program has no threads to run; check status")
		}
		thread = ths[0].ID
	}
	if req.Op != "pause" && running {
		return nil, fmt.Errorf("debug: %s: the program is running, not stopped; use pause first, or status", req.Op)
	}
	if req.Op == "pause" && !running {
		// Adapters answer a pause of a stopped program without a new stop
		// event: report where it already is instead of waiting for one.
		r := &Reply{}
		var b strings.Builder
		b.WriteString("already stopped; ")
		if err := sv.afterRun(ctx, c, s, seq-1, 0, r, &b); err != nil {
			return nil, err
		}
		r.Text = strings.TrimRight(b.String(), "\n")
		return r, nil
	}
	var command string
	var args any
	switch req.Op {
	case "continue":
		command, args = "continue", &godap.ContinueArguments{ThreadId: thread}
	case "pause":
		command, args = "pause", &godap.PauseArguments{ThreadId: thread}
	case "step_over":
		command, args = "next", &godap.NextArguments{ThreadId: thread}
	case "step_in":
		command, args = "stepIn", &godap.StepInArguments{ThreadId: thread}
	case "step_out":
		command, args = "stepOut", &godap.StepOutArguments{ThreadId: thread}
	}
	if command != "pause" {
		s.mu.Lock()
		s.running = true
		clear(s.indexed)
		clear(s.framesSeen)
		s.mu.Unlock()
	}
	if err := s.c.call(ctx, command, args, nil); err != nil {
		if command != "pause" {
			s.mu.Lock()
			if s.stopSeq == seq {
				s.running = false // the adapter refused: still stopped where it was
			}
			s.mu.Unlock()
		}
		return nil, err
	}
	r := &Reply{}
	var b strings.Builder
	if err := sv.afterRun(ctx, c, s, seq, sv.cfg.StopWait, r, &b); err != nil {
		return nil, err
	}
	r.Text = strings.TrimRight(b.String(), "\n")
	return r, nil
}

func (s *session) threads(ctx context.Context) ([]Thread, error) {
	var resp godap.ThreadsResponse
	if err := s.c.call(ctx, "threads", nil, &resp); err != nil {
		return nil, err
	}
	var out []Thread
	for _, t := range resp.Body.Threads {
		out = append(out, Thread{ID: t.Id, Name: t.Name})
	}
	return out, nil
}

func (sv *Supervisor) opThreads(ctx context.Context, s *session) (*Reply, error) {
	ths, err := s.threads(ctx)
	if err != nil {
		return nil, err
	}
	const maxThreads = 100
	var b strings.Builder
	fmt.Fprintf(&b, "%d thread(s)", len(ths))
	if len(ths) > maxThreads {
		// The thread that stopped leads, so the cut never hides it.
		s.mu.Lock()
		last := s.lastThread
		s.mu.Unlock()
		if i := slices.IndexFunc(ths, func(t Thread) bool { return t.ID == last }); i > 0 {
			t := ths[i]
			ths = append([]Thread{t}, slices.Delete(ths, i, i+1)...)
		}
		fmt.Fprintf(&b, ", %d of %d shown (the stopped thread first)", maxThreads, len(ths))
		ths = ths[:maxThreads]
	}
	s.mu.Lock()
	running := s.running || s.stop == nil
	s.mu.Unlock()
	if running {
		// delve lists a placeholder ("-1 Current") while the program runs.
		b.WriteString(" while the program runs (an adapter may list only a placeholder then; pause for the real list)")
	}
	for _, t := range ths {
		fmt.Fprintf(&b, "\n- %d %s", t.ID, t.Name)
	}
	return &Reply{Text: b.String(), Threads: ths}, nil
}

func (sv *Supervisor) currentThread(ctx context.Context, s *session, want int) (int, error) {
	if want != 0 {
		return want, nil
	}
	s.mu.Lock()
	t := s.lastThread
	s.mu.Unlock()
	if t != 0 {
		return t, nil
	}
	ths, err := s.threads(ctx)
	if err != nil {
		return 0, err
	}
	if len(ths) == 0 {
		return 0, errors.New("debug: the program has no threads")
	}
	return ths[0].ID, nil
}

func (sv *Supervisor) opStack(ctx context.Context, s *session, req Request) (*Reply, error) {
	if req.Start < 0 {
		return nil, fmt.Errorf("debug: stack: start %d is not a frame index (0 is the top frame)", req.Start)
	}
	thread, err := sv.currentThread(ctx, s, req.ThreadID)
	if err != nil {
		return nil, err
	}
	start := req.Start
	fr, total, err := s.frames(ctx, thread, start, MaxStackFrames)
	if err != nil {
		if req.ThreadID != 0 {
			return nil, staleHint(err, "take thread_id from threads, or omit it for the thread that last stopped")
		}
		return nil, err
	}
	if start > 0 && len(fr) == 0 {
		n, _ := s.countFrames(ctx, thread, 0)
		return nil, fmt.Errorf("debug: stack: start %d is past the end: thread %d has %d frame(s) (start 0 to %d)", start, thread, n, max(n-1, 0))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "thread %d: ", thread)
	end := start + len(fr) // one past the last frame shown
	n, exact := end, true
	if total > end {
		// An adapter's totalFrames may be a guess (delve adds an arbitrary
		// 50 to say "more"): count the rest.
		n, exact = s.countFrames(ctx, thread, end)
	}
	switch {
	case start == 0 && n <= end:
		fmt.Fprintf(&b, "%d frame(s)", len(fr))
	case start == 0 && exact:
		fmt.Fprintf(&b, "%d of %d frames shown (the outermost %d cut)", len(fr), n, n-end)
	case start == 0:
		fmt.Fprintf(&b, "%d of more than %d frames shown", len(fr), n)
	case exact:
		fmt.Fprintf(&b, "frames %d-%d of %d", start, end-1, n)
	default:
		fmt.Fprintf(&b, "frames %d-%d of more than %d", start, end-1, n)
	}
	if n > end {
		fmt.Fprintf(&b, "; for more, call stack with start %d", end)
		if req.ThreadID != 0 {
			fmt.Fprintf(&b, " and thread_id %d", thread)
		}
	}
	writeFrames(&b, fr)
	return &Reply{Text: b.String(), Frames: fr}, nil
}

// countFrames counts a thread's frames from start on by asking for pages of
// them, up to maxCount; exact is false when it stopped there (or on an error).
func (s *session) countFrames(ctx context.Context, thread, start int) (n int, exact bool) {
	const page, maxCount = 200, 2000
	n = start
	for n < maxCount {
		var resp godap.StackTraceResponse
		if err := s.c.call(ctx, "stackTrace", &godap.StackTraceArguments{ThreadId: thread, StartFrame: n, Levels: page}, &resp); err != nil {
			return n, false
		}
		got := len(resp.Body.StackFrames)
		n += got
		if got < page {
			return n, true
		}
	}
	return n, false
}

func (sv *Supervisor) opScopes(ctx context.Context, s *session, req Request) (*Reply, error) {
	frame, err := sv.frameOrTop(ctx, s, req)
	if err != nil {
		return nil, err
	}
	var resp godap.ScopesResponse
	if err := s.c.call(ctx, "scopes", &godap.ScopesArguments{FrameId: frame}, &resp); err != nil {
		return nil, staleHint(err, "take frame_id from stack at the current stop, or omit it for the top frame: frame ids do not survive a step or continue")
	}
	var out []Scope
	var b strings.Builder
	fmt.Fprintf(&b, "frame %d: %d scope(s)", frame, len(resp.Body.Scopes))
	for _, sc := range resp.Body.Scopes {
		out = append(out, Scope{Name: sc.Name, Reference: sc.VariablesReference, Expensive: sc.Expensive})
		if sc.IndexedVariables > 0 && sc.VariablesReference > 0 {
			s.mu.Lock()
			s.indexed[sc.VariablesReference] = sc.IndexedVariables
			s.mu.Unlock()
		}
		fmt.Fprintf(&b, "\n- %s (reference %d)", sc.Name, sc.VariablesReference)
		if sc.Expensive {
			b.WriteString(" (expensive)")
		}
	}
	return &Reply{Text: b.String(), Scopes: out}, nil
}

func (sv *Supervisor) frameOrTop(ctx context.Context, s *session, req Request) (int, error) {
	if req.FrameID != 0 {
		return req.FrameID, nil
	}
	thread, err := sv.currentThread(ctx, s, req.ThreadID)
	if err != nil {
		return 0, err
	}
	fr, _, err := s.frames(ctx, thread, 0, 1)
	if err != nil {
		return 0, err
	}
	if len(fr) == 0 {
		return 0, errors.New("debug: the thread has no frames; is the program stopped? (status)")
	}
	return fr[0].ID, nil
}

func (sv *Supervisor) opVariables(ctx context.Context, s *session, req Request) (*Reply, error) {
	if req.Reference <= 0 {
		return nil, errors.New("debug: variables needs reference (from scopes, or a variable's reference)")
	}
	if req.Start < 0 {
		return nil, fmt.Errorf("debug: variables: start %d is not an index (0 is the first child)", req.Start)
	}
	ref, start := req.Reference, req.Start
	stale := "take reference from scopes (or from a variable listed by variables) at the current stop: references do not survive a step or continue"
	// A container the adapter counted (indexedVariables) is paged by the
	// adapter itself, which loads only that page: delve would otherwise show
	// its first 64 elements only. Anything else is listed whole and paged here.
	// Named children of a counted container are not asked for: lldb-dap
	// ignores the filter and answers with elements, and delve's (a map's
	// len()) repeat the count said here.
	s.mu.Lock()
	indexed := s.indexed[ref]
	s.mu.Unlock()
	var shown []godap.Variable
	var b strings.Builder
	var next int // start of the next page, 0 when this is the last
	if indexed > 0 {
		if start >= indexed {
			return nil, fmt.Errorf("debug: variables: start %d is past the end: reference %d has %d elements (start 0 to %d)", start, ref, indexed, indexed-1)
		}
		count := min(MaxVariables, indexed-start)
		var resp godap.VariablesResponse
		if err := s.c.call(ctx, "variables", &godap.VariablesArguments{VariablesReference: ref, Filter: "indexed", Start: start, Count: count}, &resp); err != nil {
			return nil, staleHint(err, stale)
		}
		shown = resp.Body.Variables
		if len(shown) > MaxVariables && count > 1 {
			// Several variables an element (delve: a map whose keys and
			// values are both composite lists "[key i]" and "[val i]"):
			// ask for as many elements as fit, so that the next page starts
			// right after the last one shown.
			per := (len(shown) + count - 1) / count
			count = max(1, MaxVariables/per)
			resp = godap.VariablesResponse{}
			if err := s.c.call(ctx, "variables", &godap.VariablesArguments{VariablesReference: ref, Filter: "indexed", Start: start, Count: count}, &resp); err != nil {
				return nil, staleHint(err, stale)
			}
			shown = resp.Body.Variables
		}
		if len(shown) > MaxVariables {
			shown = shown[:MaxVariables]
		}
		end := start + count // one past the last element asked for
		if count < indexed {
			fmt.Fprintf(&b, "elements %d-%d of %d", start, end-1, indexed)
			if end < indexed {
				next = end
			}
		} else {
			fmt.Fprintf(&b, "%d element(s)", indexed)
		}
	} else {
		var resp godap.VariablesResponse
		if err := s.c.call(ctx, "variables", &godap.VariablesArguments{VariablesReference: ref}, &resp); err != nil {
			return nil, staleHint(err, stale)
		}
		all := resp.Body.Variables
		switch {
		case len(all) == 0:
			return &Reply{Text: fmt.Sprintf("no variables under reference %d: it has no children, or it is not a reference of the current stop (%s)", ref, stale)}, nil
		case start >= len(all):
			return nil, fmt.Errorf("debug: variables: start %d is past the end: reference %d has %d children (start 0 to %d)", start, ref, len(all), len(all)-1)
		}
		end := min(start+MaxVariables, len(all))
		shown = all[start:end]
		if start > 0 || end < len(all) {
			fmt.Fprintf(&b, "children %d-%d of %d", start, end-1, len(all))
			if end < len(all) {
				next = end
			}
		} else {
			fmt.Fprintf(&b, "%d variable(s)", len(all))
		}
	}
	var out []Variable
	cutN := 0
	for _, v := range shown {
		vv := toVariable(v.Name, v.Value, v.Type, v.VariablesReference, v.IndexedVariables)
		if vv.Cut {
			cutN++
		}
		out = append(out, vv)
	}
	s.remember(out)
	if next > 0 {
		fmt.Fprintf(&b, "; for more, call variables with reference %d and start %d", ref, next)
	}
	if cutN > 0 {
		fmt.Fprintf(&b, "; %d value(s) cut at %d chars", cutN, MaxValueLen)
	}
	for _, v := range out {
		writeVariable(&b, v)
	}
	return &Reply{Text: b.String(), Variables: out}, nil
}

// remember records the element counts of the references just shown, so that
// variables can page through them.
func (s *session) remember(vars []Variable) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range vars {
		if v.Reference > 0 && v.Indexed > 0 {
			s.indexed[v.Reference] = v.Indexed
		}
	}
}

func toVariable(name, value, typ string, ref, indexed int) Variable {
	v := Variable{Name: name, Value: value, Type: typ, Reference: ref}
	if ref > 0 {
		v.Indexed = indexed
	}
	if c := cut(value, MaxValueLen); c != value {
		v.Value, v.Cut = c, true
		// An adapter's own mark of what it did not load ends the value
		// (delve: "...+488 more"): keep it, it says how long the value is.
		if m := moreMark.FindString(value); m != "" {
			v.Value += "; the adapter's value ends " + m
		}
	}
	return v
}

// moreMark is delve's mark of a string, slice or map it loaded in part.
var moreMark = regexp.MustCompile(`\.\.\.\+\d+ more["\]]?$`)

func (sv *Supervisor) opEvaluate(ctx context.Context, s *session, req Request) (*Reply, error) {
	if strings.TrimSpace(req.Expression) == "" {
		return nil, errors.New("debug: evaluate needs expression")
	}
	frame, err := sv.frameOrTop(ctx, s, req)
	if err != nil {
		return nil, err
	}
	if req.FrameID != 0 {
		// delve evaluates in the top frame when it does not know the
		// frame id (one from an earlier stop): a plausible wrong answer.
		// A frame id not shown at this stop is checked first.
		s.mu.Lock()
		seen := s.framesSeen[req.FrameID]
		s.mu.Unlock()
		if !seen {
			var sc godap.ScopesResponse
			if err := s.c.call(ctx, "scopes", &godap.ScopesArguments{FrameId: req.FrameID}, &sc); err != nil {
				var ae *AdapterError
				if errors.As(err, &ae) {
					return nil, fmt.Errorf("debug: evaluate: frame_id %d is not a frame of the current stop (the adapter says: %s); take frame_id from stack, or omit it for the top frame", req.FrameID, ae.Message)
				}
				return nil, err
			}
		}
	}
	ectx := s.adapter.EvaluateContext
	if ectx == "" {
		ectx = "watch"
	}
	var resp godap.EvaluateResponse
	if err := s.c.call(ctx, "evaluate", &godap.EvaluateArguments{Expression: req.Expression, FrameId: frame, Context: ectx}, &resp); err != nil {
		if req.FrameID != 0 {
			// An adapter may blame something else for a frame id it does
			// not know (lldb-dap: "the process is running").
			return nil, staleHint(err, fmt.Sprintf("if frame_id %d is not a frame of the current stop, take frame_id from stack, or omit it for the top frame", req.FrameID))
		}
		return nil, err
	}
	v := toVariable(req.Expression, resp.Body.Result, resp.Body.Type, resp.Body.VariablesReference, resp.Body.IndexedVariables)
	s.remember([]Variable{v})
	var b strings.Builder
	if v.Value == "" && v.Type == "" && v.Reference == 0 {
		// A statement (debugpy runs "import os" in the frame) has no value.
		fmt.Fprintf(&b, "%s: evaluated; it has no value", req.Expression)
		return &Reply{Text: b.String(), Value: &v}, nil
	}
	fmt.Fprintf(&b, "%s = %s", req.Expression, v.Value)
	if v.Type != "" {
		fmt.Fprintf(&b, " (%s)", v.Type)
	}
	writeRef(&b, v)
	return &Reply{Text: b.String(), Value: &v}, nil
}

func (sv *Supervisor) opOutput(c *conversation) (*Reply, error) {
	s := c.live
	if s == nil {
		s = c.last
	}
	if s == nil {
		return nil, errNoSession
	}
	text, size, dropped := s.out.render()
	var b strings.Builder
	switch {
	case size == 0 && dropped == 0:
		b.WriteString("no output from the program yet")
	case dropped > 0:
		fmt.Fprintf(&b, "output cut: the last %d bytes shown, %d earlier bytes dropped\n%s", size, dropped, text)
	default:
		fmt.Fprintf(&b, "%d bytes of output\n%s", size, text)
	}
	if c.live == nil {
		fmt.Fprintf(&b, "\n(from the ended session: %s)", c.endReason)
	}
	return &Reply{Text: strings.TrimRight(b.String(), "\n"), Output: text}, nil
}

func (sv *Supervisor) opTerminate(c *conversation) (*Reply, error) {
	s := c.live
	if s == nil {
		if c.endReason != "" {
			return &Reply{Text: "no session is running; " + c.endReason}, nil
		}
		return &Reply{Text: "no session is running; nothing to terminate"}, nil
	}
	desc := s.describe()
	sv.end(c, "terminated on request")
	if s.kind == "attach" {
		return &Reply{Text: "ended " + desc + "; detached from the attached program, which keeps running (it was started outside tether); the adapter tether started, if any, was killed"}, nil
	}
	return &Reply{Text: "terminated " + desc + "; the adapter and the program's whole process tree were killed"}, nil
}

// Terminate ends a conversation's session, if any, and forgets the
// conversation (its breakpoints and last output): Run.Close calls it.
func (sv *Supervisor) Terminate(conversationID string) {
	sv.mu.Lock()
	c := sv.convs[conversationID]
	sv.mu.Unlock()
	if c == nil {
		return
	}
	c.mu.Lock()
	sv.end(c, "the run was closed")
	c.mu.Unlock()
	sv.mu.Lock()
	if sv.convs[conversationID] == c {
		delete(sv.convs, conversationID)
	}
	sv.mu.Unlock()
}

// Close terminates every session and refuses further calls.
func (sv *Supervisor) Close() error {
	sv.mu.Lock()
	sv.closed = true
	convs := make([]*conversation, 0, len(sv.convs))
	for _, c := range sv.convs {
		convs = append(convs, c)
	}
	sv.mu.Unlock()
	for _, c := range convs {
		c.mu.Lock()
		sv.end(c, "the debug supervisor was closed")
		c.mu.Unlock()
	}
	return nil
}

func sortedKeys(m map[string][]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func relTo(root, p string) string {
	if r, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

func writeStop(b *strings.Builder, st *Stop) {
	where := "an unknown location"
	if st.File != "" {
		where = fmt.Sprintf("%s:%d", st.File, st.Line)
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

func writeFrames(b *strings.Builder, fr []Frame) {
	for _, f := range fr {
		fmt.Fprintf(b, "\n- [frame %d] %s", f.ID, f.Name)
		if f.File != "" {
			fmt.Fprintf(b, " at %s:%d", f.File, f.Line)
		}
	}
}

func writeVariable(b *strings.Builder, v Variable) {
	fmt.Fprintf(b, "\n- %s", v.Name)
	if v.Type != "" {
		fmt.Fprintf(b, " (%s)", v.Type)
	}
	fmt.Fprintf(b, " = %s", v.Value)
	writeRef(b, v)
}

func writeRef(b *strings.Builder, v Variable) {
	switch {
	case v.Reference != 0 && v.Indexed > 0:
		fmt.Fprintf(b, " [reference %d, %d elements]", v.Reference, v.Indexed)
	case v.Reference != 0:
		fmt.Fprintf(b, " [reference %d]", v.Reference)
	}
}

func writeBreakpoints(b *strings.Builder, root string, st []BreakpointState) {
	b.WriteString("breakpoints:")
	for _, s := range st {
		fmt.Fprintf(b, "\n- %s:%d ", relTo(root, s.File), s.Line)
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

// staleHint adds what to do next to an adapter's refusal of an id the agent
// passed (a frame id or a variables reference): usually one from an earlier
// stop, or one never shown.
func staleHint(err error, next string) error {
	var ae *AdapterError
	if errors.As(err, &ae) {
		return fmt.Errorf("%w; %s", err, next)
	}
	return err
}

// fileLines is the number of lines in file (a last line without a newline
// counts), or a huge number when it cannot be read, so that the adapter has
// the last word.
func fileLines(file string) int {
	data, err := os.ReadFile(file)
	if err != nil {
		return math.MaxInt
	}
	n := bytes.Count(data, []byte("\n"))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// startHint says what to do about an adapter that cannot start.
func startHint(reason string) string {
	if strings.Contains(reason, "marker missing") {
		return "a session starts in a project root: launch a program that lives under a directory with the marker, use that directory as the working directory, or create the marker; see op adapters"
	}
	if strings.Contains(reason, "install") {
		return "see op adapters"
	}
	return "install the adapter or put it on PATH, and see op adapters"
}
