package testenv

import "fmt"
import "os"
import "path/filepath"
import "regexp"
import "strconv"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/internal/bytesize"
import "github.com/tetherhq/tether/internal/proc"

// Alive reports whether process pid exists and runs: a zombie (or a dead
// process not yet gone from the table) runs nothing and is not alive.
func Alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return true // a stat line without its state: it exists
	}
	return s[i+2] != 'Z' && s[i+2] != 'X'
}

// ProcsIn lists the live processes whose working directory or command line
// is inside dir, each as its pid and command line.
func ProcsIn(dir string) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !Alive(pid) {
			continue
		}
		p := "/proc/" + e.Name()
		cwd, _ := os.Readlink(p + "/cwd")
		cmd, _ := os.ReadFile(p + "/cmdline")
		cmdline := strings.ReplaceAll(string(cmd), "\x00", " ")
		if cwd == dir || strings.HasPrefix(cwd, dir+"/") || strings.Contains(cmdline, dir) {
			out = append(out, e.Name()+" "+cmdline)
		}
	}
	return out
}

// RequireNoProcs fails the test when a process still runs in dir (see
// ProcsIn). A killed process can take a moment to leave the table: that is
// polled for a while, not timed.
func RequireNoProcs(t testing.TB, dir string) {
	t.Helper()
	var left []string
	for i := 0; i < 100; i++ {
		if left = ProcsIn(dir); len(left) == 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("processes left behind in %s:\n%s", dir, strings.Join(left, "\n"))
}

// ReadPid waits until a process the test started has written its pid into
// the file dir/name, and returns it as this host sees it. A sandboxed
// process writes its pid in its own PID namespace: that is translated to
// the host's by the process whose pid there it is and whose environment or
// command line names dir (the tests pass dir to their processes). The
// process must still run when its pid is read. The wait is bounded: a
// process that cannot write the file (the sandbox refused it, it failed
// first) fails the test with what dir holds instead of hanging it.
func ReadPid(t testing.TB, dir, name string) int {
	t.Helper()
	const wait = 2 * time.Minute
	deadline := time.Now().Add(wait)
	for {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
				host := hostPid(pid, dir)
				if host == 0 {
					t.Fatalf("%s names pid %d, which is no running process here or in a PID namespace whose process names %s (it already ended?)", filepath.Join(dir, name), pid, dir)
				}
				return host
			}
		}
		if time.Now().After(deadline) {
			var have []string
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				have = append(have, e.Name())
			}
			t.Fatalf("no pid in %s after %s (the process could not write it: sandboxed out of %s, or it failed first); %s holds %q", filepath.Join(dir, name), wait, dir, dir, have)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// hostPid finds the process that is pid in its own PID namespace (this
// host's, or one nested in it) and whose environment or command line (or
// those of a process it descends from) name dir; 0 when none is.
func hostPid(pid int, dir string) int {
	want := strconv.Itoa(pid)
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f := nsPids(e.Name()); len(f) == 0 || f[len(f)-1] != want || !Alive(p) {
			continue
		}
		if namesDir(p, dir) {
			return p
		}
	}
	return 0
}

// namesDir reports whether process pid or one of its ancestors has dir in
// its environment or command line.
func namesDir(pid int, dir string) bool {
	for i := 0; pid > 1 && i < 64; i++ {
		for _, f := range []string{"environ", "cmdline"} {
			if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/" + f); err == nil && strings.Contains(string(b), dir) {
				return true
			}
		}
		pid = proc.ParentPID(pid)
	}
	return false
}

// HostPidIn translates nsPid, a pid as seen inside the PID namespace that
// process anchor (a host pid) runs in, to this host's pid for the same
// process; 0 when there is none. In this host's own namespace it is nsPid.
func HostPidIn(anchor, nsPid int) int {
	ns, err := os.Readlink("/proc/" + strconv.Itoa(anchor) + "/ns/pid")
	if err != nil {
		return 0
	}
	return HostPidInNS(ns, nsPid)
}

// nsPids is the NSpid line of /proc/ENTRY/status: the process's pid in
// each PID namespace it is in, this host's first and its own last; nil
// when the process is gone or the kernel does not say.
func nsPids(entry string) []string {
	b, err := os.ReadFile("/proc/" + entry + "/status")
	if err != nil {
		return nil
	}
	_, rest, ok := strings.Cut(string(b), "\nNSpid:")
	if !ok {
		return nil
	}
	line, _, _ := strings.Cut(rest, "\n")
	return strings.Fields(line)
}

// HostPidInNS translates nsPid, a pid in the PID namespace ns (as
// readlink /proc/self/ns/pid names it inside: "pid:[4026532...]"), to this
// host's pid for the same process; 0 when there is none.
func HostPidInNS(ns string, nsPid int) int {
	if self, _ := os.Readlink("/proc/self/ns/pid"); self == ns {
		return nsPid
	}
	want := strconv.Itoa(nsPid)
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if f := nsPids(e.Name()); len(f) < 2 || f[len(f)-1] != want {
			continue
		}
		if l, _ := os.Readlink("/proc/" + e.Name() + "/ns/pid"); l == ns {
			p, _ := strconv.Atoi(e.Name())
			return p
		}
	}
	return 0
}

// RequireProcessCap checks a process cap of limit end to end. limits is
// what a result says of its caps: it must state this one, and the test is
// skipped where the machine gives tether no pids cgroup. report waits for
// the output of a fork bomb that prints "forked N WHY" once a fork is
// refused: it must have been stopped short of limit, with EAGAIN.
func RequireProcessCap(t testing.TB, limits string, limit int, report func() string) {
	t.Helper()
	if strings.HasPrefix(limits, "processes: no cap (no cgroup") {
		t.Skipf("this machine gives tether no pids cgroup: %s", limits)
	}
	if !strings.Contains(limits, "at most "+strconv.Itoa(limit)+" processes and threads at once") {
		t.Errorf("the result does not state the cap: %q", limits)
	}
	out := report()
	m := regexp.MustCompile(`forked (\d+) (.*)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no report from the fork bomb; output %q", out)
	}
	n, _ := strconv.Atoi(m[1])
	if n >= limit || !strings.Contains(m[2], "BlockingIOError 11") {
		t.Errorf("the fork bomb forked %d processes (%s); want fewer than the cap of %d and EAGAIN", n, m[2], limit)
	}
}

// AllocPython is a Python program that says the address-space limit it
// runs under and tries to allocate 2 GiB: it prints "as SOFT HARD
// MemoryError", or "allocated" in place of MemoryError.
const AllocPython = `import resource
soft, hard = resource.getrlimit(resource.RLIMIT_AS)
try:
    b = bytearray(2 << 30)
    r = "allocated"
except MemoryError:
    r = "MemoryError"
print("as", soft, hard, r, flush=True)
`

// RequireAddressSpaceCap checks an address-space cap of limit bytes, under
// 2 GiB, end to end. limits is what a result says of its caps: it must
// state this one, and the test is skipped where there is no sandbox to set
// it. report waits for AllocPython's output, which must show the limit and
// the allocation failed.
func RequireAddressSpaceCap(t testing.TB, limits string, limit int64, report func() string) {
	t.Helper()
	if strings.Contains(limits, "address space: no cap (the sandbox") {
		t.Skipf("no sandbox here to set it: %s", limits)
	}
	if want := "address space: at most " + bytesize.Format(limit) + " (RLIMIT_AS)"; !strings.Contains(limits, want) {
		t.Errorf("the result does not state the cap: %q, want %q", limits, want)
	}
	out := report()
	if want := fmt.Sprintf("as %d %d MemoryError", limit, limit); !strings.Contains(out, want) {
		t.Errorf("the program's output %q; want %q", out, want)
	}
}
