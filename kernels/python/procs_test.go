package python_test

import "os"
import "os/exec"
import "strconv"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/kernels"

// forkBomb forks children that sleep until the cell kills them, until a fork
// fails or 200 run, and answers what stopped it and how many ran.
const forkBomb = `import os, time, errno
kids, err = [], None
try:
    for _ in range(200):
        pid = os.fork()
        if pid == 0:
            time.sleep(600)
            os._exit(0)
        kids.append(pid)
except OSError as e:
    err = e
for p in kids:
    os.kill(p, 9)
for p in kids:
    os.waitpid(p, 0)
(type(err).__name__, getattr(err, "errno", None) == errno.EAGAIN, 0 < len(kids) < 24)`

// TestProcessCapStopsForkBomb: a cell cannot fork without bound (the kernel
// had no process cap, so a cell could fork-bomb the host): past
// --eval-python-procs a fork fails in the cell with BlockingIOError (EAGAIN),
// the kernel keeps its state, the first result says which cap is in force,
// and closing the kernel ends a child that left its process group.
func TestProcessCapStopsForkBomb(t *testing.T) {
	k := newKernel(t, kernels.Config{ProcessLimit: 24})
	r := mustOK(t, run(t, k, "x = 41"))
	if len(r.Limits) == 0 || !strings.HasPrefix(r.Limits[0], "processes: ") {
		t.Fatalf("first result's limits %q, want the process cap first", r.Limits)
	}
	if strings.Contains(r.Limits[0], "no cap") {
		t.Skipf("no process cap can be set on this machine: %s", r.Limits[0])
	}
	t.Logf("limits: %q", r.Limits)
	if !strings.Contains(r.Limits[0], "24") {
		t.Errorf("limits %q do not name the cap of 24", r.Limits[0])
	}
	if got := value(t, run(t, k, forkBomb)); got != "('BlockingIOError', True, True)" {
		t.Fatalf("fork bomb under a cap of 24: %s, want a BlockingIOError (EAGAIN) after fewer than 24 children", got)
	}
	if r := run(t, k, "x + 1"); value(t, r) != "42" || r.Fresh {
		t.Errorf("after the fork bomb: %s (fresh %v), want the same kernel with its state", value(t, r), r.Fresh)
	}
	// A child in a session of its own is out of the kernel's process group;
	// the cap's cgroup still ends it with the kernel.
	pid, err := strconv.Atoi(strings.Trim(value(t, run(t, k, "import os, time\npid = os.fork()\nif pid == 0:\n    os.setsid()\n    time.sleep(600)\n    os._exit(0)\nstr(pid)")), "'"))
	if err != nil {
		t.Fatal(err)
	}
	// The cell's pid is its PID namespace's (the sandbox's): this host's
	// is another.
	kernel := kernelPid(t, k)
	if pid = testenv.HostPidIn(kernel, pid); pid == 0 {
		t.Fatal("the forked child is not found in the kernel's PID namespace")
	}
	k.Close()
	if st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		if f := strings.Fields(string(st[strings.LastIndexByte(string(st), ')')+1:])); len(f) > 0 && f[0] != "Z" && f[0] != "X" {
			t.Errorf("a child that left the kernel's process group is still running (state %s) after Close", f[0])
		}
	}
}

// TestProcessCapOff: a process cap turned off says so in the first result.
func TestProcessCapOff(t *testing.T) {
	k := newKernel(t, kernels.Config{ProcessLimit: -1})
	r := mustOK(t, run(t, k, "1"))
	if len(r.Limits) == 0 || !strings.Contains(r.Limits[0], "no cap (turned off") {
		t.Errorf("limits with the cap off: %q", r.Limits)
	}
}

// TestProcessCapInEnclosure: in an enclosure the interpreter is not tether's
// child, so no cgroup of tether's holds it; the driver sets RLIMIT_NPROC
// above the user's count, and the first result says so, or why it is not
// enforced (root, CAP_SYS_RESOURCE). As root the enclosure is setpriv to an
// unprivileged user, where the limit is enforced and stops the fork bomb.
func TestProcessCapInEnclosure(t *testing.T) {
	prefix, enforced := []string{testenvLookPath(t, "env")}, false
	dir := t.TempDir()
	if os.Getuid() == 0 {
		prefix, enforced = []string{testenvLookPath(t, "setpriv"), "--reuid=65534", "--regid=65534", "--clear-groups"}, true
		var err error
		if dir, err = os.MkdirTemp("", "tether-procs-"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	k := newKernel(t, kernels.Config{Dir: dir, ProcessLimit: 24, Enclosure: func() []string { return prefix }})
	r := mustOK(t, run(t, k, "1"))
	if len(r.Limits) == 0 || !strings.Contains(r.Limits[0], "enclosure") || !strings.Contains(r.Limits[0], "RLIMIT_NPROC") {
		t.Fatalf("limits in an enclosure: %q, want RLIMIT_NPROC and the enclosure named", r.Limits)
	}
	t.Logf("limits: %q", r.Limits)
	if strings.Contains(r.Limits[0], "no cap") {
		if enforced || !strings.Contains(r.Limits[0], "not enforced") {
			t.Errorf("no cap in force: %q", r.Limits[0])
		}
		return
	}
	if got := value(t, run(t, k, forkBomb)); got != "('BlockingIOError', True, True)" {
		t.Errorf("fork bomb under RLIMIT_NPROC: %s, want a BlockingIOError (EAGAIN) after fewer than 24 children", got)
	}
	if got := value(t, run(t, k, "1 + 1")); got != "2" {
		t.Errorf("after the fork bomb: %s", got)
	}
}

func testenvLookPath(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("no %s: %v", name, err)
	}
	return p
}
