package store

import "context"
import "fmt"
import "strings"
import "sync"

// Warm-up: a run can have its searcher parse the workspace into the tree
// store in the background, so that its first query finds its trees ready.
// A Warmer schedules it: it warms one file at a time, yields to every query
// (a query in flight interrupts the parse under way, which is redone
// after), and stops at nine tenths of the store's memory budget, so it never
// evicts what queries put there.

// WarmStatus says how far a warm-up got.
type WarmStatus struct {
	Done, Total int
	Running     bool
	// Stopped says why it ended early ("" when it did not).
	Stopped string
}

// String is the status in words: "structural index: 6,210 of 7,708 files".
func (w WarmStatus) String() string {
	if w.Running && w.Total == 0 {
		return "structural index: listing the files (parsing in the background)"
	}
	s := fmt.Sprintf("structural index: %s of %s files", thousands(w.Done), thousands(w.Total))
	switch {
	case w.Stopped != "":
		s += " (stopped: " + w.Stopped + ")"
	case w.Running:
		s += " (parsing in the background)"
	}
	return s
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Warmer is one searcher's warm-up: the queries in flight, the parse a
// query would interrupt, and the progress. It is safe for concurrent use.
type Warmer struct {
	mu     sync.Mutex
	idle   *sync.Cond // signalled when busy drops to 0 or a warm-up ends
	busy   int
	cancel context.CancelFunc // the warm-up's parse under way
	status WarmStatus
	// wanted are files queries parsed only in chunks, warmed first
	wanted []string
}

// NewWarmer returns a Warmer with no warm-up running.
func NewWarmer() *Warmer {
	w := &Warmer{}
	w.idle = sync.NewCond(&w.mu)
	return w
}

// BeginQuery holds the warm-up off until EndQuery, interrupting its parse.
func (w *Warmer) BeginQuery() {
	w.mu.Lock()
	w.busy++
	if w.cancel != nil {
		w.cancel()
	}
	w.mu.Unlock()
}

// EndQuery ends what BeginQuery began.
func (w *Warmer) EndQuery() {
	w.mu.Lock()
	w.busy--
	if w.busy == 0 {
		w.idle.Broadcast()
	}
	w.mu.Unlock()
}

// Status returns the progress of the warm-up.
func (w *Warmer) Status() WarmStatus {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.status
}

// Run warms the files list returns, and first those Want asks for, with
// warm, into c, and returns when done, when ctx is done, or at nine tenths
// of c's budget. warm puts one file's tree in c; it returns true when a
// query interrupted it (its context was cancelled) and the file is to be
// tried again. An error of list ends the warm-up, with its message as why.
func (w *Warmer) Run(ctx context.Context, c *Cache, list func() ([]string, error), warm func(ctx context.Context, path string) (again bool)) error {
	w.mu.Lock()
	w.status = WarmStatus{Running: true}
	w.mu.Unlock()
	stopped := ""
	defer func() {
		w.mu.Lock()
		w.status.Running = false
		w.status.Stopped = stopped
		w.mu.Unlock()
	}()
	files, err := list()
	if err != nil {
		stopped = err.Error()
		if ctx.Err() != nil {
			stopped = "cancelled"
		}
		return err
	}
	w.mu.Lock()
	w.status.Total = len(files)
	w.mu.Unlock()
	stopWait := context.AfterFunc(ctx, func() {
		w.mu.Lock()
		w.idle.Broadcast()
		w.mu.Unlock()
	})
	defer stopWait()
	for i := 0; ; {
		f, listed := w.next(files, &i)
		if f == "" {
			return nil
		}
		if why, err := w.warmOne(ctx, c, f, warm); why != "" {
			stopped = why
			return err
		}
		if listed {
			w.mu.Lock()
			w.status.Done++
			w.mu.Unlock()
		}
	}
}

// maxWanted bounds the files queries asked the warm-up for.
const maxWanted = 1 << 16

// Want asks a running warm-up to warm path next: a query parsed only
// chunks of it, and the next pattern is likely to need it again whole.
func (w *Warmer) Want(path string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.status.Running && len(w.wanted) < maxWanted {
		w.wanted = append(w.wanted, path)
	}
}

// next returns the file to warm next: one a query asked for, else the
// listed files' next (listed true), "" when there are none left.
func (w *Warmer) next(files []string, i *int) (string, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.wanted) > 0 {
		f := w.wanted[0]
		w.wanted = w.wanted[1:]
		return f, false
	}
	if *i < len(files) {
		*i++
		return files[*i-1], true
	}
	return "", false
}

// warmOne warms f, waiting for the queries in flight and trying again
// after each that interrupts it; a warm-up that must stop gets why (and
// ctx's error when it was cancelled).
func (w *Warmer) warmOne(ctx context.Context, c *Cache, f string, warm func(context.Context, string) bool) (string, error) {
	for {
		if ctx.Err() != nil {
			return "cancelled", ctx.Err()
		}
		if !c.Roomy() {
			return "the tree store's memory budget is nearly full", nil
		}
		// wait for the queries in flight, then parse with a context a
		// query cancels
		w.mu.Lock()
		for w.busy > 0 && ctx.Err() == nil {
			w.idle.Wait()
		}
		pctx, cancel := context.WithCancel(ctx)
		w.cancel = cancel
		w.mu.Unlock()
		again := warm(pctx, f)
		w.mu.Lock()
		w.cancel = nil
		w.mu.Unlock()
		cancel()
		if !again || ctx.Err() != nil {
			return "", nil
		}
	}
}
