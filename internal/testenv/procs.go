package testenv

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

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
// the file dir/name, and returns it. The process must still run when its
// pid is read (a pid from inside a PID namespace names no host process and
// fails here). The wait is bounded: a process that cannot write the file
// (the sandbox refused it, it failed first) fails the test with what dir
// holds instead of hanging it.
func ReadPid(t testing.TB, dir, name string) int {
	t.Helper()
	const wait = 2 * time.Minute
	deadline := time.Now().Add(wait)
	for {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
				if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err != nil {
					t.Fatalf("%s names pid %d, which is no process on this host (written from another PID namespace, or it already ended)", filepath.Join(dir, name), pid)
				}
				return pid
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
