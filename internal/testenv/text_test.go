package testenv

import "fmt"
import "strings"
import "testing"

// recorder is a testing.TB that keeps the errors reported to it.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// TestWantAll: every missing piece is reported once, naming what was
// looked in and showing it; a text that holds them all reports nothing.
func TestWantAll(t *testing.T) {
	for _, c := range []struct {
		got   string
		wants []string
		errs  []string
	}{
		{"alpha beta", []string{"alpha", "beta"}, nil},
		{"alpha beta", nil, nil},
		{"alpha beta", []string{"gamma", "alpha", "delta"}, []string{"out lacks \"gamma\":\nalpha beta", "out lacks \"delta\":\nalpha beta"}},
	} {
		r := &recorder{TB: t}
		ok := WantAll(r, "out", c.got, c.wants...)
		if ok != (len(c.errs) == 0) || strings.Join(r.errs, "|") != strings.Join(c.errs, "|") {
			t.Errorf("WantAll(%q, %q) = %v with errors %q, want %q", c.got, c.wants, ok, r.errs, c.errs)
		}
	}
}
