package dapserve_test

import "os/exec"
import "strings"
import "sync"
import "syscall"
import "testing"
import "time"

import "github.com/tetherhq/tether/bridges/dap/internal/dapserve"

// TestOutputPipe: once the program wrote, Drain returns only after every
// byte it wrote was handed on, in order; a process it left behind holding
// the pipe does not hold WaitEOF past its bound.
func TestOutputPipe(t *testing.T) {
	var mu sync.Mutex
	var got strings.Builder
	p, err := dapserve.NewOutputPipe(func(text string) {
		mu.Lock()
		got.WriteString(text)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	// 200 kB, more than a pipe holds: the writer blocks until the reader
	// has taken most of it, and the rest waits in the pipe at the exit.
	cmd := exec.Command("sh", "-c", `i=0; while [ $i -lt 2000 ]; do printf '%099d\n' $i; i=$((i+1)); done; sleep 60 & echo started`)
	cmd.Stdout = p.W
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	p.Started(err == nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	p.Drain(time.Minute)
	mu.Lock()
	out := got.String()
	mu.Unlock()
	lines := strings.Split(out, "\n")
	if len(lines) != 2002 || lines[0] != strings.Repeat("0", 99) || lines[1999] != strings.Repeat("0", 95)+"1999" || lines[2000] != "started" {
		t.Fatalf("after Drain all the output should have been handed on, in order: %d lines, ends %q", len(lines), out[max(0, len(out)-120):])
	}
	start := time.Now()
	p.WaitEOF(300 * time.Millisecond)
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("WaitEOF should give up on a pipe a leftover process holds: %s", d)
	}
	p.Drain(time.Minute) // an ended pipe drains at once
}
