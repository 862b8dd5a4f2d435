package testenv

import (
	"context"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"github.com/tetherhq/tether/internal/proc"
)

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
