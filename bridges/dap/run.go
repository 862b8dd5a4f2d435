package dap

import "cmp"
import "context"
import "debug/elf"
import "errors"
import "fmt"
import "os"
import "os/exec"
import "path/filepath"
import "slices"
import "strings"
import "syscall"
import "time"

import godap "github.com/google/go-dap"
import "github.com/tetherhq/tether/internal/fsutil"

// Launch starts a session that runs a program under the adapter its kind
// names (or args.Adapter) and waits for its first stop. A second launch is
// refused while a session is live.
func (sv *Supervisor) Launch(ctx context.Context, conversationID, root string, args LaunchArgs) (*Started, error) {
	return sv.start(ctx, conversationID, root, "launch", args.Program, args.Args, AttachArgs{}, args.Adapter, args.Test)
}

// Attach starts a session attached to a running process by its pid, or to
// a program's debug server on a port, with args.Adapter, else the adapter
// that what the process runs names (by pid) or the root markers name (by
// port); the adapter needs no root marker. It waits for a stop only when a
// breakpoint may stop the program. Ending the session detaches: the
// process keeps running.
func (sv *Supervisor) Attach(ctx context.Context, conversationID, root string, args AttachArgs) (*Started, error) {
	return sv.start(ctx, conversationID, root, "attach", "", nil, args, args.Adapter, "")
}

func (sv *Supervisor) start(ctx context.Context, conversationID, root, op, program string, progArgs []string, at AttachArgs, adapterID, test string) (*Started, error) {
	port := at.Port
	c, root, err := sv.lockIn(conversationID, root)
	if err != nil {
		return nil, err
	}
	defer c.mu.Unlock()
	if s := c.live; s != nil {
		return nil, fmt.Errorf("debug: %s refused: a session is already live: %s; terminate it first", op, s.describe())
	}
	if op == "launch" {
		if program == "" {
			return nil, errors.New("debug: launch needs program (a file or package dir relative to the working dir)")
		}
		switch {
		case isPageURL(program): // opened as it is
		case filepath.IsAbs(program):
			program = filepath.Clean(program)
		default:
			program = filepath.Clean(filepath.Join(root, program))
		}
		if fi, err := os.Stat(program); err == nil && !fi.IsDir() && !fi.Mode().IsRegular() {
			// Opening a named pipe (to tell a native executable, or to read
			// a test file) would block the launch for good.
			return nil, fmt.Errorf("debug: launch: %s is a %s, not a regular file: %w; launch a program file or a package directory", program, fsutil.Kind(fi.Mode()), fsutil.ErrNotRegular)
		}
	} else if err := checkAttach(at); err != nil {
		return nil, err
	} else if err := checkAttachSandbox(at); err != nil {
		return nil, err
	}
	a, why, err := sv.pickAdapter(ctx, root, op, adapterID, program, at.PID)
	if err != nil {
		return nil, err
	}
	workDir := root // names in answers stay relative to it
	var tests *testRun
	if op == "launch" {
		root = a.root // the program's project, at or below the working dir
		if tests, err = planTests(a.Adapter, root, program, test, progArgs); err != nil {
			return nil, err
		}
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
		"${program}": program, "${args}": stringsToAny(progArgs), "${cwd}": root,
		"${interpreter}": a.interpreter, "${port}": port, "${mode}": mode,
		"${pid}": at.PID, "${host}": cmp.Or(at.Host, "127.0.0.1"),
		"${scratch}": scratch,
	}
	tmpl := a.Launch
	switch {
	case op == "attach" && at.PID != 0:
		tmpl = a.AttachPID
	case op == "attach":
		tmpl = a.Attach
	case tests != nil && tests.binary:
		vars["${args}"] = stringsToAny(tests.args)
	case tests != nil:
		tmpl = a.Test
		vars["${program}"], vars["${args}"], vars["${cwd}"], vars["${mode}"] = tests.program, stringsToAny(tests.args), tests.cwd, "test"
	}
	args, _ := expand(tmpl, vars).(map[string]any)
	if args == nil {
		args = map[string]any{}
	}
	if op == "launch" && (tests == nil || tests.binary) {
		if _, ok := args["program"]; !ok {
			args["program"] = program
		}
	}
	// Breakpoints are sent with absolute paths.
	s, states, err := sv.startSession(ctx, a, root, scratch, op, args, vars, at, c)
	if err != nil {
		if at.PID != 0 && a.Transport != Inspector { // node's is opened by a signal, not ptrace
			err = fmt.Errorf("%w%s", err, ptraceHint(a.ID, err.Error()))
		}
		return nil, prefixDebug(err)
	}
	switch {
	case op == "attach":
		s.program = ""
	case tests != nil:
		s.program = relTo(workDir, program) + " (" + tests.title + ")"
	default:
		s.program = relTo(workDir, program)
	}
	s.ws, _ = fsutil.NewRoot(workDir)
	c.live = s
	c.endReason = ""
	c.bpStates = states
	c.ttlTimer = time.AfterFunc(sv.cfg.TTL, func() { sv.expire(c, s) })

	r := &Started{Title: s.title(), Adapter: a.ID, AdapterReason: why, Breakpoints: states, Sandbox: sandboxNote(s.unconfined), Limits: s.limits.Describe(), Ops: capsOps(s.caps)}
	// A launched program runs to its first stop; an attached one is waited
	// for only when a breakpoint may stop it (else it runs until pause).
	wait := sv.cfg.StopWait
	if op == "attach" && len(c.breakpoints) == 0 && len(c.funcBreakpoints) == 0 {
		wait = 0
	}
	if err := sv.afterRun(ctx, c, s, 0, wait, &r.Outcome); err != nil {
		return nil, err
	}
	s.refreshBreakpoints(r.Breakpoints)
	r.Session = s.describe()
	return r, nil
}

// checkAttach refuses attach arguments that name no target, or two.
func checkAttach(at AttachArgs) error {
	switch {
	case at.PID != 0 && (at.Port != 0 || at.Host != ""):
		return errors.New("debug: attach takes pid, or port (and host), not both; pass one")
	case at.PID < 0:
		return fmt.Errorf("debug: attach: pid %d is not a process id", at.PID)
	case at.PID > 0:
		if at.PID == os.Getpid() {
			return errors.New("debug: attach: pid is tether's own process; pass the pid of the program to debug")
		}
		if err := syscall.Kill(at.PID, 0); err == syscall.ESRCH {
			return fmt.Errorf("debug: attach: no process has pid %d; check the pid (ps) and attach again", at.PID)
		}
		return nil
	case at.Port <= 0 || at.Port > 65535:
		return errors.New("debug: attach needs pid (a running process) or port (the port the program's debug server listens on)")
	}
	return nil
}

// ptraceHint says why attaching to a process by pid may be refused by the
// kernel: the Yama ptrace policy, or (debugpy) a missing gdb or an
// injection gdb could not make; failed is the attach's error text.
func ptraceHint(adapterID, failed string) string {
	var hints []string
	if strings.Contains(failed, "Code injection into PID") {
		hints = append(hints, "debugpy attaches by pid by making gdb call into the process to load itself, and that call failed here (gdb could not run code in the process: a kernel or sandbox that refuses it, or a python without symbols); the process may have been disturbed or ended by the attempt; start the program with python -m debugpy --listen PORT and attach by port instead")
	}
	if b, err := os.ReadFile("/proc/sys/kernel/yama/ptrace_scope"); err == nil {
		switch strings.TrimSpace(string(b)) {
		case "1":
			hints = append(hints, "the kernel's Yama ptrace_scope is 1: only a parent may trace a process, so attaching by pid needs ptrace_scope 0 (sysctl kernel.yama.ptrace_scope=0) or CAP_SYS_PTRACE; start the program under the debugger with launch instead")
		case "2", "3":
			hints = append(hints, "the kernel's Yama ptrace_scope forbids tracing without CAP_SYS_PTRACE (2) or at all (3); start the program under the debugger with launch, or with its debug server listening and attach by port")
		}
	}
	if adapterID == "debugpy" {
		if _, err := exec.LookPath("gdb"); err != nil {
			hints = append(hints, "debugpy attaches by pid by injecting itself with gdb, and gdb is not on PATH (apt-get install gdb); or start the program with python -m debugpy --listen PORT and attach by port")
		}
	}
	if len(hints) == 0 {
		return ""
	}
	return "; " + strings.Join(hints, "; ")
}

// projectDir returns the directory nearest to program, between program's own
// and root (both included), that has one of a's named markers, else one of
// its marker patterns; root when none has.
// A program in a subproject (tool/main.py next to tool/pyproject.toml) runs
// in that project, as lsp finds a file's root by walking up.
func projectDir(a Adapter, root, program string) string {
	dir := program
	if fi, err := os.Stat(program); err != nil || !fi.IsDir() {
		dir = filepath.Dir(program)
	}
	// A named marker (package.json) outranks a pattern (*.js) nearer the
	// program: a src/ of .ts files is part of the project above it.
	var named, patterns []string
	for _, m := range a.Markers {
		if strings.ContainsAny(m, "*?[") {
			patterns = append(patterns, m)
		} else {
			named = append(named, m)
		}
	}
	for _, markers := range [][]string{named, patterns} {
		if len(markers) == 0 {
			continue
		}
		for d := dir; d == root || strings.HasPrefix(d, root+string(filepath.Separator)); d = filepath.Dir(d) {
			if findMarker(markers, d) != "" {
				return d
			}
			if d == root {
				break
			}
		}
	}
	return root
}

// adapterForProgram infers the adapter from the program: its extension, the
// source files of a package directory, or a native executable.
func adapterForProgram(table []Adapter, program string) (Adapter, error) {
	if isPageURL(program) {
		for _, a := range table {
			if a.URLs {
				return a, nil
			}
		}
		return Adapter{}, fmt.Errorf("debug: launch: no adapter opens the URL %s; give a program file", program)
	}
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
	if filepath.Base(program) == "package.json" {
		// One of its scripts, run by the node adapter.
		for _, a := range table {
			if a.Transport == Inspector {
				return a, nil
			}
		}
	}
	native := isNative(program)
	if native && isGoBinary(program) {
		// A Go binary (or test binary) has Go's runtime and DWARF: delve's.
		for _, a := range table {
			if a.GoExecutables {
				return a, nil
			}
		}
	}
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
	return Adapter{}, fmt.Errorf("debug: launch: no adapter launches %s; pass adapter, or launch a .go, .py, .js, .ts, .php, .rb, .pl, .dart file or a native executable", program)
}

func isNative(p string) bool {
	f, err := fsutil.OpenRegularFile(p)
	if err != nil {
		return false
	}
	defer f.Close()
	ef, err := elf.NewFile(f)
	if err != nil {
		return false
	}
	ef.Close()
	return true
}

func stringsToAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// afterRun waits for the program to stop (or end) and fills r with where it
// stopped; the caller holds c.mu.
func (sv *Supervisor) afterRun(ctx context.Context, c *conversation, s *session, afterSeq int, wait time.Duration, r *Outcome) error {
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
		from := s.stopFrom
		s.mu.Unlock()
		if from != nil {
			from.afterChildStop(ctx, r)
			return nil
		}
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
			r.StackError = strings.TrimPrefix(err.Error(), "dap: ")
			return nil
		}
		r.Stop = st
	case outExited:
		s.mu.Lock()
		ex := &Exit{Code: s.exitCode, Known: s.exited}
		silent := s.debuggeeGone && !s.exited && !s.terminated
		pid, pgid, holders := s.debuggeePID, s.debuggeePgid, s.holders
		s.mu.Unlock()
		ex.Adapter = s.adapter.ID
		if !ex.Known && silent {
			ex.Unreported, ex.PID = true, pid
			for _, h := range holders {
				if l := procLine(h); l != "" {
					ex.Leftovers = append(ex.Leftovers, l)
				}
			}
			if len(ex.Leftovers) == 0 && pgid > 0 {
				ex.Leftovers = groupMembers(pgid)
			}
		}
		ex.Output, ex.OutputBytes, ex.OutputDropped = s.out.render()
		r.Exited = ex
		if s.parent != nil {
			// A child's end is not the session's.
			ex.Session = s.index
			return nil
		}
		if ex.Known {
			sv.end(c, fmt.Sprintf("the program exited with code %d", ex.Code))
		} else {
			sv.end(c, "the program ended")
		}
	case outGone:
		err := s.withStderr(s.c.closeErr())
		if s.parent != nil {
			return fmt.Errorf("debug: child session %d's connection closed: %w; omit session to drive the main one", s.index, err)
		}
		sv.end(c, "the debug adapter went away: "+err.Error())
		return fmt.Errorf("debug: the adapter went away: %w", err)
	case outRunning:
		if err := ctx.Err(); err != nil && wait > 0 {
			return fmt.Errorf("debug: gave up waiting for the program to stop (%w); it may still be running: check status", err)
		}
		r.Running, r.Waited = true, wait
	}
	return nil
}

// Continue resumes the program (threadID 0: the thread that last stopped)
// and waits for its next stop.
func (sv *Supervisor) Continue(ctx context.Context, conversationID string, threadID int) (*Outcome, error) {
	return sv.run(ctx, conversationID, "continue", threadID)
}

// Pause stops the running program and says where.
func (sv *Supervisor) Pause(ctx context.Context, conversationID string, threadID int) (*Outcome, error) {
	return sv.run(ctx, conversationID, "pause", threadID)
}

// StepOver runs to the next line of the thread's frame.
func (sv *Supervisor) StepOver(ctx context.Context, conversationID string, threadID int) (*Outcome, error) {
	return sv.run(ctx, conversationID, "step_over", threadID)
}

// StepIn steps into the call on the thread's line.
func (sv *Supervisor) StepIn(ctx context.Context, conversationID string, threadID int) (*Outcome, error) {
	return sv.run(ctx, conversationID, "step_in", threadID)
}

// StepOut runs until the thread's frame returns.
func (sv *Supervisor) StepOut(ctx context.Context, conversationID string, threadID int) (*Outcome, error) {
	return sv.run(ctx, conversationID, "step_out", threadID)
}

// run: continue, pause, step_over, step_in, step_out.
func (sv *Supervisor) run(ctx context.Context, conversationID, op string, threadID int) (*Outcome, error) {
	return sv.resume(ctx, conversationID, op, threadID, func(_ context.Context, _ *conversation, _ *session, thread int) (string, any, error) {
		switch op {
		case "continue":
			return "continue", &godap.ContinueArguments{ThreadId: thread}, nil
		case "pause":
			return "pause", &godap.PauseArguments{ThreadId: thread}, nil
		case "step_over":
			return "next", &godap.NextArguments{ThreadId: thread}, nil
		case "step_in":
			return "stepIn", &godap.StepInArguments{ThreadId: thread}, nil
		case "step_out":
			return "stepOut", &godap.StepOutArguments{ThreadId: thread}, nil
		}
		return "", nil, fmt.Errorf("debug: %s is not a run op", op)
	})
}

// resumeRequest makes the request an op that runs the program sends for a
// thread, checking what it needs first.
type resumeRequest func(ctx context.Context, c *conversation, s *session, thread int) (command string, args any, err error)

// resume sends the request build makes for a thread (0: the one that last
// stopped) and waits for the program's next stop. Only pause and restart
// take a running program.
// callMoving sends a request that runs, steps or pauses the program and
// waits for its response, or for the stop or end it causes, whichever
// comes first (see conn.callUntilSettled); afterSeq is the stop before it.
func (s *session) callMoving(ctx context.Context, command string, args any, afterSeq int) error {
	return s.c.callUntilSettled(ctx, command, args, func() (<-chan struct{}, bool) {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.changed, s.stopSeq > afterSeq || s.exited || s.terminated
	})
}

func (sv *Supervisor) resume(ctx context.Context, conversationID, op string, threadID int, build resumeRequest) (*Outcome, error) {
	r := &Outcome{}
	err := sv.inSession(conversationID, op, false, func(c *conversation, s *session) error {
		thread := threadID
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
				return err
			}
			if len(ths) == 0 {
				return errors.New("debug: the program has no threads to run; check status")
			}
			thread = ths[0].ID
		}
		if op != "pause" && op != "restart" && running {
			return fmt.Errorf("debug: %s: the program is running, not stopped; use pause first, or status", op)
		}
		if op == "pause" && !running {
			// Adapters answer a pause of a stopped program without a new stop
			// event: report where it already is instead of waiting for one.
			r.AlreadyStopped = true
			return sv.afterRun(ctx, c, s, seq-1, 0, r)
		}
		command, args, err := build(ctx, c, s, thread)
		if err != nil {
			return err
		}
		if command != "pause" {
			s.mu.Lock()
			s.running = true
			clear(s.indexed)
			clear(s.framesSeen)
			s.mu.Unlock()
		}
		if err := s.callMoving(ctx, command, args, seq); err != nil {
			if command != "pause" {
				s.mu.Lock()
				if s.stopSeq == seq {
					s.running = running // the adapter refused: still where it was
				}
				s.mu.Unlock()
			}
			return err
		}
		return sv.afterRun(ctx, c, s, seq, sv.cfg.StopWait, r)
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}
