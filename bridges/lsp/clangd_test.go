package lsp_test

import "encoding/json"
import "fmt"
import "os"
import "path/filepath"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/internal/testenv"

// writeCompileCommands writes compile_commands.json for the C files of dir
// (absolute paths: the database is generated where the project lives).
func writeCompileCommands(t *testing.T, dir string) {
	t.Helper()
	var cmds []map[string]string
	for _, f := range []string{"main.c", "shapes.c"} {
		cmds = append(cmds, map[string]string{"directory": dir, "file": filepath.Join(dir, f), "command": "cc -c " + f})
	}
	b, _ := json.Marshal(cmds)
	writeFile(t, filepath.Join(dir, "compile_commands.json"), string(b))
}

// TestClangd drives one real clangd over the C project through each query
// the bridge serves for C: definition, references, implementation, hover,
// symbols, diagnostics with their code actions, the header note, the error
// limit, a removed include and a rename.
//
// Over 120 lines: one subtest per query against the one server the
// project's index is built in; split into tests, each would start and
// index its own.
func TestClangd(t *testing.T) {
	dir, s := cproj(t)
	ctx := ctxT(t)

	t.Run("definition", func(t *testing.T) {
		got, err := s.Definition(ctx, lsp.Position{File: "main.c", Line: 7, Symbol: "square_area"})
		if err != nil {
			t.Fatal(err)
		}
		// clangd answers with the definition in shapes.c (or the declaration).
		if !hasLoc(got.Items, "shapes.c", 3) && !hasLoc(got.Items, "shapes.h", 10) {
			t.Fatalf("definition:\n%s", locStrings(got.Items))
		}
	})
	runNav(t, ctx, s, false, []navCase{{"type_definition", lsp.Position{File: "main.c", Line: 7, Symbol: "big"}, "shapes.h", 5}})
	t.Run("references", func(t *testing.T) {
		got, err := s.References(ctx, lsp.Position{File: "main.c", Line: 6, Symbol: "big"})
		if err != nil {
			t.Fatal(err)
		}
		if got.Total != 2 || !hasLoc(got.Items, "main.c", 6) || !hasLoc(got.Items, "main.c", 7) {
			t.Fatalf("references:\n%s", locStrings(got.Items))
		}
	})
	t.Run("implementation", func(t *testing.T) {
		// C has no implementations: clangd answers with none, which must
		// come back as an empty answer, not an error.
		got, err := s.Implementation(ctx, lsp.Position{File: "main.c", Line: 7, Symbol: "square_area"})
		if err != nil || len(got.Items) != 0 {
			t.Fatalf("implementation: %v %v", err, got)
		}
	})
	t.Run("hover", func(t *testing.T) {
		// clangd's hover on a function declared in a header may take its
		// comment from the index of the header's symbols, which clangd
		// builds after the preamble and announces with no progress: under
		// load a hover before it has the signature alone. Ask again
		// (bounded) until the comment is there.
		pos := lsp.Position{File: "main.c", Line: 7, Symbol: "square_area"}
		for start := time.Now(); time.Since(start) < 30*time.Second; time.Sleep(200 * time.Millisecond) {
			if h, err := s.Hover(ctx, pos); err == nil && strings.Contains(h.Text, "returns the area") {
				break
			}
		}
		requireHover(t, ctx, s, pos, "double square_area(const struct square *sq)", "returns the area")
	})
	t.Run("symbols", func(t *testing.T) {
		if names := symbolLines(t, ctx, s, "main.c"); names["main"] != 4 {
			t.Fatalf("document symbols: %v", names)
		}
	})
	t.Run("diagnostics_and_code_actions", func(t *testing.T) {
		src, _ := os.ReadFile(filepath.Join(dir, "main.c"))
		bad := strings.Replace(string(src), "double a = square_area(&big);", "double a = square_area(big);", 1)
		d := written(t, ctx, s, dir, "main.c", bad)
		if !d.Ready || len(d.Items) == 0 || d.Items[0].Line != 7 {
			t.Fatalf("want an error on line 7: %+v", d)
		}
		acts, err := s.CodeActions(ctx, lsp.Position{File: "main.c", Line: 7, Symbol: "big"})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, a := range acts.Items {
			found = found || (a.Title == "insert '&'" && a.Kind == "quickfix")
		}
		if !found {
			t.Fatalf("clangd's fix-it for the diagnostic is missing: %+v", acts.Items)
		}
		writeFile(t, filepath.Join(dir, "main.c"), string(src))
	})
	t.Run("header_note_relative", func(t *testing.T) {
		// clangd reports an error in an included header at the #include,
		// with a note naming the header's line by its absolute path: the
		// answer names it relative to the workspace, as everywhere else.
		hdr, _ := os.ReadFile(filepath.Join(dir, "shapes.h"))
		writeFile(t, filepath.Join(dir, "shapes.h"), string(hdr)+"int bad_in_header = \"x\";\n")
		defer writeFile(t, filepath.Join(dir, "shapes.h"), string(hdr))
		d, err := s.Diagnostics(ctx, "main.c")
		if err != nil {
			t.Fatal(err)
		}
		var msgs []string
		for _, it := range d.Items {
			msgs = append(msgs, it.Message)
		}
		all := strings.Join(msgs, "\n")
		if !strings.Contains(all, "In included file") || !strings.Contains(all, "shapes.h:") || strings.Contains(all, dir) {
			t.Fatalf("main.c's diagnostics after an error in shapes.h (want the note to name shapes.h relative to %s):\n%s", dir, all)
		}
		writeFile(t, filepath.Join(dir, "shapes.h"), string(hdr))
		if _, err := s.AfterWrite(ctx, "shapes.h"); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("no_error_limit", func(t *testing.T) {
		// clang stops at 20 errors unless told otherwise; clangd runs with
		// the limit lifted, so a file's set is whole.
		var b strings.Builder
		for i := 0; i < 30; i++ {
			fmt.Fprintf(&b, "int bad%d = \"x\";\n", i)
		}
		writeFile(t, filepath.Join(dir, "many.c"), b.String())
		defer os.Remove(filepath.Join(dir, "many.c"))
		d, err := s.Diagnostics(ctx, "many.c")
		if err != nil {
			t.Fatal(err)
		}
		errs := 0
		for _, it := range d.Items {
			if strings.Contains(it.Message, "Too many errors") {
				t.Fatalf("clangd stopped at its error limit: %s", it)
			}
			if it.Severity == "error" {
				errs++
			}
		}
		if errs < 30 { // two a line: the conversion, and a global's non-constant initializer
			t.Fatalf("%d errors in many.c, want one or two for each of its 30 lines:\n%+v", errs, d.Items)
		}
	})
	t.Run("include_removed", func(t *testing.T) {
		// An edit to a header's own includes: clangd first publishes for
		// the new version from the AST built on the old includes (still
		// clean), then rebuilds them and publishes the errors. The answer
		// is the second set. A large include makes the rebuild slow
		// enough for the first publication to come.
		var big strings.Builder
		for i := 0; i < 20000; i++ {
			fmt.Fprintf(&big, "struct big%d { int a, b; }; int big_fn%d(struct big%d *p, int n);\n", i, i, i)
		}
		writeFile(t, filepath.Join(dir, "big.h"), big.String())
		writeFile(t, filepath.Join(dir, "limits.h"), "#define LIMIT 3\n")
		clean := "#pragma once\n#include \"big.h\"\n#include \"limits.h\" /* LIMIT */\nstatic inline int limit(void) { return LIMIT; }\n"
		writeFile(t, filepath.Join(dir, "user.h"), clean)
		for _, f := range []string{"big.h", "limits.h", "user.h"} {
			defer os.Remove(filepath.Join(dir, f))
		}
		if d, err := s.Diagnostics(ctx, "user.h"); err != nil || !d.Ready || len(d.Items) != 0 {
			t.Fatalf("user.h before the edit, want clean: %+v %v", d, err)
		}
		d := written(t, ctx, s, dir, "user.h", strings.Replace(clean, "#include \"limits.h\" /* LIMIT */\n", "", 1))
		if !d.Ready || len(d.Items) == 0 || !strings.Contains(d.Items[0].Message, "LIMIT") {
			t.Fatalf("user.h without the include that defines LIMIT, want the undeclared identifier: %+v", d)
		}
	})
	t.Run("rename", func(t *testing.T) {
		renamed(t, ctx, s, lsp.Position{File: "main.c", Line: 7, Symbol: "square_area"}, "sq_area", "main.c,shapes.c,shapes.h")
		for _, f := range []string{"main.c", "shapes.c", "shapes.h"} {
			b, _ := os.ReadFile(filepath.Join(dir, f))
			if strings.Contains(string(b), "square_area(") || !strings.Contains(string(b), "sq_area(") {
				t.Fatalf("%s after rename:\n%s", f, b)
			}
		}
	})
}

// Without compile_commands.json clangd knows only the files opened so far:
// references from the header find the declaration alone, and a rename would
// change shapes.h and leave main.c and shapes.c calling the old name. The
// answer says it may be incomplete and the rename is refused, changing
// nothing, with what to do.
func TestClangdWithoutCompileCommands(t *testing.T) {
	requireClangd(t)
	dir := testenv.LSPProject(t, "cproj") // CMakeLists.txt only
	s := newSupervisor(t, dir)
	ctx := ctxT(t)
	pos := lsp.Position{File: "shapes.h", Line: 10, Symbol: "square_area"}
	refs, err := s.References(ctx, pos)
	if err != nil {
		t.Fatal(err)
	}
	if len(refs.Items) < 3 && !strings.Contains(strings.Join(refs.Notes, "\n"), "compile_commands.json") {
		t.Fatalf("%d reference(s) and no note that clangd sees only open files: %+v", len(refs.Items), refs)
	}
	before, _ := os.ReadFile(filepath.Join(dir, "shapes.h"))
	_, err = s.Rename(ctx, pos, "sq_area")
	if err == nil || !strings.Contains(err.Error(), "compile_commands.json") || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("rename without a compilation database: %v", err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "shapes.h")); string(after) != string(before) {
		t.Fatalf("shapes.h changed:\n%s", after)
	}
}
