package peer_test

import "os/exec"
import "strings"
import "testing"

import "github.com/tetherhq/tether/bench/internal/peer"

func TestRun(t *testing.T) {
	for _, c := range []struct {
		name, script string
		lines        int
		err          string // "" for none
	}{
		{"output", `printf '{"a":1}\n\n{"b":2}\n'`, 2, ""},
		{"exit 1 is no match", `exit 1`, 0, ""},
		{"other exit codes fail", `echo broken >&2; exit 2`, 0, "exit status 2\nbroken"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tm, out, err := peer.Run(exec.Command("sh", "-c", c.script))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || !strings.HasPrefix(err.Error(), "sh -c ") {
					t.Fatalf("got %v, want an error naming the command and holding %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if n := len(peer.Lines(out)); n != c.lines {
				t.Errorf("%d lines in %q, want %d", n, out, c.lines)
			}
			if tm.Wall <= 0 || tm.RSS <= 0 {
				t.Errorf("timing %+v, want a wall time and a peak RSS", tm)
			}
		})
	}
}
