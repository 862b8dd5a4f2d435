//go:build linux

package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// slowSearchFiles returns a workspace whose search for
// f($$$A, $$$A, $$$A, y, x) runs for minutes, every function within the
// matcher's budget: each call has 60 arguments, so every pair of splits is
// tried and the repeated captures compared at each. It is one file, so that
// only a matcher that looks at its context while matching stops early.
func slowSearchFiles() map[string]string {
	var b strings.Builder
	b.WriteString("package p\n")
	for f := 0; f < 32; f++ {
		fmt.Fprintf(&b, "\nfunc g%d() {\n", f)
		for c := 0; c < 250; c++ {
			b.WriteString("\tf(")
			for a := 0; a < 58; a++ {
				fmt.Fprintf(&b, "a%d, ", a)
			}
			b.WriteString("y, x)\n")
		}
		b.WriteString("}\n")
	}
	return map[string]string{"f.go": b.String()}
}

// procStat returns the fields of a /proc stat file after the command name.
func procStat(path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
}

// cpuTicks is the CPU time pid has used, in clock ticks.
func cpuTicks(t *testing.T, pid int) int {
	t.Helper()
	f := procStat(fmt.Sprintf("/proc/%d/stat", pid))
	if len(f) < 13 {
		t.Fatalf("cannot read the CPU time of process %d", pid)
	}
	// utime and stime, the 14th and 15th fields of the line
	u, _ := strconv.Atoi(f[11])
	s, _ := strconv.Atoi(f[12])
	return u + s
}

// running reports whether a thread of pid is running or waiting for a CPU
// (state R): a process at work has one however loaded the machine is.
func running(pid int) bool {
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	for _, task := range tasks {
		if f := procStat(fmt.Sprintf("/proc/%d/task/%s/stat", pid, task.Name())); len(f) > 0 && f[0] == "R" {
			return true
		}
	}
	return false
}

// waitBusy waits until pid has used ticks of CPU time since from.
func waitBusy(t *testing.T, pid, from, ticks int, what string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if cpuTicks(t, pid)-from >= ticks {
			return
		}
	}
	t.Fatalf("waited a minute for %s", what)
}

// waitIdle waits until no thread of pid has run or waited to run in ten
// looks a twentieth of a second apart, and returns the CPU time it used.
func waitIdle(t *testing.T, pid int, what string) int {
	t.Helper()
	still := 0
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if running(pid) {
			still = 0
		} else if still++; still == 10 {
			return cpuTicks(t, pid)
		}
	}
	t.Fatalf("waited a minute for %s", what)
	return 0
}

// TestServeStopsSearchOnCancelAndSignal: a search that runs for a long time
// stops when the client cancels its call (MCP notifications/cancelled), and
// SIGTERM mid-search ends `tether serve` (it used to finish the search
// first, minutes later, ignoring both). The waits are bounded but generous:
// nothing here asserts a duration.
func TestServeStopsSearchOnCancelAndSignal(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc to watch the server's CPU time:", err)
	}
	dir := workdir(t, slowSearchFiles())
	cmd := exec.Command(tetherBin(t), "serve", "--workdir", dir)
	stdin, _ := cmd.StdinPipe()
	defer stdin.Close()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"s","version":"0"}}}`+"\n")
	lines := bufio.NewReader(stdout)
	if line, err := lines.ReadString('\n'); err != nil || !strings.Contains(line, `"id":1`) {
		t.Fatalf("initialize: %v %q", err, line)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`+"\n")
	pid := cmd.Process.Pid
	call := func(id int) {
		fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"ast_grep","arguments":{"pattern":"f($$$A, $$$A, $$$A, y, x)","language":"go"}}}`+"\n", id)
	}

	idle := waitIdle(t, pid, "the server to settle after initialize")
	call(2)
	// three seconds of CPU: the file is parsed (a second or two) and the
	// matching under way (the whole search needs ten)
	waitBusy(t, pid, idle, 300, "the search to be under way")
	io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"test"}}`+"\n")
	idle = waitIdle(t, pid, "the cancelled search to stop (it went on)")

	call(3)
	waitBusy(t, pid, idle, 100, "the second search to start")
	cmd.Process.Signal(syscall.SIGTERM)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if st, ok := err.(*exec.ExitError); ok && st.ExitCode() != 128+int(syscall.SIGTERM) {
			t.Errorf("serve after SIGTERM mid-search: %v\n%s", err, stderr.String())
		}
	case <-time.After(time.Minute):
		t.Fatalf("serve went on searching for a minute after SIGTERM\n%s", stderr.String())
	}
}

// TestExitOnSignalWhenWorkDoesNotStop: a command that ignores its cancelled
// context does not keep tether alive: the process exits on its own after the
// grace period, with the shell's code for SIGTERM.
func TestExitOnSignalWhenWorkDoesNotStop(t *testing.T) {
	if os.Getenv("TETHER_TEST_HANG") == "1" {
		exitOnSignal(os.Stderr, signalGrace)
		fmt.Println("ready")
		select {} // work that never looks at its context
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestExitOnSignalWhenWorkDoesNotStop$")
	cmd.Env = append(os.Environ(), "TETHER_TEST_HANG=1")
	out, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("helper: %q %v", line, err)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		var st *exec.ExitError
		if !errors.As(err, &st) || st.ExitCode() != 128+int(syscall.SIGTERM) {
			t.Errorf("after SIGTERM: %v, want exit code %d", err, 128+int(syscall.SIGTERM))
		}
		if !strings.Contains(stderr.String(), "did not stop") {
			t.Errorf("stderr %q does not say why it exited", stderr.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("the process ignored SIGTERM for a minute")
	}
}
