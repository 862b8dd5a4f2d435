package main

import "context"
import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/tools"

// testLog is a log that goes to t.Log line by line.
type testLog struct{ t *testing.T }

func (l testLog) Write(b []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

// TestDiagnosticsOnWriteAgreeWithChecker is the harness's short form: a
// few seeded changes per language, on the small projects of testdata/lsp,
// through edit, apply_patch, and lsp_rename or ast_edit accepted with
// resolve (each reverted), idle. Every
// write's report must name no diagnostic as new that the checker's own
// before/after delta does not hold, and count none cleared that it does
// not. Missed ones are logged, not asserted (the report bounds what it
// checks and names what it did not).
func TestDiagnosticsOnWriteAgreeWithChecker(t *testing.T) {
	cases := []struct {
		lang, dir, src string
		exts           []string
		bins           []string
	}{
		{"go", "goproj", "", []string{".go"}, []string{"gopls"}},
		{"python", "pybreak", "pkg", []string{".py"}, []string{"pyright-langserver", "pyright"}},
		{"typescript", "tsbreak", "src", []string{".ts"}, []string{"typescript-language-server", "tsc"}},
		{"c", "cproj", "", []string{".c", ".h"}, []string{"clangd-19", "clang-19"}},
	}
	for _, c := range cases {
		t.Run(c.lang, func(t *testing.T) {
			for _, b := range c.bins {
				testenv.RequireBinary(t, b)
			}
			for _, kv := range testenv.WithPeersOnPath() {
				if v, ok := strings.CutPrefix(kv, "PATH="); ok {
					t.Setenv("PATH", v) // the checkers' command lines
				}
			}
			p := &project{name: c.dir, lang: c.lang, dir: testenv.LSPProject(t, c.dir), src: c.src, exts: c.exts}
			switch c.lang {
			case "c":
				if err := compileDB(p, nil); err != nil {
					t.Fatal(err)
				}
			case "typescript":
				p.tsconfig = "tsconfig.json"
			}
			tab := table{}
			if err := runProject(context.Background(), p, 5, 1, kinds, false, 0, testLog{t}, tab); err != nil {
				t.Fatal(err)
			}
			// A code action by lsp_apply, on a declaration added for it
			// (the projects have none the servers refactor).
			if add, ok := codeActionDecl[c.lang]; ok {
				if err := os.WriteFile(filepath.Join(p.dir, add[0]), []byte(add[1]), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := runProject(context.Background(), p, 1, 1, []string{"code-action"}, false, 0, testLog{t}, tab); err != nil {
					t.Fatal(err)
				}
			}
			t.Logf("\n%s", tab.markdown())
			writers := map[string]bool{}
			for r, n := range tab {
				writers[r.writer] = true
				if n.FalseNew > 0 || n.FalseCleared > 0 {
					t.Errorf("%s %s: %d false new, %d false cleared over %d writes (the log above has each write)", r.lang, r.writer, n.FalseNew, n.FalseCleared, n.Writes)
				}
				if n.RevertFailed > 0 {
					t.Errorf("%s %s: %d change(s) failed or did not revert (the log above says why)", r.lang, r.writer, n.RevertFailed)
				}
			}
			if !writers["lsp_rename"] && !writers["ast_edit"] || !writers["edit"] && !writers["apply_patch"] {
				t.Errorf("the changes did not use both a rename (lsp_rename or ast_edit) and edit or apply_patch: %v", writers)
			}
			if _, ok := codeActionDecl[c.lang]; ok && !writers["lsp_apply"] {
				t.Errorf("no code action was applied (lsp_apply): %v", writers)
			}
		})
	}
}

// codeActionDecl is, per language, a file to add to the project with a
// declaration its server offers a refactoring for (codeAction).
var codeActionDecl = map[string][2]string{
	"go":         {"actions.go", "package shapes\n\nfunc joinBench(a int, b string) string { return b }\n"},
	"typescript": {"src/infer.ts", "export function twiceBench(n: number) {\n  return n * 2;\n}\n"},
}

// TestScoreCutList: the new diagnostics a cut list left out count against
// the delta's room in the files scored and then in the files the report
// named as not checked; only beyond both are they false.
func TestScoreCutList(t *testing.T) {
	h := &harness{p: &project{lang: "go"}}
	before := Set{}
	after := Set{
		key("go", "a.go", "", "", "x undefined"):   3,
		key("go", "far.go", "", "", "y undefined"): 4,
	}
	shown := []lsp.Diagnostic{{Path: "a.go", Severity: "error", Message: "x undefined"}}
	rep := &tools.WriteDiagnostics{New: shown, More: 6, NotChecked: []string{"far.go"}, Checked: []string{"a.go"}}
	c := h.score(before, after, rep)
	if c.FalseNew != 0 || c.MissedNew != 0 {
		t.Fatalf("1 shown and 6 left out against 3 + 4 new: false %d, missed %d; want 0 and 0", c.FalseNew, c.MissedNew)
	}
	rep.More = 8
	if c := h.score(before, after, rep); c.FalseNew != 2 {
		t.Fatalf("8 left out where 6 fit: false %d, want 2", c.FalseNew)
	}
	rep.More = 1
	if c := h.score(before, after, rep); c.FalseNew != 0 || c.MissedNew != 5 || c.MissedNamed != 4 {
		t.Fatalf("1 left out: false %d, missed %d (named %d); want 0, 5 (4)", c.FalseNew, c.MissedNew, c.MissedNamed)
	}
}

// TestScoreIncludedFile: clangd's summary of a header's errors at the
// includer's #include ("In included file: <the header's first error>")
// stands for that error of the header in the checker's delta, not for a
// new error of the includer.
func TestScoreIncludedFile(t *testing.T) {
	h := &harness{p: &project{lang: "c"}}
	after := Set{
		key("c", "inc.h", "error", "", "use of undeclared identifier 'MaxLL'"): 2,
		key("c", "a.c", "error", "", "use of undeclared identifier 'ID'"):      1,
	}
	rep := &tools.WriteDiagnostics{New: []lsp.Diagnostic{
		{Path: "a.c", Severity: "error", Message: "In included file: use of undeclared identifier 'MaxLL'\n\ninc.h:30:38:\nnote: error occurred here"},
		{Path: "a.c", Severity: "error", Message: "Use of undeclared identifier 'ID' (fix available)"},
	}, Checked: []string{"a.c", "inc.h"}}
	if c := h.score(Set{}, after, rep); c.FalseNew != 0 || c.MissedNew != 2 {
		t.Fatalf("the header's summary and the includer's own error against 2 + 1 new: false %d, missed %d; want 0 and 2 (the header's, which its own check shows)", c.FalseNew, c.MissedNew)
	}
	// The header's errors shown in it too: the summary takes none of them.
	rep.New = append(rep.New, lsp.Diagnostic{Path: "inc.h", Severity: "error", Message: "Use of undeclared identifier 'MaxLL'"}, lsp.Diagnostic{Path: "inc.h", Severity: "error", Message: "Use of undeclared identifier 'MaxLL'"})
	if c := h.score(Set{}, after, rep); c.FalseNew != 0 || c.MissedNew != 0 {
		t.Fatalf("the header's two errors, its summary and the includer's own error: false %d, missed %d; want 0 and 0", c.FalseNew, c.MissedNew)
	}
	// The revert clears the summary with the header's errors.
	h.summaries = includedSummaries(rep)
	undo := &tools.WriteDiagnostics{Cleared: map[string]int{"a.c": 2, "inc.h": 2}, Checked: []string{"a.c", "inc.h"}}
	if c := h.score(after, Set{}, undo); c.FalseCleared != 0 || c.MissedCleared != 0 {
		t.Fatalf("the revert: false cleared %d, missed cleared %d; want 0 and 0", c.FalseCleared, c.MissedCleared)
	}
}

// TestCheckCHeaderOnce: an error in a header is one diagnostic, though
// clang reports it in every file that includes the header and in the
// header compiled alone, naming the header "./h.h" from an includer and
// "h.h" alone.
func TestCheckCHeaderOnce(t *testing.T) {
	testenv.RequireBinary(t, clangBin())
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{
		"h.h": "static inline int f(void) { int bad = \"x\"; return bad; }\n",
		"a.c": "#include \"h.h\"\nint a(void) { return f(); }\n",
		"b.c": "#include \"h.h\"\nint b(void) { return f(); }\n",
	})
	p := &project{name: "once", lang: "c", dir: dir, exts: []string{".c", ".h"}}
	if err := compileDB(p, nil); err != nil {
		t.Fatal(err)
	}
	set, _, err := checkC(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if total(set) != 1 {
		t.Fatalf("want the header's one error once, got %v", set)
	}
}
