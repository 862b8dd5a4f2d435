package dap

import "os"
import "os/exec"
import "strconv"
import "strings"
import "syscall"
import "testing"
import "time"

// cwdProcs lists the live processes whose working directory is dir.
func cwdProcs(dir string) []string {
	var out []string
	for pid, pe := range processTable() {
		if pe.state == 'Z' || pe.state == 'X' {
			continue
		}
		if cwd, _ := os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd"); cwd == dir {
			cmd, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
			out = append(out, strconv.Itoa(pid)+" "+strings.ReplaceAll(string(cmd), "\x00", " "))
		}
	}
	return out
}

// TestKillTreeWhileForking: a process that keeps forking children into
// sessions of their own is killed with every child, including one forked
// while the kill runs (which the kill would otherwise orphan to init, out of
// reach of both the parent link and the process group).
func TestKillTreeWhileForking(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	for i := 0; i < 3; i++ {
		dir := t.TempDir()
		cmd := exec.Command(sh, "-c", "while :; do setsid sleep 600 & done")
		cmd.Dir = dir
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		// Let it fork a few children first (they are found by their parent).
		for j := 0; j < 500 && len(cwdProcs(dir)) < 4; j++ {
			time.Sleep(10 * time.Millisecond)
		}
		killTree(cmd.Process.Pid)
		<-done
		// SIGKILL is asynchronous: a process killTree missed sleeps 600s,
		// so a generous bound hides nothing.
		var left []string
		for j := 0; j < 600; j++ {
			if left = cwdProcs(dir); len(left) == 0 {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if len(left) > 0 {
			for _, l := range left {
				if pid, err := strconv.Atoi(strings.Fields(l)[0]); err == nil {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			}
			t.Fatalf("round %d: processes left behind:\n%s", i, strings.Join(left, "\n"))
		}
	}
}
