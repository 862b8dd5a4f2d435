package testenv

import "context"
import "os"
import "os/exec"
import "path/filepath"
import "runtime"
import "testing"
import "time"

import "golang.org/x/sys/unix"

import "github.com/tetherhq/tether/internal/proc"

// lockBusy takes the machine-wide lock that keeps the tests that load the
// machine on purpose (BusyCores, exclusive) apart from those whose bound is
// a race against the machine's speed (Quiet, shared), across the test
// binaries go test runs at once; it is released when the test ends.
func lockBusy(t testing.TB, how int) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(os.TempDir(), "tether-test-busy.lock"), os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		t.Fatalf("testenv: the busy lock: %v", err)
	}
	for {
		err = unix.Flock(int(f.Fd()), how)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		t.Fatalf("testenv: taking the busy lock: %v", err)
	}
	t.Cleanup(func() { f.Close() })
}

// Quiet keeps the test from running while another test binary loads
// every core on purpose (BusyCores): for a test whose bound races the
// machine, such as a heap guard sampling every millisecond against a
// doubling string. Load from elsewhere still reaches it.
func Quiet(t testing.TB) {
	t.Helper()
	lockBusy(t, unix.LOCK_SH)
}

// busyBound is how long a busy process runs at most, should its test's
// cleanup never come (a test binary killed by its timeout).
const busyBound = 15 * time.Minute

// BusyCores starts one CPU-bound process per core (sh running an empty
// loop), as a loaded host has beside tether, and stops them when the test
// ends; each also ends by itself after busyBound. Tests that wait on a
// peer run with it to prove that their waits end on the peer's signal,
// not on a quiet period that a slow peer outlasts.
func BusyCores(t testing.TB) {
	t.Helper()
	lockBusy(t, unix.LOCK_EX)
	sh := LookPath("sh")
	if sh == "" {
		Missing(t, "sh")
	}
	ctx, cancel := context.WithTimeout(context.Background(), busyBound)
	var cmds []*exec.Cmd
	for range runtime.NumCPU() {
		cmd := exec.CommandContext(ctx, sh, "-c", "while :; do :; done")
		if err := proc.Start(cmd); err != nil {
			cancel()
			t.Fatalf("testenv: starting a busy process: %v", err)
		}
		cmds = append(cmds, cmd)
	}
	t.Cleanup(func() {
		cancel()
		for _, c := range cmds {
			_ = c.Wait()
		}
	})
}
