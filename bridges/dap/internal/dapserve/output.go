package dapserve

import "os"
import "sync"
import "time"

import godap "github.com/google/go-dap"
import "golang.org/x/sys/unix"

// OutputPipe carries one of a debuggee's output streams to where it is
// shown. A program writes its output to the pipe before it tells the
// debugger that it stopped, so at a stop the bytes are already in the
// pipe; Drain forwards them before the stop is reported, so that output
// the program printed before a stop is never reported after it, as it
// would be through os/exec's copier, read whenever its goroutine runs.
type OutputPipe struct {
	emit func(string)
	r    *os.File
	// W is the end the program writes: the command's Stdout or Stderr.
	W *os.File

	mu    sync.Mutex
	cond  *sync.Cond
	taken int64 // bytes read from the pipe so far
	sent  int64 // bytes forwarded so far
	eof   bool  // the reader ended: every writer closed, or r was closed
}

// NewOutputPipe makes a pipe whose reads are handed to emit, in order,
// from one goroutine.
func NewOutputPipe(emit func(text string)) (*OutputPipe, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	p := &OutputPipe{emit: emit, r: r, W: w}
	p.cond = sync.NewCond(&p.mu)
	return p, nil
}

// NewOutputPipe makes a pipe whose reads become output events of
// category; filter, when set, rewrites (or, returning "", drops) each
// read's text.
func (c *Conn) NewOutputPipe(category string, filter func(string) string) (*OutputPipe, error) {
	return NewOutputPipe(func(text string) {
		if filter != nil {
			text = filter(text)
		}
		if text != "" {
			c.Send(&godap.OutputEvent{Event: Event("output"), Body: godap.OutputEventBody{Category: category, Output: text}})
		}
	})
}

// Started closes the parent's copy of the writing end, after the command
// started (or failed to: started false, and the pipe is done), and starts
// forwarding. The pipe ends when the program and what it started have
// closed theirs.
func (p *OutputPipe) Started(started bool) {
	if p == nil {
		return
	}
	_ = p.W.Close()
	if !started {
		_ = p.r.Close()
		p.end()
		return
	}
	go p.run()
}

// Close closes both ends, for a pipe whose command never started.
func (p *OutputPipe) Close() { p.Started(false) }

// run forwards what arrives until every writer closed the pipe. Each
// read happens under mu and counts what it took, so that Drain, which
// holds mu while it asks the kernel what waits, sees every byte either
// in the pipe or taken.
func (p *OutputPipe) run() {
	defer p.end()
	rc, err := p.r.SyscallConn()
	if err != nil {
		return
	}
	buf := make([]byte, 32<<10)
	for {
		var n int
		var rerr error
		err := rc.Read(func(fd uintptr) bool {
			p.mu.Lock()
			defer p.mu.Unlock()
			n, rerr = unix.Read(int(fd), buf)
			if rerr == unix.EAGAIN || rerr == unix.EINTR {
				return false
			}
			if n > 0 {
				p.taken += int64(n)
			}
			return true
		})
		if n > 0 {
			p.emit(string(buf[:n]))
			p.mu.Lock()
			p.sent += int64(n)
			p.cond.Broadcast()
			p.mu.Unlock()
		}
		if err != nil || rerr != nil || n <= 0 {
			return
		}
	}
}

// end says the reader is done.
func (p *OutputPipe) end() {
	p.mu.Lock()
	p.eof = true
	p.cond.Broadcast()
	p.mu.Unlock()
}

// pending is how many bytes wait in the pipe, as the kernel counts them.
func (p *OutputPipe) pending() int64 {
	var n int
	rc, err := p.r.SyscallConn()
	if err != nil {
		return 0
	}
	_ = rc.Control(func(fd uintptr) {
		n, err = unix.IoctlGetInt(int(fd), fionread)
	})
	if err != nil {
		return 0
	}
	return int64(n)
}

// Drain returns once the bytes waiting in the pipe now have been
// forwarded, or the reader ended, or after limit (the client reads
// slowly).
func (p *OutputPipe) Drain(limit time.Duration) {
	if p == nil {
		return
	}
	p.mu.Lock()
	target := p.taken + p.pending()
	p.mu.Unlock()
	late := false
	deadline := time.AfterFunc(limit, func() {
		p.mu.Lock()
		late = true
		p.cond.Broadcast()
		p.mu.Unlock()
	})
	defer deadline.Stop()
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.sent < target && !p.eof && !late {
		p.cond.Wait()
	}
}

// WaitEOF waits for the reader to see every writer close the pipe; a
// process the program left behind may hold it open, so after limit the
// pipe is closed and what it still held is dropped.
func (p *OutputPipe) WaitEOF(limit time.Duration) {
	if p == nil {
		return
	}
	done := make(chan struct{})
	go func() {
		p.mu.Lock()
		for !p.eof {
			p.cond.Wait()
		}
		p.mu.Unlock()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(limit):
		_ = p.r.Close()
		<-done
	}
}
