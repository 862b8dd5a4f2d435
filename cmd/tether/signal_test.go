//go:build linux

package main

import "bufio"
import "errors"
import "fmt"
import "io"
import "os"
import "os/exec"
import "strconv"
import "strings"
import "syscall"
import "testing"
import "time"

// slowSearchFiles returns a workspace whose search for
// f($$$A, $$$A, $$$A, y, x) spends seconds of CPU before the matching budget
// of its one file runs out (tens of seconds in the old code, which did not
// count every comparison): each of its 8,000 calls has 60 arguments, so
// every pair of splits is tried and the repeated captures compared at each,
// each call within the budget of one candidate.
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

// cpuTicks is the CPU time pid has used, in clock ticks (USER_HZ, a
// hundredth of a second on Linux).
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

// waitBusy waits until pid has used ticks of CPU time since from, and
// returns the CPU time it used by then.
func waitBusy(t *testing.T, pid, from, ticks int, what string) int {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if now := cpuTicks(t, pid); now-from >= ticks {
			return now
		}
	}
	t.Fatalf("waited a minute for %s", what)
	return 0
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
// first, tens of seconds of CPU later, ignoring both). What is measured is
// the CPU time the server spends after the cancel or the signal, not how
// long anything takes: a stopped search spends next to none, the whole one
// needs several seconds. The waits are bounded only so that a hang fails.
func TestServeStopsSearchOnCancelAndSignal(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc to watch the server's CPU time:", err)
	}
	dir := workdir(t, slowSearchFiles())
	cmd, stdin, stdout, stderr := startServe(t, "--workdir", dir)
	defer stdin.Close()
	defer cmd.Process.Kill()
	replies := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			replies <- sc.Text()
		}
		close(replies)
	}()
	reply := func(id int) string {
		t.Helper()
		want := fmt.Sprintf(`"id":%d`, id)
		for deadline := time.After(2 * time.Minute); ; {
			select {
			case line, ok := <-replies:
				if !ok {
					t.Fatalf("serve closed its output before answering %d\n%s", id, stderr.String())
				}
				if strings.Contains(line, want) {
					return line
				}
			case <-deadline:
				t.Fatalf("no answer to request %d in two minutes", id)
			}
		}
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"s","version":"0"}}}`+"\n")
	reply(1)
	io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`+"\n")
	pid := cmd.Process.Pid
	call := func(id int) {
		fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"ast_grep","arguments":{"pattern":"f($$$A, $$$A, $$$A, y, x)","language":"go"}}}`+"\n", id)
	}
	// the most CPU a stopped search may spend after the cancel or signal:
	// the whole search spends several seconds, a stopped one a few
	// milliseconds
	const stoppedTicks = 200

	// a whole search first, so that the file's tree is cached and the
	// next searches are matching from their start; it runs out of the
	// matching budget, and says so (the old code answered "no matches")
	call(2)
	if whole := reply(2); !strings.Contains(whole, "pattern too expensive") || !strings.Contains(whole, "make it more specific") {
		t.Errorf("the whole search answered %.400s; want the budget error", whole)
	}
	idle := waitIdle(t, pid, "the server to settle after the first search")
	call(3)
	busy := waitBusy(t, pid, idle, 100, "the second search to be under way")
	io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"test"}}`+"\n")
	if idle = waitIdle(t, pid, "the cancelled search to stop"); idle-busy > stoppedTicks {
		t.Errorf("the cancelled search went on: %d ticks of CPU after the cancel", idle-busy)
	}

	call(4)
	busy = waitBusy(t, pid, idle, 100, "the third search to be under way")
	cmd.Process.Signal(syscall.SIGTERM)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if st, ok := err.(*exec.ExitError); ok && st.ExitCode() != 128+int(syscall.SIGTERM) {
			t.Errorf("serve after SIGTERM mid-search: %v\n%s", err, stderr.String())
		}
		used := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		if after := int(used/(10*time.Millisecond)) - busy; after > stoppedTicks {
			t.Errorf("serve went on searching after SIGTERM: %d ticks of CPU", after)
		}
	case <-time.After(2 * time.Minute):
		t.Fatalf("serve went on searching for two minutes after SIGTERM\n%s", stderr.String())
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
