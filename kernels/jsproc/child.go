package jsproc

import "context"
import "encoding/json"
import "errors"
import "fmt"
import "io"
import "os"
import "runtime/debug"
import "sync"
import "time"

import "github.com/tetherhq/tether/internal/proc"
import "github.com/tetherhq/tether/kernels"
import "github.com/tetherhq/tether/kernels/internal/wire"
import "github.com/tetherhq/tether/kernels/js"

// Subcommand is the hidden argument that makes a tether binary a JavaScript
// kernel child (cmd/tether dispatches it to Main).
const Subcommand = "__tether-js-kernel"

// Main runs the child on stdin and stdout and returns the process's exit code.
func Main() int {
	proc.Private()
	if err := serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// child is the serving side: one in-process kernel and the parent at the
// other end of the frames.
type child struct {
	wmu sync.Mutex
	w   io.Writer

	mu      sync.Mutex
	seq     int64
	waiting sync.Map // int64 -> chan msg: bridge calls and Now calls by ID
	timers  map[int64]*remoteTimer
	cancel  context.CancelCauseFunc // the running cell's
	gone    chan struct{}           // closed when the parent's end closes
}

func (c *child) send(m msg) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return wire.Write(c.w, who, m)
}

// ask sends m with a fresh ID and waits for the parent's answer to it; ok is
// false when the parent went away first.
func (c *child) ask(m msg) (msg, bool) {
	ch := make(chan msg, 1)
	c.mu.Lock()
	c.seq++
	m.ID = c.seq
	c.mu.Unlock()
	c.waiting.Store(m.ID, ch)
	if c.send(m) != nil {
		return msg{}, false
	}
	select {
	case a := <-ch:
		return a, true
	case <-c.gone:
		return msg{}, false
	}
}

// serve runs the child's side of the protocol on r and w until r ends.
func serve(r io.Reader, w io.Writer) error {
	c := &child{w: w, timers: map[int64]*remoteTimer{}, gone: make(chan struct{})}
	defer close(c.gone)
	var first msg
	if err := wire.Read(r, who, &first); err != nil || first.Op != "start" || first.Config == nil {
		return fmt.Errorf("%s: the child wants a start frame first (got %q, %v)", who, first.Op, err)
	}
	k := c.kernel(*first.Config)
	defer k.Close()
	if err := c.send(msg{Op: "ready"}); err != nil {
		return err
	}
	cells := make(chan struct{}, 1) // a cell or a reset is in progress
	for {
		var m msg
		if err := wire.Read(r, who, &m); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		switch m.Op {
		case "exec":
			if m.Cell == nil {
				return fmt.Errorf("%s: exec without a cell", who)
			}
			ctx, cancel := context.WithCancelCause(context.Background())
			c.mu.Lock()
			c.cancel = cancel
			c.mu.Unlock()
			cells <- struct{}{}
			go func(cell kernels.Cell) {
				defer func() { <-cells }()
				res, err := k.Execute(ctx, cell)
				cancel(nil)
				if err != nil {
					res = &kernels.Result{Error: &kernels.Error{Name: "InternalError", Message: err.Error()}}
				}
				if err := c.send(msg{Op: "result", Result: res}); err != nil && (res.Stdout.Full != "" || res.Stderr.Full != "") {
					// The whole output did not fit one frame: send the
					// result without it, saying so.
					res.Stdout.Full, res.Stderr.Full = "", ""
					res.Notices = append(res.Notices, "the whole output was too large to pass from the JavaScript kernel process; only the cut text is shown")
					_ = c.send(msg{Op: "result", Result: res})
				}
			}(*m.Cell)
		case "cancel":
			c.mu.Lock()
			if c.cancel != nil {
				var cause error // a plain cancel: the caller gave up
				if m.Dur > 0 {
					cause = &kernels.CallTimeout{After: m.Dur}
				}
				c.cancel(cause)
			}
			c.mu.Unlock()
		case "reset":
			cells <- struct{}{}
			err := k.Reset()
			<-cells
			r := msg{Op: "result"}
			if err != nil {
				r.Err = err.Error()
			}
			if err := c.send(r); err != nil {
				return err
			}
		case "reply", "time":
			if ch, ok := c.waiting.LoadAndDelete(m.ID); ok {
				ch.(chan msg) <- m
			}
		case "fire":
			c.mu.Lock()
			t := c.timers[m.ID]
			c.mu.Unlock()
			if t != nil {
				t.fire(m.Gen, m.Time)
			}
		default:
			return fmt.Errorf("%s: unknown op %q from the parent", who, m.Op)
		}
	}
}

// kernel starts the in-process kernel the child serves. Its heap is the
// child's own: the Go runtime is told to collect hard as the heap nears twice
// the cap above what the runtime starts with.
func (c *child) kernel(cc childConfig) kernels.Kernel {
	cfg := kernels.Config{
		IdleTimeout: cc.IdleTimeout, InterruptGrace: cc.InterruptGrace,
		MaxOutput: cc.MaxOutput, MaxSpill: cc.MaxSpill, MaxText: cc.MaxText, MaxDisplays: cc.MaxDisplays, MaxImage: cc.MaxImage,
		MemoryLimit: cc.MemoryLimit,
	}
	if cc.Bridge {
		cfg.Tools = c.call
	}
	if cc.RemoteClock {
		cfg.Clock = remoteClock{c}
	}
	limit := cc.MemoryLimit
	if limit <= 0 {
		limit = js.DefaultMemoryLimit
	}
	debug.SetMemoryLimit(2*limit + 64<<20)
	k, _ := js.New(cfg) // js.New does not fail
	return k
}

// call is the child's bridge: the parent makes the call. It waits for the
// answer however long the call takes, as the in-process bridge does, so a
// call that ignores the cell's interruption leaves the runtime stuck the same
// way.
func (c *child) call(_ context.Context, name string, args json.RawMessage) (kernels.ToolReply, error) {
	a, ok := c.ask(msg{Op: "call", Name: name, Args: args})
	if !ok {
		return kernels.ToolReply{}, fmt.Errorf("%s: the parent went away during the tool call", who)
	}
	if a.Err != "" {
		return kernels.ToolReply{}, errors.New(a.Err)
	}
	if a.Reply == nil {
		return kernels.ToolReply{}, nil
	}
	return *a.Reply, nil
}

// remoteClock is the parent's clock seen from the child: Now asks for the
// time, and each timer is armed and stopped at the parent, which says when it
// fires.
type remoteClock struct{ c *child }

func (rc remoteClock) Now() time.Time {
	a, ok := rc.c.ask(msg{Op: "now"})
	if !ok {
		return time.Now()
	}
	return a.Time
}

func (rc remoteClock) NewTimer(d time.Duration) kernels.Timer {
	c := rc.c
	c.mu.Lock()
	c.seq++
	t := &remoteTimer{c: c, id: c.seq, ch: make(chan time.Time, 1)}
	c.timers[t.id] = t
	c.mu.Unlock()
	t.Reset(d)
	return t
}

// remoteTimer is a timer of the parent's clock. Each arming has a generation
// of its own, so a fire the parent sent before a Stop or Reset is dropped.
type remoteTimer struct {
	c  *child
	id int64
	ch chan time.Time

	mu     sync.Mutex
	gen    int64
	active bool
}

func (t *remoteTimer) C() <-chan time.Time { return t.ch }

func (t *remoteTimer) fire(gen int64, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if gen != t.gen || !t.active {
		return
	}
	t.active = false
	select {
	case t.ch <- at:
	default:
	}
}

// disarm invalidates the current arming and drops a value not yet received;
// it reports whether the timer was active.
func (t *remoteTimer) disarm() (was bool, gen int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	was = t.active
	t.active = false
	t.gen++
	select {
	case <-t.ch:
	default:
	}
	return was, t.gen
}

func (t *remoteTimer) Stop() bool {
	was, _ := t.disarm()
	_ = t.c.send(msg{Op: "stop", ID: t.id})
	return was
}

func (t *remoteTimer) Reset(d time.Duration) bool {
	was, gen := t.disarm()
	t.mu.Lock()
	t.active = true
	t.mu.Unlock()
	_ = t.c.send(msg{Op: "arm", ID: t.id, Gen: gen, Dur: d})
	return was
}
