package peer

import "bytes"
import "fmt"
import "os/exec"
import "strings"
import "syscall"
import "time"

// Timing is one run's wall time and peak resident set.
type Timing struct {
	Wall time.Duration
	RSS  int64 // KiB, as getrusage reports it
}

// Run runs cmd, its stdout and stderr kept, and returns its timing and
// stdout. Exit status 1, which ast-grep and tether give when nothing
// matched, is no failure; any other names the command and quotes its
// stderr.
func Run(cmd *exec.Cmd) (Timing, []byte, error) {
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	t := Timing{Wall: time.Since(start)}
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			t.RSS = ru.Maxrss
		}
	}
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
		err = nil
	}
	if err != nil {
		return t, nil, fmt.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, errb.String())
	}
	return t, out.Bytes(), nil
}

// Lines returns the non-blank lines of out: the findings of a JSON stream,
// one a line.
func Lines(out []byte) [][]byte {
	var lines [][]byte
	for _, l := range bytes.Split(out, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			lines = append(lines, l)
		}
	}
	return lines
}
