//go:build linux

package main

import "bytes"
import "fmt"
import "os"
import "path/filepath"
import "regexp"
import "strconv"
import "strings"
import "testing"

import "github.com/modelcontextprotocol/go-sdk/mcp"

import "github.com/tetherhq/tether/internal/proc"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/kernels/jsproc"

// evalIn runs a cell in session cs and returns its text and whether it is an
// error.
func evalIn(t *testing.T, cs *mcp.ClientSession, lang, code string) (string, bool) {
	t.Helper()
	return callText(t, cs, "eval", map[string]any{"code": code, "language": lang, "description": "a cell of the host's per-session caps test"})
}

// addressSpaceLimit returns pid's RLIMIT_AS soft limit from /proc.
func addressSpaceLimit(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/limits")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "Max address space"); ok {
			return strings.Fields(rest)[0]
		}
	}
	t.Fatalf("no address space line in /proc/%d/limits:\n%s", pid, b)
	return ""
}

// TestHostEvalCapsPerSession: three sessions (two on one workspace) driven
// at once over Streamable HTTP each get their own Python kernel and
// JavaScript runtime, under the host's caps: a variable one session sets is
// not defined in another; each Python kernel runs under --eval-python-memory
// (RLIMIT_AS in /proc) and an allocation past it is a MemoryError that ends
// neither its kernel's state nor another's; a JavaScript cell growing past
// --eval-js-memory is stopped while the other sessions' JavaScript cells,
// running at the same time, go on and keep their state (each runtime is a
// process of its own: with one shared heap they were stopped too); a cell
// silent past --eval-idle is interrupted.
func TestHostEvalCapsPerSession(t *testing.T) {
	const pyCap = 2 << 30
	base := t.TempDir()
	hp := startHostProc(t, base, "--eval-python-memory", "2GiB", "--eval-js-memory", "64MiB", "--eval-idle", "15s")
	sessions := []*mcp.ClientSession{openHostSession(t, hp.url, "alpha"), openHostSession(t, hp.url, "beta"), openHostSession(t, hp.url, "alpha")}
	for _, cs := range sessions {
		defer cs.Close()
	}
	// each runs f(i, session i) for every session at once.
	each := func(phase string, f func(t *testing.T, i int, cs *mcp.ClientSession)) {
		t.Run(phase, func(t *testing.T) {
			for i, cs := range sessions {
				t.Run(strconv.Itoa(i), func(t *testing.T) {
					t.Parallel()
					f(t, i, cs)
				})
			}
		})
	}
	pids := make([]int, len(sessions))
	each("set", func(t *testing.T, i int, cs *mcp.ClientSession) {
		pids[i] = kernelPid(t, cs)
		if got := addressSpaceLimit(t, pids[i]); got != strconv.Itoa(pyCap) {
			t.Errorf("session %d's kernel runs with RLIMIT_AS %s, want %d", i, got, pyCap)
		}
		if text, isErr := evalIn(t, cs, "python", fmt.Sprintf("secret_%d = 'py%d'", i, i)); isErr {
			t.Fatalf("python: %s", text)
		}
		if text, isErr := evalIn(t, cs, "javascript", fmt.Sprintf("var secret_%d = 'js%d'", i, i)); isErr {
			t.Fatalf("javascript: %s", text)
		}
	})
	if t.Failed() {
		t.FailNow()
	}
	if pids[0] == pids[1] || pids[1] == pids[2] || pids[0] == pids[2] {
		t.Fatalf("sessions share a Python kernel: %v", pids)
	}
	// What each session sees of secret_0..2 in each language: its own only.
	see := func(t *testing.T, i int, cs *mcp.ClientSession) {
		t.Helper()
		py, isErr := evalIn(t, cs, "python", "print(sorted(n for n in globals() if n.startswith('secret_')))")
		if want := fmt.Sprintf("['secret_%d']", i); isErr || !strings.Contains(py, want) {
			t.Errorf("session %d's Python names: %s, want %s", i, py, want)
		}
		js, isErr := evalIn(t, cs, "javascript", "[typeof secret_0, typeof secret_1, typeof secret_2].join(' ')")
		want := []string{"undefined", "undefined", "undefined"}
		want[i] = "string"
		if isErr || !strings.Contains(js, strings.Join(want, " ")) {
			t.Errorf("session %d's JavaScript names: %s, want %s", i, js, strings.Join(want, " "))
		}
	}
	each("apart", see)
	each("caps", func(t *testing.T, i int, cs *mcp.ClientSession) {
		switch i {
		case 0:
			text, _ := evalIn(t, cs, "python", "b = bytearray(4 << 30)")
			if !strings.Contains(text, "MemoryError") {
				t.Errorf("an allocation past --eval-python-memory: %s", text)
			}
		case 1:
			text, _ := evalIn(t, cs, "javascript", "let a = []; for (let i = 0; i < 1e8; i++) a.push({i, s: 'x' + i}); a.length")
			if !strings.Contains(text, "memory cap") {
				t.Errorf("a JavaScript cell past --eval-js-memory: %s", text)
			}
		case 2:
			text, _ := evalIn(t, cs, "python", "import time\ntime.sleep(120)")
			if !strings.Contains(text, "idle budget") {
				t.Errorf("a cell silent past --eval-idle: %s", text)
			}
		}
	})
	// Session 1's JavaScript cell grows past the cap while sessions 0 and 2
	// are in JavaScript cells of their own, which say they started (a file)
	// and then wait, calling tool(), until it has been stopped; they end as
	// they would have. Not parallel subtests: those run two at a time here.
	ws := filepath.Join(base, "root", "alpha")
	waiting := make(chan error, 2)
	for _, i := range []int{0, 2} {
		go func() {
			code := fmt.Sprintf("tool('write', {path: 'started_%d.txt', content: 'x'})\nlet polls = 0\nfor (;;) { polls++; try { tool('read', {path: 'bombed.txt'}); break } catch (e) {} }\n[secret_%d, polls > 0]", i, i)
			text, isErr := evalIn(t, sessions[i], "javascript", code)
			if want := fmt.Sprintf("'js%d'", i); isErr || !strings.Contains(text, want) || !strings.Contains(text, "true") {
				waiting <- fmt.Errorf("session %d's JavaScript cell while another session's grew past its cap: %s, want %s and true", i, text, want)
				return
			}
			waiting <- nil
		}()
	}
	for _, i := range []int{0, 2} {
		// Bounded: a cell that failed before its first write says so.
		awaitMarker(t, filepath.Join(ws, fmt.Sprintf("started_%d.txt", i)), waiting)
	}
	text, _ := evalIn(t, sessions[1], "javascript", "let b = []; for (let i = 0; i < 1e8; i++) b.push({i, s: 'x' + i}); b.length")
	if err := os.WriteFile(filepath.Join(ws, "bombed.txt"), []byte("done\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "memory cap") {
		t.Errorf("a JavaScript cell past --eval-js-memory: %s", text)
	}
	for range 2 {
		if err := <-waiting; err != nil {
			t.Error(err)
		}
	}
	// Sessions 0 and 2 keep their kernels' state; session 1's runtime may
	// have been discarded by its own cap, so it is asked of Python only.
	each("after", func(t *testing.T, i int, cs *mcp.ClientSession) {
		if i != 1 {
			see(t, i, cs)
		}
		if pid := kernelPid(t, cs); pid != pids[i] {
			t.Errorf("session %d's Python kernel changed from %d to %d", i, pids[i], pid)
		}
	})
}

// jsKernelPids lists the JavaScript kernel processes whose parent is pid
// or the spawner pid started.
func jsKernelPids(pid int) []int {
	parentOf := func(p string) int {
		stat, _ := os.ReadFile("/proc/" + p + "/stat")
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) < 2 {
			return 0
		}
		n, _ := strconv.Atoi(f[1])
		return n
	}
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		child, err := strconv.Atoi(e.Name())
		if err != nil || !testenv.Alive(child) {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		stat, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		// the host's own child, or its spawner's
		if len(f) > 1 && (f[1] == strconv.Itoa(pid) || parentOf(f[1]) == pid) && strings.Contains(string(cmdline), jsproc.Subcommand) {
			out = append(out, child)
		}
	}
	return out
}

// TestHostJavaScriptKernelIsAProcess: a session's JavaScript kernel is a
// child process of the host (its heap cap measures its own heap), its
// tool() calls are still checked by the run's approval policy in the host
// (write=deny refuses a write, which leaves no file), and it ends with its
// session.
func TestHostJavaScriptKernelIsAProcess(t *testing.T) {
	base := t.TempDir()
	hp := startHostProc(t, base, "--approve", "exec=allow,write=deny")
	cs := openHostSession(t, hp.url, "alpha")
	defer cs.Close()
	text, isErr := evalIn(t, cs, "javascript", "let outcome; try { tool('write', {path: 'out.txt', content: 'nope'}); outcome = 'written' } catch (e) { outcome = 'refused: ' + e.message }; [outcome, tool('read', {path: 'a.go'}).includes('package a')]")
	if isErr || !strings.Contains(text, "refused: ") || !strings.Contains(text, "true") {
		t.Errorf("a denied write from a JavaScript cell: %s", text)
	}
	if _, err := os.Stat(filepath.Join(base, "root", "alpha", "out.txt")); !os.IsNotExist(err) {
		t.Errorf("the denied write left out.txt: %v", err)
	}
	pids := jsKernelPids(hp.cmd.Process.Pid)
	if len(pids) != 1 {
		t.Fatalf("JavaScript kernel processes of the host: %v, want one", pids)
	}
	if proc.SandboxStatus().Files() {
		// tether's cgo-free binary confines the kernel in place: one start
		// of the binary, every thread without a capability.
		if cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pids[0])); !bytes.Contains(cmdline, []byte("__tether-sandbox-in-place")) {
			t.Errorf("the JavaScript kernel was not confined in place: %q", cmdline)
		}
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pids[0]))
		for _, f := range tasks {
			st, _ := os.ReadFile(f)
			if !regexp.MustCompile(`(?m)^CapEff:\s+0+$`).Match(st) || !regexp.MustCompile(`(?m)^NoNewPrivs:\s+1$`).Match(st) {
				t.Errorf("a thread of the JavaScript kernel (%s) holds a capability or may gain one:\n%s", f, st)
			}
			// below the host's priority, every thread
			stat, _ := os.ReadFile(strings.TrimSuffix(f, "status") + "stat")
			if fs := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:])); len(fs) < 17 || fs[16] != "10" {
				t.Errorf("a thread of the JavaScript kernel runs above nice 10: %s", stat)
			}
		}
		if len(tasks) < 2 {
			t.Errorf("the JavaScript kernel's threads: %v", tasks)
		}
	}
	cs.Close()
	waitGone(t, pids[0], "the closed session's JavaScript kernel")
}
