package proc

import "errors"
import "os"
import "os/exec"
import "sync"
import "syscall"

// Process is a process Spawn started: a child of this process, or of the
// spawner that started it on this one's behalf. Its descriptors are the
// caller's to close.
type Process struct {
	// Pid is the process's id in this process's PID namespace.
	Pid int

	pidfd int // a pidfd for the process, where it is not this one's child

	done chan struct{}

	mu     sync.Mutex
	ws     syscall.WaitStatus
	known  bool  // ws is the process's own exit status
	err    error // why it is not
	signal func(syscall.Signal) error
	ended  bool
	after  func() // run once, when the process has ended (closes a pidfd)
}

// errNoFiles: Spawn passes descriptors, so the command's standard streams
// must be files (or nil).
var errNoFiles = errors.New("proc: Spawn takes a command whose standard streams are files or nil")

// Done is closed when the process has ended and its status is known (or
// known to be lost).
func (p *Process) Done() <-chan struct{} { return p.done }

// Wait waits for the process to end and returns its exit status; the error
// says why the status is unknown (the spawner that started it ended first).
func (p *Process) Wait() (syscall.WaitStatus, error) {
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.known {
		return p.ws, p.err
	}
	return p.ws, nil
}

// Signal sends sig to the process unless it has ended.
func (p *Process) Signal(sig syscall.Signal) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended {
		return os.ErrProcessDone
	}
	return p.signal(sig)
}

// Kill sends SIGKILL to the process unless it has ended.
func (p *Process) Kill() error { return p.Signal(syscall.SIGKILL) }

// finish records how the process ended (err: its status is unknown) and
// releases what refers to it.
func (p *Process) finish(ws syscall.WaitStatus, err error) {
	p.mu.Lock()
	if p.ended {
		p.mu.Unlock()
		return
	}
	p.ended = true
	p.ws, p.known, p.err = ws, err == nil, err
	after := p.after
	p.mu.Unlock()
	if after != nil {
		after()
	}
	close(p.done)
}

// startHere starts cmd as a child of this process (Start) and waits for it
// in the background.
func startHere(cmd *exec.Cmd) (*Process, error) {
	if err := Start(cmd); err != nil {
		return nil, err
	}
	p := &Process{Pid: cmd.Process.Pid, pidfd: -1, done: make(chan struct{})}
	p.signal = func(sig syscall.Signal) error { return cmd.Process.Signal(sig) }
	go func() {
		_ = cmd.Wait()
		ws, ok := WaitStatus(cmd)
		if !ok {
			p.finish(0, errors.New("proc: the process's status is unknown"))
			return
		}
		p.finish(ws, nil)
	}()
	return p, nil
}

// stdFiles returns cmd's standard streams as files (nil where cmd has
// none), or errNoFiles.
func stdFiles(cmd *exec.Cmd) ([3]*os.File, error) {
	var out [3]*os.File
	for i, s := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		switch f := s.(type) {
		case nil:
		case *os.File:
			out[i] = f
		default:
			return out, errNoFiles
		}
	}
	return out, nil
}
