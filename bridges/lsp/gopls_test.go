package lsp_test

import "errors"
import "fmt"
import "os"
import "path/filepath"
import "strings"
import "syscall"
import "testing"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/internal/testenv"

func TestGopls(t *testing.T) {
	dir, s := peerProject(t, "gopls", "goproj")
	ctx := ctxT(t)

	runNav(t, ctx, s, true, []navCase{
		{"definition", lsp.Position{File: "use.go", Line: 11, Symbol: "Total"}, "shapes.go", 17},
		{"type_definition", lsp.Position{File: "use.go", Line: 6, Symbol: "sq"}, "shapes.go", 9},
		{"implementation", lsp.Position{File: "shapes.go", Line: 4, Symbol: "Shape"}, "shapes.go", 9},
		{"references", lsp.Position{File: "shapes.go", Line: 9, Symbol: "Square"}, "use.go", 11},
	})
	t.Run("references_total", func(t *testing.T) {
		got, err := s.References(ctx, lsp.Position{File: "shapes.go", Line: 9, Symbol: "Square"})
		if err != nil {
			t.Fatal(err)
		}
		// shapes.go: type decl, receiver; use.go: return type, literal, literal in Sum.
		if got.Total != 5 || len(got.Items) != 5 {
			t.Fatalf("want 5 references, got %d:\n%s", got.Total, locStrings(got.Items))
		}
		if got.Items[0].String() != "shapes.go:9:6: type Square struct {" {
			t.Errorf("first reference renders as %q", got.Items[0].String())
		}
	})
	t.Run("hover", func(t *testing.T) {
		requireHover(t, ctx, s, lsp.Position{File: "use.go", Line: 11, Symbol: "Total"},
			"func Total(shapes []Shape) float64", "sums the areas")
	})
	t.Run("document_symbols", func(t *testing.T) {
		names := symbolLines(t, ctx, s, "shapes.go")
		for name, line := range map[string]int{"Shape": 4, "Square": 9, "Total": 17} {
			if names[name] != line {
				t.Errorf("symbol %s at line %d, want %d (all: %v)", name, names[name], line, names)
			}
		}
	})
	t.Run("workspace_symbols", func(t *testing.T) {
		requireWorkspaceSymbol(t, ctx, s, "Total", "Total", "shapes.go", 17)
	})
	t.Run("code_actions", func(t *testing.T) {
		requireCodeActions(t, ctx, s, lsp.Position{File: "use.go", Line: 5, Symbol: "Square{Side: 10}"})
	})
	t.Run("diagnostics_clean", func(t *testing.T) {
		d, err := s.Diagnostics(ctx, "use.go")
		if err != nil {
			t.Fatal(err)
		}
		if !d.Ready || len(d.Items) != 0 {
			t.Fatalf("want ready and clean, got %+v", d)
		}
	})
	t.Run("diagnostics_no_language", func(t *testing.T) {
		// "could not look" (no server for .txt), said once, not "no errors".
		_, err := s.Diagnostics(ctx, "notes.txt")
		if !errors.Is(err, lsp.ErrNoLanguage) || strings.Count(err.Error(), "lsp:") != 1 || !strings.Contains(err.Error(), `".txt"`) {
			t.Fatalf("diagnostics of a .txt file: %v", err)
		}
	})
	t.Run("check", func(t *testing.T) {
		writeFile(t, filepath.Join(dir, "vet.go"), "package shapes\n\nimport \"fmt\"\n\nfunc Bad() { fmt.Printf(\"%d\\n\", \"x\") }\n")
		defer os.Remove(filepath.Join(dir, "vet.go"))
		checkFinds(t, ctx, s, "go vet", func(d lsp.Diagnostic) bool {
			return d.Path == "vet.go" && d.Line == 5 && strings.Contains(d.Message, "Printf")
		})
	})
	t.Run("changed_on_disk", func(t *testing.T) {
		// Files changed by other means (git, a shell) are seen by the next
		// query: a new file and an edit to an open one.
		writeFile(t, filepath.Join(dir, "extra.go"), "package shapes\n\n// Extra uses Total.\nfunc Extra() float64 { return Total(nil) }\n")
		got, err := s.References(ctx, lsp.Position{File: "shapes.go", Line: 17, Symbol: "Total"})
		if err != nil {
			t.Fatal(err)
		}
		if !hasLoc(got.Items, "extra.go", 4) {
			t.Fatalf("new file not seen:\n%s", locStrings(got.Items))
		}
		src, _ := os.ReadFile(filepath.Join(dir, "use.go"))
		writeFile(t, filepath.Join(dir, "use.go"), "package shapes\n\n\n"+strings.TrimPrefix(string(src), "package shapes\n"))
		got, err = s.Definition(ctx, lsp.Position{File: "use.go", Line: 13, Symbol: "Total"})
		if err != nil || !hasLoc(got.Items, "shapes.go", 17) {
			t.Fatalf("open file edited on disk: %v\n%v", err, got)
		}
		os.Remove(filepath.Join(dir, "extra.go"))
		writeFile(t, filepath.Join(dir, "use.go"), string(src))
	})
	t.Run("status", func(t *testing.T) {
		var row lsp.StatusRow
		for _, r := range s.Status() {
			if r.Server == "gopls" {
				row = r
			}
		}
		if !row.Running || row.PID == 0 || row.Root != "." {
			t.Fatalf("gopls row: %+v", row)
		}
	})
}

// diagnostics "*" and a workspace symbol search in a workspace whose projects
// live in subdirectories (a monorepo: svc/go.mod) run each project's checker
// or server in its own root and report workspace-relative paths, instead of
// "no server has a root marker in the workspace root".
func TestCheckNestedProjects(t *testing.T) {
	testenv.RequireBinary(t, "go")
	dir := t.TempDir()
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	if err := os.MkdirAll(filepath.Join(dir, "svc"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "svc", "go.mod"), "module example.com/svc\n\ngo 1.21\n")
	writeFile(t, filepath.Join(dir, "svc", "vet.go"), "package svc\n\nimport \"fmt\"\n\nfunc Bad() { fmt.Printf(\"%d\\n\", \"x\") }\n")
	writeFile(t, filepath.Join(dir, "README.md"), "two projects\n")
	s := newSupervisor(t, dir, lsp.WithOnlyServers(lsp.DefaultServers()[0])) // gopls's row: go vet
	rep, err := s.Check(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range rep.Items {
		found = found || (d.Path == "svc/vet.go" && d.Line == 5 && strings.Contains(d.Message, "Printf"))
	}
	if !found || len(rep.Ran) != 1 || !strings.Contains(rep.Ran[0], "in svc") {
		t.Fatalf("go vet in svc: items %+v, ran %v, unparsed %v", rep.Items, rep.Ran, rep.Unparsed)
	}
	// So does a workspace symbol search: gopls starts for svc.
	testenv.RequireBinary(t, "gopls")
	syms, err := s.WorkspaceSymbols(ctxT(t), "Bad", "")
	if err != nil {
		t.Fatal(err)
	}
	found = false
	for _, sy := range syms.Items {
		found = found || (sy.Name == "Bad" && sy.Location.Path == "svc/vet.go" && sy.Location.Line == 5)
	}
	if !found {
		t.Fatalf("workspace symbols in svc: %+v", syms)
	}
	// gopls stops at 100 matches by itself: an answer that reaches the cap
	// is marked Capped (there may be more) instead of passing for all of
	// them.
	var lots strings.Builder
	lots.WriteString("package svc\n")
	for i := 0; i < 120; i++ {
		fmt.Fprintf(&lots, "func Lot%d() {}\n", i)
	}
	writeFile(t, filepath.Join(dir, "svc", "lots.go"), lots.String())
	syms, err = s.WorkspaceSymbols(ctxT(t), "Lot", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(syms.Items) != lsp.MaxWorkspaceSymbols || !syms.Capped {
		t.Fatalf("%d symbols (total %d), capped %v: want the cap, marked as the server's (there may be more)", len(syms.Items), syms.Total, syms.Capped)
	}
}

// TestGoplsPositions: a position names its symbol, and the errors for one
// missing, absent from the line or ambiguous say what to write instead.
func TestGoplsPositions(t *testing.T) {
	_, s := peerProject(t, "gopls", "goproj")
	ctx := ctxT(t)
	_, err := s.Definition(ctx, lsp.Position{File: "use.go", Line: 11})
	if err == nil || !strings.Contains(err.Error(), "symbol is required") {
		t.Fatalf("missing symbol: %v", err)
	}
	_, err = s.Definition(ctx, lsp.Position{File: "use.go", Line: 11, Symbol: "Nope"})
	if err == nil || !strings.Contains(err.Error(), "return Total([]Shape{Big(), Square{Side: 1}})") {
		t.Fatalf("symbol not on line should show the line: %v", err)
	}
	// "s" occurs many times on line 20 of shapes.go: "sum += s.Area()" has one whole "s".
	got, err := s.Definition(ctx, lsp.Position{File: "shapes.go", Line: 20, Symbol: "s"})
	if err != nil {
		t.Fatal(err)
	}
	if !hasLoc(got.Items, "shapes.go", 19) {
		t.Fatalf("whole-identifier s should resolve to the range variable:\n%s", locStrings(got.Items))
	}
	// "Square" twice on no line; "Side" twice on line 14: ambiguous, candidates listed.
	_, err = s.Definition(ctx, lsp.Position{File: "shapes.go", Line: 14, Symbol: "Side"})
	if err == nil || !strings.Contains(err.Error(), "Side#2") {
		t.Fatalf("ambiguous symbol should list candidates: %v", err)
	}
	// Occurrences count from 1: #0 says so instead of "not on line".
	_, err = s.Definition(ctx, lsp.Position{File: "shapes.go", Line: 14, Symbol: "Side#0"})
	if err == nil || !strings.Contains(err.Error(), "Side#1 is the first") {
		t.Fatalf("Side#0 should say occurrences count from 1: %v", err)
	}
	got, err = s.Definition(ctx, lsp.Position{File: "shapes.go", Line: 14, Symbol: "Side#2"})
	if err != nil || !hasLoc(got.Items, "shapes.go", 10) {
		t.Fatalf("Side#2: %v %v", err, got)
	}
}

// TestGoplsRenameAndRestart: a rename edits every file, leaves the server
// seeing the renamed code, and a server killed afterwards is started again
// by the next call, which says it crashed.
func TestGoplsRenameAndRestart(t *testing.T) {
	dir, s := peerProject(t, "gopls", "goproj")
	ctx := ctxT(t)
	t.Run("rename", func(t *testing.T) {
		res := renamed(t, ctx, s, lsp.Position{File: "shapes.go", Line: 9, Symbol: "Square"}, "Box", "shapes.go,use.go")
		if res.Edits < 5 { // gopls also renames the doc comment
			t.Fatalf("rename result: %+v", res)
		}
		for _, f := range []string{"shapes.go", "use.go"} {
			b, _ := os.ReadFile(filepath.Join(dir, f))
			if strings.Contains(string(b), "Square") || !strings.Contains(string(b), "Box") {
				t.Fatalf("%s after rename:\n%s", f, b)
			}
		}
		if len(res.Diagnostics) != 0 {
			t.Fatalf("rename left diagnostics: %v", res.Diagnostics)
		}
		// The server sees the renamed code.
		got, err := s.Definition(ctx, lsp.Position{File: "use.go", Line: 5, Symbol: "Box"})
		if err != nil || !hasLoc(got.Items, "shapes.go", 9) {
			t.Fatalf("definition after rename: %v %v", err, got)
		}
	})
	t.Run("crash_recovers", func(t *testing.T) {
		pid := 0
		for _, r := range s.Status() {
			if r.Server == "gopls" {
				pid = r.PID
			}
		}
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		// Wait for the exit to be noticed, then call again.
		for i := 0; i < 100; i++ {
			if st := s.Status(); !st[0].Running {
				break
			}
			sleep()
		}
		got, err := s.Definition(ctx, lsp.Position{File: "use.go", Line: 11, Symbol: "Total"})
		if err != nil {
			t.Fatal(err)
		}
		if !hasLoc(got.Items, "shapes.go", 17) {
			t.Fatalf("after restart:\n%s", locStrings(got.Items))
		}
		if len(got.Notes) == 0 || !strings.Contains(got.Notes[0], "crashed") {
			t.Fatalf("crash not reported: %v", got.Notes)
		}
	})
}
