package search

import "context"
import "errors"
import "sort"
import "sync"
import "unsafe"

// streamBudget bounds the matches a search with Query.OnMatches holds for
// files searched ahead of the first not yet handed on (they are handed on
// in the files' order): a worker does not start another file while the
// held matches take more. The file being handed on next is always started,
// so one file's matches may take more on their own (bounded by the size
// cap: at most one match per node).
const streamBudget = 32 << 20

// streamAhead bounds, beside streamBudget, how many files past the first
// not yet handed on are started.
const streamAhead = 256

// Sizes for heldBytes' estimate of what a match holds.
const (
	matchSize   = int64(unsafe.Sizeof(Match{}))
	bindingSize = int64(unsafe.Sizeof(Binding{}))
	partSize    = int64(unsafe.Sizeof(Part{}))
)

// heldBytes estimates the memory m holds beside a source it shares: its
// struct, its bindings and parts, and the texts it does not share.
func heldBytes(m *Match, shared bool) int64 {
	n := matchSize + int64(len(m.Bindings))*bindingSize
	if !shared {
		n += int64(len(m.Text) + len(m.Lines))
	}
	for _, b := range m.Bindings {
		n += int64(len(b.Parts)) * partSize
		if !shared {
			n += int64(len(b.Text))
			for _, p := range b.Parts {
				n += int64(len(p.Text))
			}
		}
	}
	return n
}

// sourceText hands out the texts of the matches in one tree: cut at max
// bytes and copied, or with max < 0 (texts kept whole) as substrings of one
// copy of the source, so that the matches on one long line (a minified
// bundle is one line) share it instead of each holding a copy of it.
type sourceText struct {
	src   []byte
	max   int
	whole string // src as a string, made on first use when max < 0
	// starts are the offsets where src's lines start, made on first use:
	// looking for the line around each match instead would take the
	// matches times the line's length on a minified bundle's one line
	starts []int
	// host hands out the lines of the file a region's tree was cut from
	host *sourceText
	// counted: size has counted whole, which several texts share
	counted bool
}

// hostText returns the sourceText of src, the file holding the region or
// chunk a tree was parsed from: one for all of them, so that the file's
// line starts and its copy are made once.
func (w *worker) hostText(src []byte, max int) *sourceText {
	if h := w.hostTxt; h == nil || len(h.src) != len(src) || len(src) > 0 && &h.src[0] != &src[0] {
		w.hostTxt = &sourceText{src: src, max: max}
	}
	return w.hostTxt
}

// size is the memory of the copies of the sources the texts handed out
// share, the host's counted once for all the texts that share it.
func (t *sourceText) size() int64 {
	n := int64(len(t.whole))
	if h := t.host; h != nil && !h.counted {
		n += int64(len(h.whole))
		h.counted = h.whole != ""
	}
	return n
}

// lines returns the extent of the whole lines src[a:b] spans, without the
// last one's newline.
func (t *sourceText) lines(a, b int) (int, int) {
	if t.starts == nil {
		t.starts = append(t.starts, 0)
		for i, c := range t.src {
			if c == '\n' {
				t.starts = append(t.starts, i+1)
			}
		}
	}
	// the last line start at or before a; the first after b ends the span
	ls := t.starts[sort.SearchInts(t.starts, a+1)-1]
	le := len(t.src)
	if k := sort.SearchInts(t.starts, b+1); k < len(t.starts) {
		le = t.starts[k] - 1
	}
	return ls, le
}

// text returns src[a:b], and whether it was cut.
func (t *sourceText) text(a, b int) (string, bool) {
	if t.max >= 0 {
		return bound(t.src[a:b], t.max)
	}
	if t.whole == "" {
		t.whole = string(t.src)
	}
	return t.whole[a:b], false
}

// shared says the texts handed out share the source (t.whole), which the
// matches then hold once.
func (t *sourceText) shared() bool { return t.max < 0 }

// emitError is an error of Query.OnMatches: the search stops with it as it
// is, not as a cancellation.
type emitError struct{ err error }

func (e *emitError) Error() string { return e.err.Error() }
func (e *emitError) Unwrap() error { return e.err }

// streamer hands each file's matches to Query.OnMatches in the files'
// order as soon as the file and every one before it are searched, and
// holds back the workers so that what waits to be handed on stays within
// streamBudget and streamAhead.
type streamer struct {
	fn   func([]Match) error
	jobs []*fileJob
	// max is the most matches handed on in all (Query.MaxResults; 0: all)
	max int

	mu    sync.Mutex
	cond  *sync.Cond
	done  []bool
	head  int   // the first file not yet handed on
	held  int64 // what the searched files from head on hold
	stop  bool  // the search is over (cancelled or failed)
	emits sync.Mutex
	// handed and handedFiles count what fn was given, failed is its error
	// (under emits): fn is not called again after one
	handed, handedFiles int
	failed              error
}

func newStreamer(fn func([]Match) error, jobs []*fileJob, max int) *streamer {
	s := &streamer{fn: fn, jobs: jobs, max: max, done: make([]bool, len(jobs))}
	s.cond = sync.NewCond(&s.mu)
	return s
}

// wait blocks a worker about to search file i until it may: i is the first
// not yet handed on, or what waits is within the bounds. It returns false
// when the search is over.
func (s *streamer) wait(ctx context.Context, i int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for !s.stop && ctx.Err() == nil && i != s.head && (s.held > streamBudget || i-s.head > streamAhead) {
		s.cond.Wait()
	}
	return !s.stop && ctx.Err() == nil
}

// cancel ends the waits (the search is over); call it once the context is
// done, or when a worker stops the search.
func (s *streamer) cancel() {
	s.mu.Lock()
	s.stop = true
	s.mu.Unlock()
	s.cond.Broadcast()
}

// finish records file i as searched and hands on every file from head on
// that is. Handing on is serialised, in the files' order; a file's matches
// are let go once handed on.
func (s *streamer) finish(i int) error {
	s.emits.Lock()
	defer s.emits.Unlock()
	s.mu.Lock()
	s.done[i] = true
	s.held += s.jobs[i].held
	var ready []*fileJob
	for s.head < len(s.jobs) && s.done[s.head] {
		ready = append(ready, s.jobs[s.head])
		s.head++
	}
	s.mu.Unlock()
	for _, j := range ready {
		if s.failed == nil && len(j.matches) > 0 && (s.max <= 0 || s.handed < s.max) {
			ms := j.matches
			if s.max > 0 {
				ms = ms[:min(len(ms), s.max-s.handed)]
			}
			s.handed += len(ms)
			s.handedFiles++
			if err := s.fn(ms); err != nil {
				s.failed = &emitError{err}
			}
		}
		j.matches = nil
		s.mu.Lock()
		s.held -= j.held
		s.mu.Unlock()
		j.held = 0
	}
	s.cond.Broadcast()
	return s.failed
}

// isEmitError says err is an error of Query.OnMatches, and returns it.
func isEmitError(err error) (error, bool) {
	var e *emitError
	if errors.As(err, &e) {
		return e.err, true
	}
	return nil, false
}
