package testenv

import (
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// ScreenWait bounds how long Screen.Expect waits for its text. It is
// generous (a loaded machine draws a card in milliseconds): it turns a
// prompt that never comes into a failure that shows the screen instead of a
// hung test.
const ScreenWait = 2 * time.Minute

// Screen collects what a program draws on a terminal, read from the master
// side of a pseudo-terminal, so that a test can wait for text to appear.
type Screen struct {
	mu   sync.Mutex
	cond *sync.Cond
	buf  strings.Builder
	seen int
	eof  bool
}

// NewScreen reads r in a goroutine of its own until a read fails (the
// terminal was closed); closing r ends it.
func NewScreen(r io.Reader) *Screen {
	s := &Screen{}
	s.cond = sync.NewCond(&s.mu)
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := r.Read(b)
			s.mu.Lock()
			s.buf.Write(b[:n])
			if err != nil {
				s.eof = true
			}
			s.cond.Broadcast()
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return s
}

// Expect waits until the screen shows want after what earlier calls
// consumed, and returns the text up to and including it. It fails the test,
// showing the screen, when the terminal closes first or want has not
// appeared within ScreenWait.
func (s *Screen) Expect(t testing.TB, want string) string {
	t.Helper()
	timedOut := false
	timer := time.AfterFunc(ScreenWait, func() {
		s.mu.Lock()
		timedOut = true
		s.cond.Broadcast()
		s.mu.Unlock()
	})
	defer timer.Stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		rest := s.buf.String()[s.seen:]
		if i := strings.Index(rest, want); i >= 0 {
			s.seen += i + len(want)
			return rest[:i+len(want)]
		}
		if s.eof {
			t.Fatalf("terminal closed before %q appeared; screen:\n%s", want, rest)
		}
		if timedOut {
			t.Fatalf("%q did not appear within %s; screen:\n%s", want, ScreenWait, rest)
		}
		s.cond.Wait()
	}
}
