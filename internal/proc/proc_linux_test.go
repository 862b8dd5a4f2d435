package proc_test

import "errors"
import "os"
import "os/exec"
import "runtime"
import "strconv"
import "strings"
import "sync"
import "syscall"
import "testing"
import "time"

import "golang.org/x/sys/unix"

import "github.com/tetherhq/tether/internal/proc"

// TestMain makes the test binary what tether is: a subreaper whose children
// are marked for a sentinel (which is this binary re-run, exiting in Main).
func TestMain(m *testing.M) {
	proc.Main()
	os.Exit(m.Run())
}

// procState is pid's state letter (R, S, T, Z, ...), 0 when it is gone.
func procState(pid int) byte {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	return s[strings.LastIndexByte(s, ')')+2]
}

// waitFor polls cond, bounded generously; it asserts nothing about speed.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for i := 0; i < 1200; i++ {
		if cond() {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("gave up waiting until %s", what)
}

// TestChildOutlivesStartingThread: the parent-death signal fires when the
// thread that forked the child exits, so Start must not fork from the
// caller's thread: a child started from a goroutine whose locked thread then
// exits keeps running.
func TestChildOutlivesStartingThread(t *testing.T) {
	var cmd *exec.Cmd
	gone := os.Getpid()
	// The main thread is never ended (a goroutine locked to it wedges it),
	// so try again if the goroutine ran there.
	for try := 0; try < 20 && gone == os.Getpid(); try++ {
		if cmd != nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
		cmd = exec.Command("sleep", "1000")
		tid := make(chan int)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
			if err := proc.Start(cmd); err != nil {
				t.Error(err)
			}
			tid <- unix.Gettid()
		}()
		gone = <-tid
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	if gone == os.Getpid() {
		t.Skip("every try ran on the main thread, which never ends")
	}
	if cmd.SysProcAttr == nil || cmd.SysProcAttr.Pdeathsig != syscall.SIGKILL {
		t.Fatalf("SysProcAttr = %+v, want a SIGKILL parent-death signal", cmd.SysProcAttr)
	}
	// Once the thread is gone its children got their signal, if any.
	waitFor(t, "the starting thread exits", func() bool {
		_, err := os.Stat("/proc/self/task/" + strconv.Itoa(gone))
		return errors.Is(err, os.ErrNotExist)
	})
	// A parent-death SIGKILL sent then may still be pending: stop the child.
	// A process with SIGKILL pending dies instead of stopping, so a stopped
	// child proves no such signal came.
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	var state byte
	waitFor(t, "the child stops or dies", func() bool {
		state = procState(cmd.Process.Pid)
		return state == 'T' || state == 'Z' || state == 0
	})
	if state != 'T' {
		t.Fatalf("the child died with the thread that started it (state %q)", state)
	}
	if env, _ := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/environ"); !strings.Contains(string(env), proc.EnvOwners+"=") {
		t.Errorf("the child's environment lacks %s", proc.EnvOwners)
	}
}

// TestReaperKeepsWaitStatuses: as a subreaper the process reaps orphans
// that end, and never takes the exit status an exec.Cmd waits for, whether
// Start or plain os/exec started it.
func TestReaperKeepsWaitStatuses(t *testing.T) {
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each leaves an orphan that ends soon, so SIGCHLD keeps the reaper busy.
			cmd := exec.Command("sh", "-c", "sleep 0.01 & exit "+strconv.Itoa(i%5+1))
			var err error
			if i%2 == 0 {
				err = proc.Run(cmd)
			} else {
				err = cmd.Run()
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != i%5+1 {
				t.Errorf("run %d: %v, want exit status %d", i, err, i%5+1)
			}
		}()
	}
	wg.Wait()

	// An orphan re-parented to this process is reaped when it ends: its pid
	// disappears from /proc, not left a zombie.
	out, err := exec.Command("sh", "-c", "sleep 0.2 & echo $!").Output()
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the orphan "+strconv.Itoa(pid)+" is reaped", func() bool {
		_, err := os.Stat("/proc/" + strconv.Itoa(pid))
		return errors.Is(err, os.ErrNotExist)
	})
}
