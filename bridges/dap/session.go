package dap

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	godap "github.com/google/go-dap"
	"github.com/tetherhq/tether/internal/fsutil"
	"github.com/tetherhq/tether/internal/textcut"
	"golang.org/x/sys/unix"

	"github.com/tetherhq/tether/internal/proc"
)

// session is one live debug session: an adapter process (or a direct
// connection), the DAP connection, and the state its events describe.
type session struct {
	adapter *resolved
	root    string
	// procs is the session's pids cgroup (nil without one); limits what
	// the first result says of the caps.
	procs  *proc.PidsCgroup
	limits string
	// as is the address-space limit each process it starts gets (0: none).
	as uint64
	// ws is the working dir the session was started in, which the source
	// files the adapter names are read through; nil reads none.
	ws       *fsutil.Root
	kind     string // "launch" or "attach"
	program  string
	args     []string
	port     int
	host     string
	pid      int // the process attached to by pid
	started  time.Time
	deadline time.Time

	cmd       *exec.Cmd // nil for a direct attach
	connector func() io.ReadWriteCloser
	// requestTimeout bounds one request's answer.
	requestTimeout time.Duration
	// attachWait bounds waiting for an attach port to listen.
	attachWait time.Duration
	procDone   chan struct{}
	stderr     *textcut.Tail // the adapter's stderr, its end
	scratch    string        // private temp dir (socket, build output), removed at the end
	unconfined string        // why the adapter runs outside the sandbox ("": it does not)
	c          *conn
	caps       godap.Capabilities
	out        *outputBuf
	console    *textcut.Tail // adapter console messages, their end

	initOnce    sync.Once
	initialized chan struct{}

	mu          sync.Mutex
	changed     chan struct{} // closed and replaced on every state change
	running     bool
	stop        *godap.StoppedEventBody
	stopSeq     int
	exited      bool
	exitCode    int
	terminated  bool
	debuggeePID int
	// debuggeePgid is the debuggee's own process group, when it leads one
	// (debugpy's launcher starts it so): its children stay findable there
	// after it exits.
	debuggeePgid int
	// debuggeeGone: the launched debuggee's process has exited, whether or
	// not the adapter has said so.
	debuggeeGone bool
	// outPipes are the pipes the launched debuggee writes its output to,
	// and holders the processes it left running that still hold them open
	// once it has exited (found by waitStop; killed with the session even
	// when they left its process group).
	outPipes   []string
	holders    []int
	lastThread int
	bpEvents   map[int]godap.Breakpoint
	// indexed is the element count the adapter gave each variables
	// reference of the current stop (indexedVariables); references die
	// when the program runs, and so does this.
	indexed map[int]int
	// bpFiles are the files with breakpoints set in the adapter; funcBPs:
	// function breakpoints are set too.
	bpFiles map[string]bool
	funcBPs bool
	// framesSeen are the frame ids stackTrace gave since the program last
	// stopped.
	framesSeen map[int]bool

	// Reverse requests (reverse.go): the session's children started by
	// startDebugging, the programs runInTerminal started, and what a
	// child is set up with.
	family
}

// title names the session: adapter, what it debugs, when it started and ends.
func (s *session) title() string {
	what := s.program
	if s.kind == "attach" {
		what = fmt.Sprintf("port %d", s.port)
		if s.host != "" && s.host != "127.0.0.1" {
			what = fmt.Sprintf("%s:%d", s.host, s.port)
		}
		if s.pid != 0 {
			what = fmt.Sprintf("pid %d", s.pid)
		}
	}
	return fmt.Sprintf("%s session (%s %s, started %s, ends by TTL at %s)", s.adapter.ID, s.kind, what,
		s.started.UTC().Format("15:04:05"), s.deadline.UTC().Format("15:04:05"))
}

// describe is title plus the session's state.
func (s *session) describe() string {
	d := s.title()
	kids := s.describeChildren()
	s.mu.Lock()
	switch {
	case s.terminated || s.exited:
		d += ", program ended"
	case s.stop != nil && !s.running:
		th := s.stop.ThreadId
		if th == 0 {
			th = s.lastThread
		}
		d += fmt.Sprintf(", stopped (%s) on thread %d", s.stop.Reason, th)
	default:
		d += ", running"
	}
	s.mu.Unlock()
	return d + kids
}

// notify wakes waiters; the caller holds s.mu.
func (s *session) notify() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *session) onEvent(name string, body json.RawMessage) {
	switch name {
	case "initialized":
		s.initOnce.Do(func() { close(s.initialized) })
	case "output":
		var b godap.OutputEventBody
		if json.Unmarshal(body, &b) != nil {
			return
		}
		switch b.Category {
		case "stdout", "stderr":
			if s.buildChatter(b.Output) {
				_, _ = s.console.Write([]byte(b.Output))
				return
			}
			s.out.add(b.Category, b.Output)
		case "telemetry":
		default:
			_, _ = s.console.Write([]byte(b.Output))
		}
	case "stopped":
		var b godap.StoppedEventBody
		if json.Unmarshal(body, &b) != nil {
			return
		}
		s.mu.Lock()
		s.stop = &b
		s.running = false
		s.stopSeq++
		clear(s.indexed)
		clear(s.framesSeen)
		if b.ThreadId != 0 {
			s.lastThread = b.ThreadId
		}
		s.stopFrom = nil
		s.notify()
		s.mu.Unlock()
		if s.parent != nil {
			s.parent.childStopped(s)
		}
	case "continued":
		s.mu.Lock()
		s.running = true
		clear(s.indexed)
		clear(s.framesSeen)
		s.notify()
		s.mu.Unlock()
	case "exited":
		var b godap.ExitedEventBody
		_ = json.Unmarshal(body, &b)
		s.mu.Lock()
		s.exited = true
		s.exitCode = b.ExitCode
		s.notify()
		s.mu.Unlock()
		if s.parent != nil {
			s.parent.childChanged()
		}
	case "terminated":
		s.mu.Lock()
		s.terminated = true
		s.notify()
		s.mu.Unlock()
		if s.parent != nil {
			s.parent.childChanged()
		}
	case "process":
		var b godap.ProcessEventBody
		if json.Unmarshal(body, &b) == nil && b.SystemProcessId > 0 {
			pid := b.SystemProcessId
			if s.cmd != nil {
				// A sandboxed adapter names the debuggee by its pid in its
				// own PID namespace: tether's view of it is another number,
				// and the number as given may be some other process here.
				host, ok := proc.HostPID(s.cmd, pid)
				if !ok {
					break
				}
				pid = host
			}
			s.mu.Lock()
			first := s.debuggeePID == 0
			s.debuggeePID = pid
			s.mu.Unlock()
			if first && s.kind == "launch" {
				s.watchDebuggee(pid)
			}
		}
	case "breakpoint":
		var b godap.BreakpointEventBody
		if json.Unmarshal(body, &b) == nil && b.Breakpoint.Id != 0 {
			s.mu.Lock()
			if b.Reason == "removed" {
				delete(s.bpEvents, b.Breakpoint.Id)
			} else {
				s.bpEvents[b.Breakpoint.Id] = b.Breakpoint
			}
			s.mu.Unlock()
		}
	}
}

// watchDebuggee marks the debuggee gone when its process exits. An adapter
// may report the end only later: debugpy's launcher sends "exited" once the
// program's output pipes close, which a child the program left running
// keeps open. It also records the debuggee's process group: a group id is a
// leader's pid, and members are only ever found by reading the process
// table, so a debuggee that leads no group adds nothing.
func (s *session) watchDebuggee(pid int) {
	pipes := outputPipes(pid)
	s.mu.Lock()
	s.outPipes = pipes
	if self, _ := syscall.Getpgid(0); pid != self {
		s.debuggeePgid = pid
	}
	s.mu.Unlock()
	gone := func() {
		s.mu.Lock()
		s.debuggeeGone = true
		s.notify()
		s.mu.Unlock()
	}
	// Opened here, in the event's own order: the program cannot have been
	// reaped unseen before this.
	fd, err := unix.PidfdOpen(pid, 0)
	if err == unix.ESRCH {
		gone()
		return
	}
	if err != nil {
		return // no pidfd (an old kernel): rely on the adapter
	}
	go func() {
		defer unix.Close(fd)
		for {
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			n, err := unix.Poll(fds, 1000)
			if err != nil && err != unix.EINTR {
				return
			}
			if n > 0 {
				break
			}
			select {
			case <-s.c.done:
				return
			default:
			}
		}
		gone()
	}()
}

// exitGrace is how long a wait gives the adapter to report the end of a
// debuggee whose process is gone while processes it started still run in
// its group (holding its output open), before answering without its exit
// code. With none left the adapter's report is waited for as usual.
const exitGrace = 3 * time.Second

// buildChatter reports whether an output event is the Go adapter's (delve's)
// "Building <program>" line, which it sends as stdout before the program
// exists: the adapter's console, not the program's output. The Go adapter is
// the one that launches what the Go toolchain builds (GoExecutables).
func (s *session) buildChatter(text string) bool {
	if !s.adapter.GoExecutables || !strings.HasPrefix(text, "Building ") || s.program == "" {
		return false
	}
	s.mu.Lock()
	started := s.debuggeePID != 0
	s.mu.Unlock()
	rest := strings.TrimSuffix(strings.TrimPrefix(text, "Building "), "\n")
	return !started && (rest == s.program || rest == "tests of "+s.program)
}

// ended reports whether the debuggee has exited or the adapter went away.
func (s *session) ended() bool {
	s.mu.Lock()
	done := s.exited || s.terminated
	s.mu.Unlock()
	if done {
		return true
	}
	select {
	case <-s.c.done:
		return true
	default:
	}
	return false
}

// startSession starts (or connects to) the adapter and runs the DAP handshake
// up to configurationDone, sending the pending breakpoints on the way.
func (sv *Supervisor) startSession(ctx context.Context, a *resolved, root, scratch, kind string, launchArgs map[string]any, at AttachArgs, c *conversation) (*session, []BreakpointState, error) {
	bps := c.breakpoints
	s := &session{
		adapter: a, root: root, scratch: scratch, kind: kind, port: at.Port, pid: at.PID, host: cmp.Or(at.Host, "127.0.0.1"),
		started:     time.Now(),
		out:         newOutputBuf(sv.cfg.OutputLimit),
		console:     &textcut.Tail{Max: 4096},
		stderr:      &textcut.Tail{Max: 8192},
		initialized: make(chan struct{}),
		changed:     make(chan struct{}),
		bpEvents:    map[int]godap.Breakpoint{},
		indexed:     map[int]int{},
		bpFiles:     map[string]bool{},
		framesSeen:  map[int]bool{},
	}
	s.deadline = s.started.Add(sv.cfg.TTL)
	s.connector = sv.cfg.connector
	s.requestTimeout = sv.cfg.RequestTimeout
	if p, ok := launchArgs["program"].(string); ok {
		s.program = p
	}
	s.attachWait = sv.cfg.AttachWait
	s.startTimeout = sv.cfg.StartTimeout
	s.capProcesses(sv.cfg.processLimit())
	s.capAddressSpace(sv.cfg.addressSpaceLimit())
	if err := s.connect(ctx, sv.cfg.StartTimeout); err != nil {
		s.kill()
		return nil, nil, err
	}
	fail := func(err error) (*session, []BreakpointState, error) {
		err = s.withStderr(err)
		s.kill()
		return nil, nil, err
	}
	hctx, cancel := context.WithTimeout(ctx, sv.cfg.StartTimeout)
	defer cancel()
	if err := s.initialize(hctx); err != nil {
		return fail(err)
	}
	// Breakpoint kinds kept before the adapter was known: refused now,
	// before the program runs past where they would have stopped.
	for _, file := range sortedKeys(bps) {
		if err := refusedKinds(a.ID, s.caps, bps[file]); err != nil {
			return fail(fmt.Errorf("%w; change the breakpoints of %s, then %s again", err, file, kind))
		}
	}
	if len(c.funcBreakpoints) > 0 && !s.caps.SupportsFunctionBreakpoints {
		return fail(fmt.Errorf("debug: %s: the %s adapter has no function breakpoints; it offers %s; clear them (function_breakpoints: []), then %s again", kind, a.ID, offers(s.caps), kind))
	}
	if c.excFilters != nil {
		if err := refusedFilters(a.ID, s.caps, c.excFilters); err != nil {
			return fail(fmt.Errorf("%w; choose among them (exception_filters), then %s again", err, kind))
		}
	}

	states, err := s.configure(hctx, kind, launchArgs, bps, c.funcBreakpoints, c.excFilters)
	if err != nil {
		return fail(err)
	}
	return s, states, nil
}

// initialize sends the initialize request and keeps the adapter's
// capabilities.
func (s *session) initialize(ctx context.Context) error {
	var initResp godap.InitializeResponse
	err := s.c.call(ctx, "initialize", &godap.InitializeRequestArguments{
		ClientID: "tether", ClientName: "tether", AdapterID: s.adapter.ID, Locale: "en-US",
		LinesStartAt1: true, ColumnsStartAt1: true, PathFormat: "path",
		SupportsVariableType: true, SupportsVariablePaging: true, SupportsMemoryReferences: true,
		SupportsRunInTerminalRequest: true, SupportsStartDebuggingRequest: true,
	}, &initResp)
	if err != nil {
		return err
	}
	s.caps = initResp.Body
	return nil
}

// configure sends the launch or attach request (kind) and, once the
// adapter is initialized, the breakpoints, function breakpoints and
// exception filters (nil: the adapter's defaults), then configurationDone;
// it returns when the request is answered.
func (s *session) configure(hctx context.Context, kind string, launchArgs any, bps map[string][]SourceBreakpoint, funcBreakpoints, excFilters []string) ([]BreakpointState, error) {
	a := s.adapter
	s.mu.Lock()
	s.setup = childSetup{bps: cloneBPs(bps), funcs: slices.Clone(funcBreakpoints), exc: slices.Clone(excFilters)}
	s.mu.Unlock()
	ch, seq, err := s.c.send(kind, launchArgs)
	if err != nil {
		return nil, err
	}
	// Most adapters send "initialized" before answering launch/attach
	// (debugpy answers only after configurationDone); a failed launch is
	// answered at once.
	var launchDone bool
	select {
	case <-s.initialized:
	case m, ok := <-ch:
		launchDone = true
		if !ok {
			return nil, s.c.closeErr()
		}
		if !m.Success {
			return nil, responseError(kind, m)
		}
		select {
		case <-s.initialized:
		case <-s.c.done:
			return nil, s.c.closeErr()
		case <-hctx.Done():
			return nil, fmt.Errorf("dap: %s: the adapter never sent its initialized event: %w", kind, hctx.Err())
		}
	case <-s.c.done:
		return nil, s.c.closeErr()
	case <-hctx.Done():
		return nil, fmt.Errorf("dap: %s: no answer from the adapter: %w", kind, hctx.Err())
	}
	var states []BreakpointState
	for _, file := range sortedKeys(bps) {
		st, err := s.setBreakpoints(hctx, file, bps[file])
		if err != nil {
			return nil, err
		}
		states = append(states, st...)
	}
	if len(funcBreakpoints) > 0 {
		st, err := s.setFunctionBreakpoints(hctx, funcBreakpoints)
		if err != nil {
			return nil, err
		}
		states = append(states, st...)
	}
	// Exception breakpoints as an editor sets them: the adapter's own
	// defaults (debugpy: uncaught exceptions), so an uncaught exception stops
	// where it was raised instead of ending the program.
	var excArgs any
	if excFilters != nil {
		excArgs = &exceptionArgs{Filters: excFilters}
	} else if a.ExceptionBreakpoints != nil {
		excArgs = a.ExceptionBreakpoints
	} else {
		var filters []string
		for _, f := range s.caps.ExceptionBreakpointFilters {
			if f.Default {
				filters = append(filters, f.Filter)
			}
		}
		if len(filters) > 0 {
			excArgs = &godap.SetExceptionBreakpointsArguments{Filters: filters}
		}
	}
	if excArgs != nil {
		if err := s.c.call(hctx, "setExceptionBreakpoints", excArgs, nil); err != nil {
			_, _ = fmt.Fprintf(s.console, "tether: exception breakpoints not set: %v\n", err)
		}
	}
	if s.caps.SupportsConfigurationDoneRequest {
		if err := s.c.call(hctx, "configurationDone", nil, nil); err != nil {
			return nil, err
		}
	}
	if !launchDone {
		if err := s.c.wait(hctx, kind, seq, ch, nil); err != nil {
			return nil, err
		}
	}
	return states, nil
}

// connect starts the adapter process and opens the DAP connection, or dials
// the port for a direct attach.
func (s *session) connect(ctx context.Context, timeout time.Duration) error {
	a := s.adapter
	if s.connector != nil {
		s.c = newConn(s.connector(), s.onEvent, s.onReverse)
		s.c.timeout = s.requestTimeout
		return nil
	}
	if a.Transport == Inspector {
		s.connectInspector()
		return nil
	}
	if s.kind == "attach" && a.AttachDirect && s.pid == 0 {
		addr := net.JoinHostPort(s.host, strconv.Itoa(s.port))
		// A debug server that is still starting refuses for a moment; give
		// it a few seconds, not the whole start timeout.
		deadline := time.Now().Add(min(timeout, s.attachWait))
		var nc net.Conn
		var err error
		for {
			d := net.Dialer{Timeout: 2 * time.Second}
			nc, err = d.DialContext(ctx, "tcp", addr)
			if err == nil || time.Now().After(deadline) || ctx.Err() != nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if err != nil {
			return fmt.Errorf("dap: attach: nothing accepts connections on %s (%v); start the program with its debug server listening on that port first", addr, err)
		}
		s.c = newConn(nc, s.onEvent, s.onReverse)
		s.c.timeout = s.requestTimeout
		return nil
	}

	if s.kind == "attach" && s.port > 0 && s.host == "127.0.0.1" {
		// The adapter connects to the port itself (lldb-dap's gdb-remote
		// port) and fails at once, vaguely, when nothing listens yet: wait
		// for a listener a few seconds without connecting (a gdbserver
		// serves a single connection), then say what is missing.
		deadline := time.Now().Add(min(timeout, s.attachWait))
		for !portListening(s.port) {
			if time.Now().After(deadline) || ctx.Err() != nil {
				return fmt.Errorf("dap: attach: nothing listens on port %d; start the program under its debug server (lldb-server gdbserver 127.0.0.1:%d ./prog) first", s.port, s.port)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	if a.Transport == TCP {
		return s.connectTCP(ctx, timeout)
	}
	vars := map[string]any{}
	var ln net.Listener
	if a.Transport == DialIn {
		sock := filepath.Join(s.scratch, "dap.sock")
		var err error
		ln, err = net.Listen("unix", sock)
		if err != nil {
			return fmt.Errorf("dap: listening for %s: %w", a.ID, err)
		}
		defer ln.Close()
		vars["${socket}"] = sock
	}
	cmd, argv, err := s.adapterCommand(vars)
	if err != nil {
		return err
	}
	cmd.Stderr = s.stderr
	var rwc io.ReadWriteCloser
	if a.Transport == DialIn {
		// The adapter's own stdout is its chatter ("Building ..."); the
		// debuggee's output arrives as output events.
		cmd.Stdout = s.console
	} else {
		stdin, err := cmd.StdinPipe()
		if err != nil {
			return fmt.Errorf("dap: %w", err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return fmt.Errorf("dap: %w", err)
		}
		rwc = &pipeRWC{r: stdout, w: stdin}
	}
	if err := s.startAdapter(cmd, argv); err != nil {
		return err
	}
	if a.Transport == DialIn {
		type accepted struct {
			c   net.Conn
			err error
		}
		got := make(chan accepted, 1)
		go func() { c, err := ln.Accept(); got <- accepted{c, err} }()
		timer := time.NewTimer(timeout)
		defer timer.Stop()
		select {
		case r := <-got:
			if r.err != nil {
				return s.withStderr(fmt.Errorf("dap: %s did not connect: %w", a.ID, r.err))
			}
			rwc = r.c
		case <-s.procDone:
			return s.withStderr(fmt.Errorf("dap: %s exited before connecting (%s)", a.ID, cmd.ProcessState))
		case <-timer.C:
			return s.withStderr(fmt.Errorf("dap: %s did not connect within %s", a.ID, timeout))
		case <-ctx.Done():
			return fmt.Errorf("dap: starting %s: %w", a.ID, ctx.Err())
		}
	}
	s.c = newConn(rwc, s.onEvent, s.onReverse)
	s.c.timeout = s.requestTimeout
	return nil
}

// adapterCommand is the command that starts the session's adapter: its
// argv with vars (${socket}, ${port}) expanded, in the session's root, in
// a process group of its own, sandboxed unless the attach needs it
// unconfined. argv is the command as the adapter entry gives it, for
// messages (cmd's may be the sandbox's).
func (s *session) adapterCommand(vars map[string]any) (cmd *exec.Cmd, argv []string, err error) {
	a := s.adapter
	argv = make([]string, len(a.argv))
	for i, w := range a.argv {
		argv[i], _ = expand(w, vars).(string)
	}
	cmd = exec.Command(argv[0], argv[1:]...)
	cmd.Dir = s.root
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	s.unconfined = unconfinedAttach(a, s.kind, s.pid)
	if err := sandboxIf(cmd, a.ID+" debug adapter", a.Toolchain, argv[0], a.interpreter, s.root, s.scratch, s.unconfined, s.procLimits()); err != nil {
		return nil, nil, fmt.Errorf("dap: %w", err)
	}
	return cmd, argv, nil
}

// startAdapter starts the adapter's cmd (argv as adapterCommand gives it)
// and closes s.procDone when it has ended.
func (s *session) startAdapter(cmd *exec.Cmd, argv []string) error {
	if err := proc.Start(cmd); err != nil {
		return fmt.Errorf("dap: starting %s (%s): %w", s.adapter.ID, strings.Join(argv, " "), err)
	}
	s.cmd = cmd
	s.joinCgroup(cmd.Process.Pid)
	s.procDone = make(chan struct{})
	go func() { _ = cmd.Wait(); close(s.procDone) }()
	return nil
}

// withStderr appends the adapter's captured stderr (and console messages) to err.
func (s *session) withStderr(err error) error {
	if s.procDone != nil {
		// Give a dying adapter a moment to flush its last words.
		select {
		case <-s.procDone:
		case <-time.After(200 * time.Millisecond):
		}
	}
	var extra []string
	if t := strings.TrimSpace(s.stderr.String()); t != "" {
		extra = append(extra, "adapter stderr: "+textcut.LastLines(t, 15))
	}
	if t := strings.TrimSpace(s.console.String()); t != "" {
		extra = append(extra, "adapter console: "+textcut.LastLines(t, 10))
	}
	if text, size, _ := s.out.render(); size > 0 {
		extra = append(extra, "program output (end):\n"+textcut.LastLines(strings.TrimSpace(text), 15))
	}
	if len(extra) == 0 {
		return err
	}
	return fmt.Errorf("%w\n%s", err, strings.Join(extra, "\n"))
}

type pipeRWC struct {
	r io.ReadCloser
	w io.WriteCloser
}

func (p *pipeRWC) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p *pipeRWC) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p *pipeRWC) Close() error {
	err := p.w.Close()
	if e := p.r.Close(); err == nil {
		err = e
	}
	return err
}

// shutdown ends the session. A launched program is ours: the adapter, the
// program and every process under them are frozen and killed together, with
// no polite disconnect first, because a debuggee ended politely orphans its
// children, and a child in a session of its own is then out of reach of both
// the parent links and the process groups (a child forked while the
// disconnect runs is in no earlier snapshot either). An attached program is
// not ours: it is released and detached from politely, then the adapter and
// its own processes are killed.
func (s *session) shutdown(wait time.Duration) {
	if s.kind == "launch" {
		s.kill()
		return
	}
	// Record the tree first: an adapter's helpers may end with the
	// disconnect and leave orphans no parent link leads to.
	snap := snapshotTree(s.roots()...)
	defer func() {
		if pids, groups := stillSame(snap), s.groups(); len(pids) > 0 || len(groups) > 0 {
			killTreeAndGroups(groups, pids...)
		}
	}()
	if s.c != nil {
		select {
		case <-s.c.done:
		default:
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			s.release(ctx)
			_ = s.c.call(ctx, "disconnect", &godap.DisconnectArguments{TerminateDebuggee: false}, nil)
			cancel()
		}
	}
	s.kill()
}

// release leaves an attached program as tether found it before detaching:
// its breakpoints cleared and running. A multi-client delve server keeps
// both across a disconnect, so the program would stay halted, or halt at
// the next breakpoint hit with no client to resume it.
func (s *session) release(ctx context.Context) {
	s.mu.Lock()
	files := make([]string, 0, len(s.bpFiles))
	for f := range s.bpFiles {
		files = append(files, f)
	}
	stopped := s.stop != nil && !s.running && !s.exited && !s.terminated
	thread := s.lastThread
	funcs := s.funcBPs
	s.mu.Unlock()
	for _, f := range files {
		_, _ = s.setBreakpoints(ctx, f, nil)
	}
	if funcs {
		_, _ = s.setFunctionBreakpoints(ctx, nil)
	}
	if stopped {
		_ = s.c.call(ctx, "continue", &godap.ContinueArguments{ThreadId: thread}, nil)
	}
}

// kill closes the connection and kills the adapter's and the debuggee's
// whole process trees.
func (s *session) kill() {
	// Kill before closing the connection: an adapter that sees its input
	// end ends the debuggee politely, orphaning the debuggee's children
	// before the tree is frozen.
	s.killFamily()
	killTreeAndGroups(s.groups(), s.roots()...)
	if s.c != nil {
		_ = s.c.close()
	}
	if s.procDone != nil {
		select {
		case <-s.procDone:
		case <-time.After(5 * time.Second):
		}
	}
	s.releaseCgroup()
	if s.scratch != "" {
		_ = os.RemoveAll(s.scratch)
	}
}

// roots are the processes the session owns: the adapter it started and, for
// a launch, the debuggee (never an attached program).
func (s *session) roots() []int {
	roots := s.terminalPIDs()
	if s.cmd != nil && s.cmd.Process != nil {
		roots = append(roots, s.cmd.Process.Pid)
	}
	s.mu.Lock()
	if s.kind == "launch" && s.debuggeePID > 0 {
		roots = append(roots, s.debuggeePID)
	}
	gone := s.kind == "launch" && s.debuggeeGone
	s.mu.Unlock()
	if gone {
		// Its leftovers may have left its tree and its group.
		roots = append(roots, s.outputHolders()...)
	}
	return roots
}

// outputHolders returns the processes outside the adapter's tree that hold
// the launched debuggee's output pipes open.
func (s *session) outputHolders() []int {
	s.mu.Lock()
	pipes := s.outPipes
	s.mu.Unlock()
	if len(pipes) == 0 || s.cmd == nil || s.cmd.Process == nil {
		return nil
	}
	// The adapter itself, not the sandbox's init above it: what the
	// debuggee left running is reparented to the init.
	return pipeWriters(pipes, proc.PeerPID(s.cmd))
}

// groups is the debuggee's own process group, if it leads one.
func (s *session) groups() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.debuggeePgid > 0 {
		return []int{s.debuggeePgid}
	}
	return nil
}

// stopOutcome is what a wait for the program to stop found.
type stopOutcome int

const (
	outStopped stopOutcome = iota
	outExited
	outRunning // still running when the wait ended
	outGone    // the adapter went away
)

// waitStop waits until a stopped event newer than afterSeq arrives, the
// program ends, the adapter goes away, or wait elapses.
func (s *session) waitStop(ctx context.Context, afterSeq int, wait time.Duration) stopOutcome {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	var grace <-chan time.Time
	for {
		s.mu.Lock()
		switch {
		case s.stopSeq > afterSeq:
			s.mu.Unlock()
			return outStopped
		case s.exited || s.terminated:
			s.mu.Unlock()
			return outExited
		}
		ch := s.changed
		gone := s.debuggeeGone
		orphans := gone && grace == nil && s.debuggeePgid > 0
		pgid := s.debuggeePgid
		s.mu.Unlock()
		// The adapter reports the end only once the debuggee's output
		// closes: processes it left running that hold it open (in its group
		// or in sessions of their own) mean no report is coming.
		if gone {
			if w := s.outputHolders(); len(w) > 0 {
				s.mu.Lock()
				s.holders = w
				s.mu.Unlock()
				return outExited
			}
		}
		if orphans && len(groupMembers(pgid)) > 0 {
			g := time.NewTimer(exitGrace)
			defer g.Stop()
			grace = g.C
		}
		select {
		case <-grace:
			return outExited
		case <-ch:
		case <-s.c.done:
			// Drain: events may have arrived right before the close.
			s.mu.Lock()
			stopped, ended := s.stopSeq > afterSeq, s.exited || s.terminated
			s.mu.Unlock()
			switch {
			case stopped:
				return outStopped
			case ended:
				return outExited
			}
			return outGone
		case <-timer.C:
			return outRunning
		case <-ctx.Done():
			return outRunning
		}
	}
}

var errNoSession = errors.New("debug: no debug session is running; start one with op launch or attach")
