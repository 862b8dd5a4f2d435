package phpadapter

import (
	"os"
	"sync"
	"time"

	godap "github.com/google/go-dap"
	"golang.org/x/sys/unix"
)

// outputPipe carries one of the program's output streams to output
// events. php writes its output to the pipe before it tells Xdebug's
// connection that it stopped, so at a stop the bytes are already in the
// pipe; drain forwards them before the stopped event, so that output the
// program printed before a stop is never reported after it.
type outputPipe struct {
	a        *adapter
	category string
	r, w     *os.File

	mu    sync.Mutex
	cond  *sync.Cond
	taken int64 // bytes read from the pipe so far
	read  int64 // bytes forwarded so far
	eof   bool  // the reader ended: every writer closed, or r was closed
}

func newOutputPipe(a *adapter, category string) (*outputPipe, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	p := &outputPipe{a: a, category: category, r: r, w: w}
	p.cond = sync.NewCond(&p.mu)
	return p, nil
}

// run forwards what arrives until every writer closed the pipe. Each
// read happens under mu and counts what it took, so that drain, which
// holds mu while it asks the kernel what waits, sees every byte either
// in the pipe or taken.
func (p *outputPipe) run() {
	rc, err := p.r.SyscallConn()
	if err != nil {
		p.end()
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
			p.a.send(&godap.OutputEvent{Event: event("output"), Body: godap.OutputEventBody{Category: p.category, Output: string(buf[:n])}})
			p.mu.Lock()
			p.read += int64(n)
			p.cond.Broadcast()
			p.mu.Unlock()
		}
		if err != nil || rerr != nil || n <= 0 {
			p.end()
			return
		}
	}
}

// end says the reader is done.
func (p *outputPipe) end() {
	p.mu.Lock()
	p.eof = true
	p.cond.Broadcast()
	p.mu.Unlock()
}

// pending is how many bytes wait in the pipe, as the kernel counts them.
func (p *outputPipe) pending() int64 {
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

// drain returns once the bytes waiting in the pipe now have been
// forwarded, or the reader ended, or after limit (the client reads slowly).
func (p *outputPipe) drain(limit time.Duration) {
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
	for p.read < target && !p.eof && !late {
		p.cond.Wait()
	}
}

// waitEOF waits for the reader to see every writer close the pipe; a
// process php left behind may hold it open, so after limit the pipe is
// closed and what it still held is dropped.
func (p *outputPipe) waitEOF(limit time.Duration) {
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

func (p *outputPipe) closeAll() { _, _ = p.r.Close(), p.w.Close() }
