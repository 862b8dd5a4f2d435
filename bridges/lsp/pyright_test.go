package lsp_test

import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/bridges/lsp"

func TestPyright(t *testing.T) {
	dir, s := peerProject(t, "pyright-langserver", "pyproj")
	ctx := ctxT(t)

	runNav(t, ctx, s, false, []navCase{
		{"definition", lsp.Position{File: "app.py", Line: 11, Symbol: "total"}, "pkg/shapes.py", 21},
		{"type_definition", lsp.Position{File: "app.py", Line: 6, Symbol: "sq"}, "pkg/shapes.py", 11},
	})
	t.Run("implementation", func(t *testing.T) {
		// pyright does not implement textDocument/implementation: the answer
		// must be an error saying so, never an empty list posing as "none".
		got, err := s.Implementation(ctx, lsp.Position{File: "pkg/shapes.py", Line: 4, Symbol: "Shape"})
		if err == nil && len(got.Items) == 0 {
			t.Fatalf("implementation returned an empty answer with no error")
		}
		if err != nil && !strings.Contains(err.Error(), "pyright does not offer textDocument/implementation") {
			t.Fatalf("implementation: %v", err)
		}
	})
	t.Run("references", func(t *testing.T) {
		got, err := s.References(ctx, lsp.Position{File: "pkg/shapes.py", Line: 11, Symbol: "Square"})
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []struct {
			p string
			l int
		}{{"pkg/shapes.py", 11}, {"app.py", 1}, {"app.py", 4}, {"app.py", 5}, {"app.py", 10}} {
			if !hasLoc(got.Items, want.p, want.l) {
				t.Errorf("missing %s:%d in\n%s", want.p, want.l, locStrings(got.Items))
			}
		}
	})
	t.Run("hover", func(t *testing.T) {
		requireHover(t, ctx, s, lsp.Position{File: "app.py", Line: 11, Symbol: "total"},
			"def total(shapes: list[Shape]) -> float", "Sum the areas")
	})
	t.Run("symbols", func(t *testing.T) {
		if names := symbolLines(t, ctx, s, "pkg/shapes.py"); names["Square"] != 11 || names["total"] != 21 {
			t.Fatalf("document symbols: %v", names)
		}
		requireWorkspaceSymbol(t, ctx, s, "total", "total", "pkg/shapes.py", 21)
	})
	t.Run("diagnostics", func(t *testing.T) {
		d := written(t, ctx, s, dir, "bad.py", "from pkg.shapes import Square\n\nx: int = Square(1)\n")
		if !d.Ready || len(d.Items) == 0 || d.Items[0].Line != 3 || d.Items[0].Severity != "error" {
			t.Fatalf("want a type error on line 3: %+v", d)
		}
		os.Remove(filepath.Join(dir, "bad.py"))
	})
	t.Run("code_actions", func(t *testing.T) {
		acts, err := s.CodeActions(ctx, lsp.Position{File: "app.py", Line: 5, Symbol: "Square"})
		if err != nil {
			t.Fatal(err)
		}
		// pyright offers no quick fixes for this position (its code actions
		// are organize-imports only): an empty answer, not an error.
		for _, a := range acts.Items {
			if a.Title == "" {
				t.Fatalf("action without title: %+v", acts.Items)
			}
		}
	})
	t.Run("rename", func(t *testing.T) {
		renamed(t, ctx, s, lsp.Position{File: "pkg/shapes.py", Line: 21, Symbol: "total"}, "sum_areas", "app.py,pkg/shapes.py")
		app, _ := os.ReadFile(filepath.Join(dir, "app.py"))
		if !strings.Contains(string(app), "import Shape, Square, sum_areas") || !strings.Contains(string(app), "return sum_areas(items)") {
			t.Fatalf("app.py after rename:\n%s", app)
		}
	})
	t.Run("check", func(t *testing.T) {
		writeFile(t, filepath.Join(dir, "bad2.py"), "x: int = \"no\"\n")
		defer os.Remove(filepath.Join(dir, "bad2.py"))
		checkFinds(t, ctx, s, "pyright", func(d lsp.Diagnostic) bool {
			return d.Path == "bad2.py" && d.Line == 1 && d.Severity == "error"
		})
	})
}
