package workers_test

import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/workers"

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
	testenv.RequireProcessCap(t, info.Limits, limit, func() string { return wait(t, r, id).Result })
}

// TestWorkerAddressSpaceCap: a worker's command runs under the operator's
// address-space cap, which the info states, and an allocation past it
// fails in the worker instead of taking the host's memory.
func TestWorkerAddressSpaceCap(t *testing.T) {
	const limit = 1 << 30
	r, id, info := spawnPython(t, workers.Config{AddressSpaceLimit: limit}, "alloc.py", testenv.AllocPython)
	testenv.RequireAddressSpaceCap(t, info.Limits, limit, func() string { return wait(t, r, id).Result })
}
