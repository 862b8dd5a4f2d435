package tools_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/tetherhq/tether/internal/fsutil"
	"github.com/tetherhq/tether/tools"
)

const (
	patchCrashDir   = "TOOLS_PATCH_CRASH_DIR"
	patchCrashAfter = "TOOLS_PATCH_CRASH_AFTER"
	patchCrashFiles = 150
)

// TestApplyPatchCrash: tether killed (SIGKILL) part way through a 150-file
// apply_patch leaves no half-applied patch: the next run's start rolls the
// files back, and its first call result (and stderr) says so. The test runs
// itself as the child that is killed.
func TestApplyPatchCrash(t *testing.T) {
	if dir := os.Getenv(patchCrashDir); dir != "" {
		patchCrashChild(t, dir)
		return
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // journals of this test only
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, after := range []int{1, 80, patchCrashFiles - 1} {
		t.Run(fmt.Sprint(after), func(t *testing.T) {
			dir := t.TempDir()
			for i := range patchCrashFiles {
				os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.txt", i)), []byte(fmt.Sprintf("old %d\n", i)), 0o644)
			}
			cmd := exec.Command(exe, "-test.run=^TestApplyPatchCrash$")
			cmd.Env = append(os.Environ(), patchCrashDir+"="+dir, patchCrashAfter+"="+strconv.Itoa(after))
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || !ee.Sys().(syscall.WaitStatus).Signaled() {
				t.Fatalf("the child was not killed: %v\n%s", err, out)
			}
			r, err := tools.NewRun(context.Background(), tools.Config{WorkDir: dir, Policy: tools.PolicyOf(tools.Allow)})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			res, err := call(t, r, "read", map[string]any{"path": "f000.txt"})
			if err != nil || res.IsError {
				t.Fatalf("read: %v %s", err, res.AllText())
			}
			if msg := res.Content[0].Text; !strings.Contains(msg, "cut short by a crash") || !strings.Contains(msg, fmt.Sprintf("%d restored", after)) {
				t.Errorf("the first result does not say what recovery did: %q", msg)
			}
			if res2, _ := call(t, r, "read", map[string]any{"path": "f000.txt"}); strings.Contains(res2.AllText(), "crash") {
				t.Errorf("the notice is repeated: %s", res2.AllText())
			}
			for i := range patchCrashFiles {
				if b, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("f%03d.txt", i))); string(b) != fmt.Sprintf("old %d\n", i) {
					t.Errorf("f%03d.txt = %q after recovery", i, b)
				}
			}
			ents, _ := os.ReadDir(dir)
			if len(ents) != patchCrashFiles {
				t.Errorf("%d files in the workdir, want %d (temporary files left?)", len(ents), patchCrashFiles)
			}
		})
	}
}

// patchCrashChild applies a patch changing every file and SIGKILLs itself
// once patchCrashAfter of them are replaced.
func patchCrashChild(t *testing.T, dir string) {
	after, _ := strconv.Atoi(os.Getenv(patchCrashAfter))
	fsutil.SetApplyHook(func(done int) {
		if done == after {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		}
	})
	r, err := tools.NewRun(context.Background(), tools.Config{WorkDir: dir, Policy: tools.PolicyOf(tools.Allow)})
	if err != nil {
		t.Fatal(err)
	}
	var patch strings.Builder
	patch.WriteString("*** Begin Patch\n")
	for i := range patchCrashFiles {
		fmt.Fprintf(&patch, "*** Update File: f%03d.txt\n-old %d\n+new %d\n", i, i, i)
	}
	patch.WriteString("*** End Patch")
	res, err := call(t, r, "apply_patch", map[string]any{"patch": patch.String()})
	t.Fatalf("apply_patch returned (%v %s) instead of being killed", err, res.AllText())
}
