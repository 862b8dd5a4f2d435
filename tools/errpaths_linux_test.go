package tools_test

import "context"
import "encoding/json"
import "os"
import "os/exec"
import "os/signal"
import "path/filepath"
import "strings"
import "syscall"
import "testing"

import "github.com/tetherhq/tether/tools"

// TestWriteErrorsNameWorkspacePaths makes writes fail for real (a file
// size limit, so write(2) fails with EFBIG as a full disk fails with
// ENOSPC) and checks that the errors of write and apply_patch name the
// file and its temporary file relative to the workspace, never by the
// host's absolute path, and that nothing was changed.
//
// The file size limit is the whole process's: lowered here it would fail
// any other test's write meanwhile (and the test binary's own log), so the
// test runs in a process of its own.
func TestWriteErrorsNameWorkspacePaths(t *testing.T) {
	if os.Getenv("TETHER_FSIZE_CHILD") != "1" {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(exe, "-test.run=^TestWriteErrorsNameWorkspacePaths$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "TETHER_FSIZE_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestWriteErrorsNameWorkspacePaths") {
			t.Fatalf("in a process of its own: %v\n%s", err, out)
		}
		return
	}
	dir := t.TempDir()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sub", "keep.txt"), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := tools.NewRun(context.Background(), tools.Config{WorkDir: dir, Policy: tools.PolicyOf(tools.Allow)})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	big := strings.Repeat("x", 256<<10)
	calls := []struct{ tool, args string }{
		{"write", `{"path":"sub/big.txt","content":"` + big + `"}`},
		{"apply_patch", `{"patch":"*** Begin Patch\n*** Update File: sub/keep.txt\n@@\n-old\n+new\n*** Add File: sub/big.txt\n+` + big + `\n*** End Patch"}`},
	}

	signal.Ignore(syscall.SIGXFSZ)
	defer signal.Reset(syscall.SIGXFSZ)
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 64 << 10, Max: old.Max}); err != nil {
		t.Skipf("cannot lower RLIMIT_FSIZE to inject a write failure: %v", err)
	}
	var texts []string
	for _, c := range calls {
		res, _ := r.Call(context.Background(), c.tool, json.RawMessage(c.args), tools.FromModel)
		texts = append(texts, res.AllText())
		if !res.IsError {
			t.Errorf("%s succeeded past the file size limit: %s", c.tool, res.AllText())
		}
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		for _, abs := range []string{dir, real, os.TempDir()} {
			if strings.Contains(text, abs) {
				t.Errorf("%s: the error names the host path %s: %s", calls[i].tool, abs, text)
			}
		}
		if !strings.Contains(text, "file too large") || !strings.Contains(text, "sub/.big.txt.tether-") {
			t.Errorf("%s: the error does not say which write failed, and how: %s", calls[i].tool, text)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "sub", "keep.txt")); string(b) != "old\n" {
		t.Errorf("keep.txt = %q after a failed patch, want it rolled back", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "sub", "big.txt")); err == nil {
		t.Error("big.txt exists after failed writes")
	}
}
