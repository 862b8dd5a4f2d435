package jsproc

import "sync"

import "github.com/tetherhq/tether/kernels"

// clockHost serves the parent's clock to a child whose config has one other
// than the wall clock: it answers Now and runs the child's timers on it.
type clockHost struct {
	clock kernels.Clock
	p     *child0

	mu     sync.Mutex
	timers map[int64]*hostTimer
	done   chan struct{}
	closed bool
}

type hostTimer struct {
	t   kernels.Timer
	gen int64
}

func newClockHost(c kernels.Clock, p *child0) *clockHost {
	return &clockHost{clock: c, p: p, timers: map[int64]*hostTimer{}, done: make(chan struct{})}
}

// handle answers a now, arm or stop frame.
func (h *clockHost) handle(m msg) {
	switch m.Op {
	case "now":
		_ = h.p.send(msg{Op: "time", ID: m.ID, Time: h.clock.Now()})
	case "stop":
		h.mu.Lock()
		if ht := h.timers[m.ID]; ht != nil {
			ht.t.Stop()
		}
		h.mu.Unlock()
	case "arm":
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.closed {
			return
		}
		if ht := h.timers[m.ID]; ht != nil {
			ht.gen = m.Gen
			ht.t.Reset(m.Dur)
			return
		}
		ht := &hostTimer{t: h.clock.NewTimer(m.Dur), gen: m.Gen}
		h.timers[m.ID] = ht
		go h.wait(m.ID, ht)
	}
}

// wait tells the child each time its timer fires, with the arming it fired for.
func (h *clockHost) wait(id int64, ht *hostTimer) {
	for {
		select {
		case at := <-ht.t.C():
			h.mu.Lock()
			gen := ht.gen
			h.mu.Unlock()
			_ = h.p.send(msg{Op: "fire", ID: id, Gen: gen, Time: at})
		case <-h.done:
			return
		}
	}
}

// close stops every timer of a child that has ended.
func (h *clockHost) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.closed = true
	for _, ht := range h.timers {
		ht.t.Stop()
	}
	close(h.done)
}
