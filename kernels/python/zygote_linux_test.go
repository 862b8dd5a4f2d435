package python_test

import "os"
import "path/filepath"
import "strconv"
import "strings"
import "syscall"
import "testing"
import "time"

import "github.com/tetherhq/tether/internal/proc"
import "github.com/tetherhq/tether/kernels"
import "github.com/tetherhq/tether/kernels/python"

// zygoteOf is the zygote pid descends from (0: none), from /proc's parent
// links and command lines: the oldest ancestor with the zygote's command
// line (its forks, the kernel among them, keep it).
func zygoteOf(t *testing.T, pid int) int {
	t.Helper()
	z := 0
	for p := pid; p > 1; p = proc.ParentPID(p) {
		argv, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p), "cmdline"))
		if err != nil {
			t.Fatalf("process %d: %v", p, err)
		}
		if strings.Contains(string(argv), "\x00--tether-zygote") {
			z = p
		}
	}
	return z
}

func needFork(t *testing.T) {
	t.Helper()
	st := proc.SandboxStatus()
	if !st.Namespaces || !st.View || st.Landlock < 1 || os.Getenv("TETHER_PYTHON_NO_ZYGOTE") != "" {
		t.Skipf("kernels are not forked here: %s", st)
	}
}

// TestKernelsForkFromOneZygote: two sessions' kernels come from one warm
// interpreter, each sees its own workspace and not the other's, and a
// kernel told to start on its own does.
func TestKernelsForkFromOneZygote(t *testing.T) {
	needFork(t)
	var ks [2]kernels.Kernel
	var dirs [2]string
	for i := range ks {
		dirs[i] = t.TempDir()
		if err := os.WriteFile(filepath.Join(dirs[i], "f"), []byte("secret-"+strconv.Itoa(i)), 0o644); err != nil {
			t.Fatal(err)
		}
		ks[i] = newKernel(t, kernels.Config{Dir: dirs[i]})
	}
	var zs [2]int
	for i, k := range ks {
		r := run(t, k, "open('f').read()")
		if got := value(t, r); got != "'secret-"+strconv.Itoa(i)+"'" {
			t.Errorf("kernel %d read %s in its workspace", i, got)
		}
		if len(r.Notices) != 0 {
			t.Errorf("kernel %d's first result: %q", i, r.Notices)
		}
		other := filepath.Join(dirs[1-i], "f")
		if got := value(t, run(t, k, "import os\nos.path.exists("+strconv.Quote(other)+")")); got != "False" {
			t.Errorf("kernel %d sees the other's workspace: exists %s", i, got)
		}
		zs[i] = zygoteOf(t, kernelPid(t, k))
	}
	if zs[0] == 0 || zs[0] != zs[1] {
		t.Fatalf("kernels' zygotes %v: want both forked from one", zs)
	}
	direct := newKernel(t, kernels.Config{NoZygote: true})
	mustOK(t, run(t, direct, "1"))
	if z := zygoteOf(t, kernelPid(t, direct)); z != 0 {
		t.Errorf("a kernel with NoZygote descends from zygote %d", z)
	}
}

// TestZygoteDeathIsReported: the forked kernels live in the zygote's PID
// namespace; when it ends they end, their next results say the state was
// lost, and a new zygote serves the kernels started after.
func TestZygoteDeathIsReported(t *testing.T) {
	needFork(t)
	k := newKernel(t, kernels.Config{})
	mustOK(t, run(t, k, "x = 1"))
	z := zygoteOf(t, kernelPid(t, k))
	if z == 0 {
		t.Fatal("the kernel was not forked")
	}
	if err := syscall.Kill(z, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join("/proc", strconv.Itoa(z))); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the zygote %d is still there 30s after SIGKILL", z)
		}
		time.Sleep(20 * time.Millisecond)
	}
	r := run(t, k, "'x' in globals()")
	if !r.StateLost || !r.Fresh || value(t, r) != "False" {
		t.Errorf("after the zygote ended: StateLost=%v Fresh=%v value %v; want a fresh kernel that says the state was lost", r.StateLost, r.Fresh, r.Value)
	}
	if z2 := zygoteOf(t, kernelPid(t, k)); z2 == 0 || z2 == z {
		t.Errorf("the next kernel's zygote is %d (the dead one %d)", z2, z)
	}
}

// zygoteWrapper is a python3 that runs the real one, but runs the shell
// command asZygote instead when asked to be a zygote.
func zygoteWrapper(t *testing.T, asZygote string) string {
	t.Helper()
	real := requirePython(t)
	bin := filepath.Join(t.TempDir(), "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	wrapper := filepath.Join(bin, "python3")
	script := "#!/bin/sh\nfor a in \"$@\"; do [ \"$a\" = --tether-zygote ] && " + asZygote + "; done\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return wrapper
}

// TestZygoteFailureStartsKernelDirectly: an interpreter that cannot serve
// as a zygote (here one that exits when asked to) costs nothing but the
// try: the kernel starts as an interpreter of its own, and its first
// result says why it was not forked.
func TestZygoteFailureStartsKernelDirectly(t *testing.T) {
	needFork(t)
	wrapper := zygoteWrapper(t, "{ echo no zygote here >&2; exit 3; }")
	k, err := python.New(kernels.Config{Python: wrapper, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	r := run(t, k, "6 * 7")
	if value(t, r) != "42" {
		t.Fatalf("the kernel started directly answered %v", r.Value)
	}
	t.Logf("notices: %q", r.Notices)
	if len(r.Notices) != 1 || !strings.Contains(r.Notices[0], "not forked from the shared one") || !strings.Contains(r.Notices[0], "no zygote here") {
		t.Errorf("first result's notices %q: want one saying why the kernel was not forked, with the zygote's stderr", r.Notices)
	}
	if z := zygoteOf(t, kernelPid(t, k)); z != 0 {
		t.Errorf("the kernel descends from zygote %d", z)
	}
}

// TestHungZygoteIsRetired: a zygote that never answers costs its kernel the
// answer's wait and nothing more: that kernel starts as an interpreter of
// its own, saying why, and the next one asks a new zygote; after three
// that failed in a row, kernels start on their own without asking.
func TestHungZygoteIsRetired(t *testing.T) {
	needFork(t)
	defer python.SetZygoteAnswer(python.SetZygoteAnswer(2 * time.Second))
	// In zygote mode it reads nothing and ends by itself later.
	wrapper := zygoteWrapper(t, "exec sleep 20")
	for i := 0; i < 4; i++ {
		k, err := python.New(kernels.Config{Python: wrapper, Dir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		r := run(t, k, "6 * 7")
		k.Close()
		if value(t, r) != "42" {
			t.Fatalf("kernel %d answered %v", i, r.Value)
		}
		want := "did not answer"
		if i == 3 {
			want = "failed 3 times in a row"
		}
		if len(r.Notices) != 1 || !strings.Contains(r.Notices[0], want) {
			t.Errorf("kernel %d's notices %q: want one saying %q", i, r.Notices, want)
		}
		t.Logf("kernel %d: first result after %v", i, time.Since(t0))
	}
}
