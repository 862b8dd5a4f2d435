package tools_test

import "context"
import "fmt"
import "os"
import "path/filepath"
import "regexp"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/tools"

// projectRun writes files into a temp dir and starts a run on it with a
// language-server supervisor and the tree-sitter parser.
func projectRun(t *testing.T, bin string, files map[string]string) (*tools.Run, string) {
	t.Helper()
	testenv.RequireBinary(t, bin)
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, files)
	return lspDirRun(t, dir, 20*time.Second), dir
}

const goMod = "module example.com/p\n\ngo 1.22\n"

// TestLSPWriteBaseline: a comment-only edit of a file that already had two
// errors reports neither as new (a file's diagnostics before its first
// write are its baseline, not news).
func TestLSPWriteBaseline(t *testing.T) {
	r, _ := projectRun(t, "gopls", map[string]string{
		"go.mod": goMod,
		"old.go": "package p\n\nvar E1 int = \"one\"\n\nvar E2 = undefinedE2\n",
	})
	out := lspText(t, r, "edit", map[string]any{"path": "old.go", "old_string": "package p\n", "new_string": "// Package p is old.\npackage p\n"})
	if strings.Contains(out, "new diagnostics in") || !strings.Contains(out, "old.go: no new diagnostics (2 already reported)") {
		t.Fatalf("a comment-only edit reported what was wrong before:\n%s", out)
	}
	// A new error after that is new, the old ones still are not.
	out = lspText(t, r, "edit", map[string]any{"path": "old.go", "old_string": "var E2", "new_string": "var E3 = undefinedE3\n\nvar E2"})
	if !strings.Contains(out, "new diagnostics in old.go:") || !strings.Contains(out, "undefined: undefinedE3") ||
		strings.Contains(out, "undefinedE2") || strings.Contains(out, "\"one\"") {
		t.Fatalf("second edit:\n%s", out)
	}
}

// TestLSPWriteIdenticalDiagnostics: two identical errors on two lines are
// two new diagnostics (one message with two places); fixing one and breaking another the same way reports
// the new one (identical messages are counted, never merged).
func TestLSPWriteIdenticalDiagnostics(t *testing.T) {
	r, _ := projectRun(t, "gopls", map[string]string{"go.mod": goMod, "a.go": "package p\n"})
	two := "package p\n\nvar a int = \"x\"\n\nvar b int = \"x\"\n"
	out := lspText(t, r, "write", map[string]any{"path": "dup.go", "content": two})
	// Shown once, with both places.
	if n := strings.Count(out, "error: cannot use \"x\""); n != 1 || !regexp.MustCompile(`at 2 places: dup.go 3:\d+ 5:\d+`).MatchString(out) {
		t.Fatalf("want both identical errors (%d shown):\n%s", n, out)
	}
	one := "package p\n\nvar a int = \"x\"\n\nvar b int = 1\n"
	out = lspText(t, r, "write", map[string]any{"path": "dup.go", "content": one})
	if !strings.Contains(out, "dup.go: no new diagnostics (1 already reported)") {
		t.Fatalf("after fixing one:\n%s", out)
	}
	again := "package p\n\nvar a int = \"x\"\n\nvar b int = 1\n\nvar c int = \"x\"\n"
	out = lspText(t, r, "write", map[string]any{"path": "dup.go", "content": again})
	if n := strings.Count(out, ": error: cannot use \"x\""); n != 1 || !strings.Contains(out, "dup.go:7:") {
		t.Fatalf("the same error on a new line is new (%d shown):\n%s", n, out)
	}
}

// callerProject is a Go package whose caller.go calls lib.go's Need.
var callerProject = map[string]string{
	"go.mod":    goMod,
	"lib.go":    "package p\n\n// Need doubles n.\nfunc Need(n int) int { return 2 * n }\n",
	"caller.go": "package p\n\nvar UseNeed = Need(1)\n",
}

// TestLSPWriteReportsOtherFiles: changing a function's parameter type
// reports the caller it broke in another file (issue 13.3: the old code
// looked at the edited file only).
func TestLSPWriteReportsOtherFiles(t *testing.T) {
	r, _ := projectRun(t, "gopls", callerProject)
	out := lspText(t, r, "edit", map[string]any{"path": "lib.go", "old_string": "func Need(n int) int { return 2 * n }", "new_string": "func Need(n string) int { return 2 * len(n) }"})
	if !strings.Contains(out, "lib.go: no errors or warnings") || !strings.Contains(out, "1 new diagnostic(s) in 1 other file(s):") ||
		!strings.Contains(out, "caller.go:3:20: error: cannot use 1") {
		t.Fatalf("the broken caller is not reported:\n%s", out)
	}
}

// TestLSPResolveReportsDiagnostics: resolve accept folds in the new
// diagnostics of the files it wrote and of those they broke, as write does
// (issue 13.4: the old code ran none).
func TestLSPResolveReportsDiagnostics(t *testing.T) {
	r, _ := projectRun(t, "gopls", callerProject)
	out, err := lspCall(t, r, "ast_edit", map[string]any{"pattern": "func Need($N int) int { $$$B }", "rewrite": "func Need($N string) int { return len($N) }", "path": "lib.go"})
	if err != nil || !strings.Contains(out, "edit_1") {
		t.Fatalf("ast_edit: %v\n%s", err, out)
	}
	out = lspText(t, r, "resolve", map[string]any{"edit_id": "edit_1", "action": "accept"})
	if !strings.Contains(out, "accepted edit_1") || !strings.Contains(out, "caller.go:3:20: error: cannot use 1") {
		t.Fatalf("resolve accept:\n%s", out)
	}
}

// TestLSPPaging: references and symbols page past their caps with start,
// and symbols keep one kind (issue 13.8: the old code stopped at 50
// references and 200 symbols with no way past).
func TestLSPPaging(t *testing.T) {
	var b strings.Builder
	b.WriteString("package p\n\n// F is called often.\nfunc F() int { return 1 }\n\ntype T struct{ Field int }\n\nfunc (T) M() {}\n\n")
	for i := 0; i < 205; i++ {
		fmt.Fprintf(&b, "func G%d() int { return F() }\n", i)
	}
	r, _ := projectRun(t, "gopls", map[string]string{"go.mod": goMod, "many.go": b.String()})
	out, err := lspCall(t, r, "lsp", map[string]any{"action": "references", "file": "many.go", "line": 4, "symbol": "F"})
	if err != nil || !strings.Contains(out, "1-50 of 206 shown; pass start 50 for the next") || strings.Count(out, "\nmany.go:") != 50 {
		t.Fatalf("references: %v\n%s", err, out)
	}
	out, err = lspCall(t, r, "lsp", map[string]any{"action": "references", "file": "many.go", "line": 4, "symbol": "F", "start": 200})
	if err != nil || !strings.Contains(out, "201-206 of 206 shown\n") || strings.Count(out, "\nmany.go:") != 6 || !strings.Contains(out, "many.go:214:26:") {
		t.Fatalf("references from 200: %v\n%s", err, out)
	}
	out, err = lspCall(t, r, "lsp", map[string]any{"action": "symbols", "file": "many.go"})
	if err != nil || !strings.Contains(out, "symbols: 1-200 of 209 shown; pass start 200 for the next") {
		t.Fatalf("symbols: %v\n%s", err, out)
	}
	out, err = lspCall(t, r, "lsp", map[string]any{"action": "symbols", "file": "many.go", "start": 200})
	if err != nil || !strings.Contains(out, "symbols: 201-209 of 209 shown\n") || !strings.Contains(out, "function G204  many.go:214:6") {
		t.Fatalf("symbols from 200: %v\n%s", err, out)
	}
	for kind, want := range map[string]string{
		"method":   "1 method symbol(s)\nmethod (T).M  many.go:8:10",
		"type":     "1 type symbol(s)\nstruct T  many.go:6:6",
		"field":    "1 field symbol(s)\nfield Field  many.go:6:16 (in T)",
		"variable": "no variable symbols in many.go",
	} {
		out, err = lspCall(t, r, "lsp", map[string]any{"action": "symbols", "file": "many.go", "kind": kind})
		if err != nil || out != want {
			t.Errorf("symbols of kind %s: %v\n%s\nwant\n%s", kind, err, out, want)
		}
	}
	out, err = lspCall(t, r, "lsp", map[string]any{"action": "symbols", "query": "G20", "kind": "function"})
	if err != nil || !strings.Contains(out, "function G20  many.go:30:6") || strings.Contains(out, "struct") {
		t.Fatalf("workspace symbols of kind function: %v\n%s", err, out)
	}
}

// TestLSPRenameNamesWhatItLeft: pyright renames a method and the call on a
// typed receiver but not the call on an untyped one; the result names that
// caller (found as an identifier with tether's parser: the string and the
// comment spelling the name do not count) and the doc that mentions it
// (issue 13.5: the old code read "1 file(s)" as done).
func TestLSPRenameNamesWhatItLeft(t *testing.T) {
	r, dir := projectRun(t, "pyright-langserver", map[string]string{
		"pyproject.toml": "[project]\nname = \"p\"\nversion = \"0.1.0\"\n",
		"store.py": "class Store:\n    def get_maybe_document(self, key):\n        return key\n\n\n" +
			"def typed(s: Store):\n    return s.get_maybe_document(1)\n\n\n" +
			"def untyped(s):\n    # get_maybe_document in a comment does not count\n    return s.get_maybe_document(\"get_maybe_document\")\n",
		"README.md": "Call `get_maybe_document` to get it; get_maybe_documents is another word.\n",
	})
	out := lspText(t, r, "lsp_rename", map[string]any{"file": "store.py", "line": 2, "symbol": "get_maybe_document", "new_name": "fetch"})
	b, _ := os.ReadFile(filepath.Join(dir, "store.py"))
	if strings.Count(string(b), "get_maybe_document") != 3 {
		t.Fatalf("pyright renamed the untyped call too; the test needs a caller it leaves:\n%s", b)
	}
	if !strings.Contains(out, "1 other occurrence(s) of get_maybe_document remain (the server did not rename them") || !strings.Contains(out, ": store.py:12") ||
		!strings.Contains(out, "get_maybe_document is still mentioned in 1 non-code file(s): README.md (1)") {
		t.Fatalf("rename:\n%s", out)
	}
}

// TestLSPRenameBaseline: a rename in a file that already had an error does
// not report that error as new (issue 13.1, for lsp_rename).
func TestLSPRenameBaseline(t *testing.T) {
	r, _ := projectRun(t, "gopls", map[string]string{
		"go.mod": goMod,
		"a.go":   "package p\n\nvar Old = 1\n\nvar E int = \"x\"\n",
		"b.go":   "package p\n\nvar UseOld = Old + 1\n",
	})
	out := lspText(t, r, "lsp_rename", map[string]any{"file": "a.go", "line": 3, "symbol": "Old", "new_name": "Fresh"})
	if !strings.Contains(out, "in 2 file(s): a.go, b.go") || strings.Contains(out, "new diagnostics in") || strings.Contains(out, "cannot use") {
		t.Fatalf("rename reported the error that was there before:\n%s", out)
	}
}

// TestDiagnosticsOnWriteCoversDeclaredWriter: a file-writing tool that the
// lsp family does not know by name, registered after the run started,
// gets diagnostics on write because it declares its targets (Tool.Writes):
// its result carries no FileChanges, the error that was there before is
// not reported as new, and the caller its change broke in another file is.
func TestDiagnosticsOnWriteCoversDeclaredWriter(t *testing.T) {
	r, dir := projectRun(t, "gopls", map[string]string{
		"go.mod":    goMod,
		"lib.go":    "package p\n\n// Need doubles n.\nfunc Need(n int) int { return 2 * n }\n\nvar Old int = \"old\"\n",
		"caller.go": "package p\n\nvar UseNeed = Need(1)\n",
	})
	type stampArgs struct {
		File string `json:"file"`
		Text string `json:"text"`
	}
	stamp := tools.Tool{
		Name:        "stamp",
		Tier:        tools.TierWrite,
		Description: "Overwrite a file with text (a writer the lsp family does not name).",
		InputSchema: tools.SchemaFor[stampArgs](),
		Writes: func(c *tools.Call) []string {
			var a stampArgs
			if c.Decode(&a) != nil {
				return nil
			}
			return []string{a.File}
		},
		Handler: func(ctx context.Context, c *tools.Call) (*tools.Result, error) {
			var a stampArgs
			if err := c.Decode(&a); err != nil {
				return nil, err
			}
			if err := os.WriteFile(filepath.Join(dir, a.File), []byte(a.Text), 0o644); err != nil {
				return nil, err
			}
			return tools.Text("stamped " + a.File), nil
		},
	}
	if err := r.Register(stamp); err != nil {
		t.Fatal(err)
	}
	lib := "package p\n\n// Need measures s.\nfunc Need(s string) int { return len(s) }\n\nvar Old int = \"old\"\n\nvar New int = \"new\"\n"
	out := lspText(t, r, "stamp", map[string]any{"file": "lib.go", "text": lib})
	if !strings.Contains(out, "stamped lib.go") || !strings.Contains(out, "new diagnostics in lib.go:") || !strings.Contains(out, `"new"`) ||
		strings.Contains(out, `"old"`) || !strings.Contains(out, "1 new diagnostic(s) in 1 other file(s):") ||
		!strings.Contains(out, "caller.go:3:20: error: cannot use 1") {
		t.Fatalf("a declared writer's write:\n%s", out)
	}
	// Putting the signature back clears the caller's error, and says so.
	lib = "package p\n\n// Need doubles n.\nfunc Need(n int) int { return 2 * n }\n\nvar Old int = \"old\"\n\nvar New int = \"new\"\n"
	out = lspText(t, r, "stamp", map[string]any{"file": "lib.go", "text": lib})
	if !strings.Contains(out, "1 diagnostic(s) in 1 other file(s) cleared: caller.go") || strings.Contains(out, "new diagnostic(s) in") {
		t.Fatalf("the fix:\n%s", out)
	}
}
