package lsp_test

import "context"
import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/internal/testenv"

func diagText(d *lsp.Diagnostics) string {
	var s []string
	for _, x := range d.Items {
		s = append(s, x.String())
	}
	return strings.Join(s, "\n")
}

// diagStep is one change to a project and the diagnostics asked after it.
type diagStep struct {
	name   string
	change func()
	ask    func() (*lsp.Diagnostics, error)
	want   string // "" means no errors
	// findings compares every item, not the errors alone (an analysis
	// finding is a warning).
	findings bool
}

// runDiagSteps makes each step's change and requires the diagnostics it
// asks for to be ready and to hold its want.
func runDiagSteps(t *testing.T, steps []diagStep) {
	t.Helper()
	for _, st := range steps {
		st.change()
		d, err := st.ask()
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if !d.Ready {
			t.Fatalf("%s: not ready: %v\n%s", st.name, d.Notes, diagText(d))
		}
		var errs []string
		for _, x := range d.Items {
			if x.Severity == "error" || st.findings {
				errs = append(errs, x.String())
			}
		}
		got := strings.Join(errs, "\n")
		if st.want == "" && got != "" || st.want != "" && !strings.Contains(got, st.want) {
			t.Fatalf("%s: want %q, got:\n%s", st.name, st.want, diagText(d))
		}
	}
}

// afterWrite asks then's diagnostics after AfterWrite of file.
func afterWrite(ctx context.Context, s *lsp.Supervisor, file string, then func() (*lsp.Diagnostics, error)) func() (*lsp.Diagnostics, error) {
	return func() (*lsp.Diagnostics, error) {
		if _, err := s.AfterWrite(ctx, file); err != nil {
			return nil, err
		}
		return then()
	}
}

// callerProject starts peer on a copy of project, where the file caller
// uses the file callee, and returns the project's directory, the
// supervisor, a context, the callee's path and text, and a function asking
// the caller's diagnostics.
func callerProject(t *testing.T, peer, project, caller, callee string) (string, *lsp.Supervisor, context.Context, string, string, func() (*lsp.Diagnostics, error)) {
	t.Helper()
	dir, s := peerProject(t, peer, project)
	ctx := ctxT(t)
	path := filepath.Join(dir, callee)
	return dir, s, ctx, path, testenv.ReadText(t, path), func() (*lsp.Diagnostics, error) { return s.Diagnostics(ctx, caller) }
}

// TestDiagnosticsFollowOtherFiles: a file's diagnostics asked for after
// another file changed account for that change. Servers publish a file's
// diagnostics again when they change (gopls: only then, and for importing
// packages a second or more later) or when the file itself changes: the last
// publication for an unchanged caller was served as current, "no errors"
// right after its callee was renamed or deleted, and the error after it was
// restored. gopls's analysis findings, published after its type errors,
// belong to the write that caused them.
func TestDiagnosticsFollowOtherFiles(t *testing.T) {
	servers := []struct {
		peer, project, caller, callee, decl, broken, want string
		analysis                                          string // a file whose write must report "unreachable code"
	}{
		{"gopls", "goproj", "use.go", "shapes.go", "func Total(", "func Total2(", "undefined: Total",
			"package shapes\n\nfunc Loop() int {\n\tfor {\n\t}\n\treturn 1\n}\n"},
		{"pyright-langserver", "pyproj", "app.py", "pkg/shapes.py", "def total(", "def total2(", `"total" is unknown import symbol`, ""},
		{"typescript-language-server", "tsproj", "src/app.ts", "src/shapes.ts", "export function total(", "export function total2(", `has no exported member named 'total'`, ""},
	}
	for _, sv := range servers {
		t.Run(sv.peer, func(t *testing.T) {
			t.Parallel() // each server has its own project and supervisor
			dir, s, ctx, callee, orig, caller := callerProject(t, sv.peer, sv.project, sv.caller, sv.callee)
			broken := strings.Replace(orig, sv.decl, sv.broken, 1)
			steps := []diagStep{
				{name: "clean at first", change: func() {}, ask: caller},
				{name: "callee renamed on disk by other means", change: func() { writeFile(t, callee, broken) }, ask: caller, want: sv.want, findings: true},
				{name: "callee restored through a write", change: func() { writeFile(t, callee, orig) }, ask: afterWrite(ctx, s, sv.callee, caller)},
				// The message differs by server.
				{name: "callee deleted", change: func() { os.Remove(callee) }, ask: caller, want: ": error: ", findings: true},
				{name: "callee recreated", change: func() { writeFile(t, callee, orig) }, ask: caller},
			}
			if sv.analysis != "" {
				steps = append(steps, diagStep{name: "analysis finding on write", change: func() { writeFile(t, filepath.Join(dir, "loop.go"), sv.analysis) },
					ask: func() (*lsp.Diagnostics, error) { return s.AfterWrite(ctx, "loop.go") }, want: "unreachable code", findings: true})
			}
			runDiagSteps(t, steps)
		})
	}
}

// TestDiagnosticsFollowFilesCreatedAndDeleted: a caller's diagnostics
// account for files created or deleted by other means that the server never
// had open. tsserver learns of those from its own watchers, a moment later:
// a caller was clean right after its callee, never opened, was deleted; and
// when the file it imports was created and opened before tsserver's watcher
// saw it, the watcher's event was dropped (the file is open) and the caller
// kept "Cannot find module" for good.
func TestDiagnosticsFollowFilesCreatedAndDeleted(t *testing.T) {
	servers := []struct {
		peer, project, caller, callee, missing string
		// use makes the caller use the module file extra (not there yet):
		// the caller's text with old replaced by new.
		extra, extraText, old, new string
	}{
		{"gopls", "goproj", "use.go", "shapes.go", "undefined: Total",
			"extra.go", "package shapes\n\n// Extra is one more.\nfunc Extra() float64 { return 1 }\n",
			"return Total(", "return Extra() + Total("},
		{"pyright-langserver", "pyproj", "app.py", "pkg/shapes.py", `"pkg.shapes" could not be resolved`,
			"pkg/extra.py", "def extra() -> float:\n    return 1.0\n",
			"from pkg.shapes import", "from pkg.extra import extra\nfrom pkg.shapes import"},
		{"typescript-language-server", "tsproj", "src/app.ts", "src/shapes.ts", `Cannot find module './shapes'`,
			"src/extra.ts", "export function extra(): number {\n  return 1;\n}\n",
			`import { Shape`, "import { extra } from \"./extra\";\nimport { Shape"},
	}
	for _, sv := range servers {
		t.Run(sv.peer, func(t *testing.T) {
			t.Parallel() // each server has its own project and supervisor
			dir, s, ctx, callee, orig, caller := callerProject(t, sv.peer, sv.project, sv.caller, sv.callee)
			callerText := testenv.ReadText(t, filepath.Join(dir, sv.caller))
			runDiagSteps(t, []diagStep{
				{name: "clean at first", change: func() {}, ask: caller},
				{name: "callee, never opened, deleted", change: func() { os.Remove(callee) }, ask: caller, want: sv.missing},
				{name: "callee recreated", change: func() { writeFile(t, callee, orig) }, ask: caller},
				{name: "caller written to use a module not there yet", change: func() {
					writeFile(t, filepath.Join(dir, sv.caller), strings.Replace(callerText, sv.old, sv.new, 1))
				}, ask: func() (*lsp.Diagnostics, error) { return s.AfterWrite(ctx, sv.caller) }, want: ": error: "},
				{name: "that module written", change: func() { writeFile(t, filepath.Join(dir, sv.extra), sv.extraText) }, ask: afterWrite(ctx, s, sv.extra, caller)},
			})
		})
	}
}

// TestCodeActionsFollowOtherFiles: quick fixes are asked with the file's
// current diagnostics: after the header it includes was changed by other
// means, the caller's "did you mean 'square_area2'" fix is offered (it was
// asked with the caller's last, clean, publication and offered nothing of
// the kind).
func TestCodeActionsFollowOtherFiles(t *testing.T) {
	dir, s := cproj(t)
	ctx := ctxT(t)
	if d, err := s.Diagnostics(ctx, "main.c"); err != nil || len(d.Items) != 0 {
		t.Fatalf("main.c at first: %v %+v", err, d)
	}
	header := filepath.Join(dir, "shapes.h")
	orig, _ := os.ReadFile(header)
	writeFile(t, header, strings.Replace(string(orig), "double square_area(", "double square_area2(", 1))
	acts, err := s.CodeActions(ctx, lsp.Position{File: "main.c", Line: 7, Symbol: "square_area"})
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, a := range acts.Items {
		titles = append(titles, a.Title)
	}
	if !strings.Contains(strings.Join(titles, "\n"), "square_area2") {
		t.Fatalf("no fix naming square_area2 among:\n%s", strings.Join(titles, "\n"))
	}
}
