package workers_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tetherhq/tether/internal/testenv"
	"github.com/tetherhq/tether/workers"
)

// forkBomb forks up to 600 children that sleep, stops at the first fork
// refused, prints how far it got and why, and reaps them.
const forkBomb = `import os, signal, time

kids, why = [], "none refused"
for i in range(600):
    try:
        pid = os.fork()
    except OSError as e:
        why = type(e).__name__ + " " + str(e.errno)
        break
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    kids.append(pid)
print("forked", len(kids), why, flush=True)
for k in kids:
    os.kill(k, signal.SIGKILL)
for k in kids:
    os.waitpid(k, 0)
`

// spawnPython writes src to a file named file and spawns a worker on a
// roster with cfg whose fast tier runs it with python3. It returns the
// roster (closed with the test), the worker's id and its info.
func spawnPython(t *testing.T, cfg workers.Config, file, src string) (*workers.Roster, string, workers.Info) {
	t.Helper()
	py := testenv.RequireBinary(t, "python3")
	path := filepath.Join(t.TempDir(), file)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg.Commands = map[string]string{workers.Fast: py + " " + path}
	r := newRoster(t, cfg)
	id := spawn(t, r, strings.TrimSuffix(file, ".py"), strings.TrimSuffix(file, ".py"), "")
	return r, id, r.List()[0]
}

// TestWorkerProcessCap runs a worker whose command forks 600 processes: its
// run's pids cgroup stops it at the cap (a fork fails with EAGAIN), and the
// worker's info, which vibe_spawn's result shows, states the cap.
func TestWorkerProcessCap(t *testing.T) {
	const limit = 50
	r, id, info := spawnPython(t, workers.Config{ProcessLimit: limit}, "bomb.py", forkBomb)
	if strings.HasPrefix(info.Limits, "processes: no cap (no cgroup") {
		t.Skipf("this machine gives tether no pids cgroup: %s", info.Limits)
	}
	if !strings.Contains(info.Limits, "at most "+strconv.Itoa(limit)+" processes and threads at once") {
		t.Errorf("the worker's info does not state the cap: %q", info.Limits)
	}
	rep := wait(t, r, id)
	m := regexp.MustCompile(`forked (\d+) (.*)`).FindStringSubmatch(rep.Result)
	if m == nil {
		t.Fatalf("no report from the worker: %+v", rep)
	}
	n, _ := strconv.Atoi(m[1])
	if n >= limit || !strings.Contains(m[2], "BlockingIOError 11") {
		t.Errorf("the worker forked %d processes (%s); want fewer than the cap of %d and EAGAIN", n, m[2], limit)
	}
}

// TestWorkerAddressSpaceCap: a worker's command runs under the operator's
// address-space cap, which the info states, and an allocation past it
// fails in the worker instead of taking the host's memory.
func TestWorkerAddressSpaceCap(t *testing.T) {
	const limit = 1 << 30
	src := "import resource\nsoft, hard = resource.getrlimit(resource.RLIMIT_AS)\ntry:\n    b = bytearray(2 << 30)\n    r = 'allocated'\nexcept MemoryError:\n    r = 'MemoryError'\nprint('as', soft, hard, r)\n"
	r, id, info := spawnPython(t, workers.Config{AddressSpaceLimit: limit}, "alloc.py", src)
	if strings.Contains(info.Limits, "address space: no cap (the sandbox") {
		t.Skipf("no sandbox here to set it: %s", info.Limits)
	}
	if !strings.Contains(info.Limits, "address space: at most 1GiB (RLIMIT_AS)") {
		t.Errorf("the worker's info does not state the cap: %q", info.Limits)
	}
	rep := wait(t, r, id)
	want := fmt.Sprintf("as %d %d MemoryError", limit, limit)
	if !strings.Contains(rep.Result, want) {
		t.Errorf("the worker's report %q; want %q", rep.Result, want)
	}
}
