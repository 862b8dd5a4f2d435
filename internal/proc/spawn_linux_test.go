package proc_test

import "bytes"
import "io"
import "os"
import "os/exec"
import "strconv"
import "strings"
import "syscall"
import "testing"

import "github.com/tetherhq/tether/internal/proc"

// ppidOf is pid's parent, from /proc (0 when it is gone).
func ppidOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	n, _ := strconv.Atoi(f[1])
	return n
}

// spawnShell spawns sh -c script with its stdout on a pipe returned to read.
func spawnShell(t *testing.T, script string) (*proc.Process, io.ReadCloser) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Stdout = w
	p, err := proc.Spawn(cmd)
	w.Close()
	if err != nil {
		r.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Kill(); p.Wait(); r.Close() })
	return p, r
}

// TestSpawnFromSpawner: a spawned process is started by the spawner, not
// forked from this process: its parent is another process (this binary
// re-run), itself a child of this one. Its output reaches the descriptor
// passed, its exit status comes back, and Kill ends it (a pidfd: no other
// process of the same pid could be hit).
func TestSpawnFromSpawner(t *testing.T) {
	p, out := spawnShell(t, "echo hello from $$; exit 3")
	b, _ := io.ReadAll(out)
	if !strings.HasPrefix(string(b), "hello from ") {
		t.Errorf("the spawned process wrote %q", b)
	}
	ws, err := p.Wait()
	if err != nil || !ws.Exited() || ws.ExitStatus() != 3 {
		t.Errorf("Wait = %v, %v; want exit status 3", ws, err)
	}
	if err := p.Kill(); err != os.ErrProcessDone {
		t.Errorf("Kill after the end = %v, want os.ErrProcessDone", err)
	}

	q, out2 := spawnShell(t, "echo started; exec sleep 60")
	line := make([]byte, 8)
	io.ReadFull(out2, line)
	spawner := ppidOf(q.Pid)
	if spawner == os.Getpid() || spawner == 0 {
		t.Fatalf("the spawned process's parent is %d (this process is %d): not started by a spawner", spawner, os.Getpid())
	}
	if ppidOf(spawner) != os.Getpid() {
		t.Errorf("the spawner %d is not this process's child (its parent: %d)", spawner, ppidOf(spawner))
	}
	cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(spawner) + "/cmdline")
	if !bytes.Contains(cmdline, []byte("__tether-spawner")) {
		t.Errorf("the spawner's command line: %q", cmdline)
	}
	if err := q.Kill(); err != nil {
		t.Fatal(err)
	}
	ws, err = q.Wait()
	if err != nil || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("Wait after Kill = %v, %v; want killed by SIGKILL", ws, err)
	}
}

// TestSpawnerDeathEndsItsProcesses: when the spawner ends, what it started
// ends with it (their parent-death signal), Wait says the status is lost,
// and the next Spawn starts a new spawner.
func TestSpawnerDeathEndsItsProcesses(t *testing.T) {
	p, out := spawnShell(t, "echo started; exec sleep 60")
	line := make([]byte, 8)
	io.ReadFull(out, line)
	spawner := ppidOf(p.Pid)
	if spawner == os.Getpid() || spawner == 0 {
		t.Fatalf("not started by a spawner (parent %d)", spawner)
	}
	syscall.Kill(spawner, syscall.SIGKILL)
	ws, err := p.Wait()
	if err == nil {
		t.Errorf("Wait after the spawner's death = %v, nil; want an error saying the status is lost", ws)
	}
	waitFor(t, "the spawned process is gone", func() bool { return procState(p.Pid) == 0 })

	q, out2 := spawnShell(t, "echo again")
	b, _ := io.ReadAll(out2)
	if string(b) != "again\n" {
		t.Errorf("after the spawner's death a spawned process wrote %q", b)
	}
	if ws, err := q.Wait(); err != nil || ws.ExitStatus() != 0 {
		t.Errorf("Wait = %v, %v", ws, err)
	}
	if s := ppidOf(q.Pid); s == spawner {
		t.Errorf("the dead spawner %d is still the parent", s)
	}
}

// TestSpawnMissingProgram: a program that is not there is Spawn's error,
// as it is Start's.
func TestSpawnMissingProgram(t *testing.T) {
	cmd := exec.Command("/nonexistent/program")
	_, err := proc.Spawn(cmd)
	if err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("Spawn of a missing program: %v", err)
	}
}
