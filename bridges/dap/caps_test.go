package dap_test

import "strings"
import "testing"

import "github.com/tetherhq/tether/bridges/dap"
import "github.com/tetherhq/tether/internal/testenv"

// launchCapped launches the Python program file, holding src, under a
// supervisor with cfg (closed with the test), and returns the launch's
// reply and a function that waits for the program's end and returns its
// output.
func launchCapped(t *testing.T, cfg dap.Config, file, src string) (*reply, func() string) {
	t.Helper()
	python(t)
	root := testenv.Workspace(t, map[string]string{"requirements.txt": "", file: src})
	sv := dap.NewSupervisor(cfg)
	t.Cleanup(func() { sv.Close() })
	r := do(t, sv, "c", root, request{Op: "launch", Program: file})
	return r, func() string {
		t.Helper()
		if r.Exited == nil {
			awaitEnded(t, sv, root)
		}
		return do(t, sv, "c", root, request{Op: "output"}).Output
	}
}

// pyForkBomb starts up to 600 children that sleep, stops at the first
// start refused, says how far it got and why, and ends them. The children
// are not Python, so debugpy does not follow them with sessions (and
// threads) of their own.
const pyForkBomb = `import subprocess

kids, why = [], "none refused"
for i in range(600):
    try:
        kids.append(subprocess.Popen(["sleep", "60"]))
    except OSError as e:
        why = type(e).__name__ + " " + str(e.errno)
        break
print("forked", len(kids), why, flush=True)
for k in kids:
    k.kill()
    k.wait()
`

// TestDebuggeeProcessCap launches, under debugpy, a program that starts 600
// processes: the session's pids cgroup stops it at the cap (a fork fails
// with EAGAIN, the program goes on), and the launch result states the cap.
func TestDebuggeeProcessCap(t *testing.T) {
	t.Parallel()
	const limit = 100
	r, output := launchCapped(t, dap.Config{ProcessLimit: limit}, "bomb.py", pyForkBomb)
	testenv.RequireProcessCap(t, r.Started.Limits, limit, output)
}

// TestDebugProcessCapOff: with the cap off the result says so.
func TestDebugProcessCapOff(t *testing.T) {
	t.Parallel()
	r, _ := launchCapped(t, dap.Config{ProcessLimit: -1}, "main.py", "print('hi')\n")
	if !strings.Contains(r.Started.Limits, "processes: no cap (turned off") {
		t.Errorf("limits %q", r.Started.Limits)
	}
}

// TestDebuggeeAddressSpaceCap launches, under debugpy, a program that
// allocates 2 GiB under a 1 GiB cap: the allocation fails in the program
// (a MemoryError, the session goes on), and the launch result states the
// cap. The adapter itself runs under the same cap.
func TestDebuggeeAddressSpaceCap(t *testing.T) {
	t.Parallel()
	const limit = 1 << 30
	r, output := launchCapped(t, dap.Config{AddressSpaceLimit: limit}, "alloc.py", testenv.AllocPython)
	testenv.RequireAddressSpaceCap(t, r.Started.Limits, limit, output)
}
