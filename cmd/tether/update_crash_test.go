package main

import "bytes"
import "errors"
import "fmt"
import "os"
import "os/exec"
import "path/filepath"
import "strings"
import "syscall"
import "testing"

import "github.com/tetherhq/tether/internal/fsutil"

const updateCrashDir = "TETHER_TEST_UPDATE_CRASH_DIR"

// TestUpdateAllRecoversACutChange: a `tether ast-grep -U` killed (SIGKILL)
// part way through a 20-file rewrite leaves a half-made change; the next
// rewriting command, `tether ast-grep -U` or `tether scan -U`, first puts
// every file back (and says so on stderr), then applies its own change to
// all of them. The test runs itself as the child that is killed.
func TestUpdateAllRecoversACutChange(t *testing.T) {
	if dir := os.Getenv(updateCrashDir); dir != "" {
		fsutil.SetApplyHook(func(done int) {
			if done == 7 {
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
			}
		})
		var out, errb bytes.Buffer
		code := dispatch([]string{"ast-grep", "-p", "old($N)", "-r", "half($N)", "-l", "go", "-U", dir}, &out, &errb)
		t.Fatalf("the rewrite returned %d instead of being killed\n%s%s", code, out.String(), errb.String())
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const n = 20
	for _, next := range []string{"ast-grep", "scan"} {
		t.Run(next, func(t *testing.T) {
			t.Setenv("XDG_CACHE_HOME", t.TempDir()) // this case's journals only
			dir := t.TempDir()
			name := func(i int) string { return filepath.Join(dir, fmt.Sprintf("f%02d.go", i)) }
			for i := range n {
				if err := os.WriteFile(name(i), fmt.Appendf(nil, "package p\n\nvar v = old(%d)\n", i), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command(exe, "-test.run=^TestUpdateAllRecoversACutChange$")
			cmd.Env = append(os.Environ(), updateCrashDir+"="+dir)
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || !ee.Sys().(syscall.WaitStatus).Signaled() {
				t.Fatalf("the child was not killed: %v\n%s", err, out)
			}
			half := 0
			for i := range n {
				if b, _ := os.ReadFile(name(i)); strings.Contains(string(b), "half(") {
					half++
				}
			}
			if half == 0 || half == n {
				t.Fatalf("the killed rewrite changed %d of %d files: the crash was not part way", half, n)
			}
			args := []string{"ast-grep", "-p", "old($N)", "-r", "new($N)", "-l", "go", "-U", dir}
			if next == "scan" {
				args = []string{"scan", "--inline-rules", "id: renew\nlanguage: go\nrule: {pattern: old($N)}\nfix: new($N)\n", "-U", dir}
			}
			var stdout, stderr bytes.Buffer
			code := dispatch(args, &stdout, &stderr)
			if !strings.Contains(stderr.String(), "cut short by a crash") {
				t.Errorf("%s -U did not say it rolled the cut change back (exit %d):\n%s%s", next, code, stdout.String(), stderr.String())
			}
			for i := range n {
				b, _ := os.ReadFile(name(i))
				if want := fmt.Sprintf("package p\n\nvar v = new(%d)\n", i); string(b) != want {
					t.Errorf("%s = %q after %s -U, want %q", filepath.Base(name(i)), b, next, want)
				}
			}
		})
	}
}
