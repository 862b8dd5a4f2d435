package testenv

import "os"
import "strconv"
import "testing"

// TestNSPids: a live process's NSpid line ends with its pid as it sees it
// (this process's own), and a process that is not there has none.
func TestNSPids(t *testing.T) {
	self := strconv.Itoa(os.Getpid())
	f := nsPids(self)
	if len(f) == 0 || f[len(f)-1] != self {
		t.Errorf("nsPids(%s) = %q, want a list ending with %s", self, f, self)
	}
	if f := nsPids("no-such-process"); f != nil {
		t.Errorf("nsPids of no process = %q, want nil", f)
	}
	if got := HostPidInNS(mustReadlink(t, "/proc/self/ns/pid"), os.Getpid()); got != os.Getpid() {
		t.Errorf("HostPidInNS(own namespace, own pid) = %d, want %d", got, os.Getpid())
	}
}

func mustReadlink(t *testing.T, p string) string {
	t.Helper()
	l, err := os.Readlink(p)
	if err != nil {
		t.Fatal(err)
	}
	return l
}
