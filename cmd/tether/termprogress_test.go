package main

import "bytes"
import "fmt"
import "os/exec"
import "strings"
import "testing"

import "github.com/creack/pty"

import "github.com/tetherhq/tether/engine/enginetest"
import "github.com/tetherhq/tether/internal/testenv"

// TestProgressOnTerminal: tether ast-grep and tether scan whose stderr is
// a terminal show the files searched of the total and the matches so far
// there (TETHER_PROGRESS_AFTER=0: at once, not after a second), and erase
// the line when done; the matches on stdout are as without it. Without a
// terminal nothing of it is printed.
func TestProgressOnTerminal(t *testing.T) {
	enginetest.RequireGrammars(t, "go")
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("f%02d.go", i)] = fmt.Sprintf("package p\n\nfunc f%d() { println(%d) }\n", i, i)
	}
	dir := workdir(t, files)
	rule := "id: no-println\nlanguage: go\nseverity: warning\nmessage: println\nrule:\n  pattern: println($A)\n"
	for _, c := range []struct {
		name, noun string
		args       []string
	}{
		{"ast-grep", "matches", []string{"ast-grep", "-p", "println($A)", "-l", "go", "--color", "never", "."}},
		{"scan", "findings", []string{"scan", "--inline-rules", rule, "."}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ptmx, tty, err := pty.Open()
			if err != nil {
				t.Skipf("no pseudo-terminal: %v", err)
			}
			defer ptmx.Close()
			var stdout bytes.Buffer
			cmd := exec.Command(tetherBin(t), c.args...)
			cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &stdout, tty
			cmd.Env = append(cmd.Environ(), "TETHER_PROGRESS_AFTER=0")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			tty.Close()
			screen := testenv.NewScreen(ptmx).Rest(t) // until the process ends
			if err := cmd.Wait(); err != nil {
				t.Fatalf("tether %s: %v\n%s", c.name, err, screen)
			}
			if want := "30 of 30 files searched, 30 " + c.noun + " so far"; !strings.Contains(screen, want) {
				t.Errorf("the terminal lacks %q:\n%q", want, screen)
			}
			if !strings.HasSuffix(screen, "\r\x1b[K") {
				t.Errorf("the line is not erased at the end:\n%q", screen)
			}
			if n := strings.Count(stdout.String(), "println("); n != 30 {
				t.Errorf("stdout has %d matches, want 30:\n%s", n, stdout.String())
			}
			t.Setenv("TETHER_PROGRESS_AFTER", "0")
			var out, errs bytes.Buffer
			dispatch(append(c.args[:len(c.args)-1:len(c.args)-1], dir), &out, &errs)
			if strings.Contains(errs.String(), "files searched") {
				t.Errorf("progress without a terminal:\n%s", errs.String())
			}
		})
	}
}
