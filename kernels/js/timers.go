package js

import "time"

import "github.com/dop251/goja"

// Timers: setTimeout, setInterval, setImmediate and queueMicrotask, as node
// code in a cell expects them. goja has no event loop, so the kernel runs one
// per cell: when the cell's script has run, due timers fire in order until
// none is left, as node runs its loop until nothing is pending. Waiting counts
// against the idle budget; an interrupt ends the wait and drops the timers.

// maxTimers bounds how many timers a cell may have pending at once.
const maxTimers = 10000

type jsTimer struct {
	id    int64
	due   time.Time
	every time.Duration // > 0 for setInterval
	fn    goja.Callable
	args  []goja.Value
}

// timersInterrupted is runTimers' error when an interrupt came while waiting.
type timersInterrupted struct{ i *interruption }

func (t *timersInterrupted) Error() string { return t.i.reason }

func (s *session) installTimers() error {
	vm := s.vm
	add := func(repeat bool) func(goja.FunctionCall) goja.Value {
		return func(c goja.FunctionCall) goja.Value {
			fn, ok := goja.AssertFunction(c.Argument(0))
			if !ok {
				panic(vm.NewTypeError("The \"callback\" argument must be of type function"))
			}
			if len(s.pending) >= maxTimers {
				panic(vm.NewGoError(errTooManyTimers))
			}
			ms := c.Argument(1).ToFloat()
			if ms != ms || ms < 1 || ms > 2147483647 { // NaN, below 1 or past 2^31-1: as node, 1 ms
				ms = 1
			}
			d := time.Duration(ms * float64(time.Millisecond))
			var args []goja.Value
			if len(c.Arguments) > 2 {
				args = append(args, c.Arguments[2:]...)
			}
			s.timerSeq++
			t := &jsTimer{id: s.timerSeq, due: time.Now().Add(d), fn: fn, args: args}
			if repeat {
				t.every = d
			}
			s.pending = append(s.pending, t)
			return vm.ToValue(t.id)
		}
	}
	clear := func(c goja.FunctionCall) goja.Value {
		id := c.Argument(0).ToInteger()
		for i, t := range s.pending {
			if t.id == id {
				s.pending = append(s.pending[:i], s.pending[i+1:]...)
				break
			}
		}
		return goja.Undefined()
	}
	immediate := func(c goja.FunctionCall) goja.Value {
		args := append([]goja.Value{c.Argument(0), vm.ToValue(0)}, c.Arguments[min(1, len(c.Arguments)):]...)
		return add(false)(goja.FunctionCall{This: c.This, Arguments: args})
	}
	for name, f := range map[string]func(goja.FunctionCall) goja.Value{
		"setTimeout": add(false), "setInterval": add(true), "setImmediate": immediate,
		"clearTimeout": clear, "clearInterval": clear, "clearImmediate": clear,
	} {
		if err := vm.Set(name, f); err != nil {
			return err
		}
	}
	_, err := vm.RunString(`globalThis.queueMicrotask = function queueMicrotask(f) {
  if (typeof f !== "function") throw new TypeError('The "callback" argument must be of type function');
  Promise.resolve().then(() => f());
};`)
	return err
}

type timerError string

func (e timerError) Error() string { return string(e) }

const errTooManyTimers = timerError("kernels: js: too many pending timers (over 10000); clear the ones you do not need")

// runTimers fires the cell's timers in order of their due time until none is
// left. A callback that throws ends the cell with that error.
func (s *session) runTimers() error {
	for len(s.pending) > 0 {
		next := 0
		for i, t := range s.pending {
			if t.due.Before(s.pending[next].due) {
				next = i
			}
		}
		t := s.pending[next]
		if d := time.Until(t.due); d > 0 {
			w := time.NewTimer(d)
			select {
			case <-w.C:
			case i := <-s.wake:
				w.Stop()
				s.pending = nil
				return &timersInterrupted{i}
			}
		}
		if t.every > 0 {
			t.due = time.Now().Add(t.every)
		} else {
			s.pending = append(s.pending[:next], s.pending[next+1:]...)
		}
		if _, err := t.fn(goja.Undefined(), t.args...); err != nil {
			s.pending = nil
			return err
		}
	}
	return nil
}
