package python

import "context"
import _ "embed"
import "encoding/json"
import "errors"
import "fmt"
import "io"
import "os"
import "os/exec"
import "path/filepath"
import "strconv"
import "strings"
import "sync"
import "syscall"
import "time"

import "github.com/tetherhq/tether/internal/bytesize"
import "github.com/tetherhq/tether/internal/proc"
import "github.com/tetherhq/tether/kernels"

//go:embed driver.py
var driverSource string

// startTimeout bounds how long a new interpreter has to say it is ready.
const startTimeout = 60 * time.Second

// DefaultAddressSpaceLimit is the interpreter's RLIMIT_AS when
// Config.AddressSpaceLimit is zero: far above what notebook work maps (pandas
// and matplotlib loaded: about 0.5 GiB), far below what would take the host
// down.
const DefaultAddressSpaceLimit = 8 << 30

// ErrClosed is returned by Execute after Close.
var ErrClosed = errors.New("kernels: python: kernel is closed; start a new one")

// errZygoteEnded: the shared interpreter a kernel's fork request went to
// had ended, though tether had not yet seen it end (its init exits after
// it): a new one may serve.
var errZygoteEnded = errors.New("it ended")

// Interpreter picks the python a kernel working in dir runs: the project's
// .venv/bin/python or venv/bin/python when present, else the configured one,
// else python3 from PATH.
func Interpreter(dir, configured string) string {
	for _, rel := range []string{".venv/bin/python", "venv/bin/python"} {
		p := filepath.Join(dir, rel)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	if configured != "" {
		return configured
	}
	return "python3"
}

// projectVenv reports the project venv interp belongs to, when Interpreter
// chose the workspace's .venv or venv.
func projectVenv(dir, interp string) (string, bool) {
	for _, name := range []string{".venv", "venv"} {
		v := filepath.Join(dir, name)
		if interp == filepath.Join(v, "bin", "python") {
			return v, true
		}
	}
	return "", false
}

// Kernel is a Python kernel. The interpreter starts on the first Execute.
type Kernel struct {
	cfg kernels.Config

	mu       sync.Mutex // serializes Execute, Reset and Close
	proc     *process
	closed   bool
	cellID   int64
	lastLoss string // why the previous interpreter is gone, for the next cell's notice
}

// New returns a Python kernel; it satisfies kernels.Constructor.
func New(cfg kernels.Config) (kernels.Kernel, error) {
	return &Kernel{cfg: cfg.WithDefaults()}, nil
}

// Language returns kernels.Python.
func (k *Kernel) Language() kernels.Language { return kernels.Python }

// Reset discards the interpreter; the next cell starts a fresh one.
func (k *Kernel) Reset() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.proc != nil {
		k.proc.stop()
		k.proc = nil
	}
	k.lastLoss = ""
	return nil
}

// Close stops the interpreter and every process it started.
func (k *Kernel) Close() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.closed = true
	if k.proc != nil {
		k.proc.stop()
		k.proc = nil
	}
	return nil
}

// Info reports the running interpreter ("" when none runs).
func (k *Kernel) Info() (executable, version string, pid int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.proc == nil {
		return "", "", 0
	}
	return k.proc.executable, k.proc.version, k.proc.peer()
}

// Execute runs one cell. See kernels.Kernel.
func (k *Kernel) Execute(ctx context.Context, cell kernels.Cell) (*kernels.Result, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed {
		return nil, ErrClosed
	}
	res := &kernels.Result{}
	code, uerr := Rewrite(cell.Code)
	if uerr != nil {
		res.Error = uerr
		return res, nil
	}
	k.cellID++
	// Two attempts: a kernel found dead when the cell is sent (it died while
	// idle, just now) is replaced by a fresh one and the cell sent again.
	for attempt := 0; ; attempt++ {
		if k.proc != nil {
			select {
			case <-k.proc.exited:
				k.lastLoss = fmt.Sprintf("the previous one died while idle (%s)", k.proc.exitReason())
				k.proc.stop()
				k.proc = nil
			default:
			}
		}
		if k.proc == nil {
			p, err := k.start(ctx)
			if err != nil {
				return nil, err
			}
			k.proc = p
			if p.capError != "" {
				res.Notices = append(res.Notices, "the python kernel runs without its address-space cap: "+p.capError)
			}
			if p.startNote != "" {
				res.Notices = append(res.Notices, p.startNote)
			}
			res.StartedFresh("python kernel", k.lastLoss, "variables and imports from earlier cells")
			res.Limits = p.limitsWords()
			k.lastLoss = ""
		}
		err := k.proc.write(frame{Op: "exec", ID: k.cellID, Code: code, Source: cell.Code, MaxImage: k.cfg.MaxImage, MaxText: k.cfg.MaxText})
		if err == nil {
			break
		}
		if attempt > 0 {
			return nil, fmt.Errorf("kernels: python: could not send the cell to a fresh interpreter: %w", err)
		}
		// The pipe broke: wait for the process to be reaped, then start over.
		select {
		case <-k.proc.exited:
		case <-time.After(10 * time.Second):
			k.proc.kill()
		}
	}
	return k.run(ctx, k.proc, k.cellID, res), nil
}

type lockedBuffer struct {
	mu sync.Mutex
	b  *kernels.StreamBuffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Stream().Text
}

// process is one running interpreter: started as a command of its own, or
// forked from a zygote (zygote_linux.go).
type process struct {
	// group is the pid tether signals the kernel's process group by: the
	// command's, or the forked child's that leads its group.
	group int
	// peer is the interpreter's pid as tether sees it (Info).
	peer func() int
	// reap waits for the process once its frame channel ended and returns
	// its wait status (ok false when it could not be learned, why in
	// words).
	reap       func() (ws syscall.WaitStatus, ok bool, why string)
	stdin      io.WriteCloser
	wmu        sync.Mutex
	frames     chan *frame   // closed when the frame channel ends
	readErr    error         // why it ended, set before frames is closed
	exited     chan struct{} // closed once the process is reaped
	booted     chan struct{} // closed once sendDriver is done
	reaped     bool          // set before exited is closed
	status     syscall.WaitStatus
	statusOK   bool
	statusWhy  string
	stderr     *lockedBuffer // the interpreter's own stderr (crash reports), tail kept
	executable string
	version    string
	stopOnce   sync.Once
	// addressSpace is the RLIMIT_AS the interpreter runs under (0: none);
	// capError says why the configured one could not be applied.
	addressSpace int64
	capError     string
	// procs caps the processes; nproc and nprocNote are the driver's
	// RLIMIT_NPROC report when no cgroup does.
	procs     *procCap
	nproc     int64
	nprocNote string
	// scratch is the kernel's own directory (TMPDIR, matplotlib's config),
	// removed when it exits; sandboxNote says what confines it.
	scratch     string
	sandboxNote string
	// startNote says why a kernel that could have been forked from the
	// zygote was not (its first result tells it).
	startNote string
}

// addressSpaceLimit is the RLIMIT_AS to start interpreters with, or 0.
func (k *Kernel) addressSpaceLimit() int64 {
	return configuredCap(k.cfg.AddressSpaceLimit, DefaultAddressSpaceLimit)
}

// capWords names the address-space cap and how to raise it, for errors.
func capWords(limit int64) string {
	return fmt.Sprintf("the python kernel's address-space cap of %s (RLIMIT_AS, counting mapped memory)", bytesize.Format(limit))
}

const raiseCap = "free what earlier cells hold (del big objects), work on the data in smaller pieces, or ask the operator to raise the kernel's memory cap"

func (k *Kernel) start(ctx context.Context) (*process, error) {
	interp := Interpreter(k.cfg.Dir, k.cfg.Python)
	var args []string // the driver's, after python -c driverBoot
	if limit := k.addressSpaceLimit(); limit > 0 {
		// On the command line, not in the environment: it reaches the
		// interpreter through an enclosure's command prefix too.
		args = append(args, "--tether-rlimit-as="+strconv.FormatInt(limit, 10))
	}
	var prefix []string
	if k.cfg.Enclosure != nil {
		// Inside the conversation's enclosure when there is one
		// (docs/tools.md, "eval"); the lookup never starts one.
		prefix = k.cfg.Enclosure()
	}
	procs, procArgs := k.planProcCap(len(prefix) > 0)
	args = append(args, procArgs...)
	env := append(os.Environ(), "MPLBACKEND=Agg", "PYTHONUNBUFFERED=1", "PYTHONIOENCODING=utf-8")
	venv, inVenv := projectVenv(k.cfg.Dir, interp)
	if inVenv {
		// As if the venv were activated: !python, !pip and subprocesses
		// find the kernel's own interpreter first.
		env = append(env, "VIRTUAL_ENV="+venv, "PATH="+filepath.Join(venv, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	env = append(env, k.cfg.Env...)
	scratch, serr := os.MkdirTemp("", "tether-python-")
	if serr != nil {
		procs.stop()
		return nil, fmt.Errorf("kernels: python: a scratch directory for the kernel: %w", serr)
	}
	launcher := interp
	if len(prefix) > 0 {
		launcher = prefix[0]
	}
	base := env
	pol, env := policy(launcher, interp, k.cfg.Dir, scratch, procs.dir(), env)
	startNote := ""
	// Forked from a zygote unless it would run the workspace's own
	// interpreter and site-packages (a zygote has no Landlock domain, and
	// what it runs reaches every kernel forked from it) or an enclosure's.
	if len(prefix) == 0 && !inVenv && !k.cfg.NoZygote {
		p := newProcess(procs, scratch)
		err := p.fork(interp, pol, k.cfg.Dir, base, env, args)
		if errors.Is(err, errZygoteEnded) {
			// retired: once more, from a new one
			err = p.fork(interp, pol, k.cfg.Dir, base, env, args)
		}
		if err == nil {
			return k.awaitReady(ctx, p, interp, "")
		}
		if !errors.Is(err, proc.ErrNoFork) {
			startNote = "this kernel is an interpreter of its own, not forked from the shared one: " + err.Error()
		}
	}
	argv := append([]string{interp, "-c", driverBoot}, args...)
	where := ""
	if len(prefix) > 0 {
		argv = append(append([]string(nil), prefix...), argv...)
		where = fmt.Sprintf(" in the conversation's enclosure (through %q)", strings.Join(prefix, " "))
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = k.cfg.Dir
	cmd.Env = env
	ownGroup(cmd)
	if err := proc.Sandbox(cmd, pol); err != nil {
		os.RemoveAll(scratch)
		procs.stop()
		return nil, fmt.Errorf("kernels: python: %w", err)
	}
	p := newProcess(procs, scratch)
	p.startNote = startNote
	cmd.Stderr = p.stderr
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		os.RemoveAll(scratch)
		return nil, fmt.Errorf("kernels: python: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		os.RemoveAll(scratch)
		return nil, fmt.Errorf("kernels: python: %w", err)
	}
	if err := proc.Start(cmd); err != nil {
		os.RemoveAll(scratch)
		procs.stop()
		return nil, fmt.Errorf("kernels: python: cannot start %s%s: %w; install python3 or configure the interpreter (a .venv in the workspace is used first)", interp, where, err)
	}
	p.group = cmd.Process.Pid
	p.peer = func() int { return proc.PeerPID(cmd) }
	p.reap = func() (syscall.WaitStatus, bool, string) {
		_ = cmd.Wait()
		ws, ok := proc.WaitStatus(cmd)
		return ws, ok, "its exit status was not reported"
	}
	// Into its cgroup before the first cell (the driver starts nothing
	// before one).
	procs.started(cmd.Process.Pid)
	go p.sendDriver()
	go p.readLoop(stdout)
	return k.awaitReady(ctx, p, interp, where)
}

// newProcess is a process not yet started, capped by procs, with its
// scratch directory.
func newProcess(procs *procCap, scratch string) *process {
	return &process{
		frames:      make(chan *frame, 64),
		exited:      make(chan struct{}),
		booted:      make(chan struct{}),
		stderr:      &lockedBuffer{b: kernels.NewStreamBuffer(8 << 10)},
		procs:       procs,
		scratch:     scratch,
		sandboxNote: proc.SandboxStatus().Note(proc.Kernels),
	}
}

// awaitReady waits for a started interpreter's ready frame.
func (k *Kernel) awaitReady(ctx context.Context, p *process, interp, where string) (*process, error) {
	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	for {
		select {
		case f, ok := <-p.frames:
			if !ok {
				<-p.exited
				return nil, fmt.Errorf("kernels: python: %s%s exited before it was ready (%s): %s", interp, where, p.exitReason(), strings.TrimSpace(p.stderr.String()))
			}
			if f.Op == "ready" {
				p.executable, p.version, p.addressSpace, p.capError = f.Executable, f.Python, f.RlimitAS, f.CapError
				p.nproc, p.nprocNote = f.RlimitNproc, f.NprocNote
				return p, nil
			}
		case <-timer.C:
			p.stop()
			return nil, fmt.Errorf("kernels: python: %s%s did not become ready within %s: %s", interp, where, startTimeout, strings.TrimSpace(p.stderr.String()))
		case <-ctx.Done():
			p.stop()
			return nil, fmt.Errorf("kernels: python: start canceled: %w", ctx.Err())
		}
	}
}

func (p *process) readLoop(r io.Reader) {
	for {
		f, err := readFrame(r)
		if err != nil {
			if err != io.EOF {
				p.readErr = err
			}
			break
		}
		p.frames <- f
	}
	close(p.frames)
	// Drain the pipe so the interpreter never blocks on a full pipe, then reap.
	_, _ = io.Copy(io.Discard, r)
	p.status, p.statusOK, p.statusWhy = p.reap()
	p.reaped = true
	if p.scratch != "" {
		_ = os.RemoveAll(p.scratch)
	}
	close(p.exited)
}

// sendDriver writes the driver's source, the first thing on the
// interpreter's stdin (driverBoot), and closes p.booted once it is written
// or could not be: the interpreter reads it before it says ready, so no other
// frame competes with it, but a start that gives up may stop the process
// first (stop closes stdin then, which ends this write).
func (p *process) sendDriver() {
	defer close(p.booted)
	_, _ = p.stdin.Write(driverFrame())
}

func (p *process) write(v any) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	return writeFrame(p.stdin, v)
}

// stop ends the interpreter: politely first, then by killing its group.
func (p *process) stop() {
	p.stopOnce.Do(func() {
		select {
		case <-p.booted:
			_ = p.write(frame{Op: "shutdown"})
		default: // still reading the driver: closing stdin ends it
		}
		_ = p.stdin.Close()
		go func() {
			for range p.frames {
			}
		}()
		select {
		case <-p.exited:
		case <-time.After(2 * time.Second):
		}
		_ = killGroup(p.group) // children of !cmd and the interpreter itself if still there
		p.procs.stop()         // and those that left its process group
		select {
		case <-p.exited:
		case <-time.After(10 * time.Second):
		}
	})
}

// kill ends the interpreter at once.
func (p *process) kill() {
	_ = killGroup(p.group)
	p.stop()
}

// exitReason says how the process ended, in words.
func (p *process) exitReason() string {
	ws, ok := p.exitStatus()
	if !ok {
		if p.readErr != nil {
			return p.readErr.Error()
		}
		if p.reaped {
			return "ended; " + p.statusWhy
		}
		return "still running"
	}
	if ws.Signaled() {
		s := fmt.Sprintf("killed by signal %d, %s", int(ws.Signal()), ws.Signal())
		if ws.Signal() == syscall.SIGKILL {
			s += " (SIGKILL: the kernel ran out of memory and the OOM killer ended it, or something killed it)"
		}
		return s
	}
	return fmt.Sprintf("exited with status %d", ws.ExitStatus())
}

// exitStatus is how the interpreter ended (under the sandbox's init, its
// own status, not the init's); ok is false while it runs.
func (p *process) exitStatus() (syscall.WaitStatus, bool) {
	if !p.reaped || !p.statusOK {
		return 0, false
	}
	return p.status, true
}

// diedOfMemory reports an end that an allocation failing under the
// address-space cap explains: an abort, a segmentation fault or a bus error
// (native code that does not check what malloc or mmap returned), or a crash
// report that says memory ran out.
func (p *process) diedOfMemory() bool {
	if ws, ok := p.exitStatus(); ok {
		if ws.Signaled() {
			switch ws.Signal() {
			case syscall.SIGABRT, syscall.SIGSEGV, syscall.SIGBUS:
				return true
			}
		}
	}
	tail := strings.ToLower(p.stderr.String())
	for _, w := range []string{"memoryerror", "cannot allocate memory", "out of memory", "bad_alloc"} {
		if strings.Contains(tail, w) {
			return true
		}
	}
	return false
}

type bridgeCall struct{}

// run collects a sent cell's outputs until it is done, the kernel dies, or an
// interrupt goes unanswered.
func (k *Kernel) run(ctx context.Context, p *process, id int64, res *kernels.Result) *kernels.Result {
	cfg := k.cfg
	stdout, stderr := kernels.NewStreamBuffer(cfg.MaxOutput).KeepAll(cfg.MaxSpill), kernels.NewStreamBuffer(cfg.MaxOutput).KeepAll(cfg.MaxSpill)
	order := kernels.NewTranscript(2*cfg.MaxOutput, cfg.MaxDisplays)
	finish := func() *kernels.Result {
		res.Stdout, res.Stderr = stdout.Stream(), stderr.Stream()
		order.Fill(res)
		return res
	}
	over := make(chan struct{})
	defer close(over)
	bridgeDone := make(chan bridgeCall)

	idle := cfg.Clock.NewTimer(cfg.IdleTimeout)
	defer idle.Stop()
	outstanding := 0
	var grace <-chan time.Time
	interrupted := ""
	ctxDone := ctx.Done()

	// SIGINT is sent again every second of the grace period: a signal that
	// lands before the driver has started the cell (it ignores SIGINT between
	// cells) must not leave the cell running.
	var resend <-chan time.Time
	stopResend := func() {}
	defer func() { stopResend() }()
	interrupt := func(why string) {
		if interrupted != "" {
			return
		}
		interrupted = why
		_ = interruptGroup(p.group)
		grace = time.After(cfg.InterruptGrace)
		t := time.NewTicker(time.Second)
		resend, stopResend = t.C, t.Stop
	}

	for {
		select {
		case f, ok := <-p.frames:
			if !ok {
				k.died(p, res)
				return finish()
			}
			switch f.Op {
			case "stream", "streams", "display":
				// Output is a sign of life: the idle budget starts over.
				if outstanding == 0 && interrupted == "" {
					idle.Reset(cfg.IdleTimeout)
				}
			}
			switch f.Op {
			case "stream", "streams":
				parts := f.Parts
				if f.Op == "stream" {
					parts = [][2]string{{f.Name, f.Text}}
				}
				for _, p := range parts {
					if p[0] == "stderr" {
						stderr.WriteString(p[1])
						order.Write("stderr", p[1])
					} else {
						stdout.WriteString(p[1])
						order.Write("stdout", p[1])
					}
				}
			case "display":
				if f.Data != nil {
					order.Display(k.display(f.Data))
				}
			case "result":
				if f.Data != nil {
					d := k.display(f.Data)
					res.Value = &d
				}
			case "tool":
				outstanding++
				idle.Stop()
				go func(f *frame) {
					reply := k.bridge(ctx, f)
					_ = p.write(reply)
					select {
					case bridgeDone <- bridgeCall{}:
					case <-over:
					}
				}(f)
			case "done":
				if f.ID != id {
					continue // a late answer to an abandoned cell
				}
				cellDone(f, p, interrupted, res)
				return finish()
			}
		case <-bridgeDone:
			outstanding--
			if outstanding == 0 && interrupted == "" {
				idle.Reset(cfg.IdleTimeout)
			}
		case <-idle.C():
			if outstanding == 0 {
				interrupt(fmt.Sprintf("its idle budget of %s was spent with no bridge call outstanding", cfg.IdleTimeout))
			}
		case <-ctxDone:
			ctxDone = nil
			interrupt(kernels.StopReason(ctx))
		case <-resend:
			_ = interruptGroup(p.group)
		case <-grace:
			k.killedAfterGrace(p, interrupted, res)
			return finish()
		}
	}
}

// died records that the kernel died during the cell: its state is lost.
func (k *Kernel) died(p *process, res *kernels.Result) {
	<-p.exited
	reason := p.exitReason()
	res.Error = &kernels.Error{
		Name:      kernels.KindKernelDied,
		Message:   fmt.Sprintf("kernels: the python kernel died during this cell: %s; its state is lost and the next cell starts a fresh interpreter", reason),
		Traceback: strings.TrimSpace(p.stderr.String()),
	}
	if p.addressSpace > 0 && p.diedOfMemory() {
		res.Error.Message += "; it ran under " + capWords(p.addressSpace) + ", and native code that cannot get memory ends the process: " + raiseCap
	}
	res.StateLost = true
	k.lastLoss = fmt.Sprintf("the previous one died (%s)", reason)
	p.stop()
	k.proc = nil
}

// cellDone records the cell's own error from its done frame, and the
// interrupt (interrupted its reason) the kernel came back from.
func cellDone(f *frame, p *process, interrupted string, res *kernels.Result) {
	if f.Error != nil {
		res.Error = &kernels.Error{Name: f.Error.Name, Message: f.Error.Message, Traceback: kernels.TrimTraceback(f.Error.Traceback, 8<<10), Line: f.Error.Line}
		if f.Error.Name == "MemoryError" && p.addressSpace > 0 {
			if res.Error.Message != "" {
				res.Error.Message += ": "
			}
			res.Error.Message += "kernels: the cell reached " + capWords(p.addressSpace) + "; the kernel is alive and its state is kept: " + raiseCap
		}
	}
	if interrupted == "" {
		return
	}
	msg := fmt.Sprintf("kernels: cell interrupted: %s; the kernel came back and its state is kept", interrupted)
	if res.Error == nil {
		res.Notices = append(res.Notices, msg+" (the cell had finished just before the interrupt)")
	} else if res.Error.Name == "KeyboardInterrupt" {
		res.Error.Name = kernels.KindInterrupted
		res.Error.Message = msg
	}
}

// killedAfterGrace kills a kernel that did not come back from an
// interrupt within the grace period: its state is lost.
func (k *Kernel) killedAfterGrace(p *process, interrupted string, res *kernels.Result) {
	p.kill()
	k.proc = nil
	k.lastLoss = "the previous one did not come back from an interrupt and was killed"
	res.StateLost = true
	res.Error = &kernels.Error{
		Name:    kernels.KindKernelRestarted,
		Message: fmt.Sprintf("kernels: cell interrupted: %s; the kernel did not come back within %s and was killed: its state is lost and the next cell starts a fresh interpreter", interrupted, k.cfg.InterruptGrace),
	}
}

func (k *Kernel) display(b *bundle) kernels.Display {
	d := kernels.Display{PNG: b.PNG, Note: b.Note}
	var n1, n2 string
	d.Text, n1 = kernels.CutText(b.Text, k.cfg.MaxText)
	d.HTML, n2 = kernels.CutText(b.HTML, k.cfg.MaxText)
	for _, n := range []string{n1, n2} {
		if n != "" {
			if d.Note != "" {
				d.Note += "; "
			}
			d.Note += n
		}
	}
	return d
}

// bridge performs one tool() call from a cell and returns the reply frame.
func (k *Kernel) bridge(ctx context.Context, f *frame) frame {
	reply := frame{Op: "reply", ID: f.ID}
	if k.cfg.Tools == nil {
		reply.Text = "kernels: no tools are wired to this kernel: tool() is only available when the kernel runs inside a tether run"
		return reply
	}
	args := f.Args
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	r, err := k.cfg.Tools(ctx, f.Name, args)
	if err != nil {
		reply.Text = err.Error()
		return reply
	}
	reply.OK = !r.IsError
	reply.Text = r.Text
	reply.Structured = r.Structured
	return reply
}
