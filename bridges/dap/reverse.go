package dap

import "cmp"
import "context"
import "encoding/json"
import "errors"
import "fmt"
import "io"
import "net"
import "os"
import "os/exec"
import "path/filepath"
import "slices"
import "strings"
import "syscall"
import "time"

import godap "github.com/google/go-dap"
import "github.com/tetherhq/tether/bridges/dap/internal/dapserve"
import "github.com/tetherhq/tether/internal/proc"
import "github.com/tetherhq/tether/internal/textcut"

// family is a session's part in the reverse requests an adapter makes:
// runInTerminal (a program tether starts, sandboxed, and kills with the
// session) and startDebugging (a child session on a new connection to the
// same adapter, driven as part of this one). Its fields are guarded by the
// session's mu, except those set before the session is shared.
type family struct {
	// parent is set on a child; index is its number in the parent (1, 2,
	// ...) and name its configuration's name.
	parent *session
	index  int
	name   string
	// failed says why a child's configuration failed ("" while fine).
	failed   string
	children []*session
	// terminals are the programs runInTerminal started.
	terminals []*exec.Cmd
	// captured carry the output of the programs whose output is the
	// session's own (runInTerminal's, an adapter that is the program);
	// a stop drains them first (drainOutput).
	captured []*dapserve.OutputPipe
	// stopFrom is the child whose stop is the latest (nil: the session's
	// own).
	stopFrom *session
	// startTimeout bounds a child's connection and handshake.
	startTimeout time.Duration
	// tcpAddr is where a TCP adapter serves: a child connects there.
	tcpAddr string
	// setup is what a child is configured with: the breakpoints the
	// session has set.
	setup childSetup
	// ending: the session is being killed; no child or program starts.
	ending bool
}

type childSetup struct {
	bps   map[string][]SourceBreakpoint
	funcs []string
	exc   []string
}

// maxChildren bounds the child sessions of one session.
const maxChildren = 16

// onReverse serves a reverse request.
func (s *session) onReverse(command string, args json.RawMessage) (any, error) {
	switch command {
	case "runInTerminal":
		return s.runInTerminal(args)
	case "startDebugging":
		return nil, s.startChild(args)
	}
	return nil, fmt.Errorf("tether does not serve the reverse request %q; it serves runInTerminal and startDebugging", command)
}

// runInTerminal starts the program the adapter asks for as a process of
// the session: sandboxed like the adapter, its output captured into the
// session's output, killed with the session.
func (s *session) runInTerminal(raw json.RawMessage) (any, error) {
	var a struct {
		Cwd  string         `json:"cwd"`
		Args []string       `json:"args"`
		Env  map[string]any `json:"env"`
	}
	if err := json.Unmarshal(raw, &a); err != nil || len(a.Args) == 0 || a.Args[0] == "" {
		return nil, errors.New("runInTerminal needs args (the command line to run)")
	}
	top := s.top()
	cwd := a.Cwd
	if cwd == "" {
		cwd = top.root
	}
	cwd = filepath.Clean(cwd)
	if !within(cwd, top.root) && !within(cwd, top.scratch) {
		return nil, fmt.Errorf("runInTerminal: cwd %s is outside the project %s; tether runs programs in the project only", cwd, top.root)
	}
	env := os.Environ()
	for k, v := range a.Env {
		env = slices.DeleteFunc(env, func(e string) bool { return strings.HasPrefix(e, k+"=") })
		if v != nil {
			env = append(env, k+"="+fmt.Sprint(v))
		}
	}
	cmd := exec.Command(a.Args[0], a.Args[1:]...)
	cmd.Dir = cwd
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := sandboxIf(cmd, s.adapter.ID+" program (runInTerminal)", s.adapter.Toolchain, cmd.Path, s.adapter.interpreter, top.root, top.scratch, "", top.procLimits()); err != nil {
		return nil, fmt.Errorf("runInTerminal: %w", err)
	}
	top.mu.Lock()
	ended := top.ending
	top.mu.Unlock()
	if ended {
		return nil, errors.New("runInTerminal: the session is ending")
	}
	pipes, err := top.captureOutput(cmd, nil)
	if err != nil {
		return nil, fmt.Errorf("runInTerminal: %w", err)
	}
	err = proc.Start(cmd)
	pipes.started(err == nil)
	if err != nil {
		return nil, fmt.Errorf("runInTerminal: starting %s: %w", strings.Join(a.Args, " "), err)
	}
	top.joinCgroup(cmd.Process.Pid)
	go func() { _ = cmd.Wait(); pipes.waitEOF() }()
	s.mu.Lock()
	s.terminals = append(s.terminals, cmd)
	s.mu.Unlock()
	return map[string]any{"processId": cmd.Process.Pid}, nil
}

// outputPair is a program's stdout and stderr pipes.
type outputPair [2]*dapserve.OutputPipe

// captureOutput points cmd's stdout and stderr at pipes whose reads go to
// the session's output (stderr also to alsoStderr, when set), kept for
// drainOutput. Call started once cmd has started or failed to.
func (s *session) captureOutput(cmd *exec.Cmd, alsoStderr io.Writer) (outputPair, error) {
	var ps outputPair
	for i, stream := range []string{"stdout", "stderr"} {
		emit := func(text string) { s.out.add(stream, text) }
		if stream == "stderr" && alsoStderr != nil {
			emit = func(text string) { s.out.add(stream, text); _, _ = alsoStderr.Write([]byte(text)) }
		}
		p, err := dapserve.NewOutputPipe(emit)
		if err != nil {
			ps[0].Close()
			return outputPair{}, fmt.Errorf("the program's output: %w", err)
		}
		ps[i] = p
	}
	cmd.Stdout, cmd.Stderr = ps[0].W, ps[1].W
	s.mu.Lock()
	s.captured = append(s.captured, ps[0], ps[1])
	s.mu.Unlock()
	return ps, nil
}

// started starts forwarding, or closes the pipes of a program that did
// not start.
func (ps outputPair) started(ok bool) {
	ps[0].Started(ok)
	ps[1].Started(ok)
}

// waitEOF waits, bounded, for the program's output to end after it exited.
func (ps outputPair) waitEOF() {
	ps[0].WaitEOF(2 * time.Second)
	ps[1].WaitEOF(2 * time.Second)
}

// drainOutput forwards what the session's programs wrote before a stop
// the adapter reports, so that the output read after the stop holds it.
func (s *session) drainOutput() {
	top := s.top()
	top.mu.Lock()
	pipes := slices.Clone(top.captured)
	top.mu.Unlock()
	for _, p := range pipes {
		p.Drain(2 * time.Second)
	}
}

func within(p, dir string) bool {
	return dir != "" && (p == dir || strings.HasPrefix(p, dir+string(filepath.Separator)))
}

// top is the session a child belongs to (itself for a top session).
func (s *session) top() *session {
	if s.parent != nil {
		return s.parent
	}
	return s
}

// startChild serves startDebugging: a child session of the same adapter
// on a new connection (a TCP adapter's own address, a debug server's
// port) or, for an adapter on stdio or a unix socket, a new adapter
// process. The answer comes once the child is connected and initialized;
// its launch or attach is configured after that, since an adapter may
// wait for this answer before it answers the child.
func (s *session) startChild(raw json.RawMessage) error {
	var a struct {
		Configuration map[string]any `json:"configuration"`
		Request       string         `json:"request"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return fmt.Errorf("startDebugging: arguments do not decode: %w", err)
	}
	if a.Request != "launch" && a.Request != "attach" {
		return fmt.Errorf("startDebugging: request %q is neither launch nor attach", a.Request)
	}
	top := s.top()
	top.mu.Lock()
	n := len(top.children) + 1
	setup := childSetup{bps: cloneBPs(top.setup.bps), funcs: slices.Clone(top.setup.funcs), exc: slices.Clone(top.setup.exc)}
	ending := top.ending
	top.mu.Unlock()
	if ending {
		return errors.New("startDebugging: the session is ending")
	}
	if n > maxChildren {
		return fmt.Errorf("startDebugging: this session already has %d child sessions, the most tether keeps", maxChildren)
	}
	name, _ := a.Configuration["name"].(string)
	if name == "" {
		name = fmt.Sprintf("child %d", n)
	}
	name, _ = textcut.Chars(name, 80)
	child := &session{
		adapter: top.adapter, root: top.root, ws: top.ws, kind: a.Request, program: top.program,
		port: top.port, host: top.host, started: time.Now(), deadline: top.deadline,
		connector: top.connector, requestTimeout: top.requestTimeout, attachWait: top.attachWait,
		out: top.out, console: top.console, stderr: &textcut.Tail{Max: 8192},
		initialized: make(chan struct{}), changed: make(chan struct{}),
		bpEvents: map[int]godap.Breakpoint{}, indexed: map[int]int{}, bpFiles: map[string]bool{}, framesSeen: map[int]bool{},
	}
	child.parent, child.index, child.name, child.startTimeout = top, n, name, top.startTimeout
	if top.scratch != "" {
		child.scratch = filepath.Join(top.scratch, fmt.Sprintf("child%d", n))
		if err := os.MkdirAll(child.scratch, 0o700); err != nil {
			return fmt.Errorf("startDebugging: %w", err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), top.startTimeout)
	var err error
	if top.tcpAddr != "" {
		var nc net.Conn
		nc, err = dialRetry(ctx, "tcp", top.tcpAddr, time.Now().Add(min(top.startTimeout, 10*time.Second)), nil)
		if err == nil {
			child.tcpAddr = top.tcpAddr
			child.c = newConn(nc, child.onEvent, child.onReverse)
			child.c.timeout = child.requestTimeout
		}
	} else {
		err = child.connect(ctx, top.startTimeout)
	}
	if err == nil {
		err = child.initialize(ctx)
	}
	if err != nil {
		cancel()
		child.kill()
		return fmt.Errorf("startDebugging: child session %q: %v", name, child.withStderr(err))
	}
	top.mu.Lock()
	if top.ending {
		top.mu.Unlock()
		cancel()
		child.kill()
		return errors.New("startDebugging: the session is ending")
	}
	top.children = append(top.children, child)
	top.notify()
	top.mu.Unlock()
	go func() {
		defer cancel()
		if _, err := child.configure(ctx, a.Request, a.Configuration, setup.bps, setup.funcs, setup.exc); err != nil {
			child.mu.Lock()
			child.failed = child.withStderr(err).Error()
			child.notify()
			child.mu.Unlock()
			_ = child.c.close()
		}
	}()
	return nil
}

func cloneBPs(m map[string][]SourceBreakpoint) map[string][]SourceBreakpoint {
	out := make(map[string][]SourceBreakpoint, len(m))
	for k, v := range m {
		out[k] = slices.Clone(v)
	}
	return out
}

// child returns the session's child n (1-based), or nil.
func (s *session) child(n int) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n < 1 || n > len(s.children) {
		return nil
	}
	return s.children[n-1]
}

// childStopped records that child stopped: the session's waits see a new
// stop, whose place is the child's.
func (s *session) childStopped(child *session) {
	s.mu.Lock()
	s.stopFrom = child
	s.stopSeq++
	s.notify()
	s.mu.Unlock()
}

// childChanged wakes the session's waits for a change of a child's state.
func (s *session) childChanged() {
	s.mu.Lock()
	s.notify()
	s.mu.Unlock()
}

// Child is one child session, as status and the stop outcomes show it.
type Child struct {
	Index int    `json:"index"`
	Name  string `json:"name"`
	State string `json:"state"`
}

// childList describes the session's children.
func (s *session) childList() []Child {
	s.mu.Lock()
	kids := slices.Clone(s.children)
	s.mu.Unlock()
	var out []Child
	for _, k := range kids {
		out = append(out, Child{Index: k.index, Name: k.name, State: k.state()})
	}
	return out
}

// state is a child's state in a few words.
func (s *session) state() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.failed != "":
		return "failed: " + s.failed
	case s.terminated || s.exited:
		return "ended"
	case s.stop != nil && !s.running:
		th := s.stop.ThreadId
		if th == 0 {
			th = s.lastThread
		}
		return fmt.Sprintf("stopped (%s) on thread %d", s.stop.Reason, th)
	}
	select {
	case <-s.c.done:
		return "ended (connection closed)"
	default:
	}
	return "running"
}

// describeChildren is the session's children in one clause, or "".
func (s *session) describeChildren() string {
	kids := s.childList()
	if len(kids) == 0 {
		return ""
	}
	parts := make([]string, len(kids))
	for i, k := range kids {
		parts[i] = fmt.Sprintf("%d %q %s", k.Index, k.Name, k.State)
	}
	return "; child sessions (pass session N to drive one): " + strings.Join(parts, ", ")
}

// killFamily kills the session's children and the programs runInTerminal
// started; the caller then kills the session itself.
func (s *session) killFamily() {
	s.mu.Lock()
	s.ending = true
	kids := slices.Clone(s.children)
	s.mu.Unlock()
	for _, k := range kids {
		k.kill()
	}
}

// terminalPIDs are the pids of the programs runInTerminal started.
func (s *session) terminalPIDs() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []int
	for _, c := range s.terminals {
		if c.Process != nil {
			out = append(out, c.Process.Pid)
		}
	}
	return out
}

// UseSession chooses which session the conversation's next ops drive: 0
// the session launch or attach started, n its child session n (started
// by the adapter's startDebugging; status lists them).
func (sv *Supervisor) UseSession(conversationID string, n int) error {
	c, err := sv.lock(conversationID)
	if err != nil {
		return err
	}
	defer c.mu.Unlock()
	if n == 0 {
		c.focus = 0
		return nil
	}
	if n < 0 {
		return fmt.Errorf("debug: session %d is not a session number; 0 is the session launch or attach started, 1 and up its child sessions", n)
	}
	if c.live == nil {
		return errNoSession
	}
	if c.live.child(n) == nil {
		kids := c.live.childList()
		if len(kids) == 0 {
			return fmt.Errorf("debug: session %d: the %s session has no child sessions; omit session", n, c.live.adapter.ID)
		}
		return fmt.Errorf("debug: session %d: the session has %d child session(s) (1 to %d); status lists them", n, len(kids), len(kids))
	}
	c.focus = n
	return nil
}

// afterChildStop fills r with where the child s stopped.
func (s *session) afterChildStop(ctx context.Context, r *Outcome) {
	s.mu.Lock()
	stop := s.stop
	last := s.lastThread
	s.mu.Unlock()
	if stop == nil {
		r.Running = true
		return
	}
	st, err := s.buildStop(ctx, *stop, last)
	if err != nil {
		st = &Stop{Reason: stop.Reason, Description: stop.Description, ThreadID: cmp.Or(stop.ThreadId, last)}
		r.StackError = strings.TrimPrefix(err.Error(), "dap: ")
	}
	st.Session, st.SessionName = s.index, s.name
	r.Stop = st
}

// recordBreakpoints keeps file's breakpoints for child sessions to come
// and returns the live children to send them to; the caller holds s.mu.
func (s *session) recordBreakpoints(file string, bps []SourceBreakpoint) []*session {
	if s.setup.bps == nil {
		s.setup.bps = map[string][]SourceBreakpoint{}
	}
	if len(bps) > 0 {
		s.setup.bps[file] = slices.Clone(bps)
	} else {
		delete(s.setup.bps, file)
	}
	return s.liveChildren()
}

// liveChildren are the children whose connection is open; the caller
// holds s.mu.
func (s *session) liveChildren() []*session {
	var out []*session
	for _, k := range s.children {
		select {
		case <-k.c.done:
		default:
			out = append(out, k)
		}
	}
	return out
}

// Children lists the live session's child sessions (started by the
// adapter's startDebugging), with their numbers for UseSession; none
// without a live session.
func (sv *Supervisor) Children(conversationID string) []Child {
	c, err := sv.lock(conversationID)
	if err != nil {
		return nil
	}
	defer c.mu.Unlock()
	if c.live == nil {
		return nil
	}
	return c.live.childList()
}
