package main

import "fmt"
import "io"
import "os"
import "sync"
import "time"

// progressAfter is how long a search or scan runs before its progress
// shows; TETHER_PROGRESS_AFTER (a duration) sets it, for tests that
// cannot wait for a run of a second.
func progressAfter() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("TETHER_PROGRESS_AFTER")); err == nil && d >= 0 {
		return d
	}
	return time.Second
}

// termProgress shows a search's or scan's progress on one line of a
// terminal (stderr): the files searched of the total and the matches so
// far, once the run has taken progressAfter, rewritten in place and
// cleared when the run ends or before anything else is printed to the
// same terminal.
type termProgress struct {
	w     io.Writer
	noun  string // "matches", "findings"
	start time.Time
	after time.Duration
	mu    sync.Mutex
	shown bool
}

// newTermProgress returns the progress line for stderr; nil when stderr is
// no terminal (a nil *termProgress does nothing).
func newTermProgress(stderr io.Writer, noun string) *termProgress {
	if !isTerminal(stderr) {
		return nil
	}
	return &termProgress{w: stderr, noun: noun, start: time.Now(), after: progressAfter()}
}

// update is a search's Query.Progress (or a scan's).
func (p *termProgress) update(done, total, found int) {
	if p == nil || time.Since(p.start) < p.after {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	// \r and erase to the end of the line: the line is rewritten in place
	fmt.Fprintf(p.w, "\r\x1b[Ktether: %d of %d files searched, %d %s so far", done, total, found, p.noun)
	p.shown = true
}

// clear erases the line, if shown, when the run ends.
func (p *termProgress) clear() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.erase()
}

// erase erases the shown line; p.mu is held.
func (p *termProgress) erase() {
	if p.shown {
		io.WriteString(p.w, "\r\x1b[K")
		p.shown = false
	}
}

// around runs write, output that may go to the same terminal, with the
// line erased first and not rewritten until it returns; the next update
// shows it again.
func (p *termProgress) around(write func() error) error {
	if p == nil {
		return write()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.erase()
	return write()
}
