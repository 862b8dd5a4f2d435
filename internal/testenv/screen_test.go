package testenv

import "fmt"
import "io"
import "runtime"
import "strings"
import "testing"

// fatalRecorder records a Fatalf and ends its goroutine, as testing.T does,
// so that a test can check what Expect fails with.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (r *fatalRecorder) Helper() {}

func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// TestScreenExpect: Expect returns the text up to and including what it
// waited for, past what earlier calls consumed; Rest returns what is left
// once the terminal closes; Expect fails showing the screen when the
// terminal closes first.
func TestScreenExpect(t *testing.T) {
	r, w := io.Pipe()
	scr := NewScreen(r)
	go func() {
		io.WriteString(w, "Q1. Which database?\nQ1> ")
		io.WriteString(w, "chosen\nQ2> ")
		io.WriteString(w, "Chosen: SQLite\n")
		w.Close()
	}()
	if got := scr.Expect(t, "Q1> "); got != "Q1. Which database?\nQ1> " {
		t.Errorf("first Expect = %q", got)
	}
	if got := scr.Expect(t, "Q2> "); got != "chosen\nQ2> " {
		t.Errorf("second Expect = %q", got)
	}

	if got := scr.Rest(t); got != "Chosen: SQLite\n" {
		t.Errorf("Rest = %q, want what followed Q2", got)
	}
	if got := scr.Rest(t); got != "" {
		t.Errorf("Rest again = %q, want nothing", got)
	}

	rec := &fatalRecorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		scr.Expect(rec, "Q3> ")
	}()
	<-done
	if !strings.Contains(rec.msg, `terminal closed before "Q3> " appeared`) {
		t.Errorf("Expect after the terminal closed failed with %q", rec.msg)
	}
}
