package jsproc

import "context"
import "errors"
import "fmt"
import "io"
import "os"
import "os/exec"
import "strings"
import "sync"
import "time"

import "github.com/tetherhq/tether/internal/proc"
import "github.com/tetherhq/tether/kernels"
import "github.com/tetherhq/tether/kernels/internal/wire"
import "github.com/tetherhq/tether/kernels/js"

// ErrClosed is returned by Execute after Close.
var ErrClosed = js.ErrClosed

// startTimeout bounds how long a child has to say it is ready.
const startTimeout = 30 * time.Second

// hardLimit is the resident memory past which the parent kills a child whose
// heap cap is limit: the cap's guard stops a cell long before (a doubling
// string may have allocated 2 to 4 times the cap by then, and what is freed
// is not all returned to the system at once), so only a runtime that cannot
// be stopped gets there.
func hardLimit(limit int64) int64 { return raceScale * (4*limit + 1<<30) }

// Constructor returns a kernels.Constructor whose kernels run in a child
// started with argv (a tether binary and Subcommand, or a test binary that
// calls Main) and env added to tether's environment.
func Constructor(argv, env []string) kernels.Constructor {
	return func(cfg kernels.Config) (kernels.Kernel, error) {
		if len(argv) == 0 {
			return nil, fmt.Errorf("%s: no command to start the child with", who)
		}
		cfg = cfg.WithDefaults()
		if cfg.MemoryLimit <= 0 {
			cfg.MemoryLimit = js.DefaultMemoryLimit
		}
		return &Kernel{cfg: cfg, argv: argv, env: env}, nil
	}
}

// Kernel is a JavaScript kernel in a child process; it satisfies
// kernels.Kernel.
type Kernel struct {
	cfg  kernels.Config
	argv []string
	env  []string

	mu       sync.Mutex // serializes Execute, Reset and Close
	p        *child0    // nil: the next cell starts a child
	closed   bool
	lastLoss string
}

// child0 is one running child, seen from the parent.
type child0 struct {
	proc   *proc.Process
	stdin  io.WriteCloser
	wmu    sync.Mutex
	msgs   chan msg // result and call frames; closed when the child's output ends
	exited chan struct{}
	stderr *kernels.StreamBuffer // read only once the child has exited
	clock  *clockHost
}

func (p *child0) send(m msg) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	return wire.Write(p.stdin, who, m)
}

// Language returns kernels.JavaScript.
func (k *Kernel) Language() kernels.Language { return kernels.JavaScript }

func (k *Kernel) start() (*child0, error) {
	cmd := exec.Command(k.argv[0], k.argv[1:]...)
	cmd.Dir = k.cfg.Dir
	cmd.Env = append(os.Environ(), k.env...)
	// The child is tether itself running goja: it reads no file and opens no
	// socket (a cell reaches files through tool(), over the pipe), so its
	// sandbox grants only its own binary. It starts no process and nothing
	// signals it but tether: it needs no init under it in its namespace.
	// Being tether's binary, it confines itself in place where it can.
	ro, _ := proc.Table(proc.Native, k.argv[0], cmd.Env)
	if err := proc.Sandbox(cmd, proc.Policy{Peer: "javascript kernel", Family: proc.Kernels, RO: ro, NoInit: true, InPlace: true}); err != nil {
		return nil, fmt.Errorf("%s: %w", who, err)
	}
	p := &child0{msgs: make(chan msg, 16), exited: make(chan struct{}), stderr: kernels.NewStreamBuffer(8 << 10)}
	// Its streams are pipes made here: proc.Spawn hands descriptors to
	// the process that starts it.
	var theirs []*os.File
	closeTheirs := func() {
		for _, f := range theirs {
			f.Close()
		}
		theirs = nil
	}
	defer closeTheirs()
	pipe := func() (r, w *os.File, err error) {
		if r, w, err = os.Pipe(); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", who, err)
		}
		return r, w, nil
	}
	inR, inW, err := pipe()
	if err != nil {
		return nil, err
	}
	theirs = append(theirs, inR)
	outR, outW, err := pipe()
	if err != nil {
		inW.Close()
		return nil, err
	}
	theirs = append(theirs, outW)
	errR, errW, err := pipe()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	theirs = append(theirs, errW)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	p.proc, err = proc.Spawn(cmd)
	closeTheirs() // the child's ends: held here, they would hide its end
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("%s: cannot start the JavaScript kernel process %s: %w", who, k.argv[0], err)
	}
	p.stdin = inW
	stdout := io.Reader(outR)
	stderrDone := make(chan struct{})
	go func() {
		_, _ = io.Copy(p.stderr, errR)
		errR.Close()
		close(stderrDone)
	}()
	go func() {
		_, _ = p.proc.Wait()
		<-stderrDone
		close(p.exited)
	}()
	if k.cfg.Clock != kernels.WallClock {
		p.clock = newClockHost(k.cfg.Clock, p)
	}
	ready := make(chan struct{})
	go func() {
		p.readLoop(stdout, ready)
		outR.Close()
	}()
	cc := childConfig{
		IdleTimeout: k.cfg.IdleTimeout, InterruptGrace: k.cfg.InterruptGrace,
		MaxOutput: k.cfg.MaxOutput, MaxSpill: k.cfg.MaxSpill, MaxText: k.cfg.MaxText, MaxDisplays: k.cfg.MaxDisplays, MaxImage: k.cfg.MaxImage,
		MemoryLimit: k.cfg.MemoryLimit, Bridge: k.cfg.Tools != nil, RemoteClock: p.clock != nil,
	}
	if err := p.send(msg{Op: "start", Config: &cc}); err != nil {
		p.kill() // before its stderr is read
		return nil, fmt.Errorf("%s: the JavaScript kernel process did not take its configuration: %w: %s", who, err, strings.TrimSpace(p.stderr.Stream().Text))
	}
	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	select {
	case <-ready:
		return p, nil
	case <-p.exited:
		return nil, fmt.Errorf("%s: the JavaScript kernel process exited before it was ready (%s): %s", who, p.exitReason(), strings.TrimSpace(p.stderr.Stream().Text))
	case <-timer.C:
		p.kill() // before its stderr is read
		return nil, fmt.Errorf("%s: the JavaScript kernel process was not ready within %s: %s", who, startTimeout, strings.TrimSpace(p.stderr.Stream().Text))
	}
}

// readLoop reads the child's frames: the clock's it answers itself, the
// rest go to msgs.
func (p *child0) readLoop(r io.Reader, ready chan struct{}) {
	defer close(p.msgs)
	for {
		var m msg
		if err := wire.Read(r, who, &m); err != nil {
			_, _ = io.Copy(io.Discard, r)
			return
		}
		switch m.Op {
		case "ready":
			close(ready)
		case "now", "arm", "stop":
			if p.clock != nil {
				p.clock.handle(m)
			}
		default:
			p.msgs <- m
		}
	}
}

// kill ends the child and waits for it.
func (p *child0) kill() {
	_ = p.proc.Kill()
	<-p.exited
	if p.clock != nil {
		p.clock.close()
	}
}

// end closes the child's input, so it closes its kernel and exits, and kills
// it if it has not within a second.
func (p *child0) end() {
	_ = p.stdin.Close()
	select {
	case <-p.exited:
		if p.clock != nil {
			p.clock.close()
		}
	case <-time.After(time.Second):
		p.kill()
	}
}

// exitReason says how the child ended.
func (p *child0) exitReason() string {
	select {
	case <-p.proc.Done():
	default:
		return "it closed its output"
	}
	ws, err := p.proc.Wait()
	switch {
	case err != nil:
		return err.Error()
	case ws.Signaled():
		return "signal: " + ws.Signal().String()
	case ws.Exited():
		return fmt.Sprintf("exit status %d", ws.ExitStatus())
	}
	return "it closed its output"
}

// Reset discards the runtime; the next cell starts a fresh one. The child is
// kept: its runtime is discarded inside it.
func (k *Kernel) Reset() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.lastLoss = ""
	if k.p == nil {
		return nil
	}
	if err := k.p.send(msg{Op: "reset"}); err == nil {
		if m, ok := <-k.p.msgs; ok && m.Op == "result" && m.Err == "" {
			return nil
		}
	}
	// The child could not reset: a new one starts with the next cell.
	k.p.kill()
	k.p = nil
	return nil
}

// Pid is the running child's process id, or 0 when none runs.
func (k *Kernel) Pid() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.p == nil {
		return 0
	}
	return k.p.proc.Pid
}

// Execute runs one cell in the child. See kernels.Kernel.
func (k *Kernel) Execute(ctx context.Context, cell kernels.Cell) (*kernels.Result, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed {
		return nil, ErrClosed
	}
	loss, started := "", false
	if k.p == nil {
		p, err := k.start()
		if err != nil {
			return nil, err
		}
		k.p, loss, k.lastLoss, started = p, k.lastLoss, "", true
	}
	p := k.p
	if err := p.send(msg{Op: "exec", Cell: &cell}); err != nil {
		return k.died(p, loss), nil
	}
	watch := time.NewTicker(50 * time.Millisecond)
	defer watch.Stop()
	hard := hardLimit(k.cfg.MemoryLimit)
	ctxDone := ctx.Done()
	var backstop, hardWait <-chan time.Time
	var hardAt int64 // the resident memory when the child was asked to stop past the hard cap
	for {
		select {
		case m, ok := <-p.msgs:
			if !ok {
				return k.died(p, loss), nil
			}
			switch m.Op {
			case "call":
				go k.call(ctx, p, m)
			case "result":
				res := m.Result
				if res == nil {
					res = &kernels.Result{}
				}
				if loss != "" {
					res.StartedFresh("javascript runtime", loss, "variables from earlier cells")
				}
				if started {
					// The first result of a new process says what confines it.
					if n := proc.SandboxStatus().Note(proc.Kernels); n != "" {
						res.Limits = append(res.Limits, n)
					}
				}
				return res, nil
			}
		case <-ctxDone:
			ctxDone = nil
			// A per-call timeout travels with the cancel, so the child's
			// message names it.
			cancel := msg{Op: "cancel"}
			var ct *kernels.CallTimeout
			if errors.As(context.Cause(ctx), &ct) {
				cancel.Dur = ct.After
			}
			_ = p.send(cancel)
			// The child gives up on a stuck runtime after the grace itself;
			// a child that does not answer well after that is ended.
			backstop = time.After(2*k.cfg.InterruptGrace + 5*time.Second)
		case <-backstop:
			p.kill()
			k.p = nil
			k.lastLoss = "the previous process did not answer an interrupt and was ended"
			return k.lost(loss, kernels.KindKernelRestarted, fmt.Sprintf("kernels: cell interrupted, but the JavaScript kernel process did not answer within %s and was ended: its state is lost and the next cell starts fresh", 2*k.cfg.InterruptGrace+5*time.Second)), nil
		case <-hardWait:
			hardWait = nil
			if rss := residentBytes(p.proc.Pid); rss > hard {
				return k.overHard(p, loss, rss, hard), nil
			}
		case <-watch.C:
			// Past the hard cap the child is first asked to stop (its own
			// heap guard may be stopping the cell already, its result on the
			// way while the memory is not yet returned); it is ended if it
			// is still past the cap after the interrupt grace, or at once
			// past twice the cap, or once it has grown by a quarter of the
			// heap cap since it was asked: a cell being stopped does not
			// grow, and one in a native call that cannot be interrupted
			// must not take the grace to grow by gigabytes.
			switch rss := residentBytes(p.proc.Pid); {
			case rss > 2*hard, hardWait != nil && rss > hardAt+max(k.cfg.MemoryLimit/4, 64<<20):
				return k.overHard(p, loss, rss, hard), nil
			case rss > hard && hardWait == nil:
				hardAt = rss
				_ = p.send(msg{Op: "cancel"})
				hardWait = time.After(max(k.cfg.InterruptGrace, time.Second))
			}
		}
	}
}

// overHard ends the child past the hard memory cap and reports the cell
// stopped with its state lost.
func (k *Kernel) overHard(p *child0, loss string, rss, hard int64) *kernels.Result {
	p.kill()
	k.p = nil
	k.lastLoss = "the previous process was ended past the hard memory cap"
	return k.lost(loss, kernels.KindMemoryLimit, fmt.Sprintf("kernels: cell stopped: the JavaScript kernel process held %d MiB, past the hard cap of %d MiB behind the heap cap of %d MiB, and was ended: its state is lost and the next cell starts fresh "+
		"(work on the data in smaller pieces, or ask the operator to raise the cap: tether's --eval-js-memory flag)", rss>>20, hard>>20, k.cfg.MemoryLimit>>20))
}

// Close ends the child. Execute after Close fails.
func (k *Kernel) Close() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.closed = true
	if k.p != nil {
		k.p.end()
		k.p = nil
	}
	return nil
}

// call answers one of the cell's bridge calls with the parent's ToolCaller.
func (k *Kernel) call(ctx context.Context, p *child0, m msg) {
	a := msg{Op: "reply", ID: m.ID}
	if k.cfg.Tools == nil {
		a.Err = "kernels: no tools are wired to this kernel"
	} else if r, err := k.cfg.Tools(ctx, m.Name, m.Args); err != nil {
		a.Err = err.Error()
	} else {
		a.Reply = &r
	}
	_ = p.send(a)
}

// died reports a child that ended during the cell.
func (k *Kernel) died(p *child0, loss string) *kernels.Result {
	<-p.exited
	if p.clock != nil {
		p.clock.close()
	}
	k.p = nil
	reason := p.exitReason()
	k.lastLoss = "the previous one died (" + reason + ")"
	res := k.lost(loss, kernels.KindKernelDied, fmt.Sprintf("kernels: the JavaScript kernel process died during this cell: %s; its state is lost and the next cell starts a fresh runtime", reason))
	res.Error.Traceback = strings.TrimSpace(p.stderr.Stream().Text)
	return res
}

// lost is the result of a cell whose runtime is gone.
func (k *Kernel) lost(loss, name, message string) *kernels.Result {
	res := &kernels.Result{StateLost: true, Error: &kernels.Error{Name: name, Message: message}}
	if loss != "" {
		res.StartedFresh("javascript runtime", loss, "variables from earlier cells")
	}
	return res
}
