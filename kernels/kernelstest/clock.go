package kernelstest

import "sync"
import "time"

import "github.com/tetherhq/tether/kernels"

// Clock is a kernels.Clock whose time moves only when the test says. It is
// safe for concurrent use.
type Clock struct {
	mu    sync.Mutex
	now   time.Time
	armed map[*timer]bool
	arms  chan time.Time // arms past its buffer are not delivered
}

// NewClock returns a clock standing at a fixed instant.
func NewClock() *Clock {
	return &Clock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), armed: map[*timer]bool{}, arms: make(chan time.Time, 1<<12)}
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// NewTimer returns a timer that fires when the clock reaches now+d.
func (c *Clock) NewTimer(d time.Duration) kernels.Timer {
	t := &timer{c: c, ch: make(chan time.Time, 1)}
	t.Reset(d)
	return t
}

// Arms delivers the clock's time each time a timer is armed (NewTimer,
// Reset), in order: for a kernel's idle budget, each sign of life.
func (c *Clock) Arms() <-chan time.Time { return c.arms }

// AdvanceTo moves the clock to at (never back) and fires the timers due by
// then.
func (c *Clock) AdvanceTo(at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if at.After(c.now) {
		c.now = at
	}
	for t := range c.armed {
		if !t.due.After(c.now) {
			delete(c.armed, t)
			select {
			case t.ch <- c.now:
			default:
			}
		}
	}
}

// Advance moves the clock forward by d and fires the timers due by then.
func (c *Clock) Advance(d time.Duration) { c.AdvanceTo(c.Now().Add(d)) }

type timer struct {
	c   *Clock
	ch  chan time.Time
	due time.Time
}

func (t *timer) C() <-chan time.Time { return t.ch }

func (t *timer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.c.armed[t]
	delete(t.c.armed, t)
	t.drain()
	return was
}

func (t *timer) Reset(d time.Duration) bool {
	c := t.c
	c.mu.Lock()
	defer c.mu.Unlock()
	was := c.armed[t]
	t.drain()
	t.due = c.now.Add(d)
	c.armed[t] = true
	select {
	case c.arms <- c.now:
	default:
	}
	if d <= 0 {
		delete(c.armed, t)
		t.ch <- c.now
	}
	return was
}

// drain discards a value not yet received, as time.Timer's Reset and Stop do.
func (t *timer) drain() {
	select {
	case <-t.ch:
	default:
	}
}
