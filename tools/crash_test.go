package tools_test

import "context"
import "errors"
import "fmt"
import "os"
import "os/exec"
import "path/filepath"
import "strconv"
import "strings"
import "syscall"
import "testing"
import "time"

import "github.com/tetherhq/tether/internal/fsutil"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/tools"

const (
	patchCrashDir   = "TOOLS_PATCH_CRASH_DIR"
	patchCrashAfter = "TOOLS_PATCH_CRASH_AFTER"
	patchCrashTool  = "TOOLS_PATCH_CRASH_TOOL"
	patchCrashFiles = 150
)

// crashOld is file i's content before the change.
func crashOld(tool string, i int) string {
	switch {
	case tool == "resolve":
		return fmt.Sprintf("package p\n\nvar v = old(%d)\n", i)
	case tool == "resolve_ops":
		return fmt.Sprintf("package p\n\nvar v = old(%d)\nvar w = dated(%d)\n", i, i)
	case tool == "lsp_rename" && i == 0:
		return "package p\n\nfunc Old() int { return 0 }\n"
	case tool == "lsp_rename":
		return fmt.Sprintf("package p\n\nvar v%d = Old()\n", i)
	}
	return fmt.Sprintf("old %d\n", i)
}

func crashFile(tool string, i int) string {
	if tool == "rename_file" {
		return fmt.Sprintf("d/f%03d.txt", i)
	}
	if tool == "apply_patch" {
		return fmt.Sprintf("f%03d.txt", i)
	}
	return fmt.Sprintf("f%03d.go", i)
}

// crashFiles is how many files tool changes (gopls is given fewer).
func crashFiles(tool string) int {
	if tool == "lsp_rename" || tool == "rename_file" {
		return 30
	}
	return patchCrashFiles
}

// TestChangeCrash: tether killed (SIGKILL) part way through a 150-file
// apply_patch, a resolve accepting a 150-file ast_edit (one rewrite, or
// two as ops), a resolve accepting a 150-file edit that deletes every
// other file and edits the rest, a 30-file
// lsp_rename (gopls) or rename_file moving a directory of 30 files (each
// a removal and a creation), leaves no half-made
// change: the next run's start rolls the files back, and its first call
// result (and stderr) says so. The test runs itself as the child that is
// killed.
func TestChangeCrash(t *testing.T) {
	if dir := os.Getenv(patchCrashDir); dir != "" {
		patchCrashChild(t, dir, os.Getenv(patchCrashTool))
		return
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // journals of this test only
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tool  string
		after int
	}{{"apply_patch", 1}, {"apply_patch", 80}, {"apply_patch", patchCrashFiles - 1}, {"resolve", 90}, {"resolve_ops", 70}, {"lsp_rename", 12}, {"rename_file", 25}, {"resolve_delete", 60}} {
		tool, after := tc.tool, tc.after
		t.Run(fmt.Sprint(tool, after), func(t *testing.T) {
			if tool == "lsp_rename" {
				testenv.RequireBinary(t, "gopls")
			}
			dir := t.TempDir()
			n := crashFiles(tool)
			if tool == "rename_file" {
				os.Mkdir(filepath.Join(dir, "d"), 0o755)
			}
			for i := range n {
				os.WriteFile(filepath.Join(dir, crashFile(tool, i)), []byte(crashOld(tool, i)), 0o644)
			}
			if tool == "lsp_rename" {
				os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/p\n\ngo 1.22\n"), 0o644)
				n++
			}
			if tool == "rename_file" {
				n = 1 // the directory moved, d
			}
			cmd := exec.Command(exe, "-test.run=^TestChangeCrash$")
			cmd.Env = append(os.Environ(), patchCrashDir+"="+dir, patchCrashAfter+"="+strconv.Itoa(after), patchCrashTool+"="+tool)
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
			res, err := call(t, r, "read", map[string]any{"path": crashFile(tool, 0)})
			if err != nil || res.IsError {
				t.Fatalf("read: %v %s", err, res.AllText())
			}
			if msg := res.Content[0].Text; !strings.Contains(msg, "cut short by a crash") || !strings.Contains(msg, fmt.Sprintf("%d restored", after)) {
				t.Errorf("the first result does not say what recovery did: %q", msg)
			}
			if res2, _ := call(t, r, "read", map[string]any{"path": crashFile(tool, 0)}); strings.Contains(res2.AllText(), "crash") {
				t.Errorf("the notice is repeated: %s", res2.AllText())
			}
			for i := range crashFiles(tool) {
				if b, _ := os.ReadFile(filepath.Join(dir, crashFile(tool, i))); string(b) != crashOld(tool, i) {
					t.Errorf("%s = %q after recovery", crashFile(tool, i), b)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "moved")); tool == "rename_file" && !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the move's destination is left after recovery: %v", err)
			}
			ents, _ := os.ReadDir(dir)
			if len(ents) != n {
				t.Errorf("%d files in the workdir, want %d (temporary files left?)", len(ents), n)
			}
		})
	}
}

// patchCrashChild changes every file with tool (apply_patch, or ast_edit
// then resolve) and SIGKILLs itself once patchCrashAfter of them are
// replaced.
func patchCrashChild(t *testing.T, dir, tool string) {
	after, _ := strconv.Atoi(os.Getenv(patchCrashAfter))
	fsutil.SetApplyHook(func(done int) {
		if done == after {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		}
	})
	if lspArgs, ok := map[string]map[string]any{
		"lsp_rename":  {"file": "f000.go", "line": 3, "symbol": "Old", "new_name": "Fresh"},
		"rename_file": {"from": "d", "to": "moved"},
	}[tool]; ok {
		r := startRun(t, tools.Config{WorkDir: dir, Policy: tools.PolicyOf(tools.Allow), LSP: lspSupervisor(t, dir, 5*time.Second)})
		res, err := call(t, r, tool, lspArgs)
		t.Fatalf("%s returned (%v %s) instead of being killed", tool, err, res.AllText())
	}
	if tool == "resolve_delete" {
		// the deletes and edits an isolated worker's run stages
		r, err := tools.NewRun(context.Background(), tools.Config{WorkDir: dir, Policy: tools.PolicyOf(tools.Allow), Search: tools.SearchConfig{Parser: parseEngine(t)}})
		if err != nil {
			t.Fatal(err)
		}
		p := &search.Plan{Source: "vibe_spawn with isolated"}
		for i := range patchCrashFiles {
			c := search.FileChange{Path: filepath.Join(dir, crashFile(tool, i)), Old: []byte(crashOld(tool, i)), Replacements: 1}
			if i%2 == 0 {
				c.Delete = true
			} else {
				c.New = []byte(fmt.Sprintf("new %d\n", i))
			}
			p.Changes = append(p.Changes, c)
		}
		id := tools.Stage(r, p)
		res, err := call(t, r, "resolve", map[string]any{"edit_id": id, "action": "accept"})
		t.Fatalf("resolve returned (%v %s) instead of being killed", err, res.AllText())
	}
	if tool == "resolve" || tool == "resolve_ops" {
		r, err := tools.NewRun(context.Background(), tools.Config{WorkDir: dir, Policy: tools.PolicyOf(tools.Allow), Search: tools.SearchConfig{Parser: parseEngine(t)}})
		if err != nil {
			t.Fatal(err)
		}
		if tool == "resolve_ops" {
			// two rewrites staged as one edit: one journaled apply
			mustCall(t, r, "ast_edit", map[string]any{"language": "go", "ops": []map[string]any{
				{"pattern": "old($A)", "rewrite": "fresh($A)"}, {"pattern": "dated($A)", "rewrite": "current($A)"}}})
		} else {
			mustCall(t, r, "ast_edit", map[string]any{"pattern": "old($A)", "rewrite": "fresh($A)", "language": "go"})
		}
		res, err := call(t, r, "resolve", map[string]any{"edit_id": "edit_1", "action": "accept"})
		t.Fatalf("resolve returned (%v %s) instead of being killed", err, res.AllText())
	}
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
