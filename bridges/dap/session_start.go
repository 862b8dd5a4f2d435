package dap

// Starting a session: the adapter process or connection, and the DAP
// handshake up to configurationDone.

import "cmp"
import "context"
import "fmt"
import "io"
import "maps"
import "net"
import "os/exec"
import "path/filepath"
import "slices"
import "strconv"
import "strings"
import "syscall"
import "time"

import godap "github.com/google/go-dap"
import "github.com/tetherhq/tether/internal/proc"
import "github.com/tetherhq/tether/internal/textcut"

// startSession starts (or connects to) the adapter and runs the DAP handshake
// up to configurationDone, sending the pending breakpoints on the way.
func (sv *Supervisor) startSession(ctx context.Context, a *resolved, root, scratch, kind string, launchArgs, vars map[string]any, at AttachArgs, c *conversation) (*session, []BreakpointState, error) {
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
	s.cmdVars = launchCommandVars(kind, vars)
	s.connector = sv.cfg.connector
	s.requestTimeout = sv.cfg.RequestTimeout
	if p, ok := launchArgs["program"].(string); ok {
		s.program = p
	}
	s.attachWait = sv.cfg.AttachWait
	s.startTimeout = sv.cfg.StartTimeout
	s.limits = proc.NewCaps("debug", sv.cfg.processLimit(), sv.cfg.addressSpaceLimit(), "the adapter, the program and what it starts")
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
	states, err := s.sendConfig(hctx, bps, funcBreakpoints, excFilters)
	if err != nil {
		return nil, err
	}
	if !launchDone {
		if err := s.c.wait(hctx, kind, seq, ch, nil); err != nil {
			return nil, err
		}
	}
	return states, nil
}

// sendConfig sends, once the adapter is initialized, the breakpoints,
// function breakpoints and exception filters (nil: the adapter's
// defaults), then configurationDone.
func (s *session) sendConfig(hctx context.Context, bps map[string][]SourceBreakpoint, funcBreakpoints, excFilters []string) ([]BreakpointState, error) {
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
	} else if s.adapter.ExceptionBreakpoints != nil {
		excArgs = s.adapter.ExceptionBreakpoints
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
	switch a.Transport {
	case Inspector:
		s.connectInspector()
		return nil
	case Chromium:
		s.connectChromium()
		return nil
	case Xdebug:
		s.connectXdebug()
		return nil
	}
	if s.kind == "attach" && a.AttachDirect && s.pid == 0 {
		return s.dialDirect(ctx, timeout)
	}
	if s.kind == "attach" && s.port > 0 && s.host == "127.0.0.1" {
		if err := s.awaitAttachPort(ctx, timeout); err != nil {
			return err
		}
	}
	switch a.Transport {
	case TCP:
		return s.connectTCP(ctx, timeout)
	case Unix:
		return s.connectUnix(ctx, timeout)
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

// dialDirect connects to a debug server the program serves itself (a
// direct attach by port).
func (s *session) dialDirect(ctx context.Context, timeout time.Duration) error {
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

// awaitAttachPort waits, bounded, for a listener on the attach port the
// adapter itself connects to.
func (s *session) awaitAttachPort(ctx context.Context, timeout time.Duration) error {
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
	return nil
}

// adapterCommand is the command that starts the session's adapter: its
// argv with vars (${socket}, ${port}) expanded, in the session's root, in
// a process group of its own, sandboxed unless the attach needs it
// unconfined. argv is the command as the adapter entry gives it, for
// messages (cmd's may be the sandbox's).
func (s *session) adapterCommand(vars map[string]any) (cmd *exec.Cmd, argv []string, err error) {
	a := s.adapter
	all := maps.Clone(s.cmdVars)
	if all == nil {
		all = map[string]any{}
	}
	maps.Copy(all, vars)
	argv = commandArgv(a.argv, all)
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
	err := proc.Start(cmd)
	pipes := s.adapterPipes
	s.adapterPipes = nil
	if pipes != nil {
		pipes.started(err == nil)
	}
	if err != nil {
		return fmt.Errorf("dap: starting %s (%s): %w", s.adapter.ID, strings.Join(argv, " "), err)
	}
	s.cmd = cmd
	s.joinCgroup(cmd.Process.Pid)
	s.procDone = make(chan struct{})
	go func() {
		_ = cmd.Wait()
		if pipes != nil {
			pipes.waitEOF()
		}
		s.adapterEnded(cmd)
		close(s.procDone)
	}()
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
