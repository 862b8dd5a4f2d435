package search

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Warm-up: a run can have its Searcher parse the workspace into the tree
// store in the background (WarmUp), so that its first query finds its trees
// ready. It parses one file at a time, yields to every query (a query in
// flight interrupts the parse under way, which is redone after), and stops at
// nine tenths of the store's memory budget, so it never evicts what queries
// put there.

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

// warmState is a Searcher's warm-up: the queries in flight, the parse a
// query would interrupt, and the progress.
type warmState struct {
	mu     sync.Mutex
	idle   *sync.Cond // signalled when busy drops to 0 or a warm-up ends
	busy   int
	cancel context.CancelFunc // the warm-up's parse under way
	status WarmStatus
	// wanted are files queries parsed only in chunks, warmed first
	wanted []string
	// testHookListed, when set by a test, is called once the files are listed.
	testHookListed func()
}

func (w *warmState) init() { w.idle = sync.NewCond(&w.mu) }

// beginQuery holds the warm-up off until endQuery, interrupting its parse.
func (w *warmState) beginQuery() {
	w.mu.Lock()
	w.busy++
	if w.cancel != nil {
		w.cancel()
	}
	w.mu.Unlock()
}

func (w *warmState) endQuery() {
	w.mu.Lock()
	w.busy--
	if w.busy == 0 {
		w.idle.Broadcast()
	}
	w.mu.Unlock()
}

// WarmStatus returns the progress of the searcher's warm-up.
func (s *Searcher) WarmStatus() WarmStatus {
	s.warm.mu.Lock()
	defer s.warm.mu.Unlock()
	return s.warm.status
}

// WarmUp parses every file of a shipped grammar under paths (walked as a
// search walks them: ignore files and hidden directories respected) into the
// store, and returns when done, when ctx is done, or at nine tenths of the
// store's budget. It is meant to run in its own goroutine for the life of a
// run; WarmStatus reports its progress.
func (s *Searcher) WarmUp(ctx context.Context, paths ...string) error {
	fsys, err := openFiles(s.root)
	if err != nil {
		return err
	}
	defer fsys.close()
	w := &s.warm
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
	var files []string
	for _, p := range paths {
		var sk Skips
		fs, err := walk(ctx, fsys, p, anyLanguage, &sk, nil)
		if err != nil {
			stopped = fmt.Sprintf("cannot walk %s: %v", p, err)
			if ctx.Err() != nil {
				stopped = "cancelled"
			}
			return fmt.Errorf("search: warm-up: cannot walk %s: %w", p, err)
		}
		files = append(files, fs...)
	}
	w.mu.Lock()
	w.status.Total = len(files)
	w.mu.Unlock()
	if w.testHookListed != nil {
		w.testHookListed()
	}
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
		if why, err := s.warmOne(ctx, fsys, f); why != "" {
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

// want asks a running warm-up to parse path whole next: a query parsed only
// chunks of it, and the next pattern is likely to need it again.
func (w *warmState) want(path string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.status.Running && len(w.wanted) < maxWanted {
		w.wanted = append(w.wanted, path)
	}
}

// next returns the file to warm next: one a query asked for, else the
// listed files' next (listed true), "" when there are none left.
func (w *warmState) next(files []string, i *int) (string, bool) {
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

// warmOne puts f's tree in the store, waiting for the queries in flight and
// trying again after each that interrupts it; a warm-up that must stop
// gets why (and ctx's error when it was cancelled).
func (s *Searcher) warmOne(ctx context.Context, fsys *files, f string) (string, error) {
	w := &s.warm
	for {
		if ctx.Err() != nil {
			return "cancelled", ctx.Err()
		}
		if !s.cache.roomy() {
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
		again := s.warmFile(pctx, fsys, f)
		w.mu.Lock()
		w.cancel = nil
		w.mu.Unlock()
		cancel()
		if !again || ctx.Err() != nil {
			return "", nil
		}
	}
}

// warmFile puts one file's tree in the store; it returns true when a query
// interrupted the parse (ctx was cancelled) and the file is to be tried again.
func (s *Searcher) warmFile(ctx context.Context, fsys *files, path string) bool {
	lang := langForPath(path)
	if key, ok := s.unchanged(fsys, path, lang); ok && s.cache.inMemory(key) {
		return false // as it was, and its tree is in memory
	}
	at := time.Now()
	src, fi, err := s.read(fsys, path)
	if err != nil || fi.Size() > s.maxSize || int64(len(src)) > s.maxSize || looksBinary(src) {
		return false
	}
	key := keyOf(s.partition, lang, src)
	s.cache.memo.remember(path, lang, fi, at, key)
	if s.cache.holds(key) {
		// on disk only: bring it into memory
		if _, _, err := s.wholeTree(ctx, lang, key, src); err != nil && ctx.Err() != nil {
			return true
		}
		return false
	}
	_, _, err = s.wholeTree(ctx, lang, key, src)
	return err != nil && ctx.Err() != nil
}
