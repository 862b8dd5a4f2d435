//go:build linux

package python_test

import "fmt"
import "os"
import "strconv"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/kernels"

// privateDirtyKB is a process's private dirty memory from smaps_rollup.
func privateDirtyKB(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "Private_Dirty:" {
			n, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no Private_Dirty in smaps_rollup")
	return 0
}

// TestFirstCellFootprint: the driver comes on stdin, so the interpreter's
// command line is small; and a first plain cell leaves out the modules only
// errors, images and coroutines need.
func TestFirstCellFootprint(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	got := value(t, run(t, k, `import sys; sorted(m for m in ("inspect", "traceback", "base64", "dis", "ast") if m in sys.modules)`))
	if got != "[]" {
		t.Errorf("after a plain cell the kernel imported %s", got)
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", kernelPid(t, k)))
	if err != nil {
		t.Fatal(err)
	}
	if len(cmdline) > 4096 {
		t.Errorf("the interpreter's command line is %d bytes, want the boot alone (under 4 KiB)", len(cmdline))
	}
	// What was left out still works when a cell needs it.
	r := run(t, k, "def f():\n    raise ValueError('boom')\nf()")
	if r.Error == nil || r.Error.Name != "ValueError" || !strings.Contains(r.Error.Traceback, "line 2, in f") {
		t.Errorf("a failing cell: %+v", r.Error)
	}
	if got := value(t, run(t, k, "import asyncio\nawait asyncio.sleep(0)\n6 * 7")); got != "42" {
		t.Errorf("top-level await: %s", got)
	}
}

// TestIdleKernelTrimsHeap: a cell that frees most of what it allocated
// leaves the C heap fragmented; once the kernel is idle it gives those
// pages back to the system.
func TestIdleKernelTrimsHeap(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	// 600-byte objects are beyond pymalloc's small-object limit: malloc's
	// heap holds them. Keeping every hundredth leaves the freed space between
	// live chunks, where free() alone cannot return it.
	mustOK(t, run(t, k, "_x = [bytes(600) for _ in range(200000)]\n_keep = _x[::100]\ndel _x"))
	pid := kernelPid(t, k)
	after := privateDirtyKB(t, pid)
	deadline := time.Now().Add(20 * time.Second)
	for {
		now := privateDirtyKB(t, pid)
		if now < after-32<<10 {
			t.Logf("private memory %d KiB after the cell, %d KiB once idle", after, now)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("private memory %d KiB after the cell, still %d KiB 20 s later: want at least 32 MiB back", after, now)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got := value(t, run(t, k, "len(_keep)")); got != "2000" {
		t.Errorf("state after the trim: %s", got)
	}
}
