//go:build linux

package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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
// --eval-js-memory is stopped while the other sessions' runtimes keep their
// state; a cell silent past --eval-idle is interrupted.
func TestHostEvalCapsPerSession(t *testing.T) {
	const pyCap = 2 << 30
	hp := startHostProc(t, t.TempDir(), "--eval-python-memory", "2GiB", "--eval-js-memory", "64MiB", "--eval-idle", "3s")
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
			// The only JavaScript cell running now: the heap cap is on the
			// process's heap (kernels/js), so a cell growing in one session
			// would count against one running in another at the same time.
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
