package testenv

import "fmt"
import "io"
import "strings"
import "sync"
import "testing"
import "time"

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
	return s.wait(t, func(rest string) (string, bool) {
		i := strings.Index(rest, want)
		if i < 0 {
			return "", false
		}
		return rest[:i+len(want)], true
	}, func(rest string) {
		t.Fatalf("terminal closed before %q appeared; screen:\n%s", want, rest)
	}, fmt.Sprintf("%q did not appear", want))
}

// Rest waits until the terminal closes (the program on it ended, or r was
// closed) and returns what earlier calls did not consume. It fails the
// test, showing the screen, when the terminal is still open after
// ScreenWait.
func (s *Screen) Rest(t testing.TB) string {
	t.Helper()
	var out string
	s.wait(t, func(string) (string, bool) { return "", false }, func(rest string) { out = rest }, "the terminal did not close")
	return out
}

// wait blocks until found reports the text it waited for in what is not
// yet consumed (which it then consumes), or the terminal closes (then
// closed gets the rest, consumed too), or ScreenWait passes (then it fails
// t saying what did not happen).
func (s *Screen) wait(t testing.TB, found func(rest string) (string, bool), closed func(rest string), what string) string {
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
		if got, ok := found(rest); ok {
			s.seen += len(got)
			return got
		}
		if s.eof {
			s.seen += len(rest)
			closed(rest)
			return ""
		}
		if timedOut {
			t.Fatalf("%s within %s; screen:\n%s", what, ScreenWait, rest)
		}
		s.cond.Wait()
	}
}
