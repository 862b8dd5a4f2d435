package lsp_test

import "os"
import "path/filepath"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/internal/testenv"

func TestTypeScript(t *testing.T) {
	testenv.RequireBinary(t, "typescript-language-server")
	testenv.RequireBinary(t, "tsc")
	dir := testenv.LSPProject(t, "tsproj")
	// typescript-language-server publishes nothing for a file that stays
	// clean (CleanCheck confirms it), and may still be busy with a file
	// opened just before a rename; a shorter bound keeps that wait (reported
	// as not ready) cheap.
	s := newSupervisor(t, dir, lsp.WithDiagnosticsTimeout(8*time.Second))
	ctx := ctxT(t)

	runNav(t, ctx, s, false, []navCase{
		{"definition", lsp.Position{File: "src/app.ts", Line: 10, Symbol: "total"}, "src/shapes.ts", 16},
		{"type_definition", lsp.Position{File: "src/app.ts", Line: 5, Symbol: "sq"}, "src/shapes.ts", 7},
		{"implementation", lsp.Position{File: "src/shapes.ts", Line: 2, Symbol: "Shape"}, "src/shapes.ts", 7},
		{"references", lsp.Position{File: "src/shapes.ts", Line: 7, Symbol: "Square"}, "src/app.ts", 9},
	})
	t.Run("hover", func(t *testing.T) {
		requireHover(t, ctx, s, lsp.Position{File: "src/app.ts", Line: 10, Symbol: "total"},
			"total(shapes: Shape[]): number", "Sums the areas")
	})
	t.Run("symbols", func(t *testing.T) {
		if names := symbolLines(t, ctx, s, "src/shapes.ts"); names["Square"] != 7 || names["total"] != 16 || names["area"] == 0 {
			t.Fatalf("document symbols: %v", names)
		}
		requireWorkspaceSymbol(t, ctx, s, "total", "total", "src/shapes.ts", 16)
	})
	t.Run("code_actions", func(t *testing.T) {
		requireCodeActions(t, ctx, s, lsp.Position{File: "src/app.ts", Line: 4, Symbol: "new Square(10)"})
	})
	t.Run("diagnostics", func(t *testing.T) {
		d := written(t, ctx, s, dir, "src/bad.ts", "import { Square } from \"./shapes\";\n\nexport const x: string = new Square(1);\n")
		if !d.Ready || len(d.Items) == 0 || d.Items[0].Line != 3 || d.Items[0].Code != "2322" {
			t.Fatalf("want TS2322 on line 3: %+v", d)
		}
		// Asked again with nothing changed: the publication already received
		// answers (typescript-language-server publishes no version and does
		// not publish again for unchanged content).
		again, err := s.Diagnostics(ctx, "src/bad.ts")
		if err != nil {
			t.Fatal(err)
		}
		if !again.Ready || len(again.Items) != len(d.Items) || len(again.Notes) != 0 {
			t.Fatalf("unchanged file asked again: want the same %d diagnostics, ready: %+v", len(d.Items), again)
		}
		checkFinds(t, ctx, s, "tsc", func(d lsp.Diagnostic) bool {
			return d.Path == "src/bad.ts" && d.Line == 3 && d.Code == "TS2322"
		})
		// Fixed again: the error is gone from the server's view too.
		writeFile(t, filepath.Join(dir, "src/bad.ts"), "export const x: string = \"ok\";\n")
		if d, err := s.AfterWrite(ctx, "src/bad.ts"); err != nil || !d.Ready || len(d.Items) != 0 {
			t.Fatalf("after the fix: %v %+v", err, d)
		}
		// A clean file changed and still clean: the server publishes nothing
		// (empty stays empty), and tether confirms the file is clean instead
		// of waiting out the bound and calling it not ready.
		writeFile(t, filepath.Join(dir, "src/bad.ts"), "export const x: string = \"still ok\";\n")
		if d, err := s.AfterWrite(ctx, "src/bad.ts"); err != nil || !d.Ready || len(d.Items) != 0 || len(d.Notes) != 0 {
			t.Fatalf("a clean file changed and still clean: %v %+v", err, d)
		}
		// And an error written now is still reported.
		writeFile(t, filepath.Join(dir, "src/bad.ts"), "export const x: string = 1;\n")
		if d, err := s.AfterWrite(ctx, "src/bad.ts"); err != nil || !d.Ready || len(d.Items) != 1 || d.Items[0].Code != "2322" {
			t.Fatalf("an error after a clean write: %v %+v", err, d)
		}
	})
	t.Run("rename", func(t *testing.T) {
		renamed(t, ctx, s, lsp.Position{File: "src/shapes.ts", Line: 16, Symbol: "total"}, "sumAreas", "src/app.ts,src/shapes.ts")
		app, _ := os.ReadFile(filepath.Join(dir, "src/app.ts"))
		if strings.Contains(string(app), "total") || strings.Count(string(app), "sumAreas") != 2 {
			t.Fatalf("app.ts after rename:\n%s", app)
		}
	})
}
