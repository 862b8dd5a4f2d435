package tools_test

import "encoding/json"
import "errors"
import "fmt"
import "os"
import "path/filepath"
import "slices"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/tools"

// stageID calls a staging tool and returns the edit id it staged, failing
// the test unless the result says it is proposed and want is in its text.
func stageID(t *testing.T, r *tools.Run, name string, args any, want ...string) string {
	t.Helper()
	res := callResult(t, r, name, args)
	text := res.AllText()
	st, ok := res.Structured.(*tools.StagedDiff)
	if res.IsError || !ok || st.EditID == "" || !strings.Contains(text, "(proposed)") {
		t.Fatalf("%s %v: want a staged edit, got %q", name, args, text)
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Fatalf("%s %v: want %q in %q", name, args, w, text)
		}
	}
	return st.EditID
}

// TestLSPApplyGo applies a quick fix (gopls's "Add import") and organize
// imports through resolve, and shows that a file changed after staging
// rejects the whole edit.
func TestLSPApplyGo(t *testing.T) {
	r, dir := lspRun(t)
	file := filepath.Join(dir, "imp.go")
	src := "package shapes\n\nimport (\n\t\"strings\"\n\t\"fmt\"\n)\n\nfunc Hello() string { return fmt.Sprint(\"x\") }\n\nfunc Up(s []byte) []byte { return bytes.ToUpper(s) }\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	listed := callResult(t, r, "lsp", map[string]any{"action": "code_actions", "file": "imp.go", "line": 10, "symbol": "bytes"}).AllText()
	if !strings.Contains(listed, `Add import`) || !strings.Contains(listed, "(quickfix)") || !strings.Contains(listed, "Organize Imports (source.organizeImports)") {
		t.Fatalf("code_actions: %s", listed)
	}

	t.Run("quickfix", func(t *testing.T) {
		id := stageID(t, r, "lsp_apply", map[string]any{"file": "imp.go", "line": 10, "symbol": "bytes", "action": "quickfix"}, `+	"bytes"`)
		if testenv.ReadText(t, file) != src {
			t.Fatal("lsp_apply wrote the file before resolve")
		}
		res := callResult(t, r, "resolve", map[string]any{"edit_id": id, "action": "accept"})
		if res.IsError || !strings.Contains(testenv.ReadText(t, file), `"bytes"`) {
			t.Fatalf("accept: %s\n%s", res.AllText(), testenv.ReadText(t, file))
		}
		// Diagnostics after: the undefined name is cleared, the unused
		// import (there before) is not new.
		if text := res.AllText(); !strings.Contains(text, "lsp: imp.go") || !strings.Contains(text, "cleared") {
			t.Fatalf("accept: want imp.go's diagnostics after, got %s", text)
		}
	})
	t.Run("organize imports with a drift rejection", func(t *testing.T) {
		id := stageID(t, r, "lsp_apply", map[string]any{"file": "imp.go", "line": 1, "action": "source.organizeImports"}, `-	"strings"`)
		drifted := testenv.ReadText(t, file) + "\n// changed after staging\n"
		if err := os.WriteFile(file, []byte(drifted), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := call(t, r, "resolve", map[string]any{"edit_id": id, "action": "accept"})
		if !errors.Is(err, search.ErrStale) || !strings.Contains(err.Error(), "imp.go") || !strings.Contains(err.Error(), "lsp_apply again") {
			t.Fatalf("accept after a change: want it rejected naming imp.go, got %v", err)
		}
		if testenv.ReadText(t, file) != drifted {
			t.Fatal("a rejected edit changed the file")
		}
		callResult(t, r, "resolve", map[string]any{"edit_id": id, "action": "discard"})
		id = stageID(t, r, "lsp_apply", map[string]any{"file": "imp.go", "line": 1, "action": "Organize Imports"})
		res := callResult(t, r, "resolve", map[string]any{"edit_id": id, "action": "accept"})
		got := testenv.ReadText(t, file)
		if res.IsError || strings.Contains(got, `"strings"`) || !strings.Contains(got, "// changed after staging") {
			t.Fatalf("organize imports: %s\n%s", res.AllText(), got)
		}
	})
	t.Run("bad action", func(t *testing.T) {
		_, err := call(t, r, "lsp_apply", map[string]any{"file": "imp.go", "line": 1, "action": "no such thing"})
		if err == nil || !strings.Contains(err.Error(), "the actions offered are") {
			t.Fatalf("want the actions listed, got %v", err)
		}
		_, err = call(t, r, "lsp_apply", map[string]any{"file": "imp.go", "line": 1, "action": "99"})
		if err == nil || !strings.Contains(err.Error(), "no action 99") {
			t.Fatalf("want no action 99, got %v", err)
		}
	})
}

// tsRun is a run on a copy of testdata/lsp/tsproj with
// typescript-language-server.
func tsRun(t *testing.T) (*tools.Run, string) {
	t.Helper()
	testenv.RequireBinary(t, "typescript-language-server")
	dir := testenv.LSPProject(t, "tsproj")
	return startRun(t, tools.Config{WorkDir: dir, Policy: tools.PolicyOf(tools.Allow), LSP: lspSupervisor(t, dir, 8*time.Second)}), dir
}

// TestLSPApplyTypeScript applies typescript-language-server's quick fix
// and organize imports through resolve, with a drift rejection.
func TestLSPApplyTypeScript(t *testing.T) {
	r, dir := tsRun(t)
	file := filepath.Join(dir, "src/imp.ts")
	src := "import { total, Square } from \"./shapes\";\nimport { big } from \"./app\";\n\nexport const n: number = total([]);\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Run("quickfix", func(t *testing.T) {
		id := stageID(t, r, "lsp_apply", map[string]any{"file": "src/imp.ts", "line": 1, "symbol": "Square", "action": "quickfix"})
		if testenv.ReadText(t, file) != src {
			t.Fatal("lsp_apply wrote the file before resolve")
		}
		res := callResult(t, r, "resolve", map[string]any{"edit_id": id, "action": "accept"})
		got := testenv.ReadText(t, file)
		if res.IsError || strings.Contains(got, "Square") || !strings.Contains(got, "total") {
			t.Fatalf("accept: %s\n%s", res.AllText(), got)
		}
	})
	t.Run("organize imports with a drift rejection", func(t *testing.T) {
		// Organize imports sorts them: the test holds their order.
		id := stageID(t, r, "lsp_apply", map[string]any{"file": "src/imp.ts", "line": 1, "action": "source.organizeImports"}, `+import { big } from "./app";`)
		drifted := testenv.ReadText(t, file) + "// changed after staging\n"
		if err := os.WriteFile(file, []byte(drifted), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := call(t, r, "resolve", map[string]any{"edit_id": id, "action": "accept"}); !errors.Is(err, search.ErrStale) {
			t.Fatalf("accept after a change: want it rejected, got %v", err)
		}
		if testenv.ReadText(t, file) != drifted {
			t.Fatal("a rejected edit changed the file")
		}
		id = stageID(t, r, "lsp_apply", map[string]any{"file": "src/imp.ts", "line": 1, "action": "source.organizeImports"})
		res := callResult(t, r, "resolve", map[string]any{"edit_id": id, "action": "accept"})
		got := testenv.ReadText(t, file)
		if res.IsError || !strings.HasPrefix(got, "import { big } from \"./app\";\nimport { total } from \"./shapes\";\n") || !strings.Contains(got, "// changed after staging") {
			t.Fatalf("organize imports: %s\n%s", res.AllText(), got)
		}
	})
}

// TestLSPRenamePreview stages a rename with preview, discards it (nothing
// changes), stages it again and accepts it (every file renamed).
func TestLSPRenamePreview(t *testing.T) {
	r, dir := lspRun(t)
	before := map[string]string{}
	for _, f := range []string{"shapes.go", "use.go"} {
		before[f] = testenv.ReadText(t, filepath.Join(dir, f))
	}
	args := map[string]any{"file": "shapes.go", "line": 0, "symbol": "Square", "new_name": "Box", "preview": true}
	for i, l := range strings.Split(before["shapes.go"], "\n") {
		if strings.HasPrefix(l, "type Square") {
			args["line"] = i + 1
		}
	}
	id := stageID(t, r, "lsp_rename", args, "rename Square to Box", "+type Box")
	for f, want := range before {
		if testenv.ReadText(t, filepath.Join(dir, f)) != want {
			t.Fatalf("preview wrote %s", f)
		}
	}
	if res := callResult(t, r, "resolve", map[string]any{"edit_id": id, "action": "discard"}); !strings.Contains(res.AllText(), "no file was changed") {
		t.Fatalf("discard: %s", res.AllText())
	}
	for f, want := range before {
		if testenv.ReadText(t, filepath.Join(dir, f)) != want {
			t.Fatalf("discard changed %s", f)
		}
	}
	id = stageID(t, r, "lsp_rename", args)
	res := callResult(t, r, "resolve", map[string]any{"edit_id": id, "action": "accept"})
	if res.IsError {
		t.Fatal(res.AllText())
	}
	for f := range before {
		if got := testenv.ReadText(t, filepath.Join(dir, f)); strings.Contains(got, "Square") || !strings.Contains(got, "Box") {
			t.Fatalf("%s after accept:\n%s", f, got)
		}
	}
}

// TestRenameFileTypeScript moves a TypeScript module: its importer is
// updated in the same all-or-nothing change, a change to the importer after
// staging rejects the whole move (nothing moved), and a move applied at
// once (no preview) works the same.
func TestRenameFileTypeScript(t *testing.T) {
	r, dir := tsRun(t)
	app := filepath.Join(dir, "src/app.ts")
	orig := testenv.ReadText(t, app)
	id := stageID(t, r, "rename_file", map[string]any{"from": "src/shapes.ts", "to": "src/geo/shapes.ts", "preview": true},
		"1 file moved", `+import { Shape, Square, total } from "./geo/shapes";`, "--- a/src/shapes.ts", "+++ b/src/geo/shapes.ts")
	if _, err := os.Stat(filepath.Join(dir, "src/shapes.ts")); err != nil {
		t.Fatal("preview moved the file")
	}
	drifted := orig + "// changed after staging\n"
	if err := os.WriteFile(app, []byte(drifted), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := call(t, r, "resolve", map[string]any{"edit_id": id, "action": "accept"}); !errors.Is(err, search.ErrStale) {
		t.Fatalf("accept after a change: want it rejected, got %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "src/shapes.ts")); err != nil {
		t.Fatal("a rejected move moved the file")
	}
	if _, err := os.Stat(filepath.Join(dir, "src/geo")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a rejected move left its directory: %v", err)
	}
	if testenv.ReadText(t, app) != drifted {
		t.Fatal("a rejected move changed the importer")
	}
	callResult(t, r, "resolve", map[string]any{"edit_id": id, "action": "discard"})
	id = stageID(t, r, "rename_file", map[string]any{"from": "src/shapes.ts", "to": "src/geo/shapes.ts", "preview": true})
	res := callResult(t, r, "resolve", map[string]any{"edit_id": id, "action": "accept"})
	if res.IsError || !strings.Contains(res.AllText(), "src/shapes.ts -> src/geo/shapes.ts") || !strings.Contains(res.AllText(), "lsp: ") {
		t.Fatalf("accept: want the move and diagnostics after, got %s", res.AllText())
	}
	if _, err := os.Stat(filepath.Join(dir, "src/shapes.ts")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the file is still at its old path")
	}
	if got := testenv.ReadText(t, app); !strings.Contains(got, `from "./geo/shapes"`) || !strings.Contains(got, "// changed after staging") {
		t.Fatalf("importer after the move:\n%s", got)
	}
	if !strings.Contains(testenv.ReadText(t, filepath.Join(dir, "src/geo/shapes.ts")), "export class Square") {
		t.Fatal("the moved file lost its content")
	}

	// At once, back: the importer follows again.
	res = callResult(t, r, "rename_file", map[string]any{"from": "src/geo", "to": "src/shapes"})
	if res.IsError || !strings.Contains(res.AllText(), "src/geo/shapes.ts -> src/shapes/shapes.ts") {
		t.Fatalf("rename_file: %s", res.AllText())
	}
	if got := testenv.ReadText(t, app); !strings.Contains(got, `from "./shapes/shapes"`) {
		t.Fatalf("importer after the directory move:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "src/geo")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the moved directory is left behind: %v", err)
	}

	t.Run("refusals", func(t *testing.T) {
		for _, c := range []struct {
			args map[string]any
			want string
		}{
			{map[string]any{"from": "src/nope.ts", "to": "src/x.ts"}, "does not exist"},
			{map[string]any{"from": "src/app.ts", "to": "src/shapes/shapes.ts"}, "already exists"},
			{map[string]any{"from": "src/app.ts", "to": "../outside.ts"}, "outside"},
			{map[string]any{"from": "src/shapes", "to": "src/shapes/inner"}, "into itself"},
		} {
			_, err := call(t, r, "rename_file", c.args)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v: want %q, got %v", c.args, c.want, err)
			}
		}
	})
}

// TestLSPStatusAndCapabilities: once gopls runs, status gives its state
// and version and capabilities what it supports and lacks; a server that
// cannot start says why. A timeout within bounds answers as usual; one past
// the bound is refused by the schema.
func TestLSPStatusAndCapabilities(t *testing.T) {
	r, _ := lspRun(t)
	callResult(t, r, "lsp", map[string]any{"action": "hover", "file": "use.go", "line": 4, "symbol": "Big", "timeout": 120})
	res := callResult(t, r, "lsp", map[string]any{"action": "status"})
	status := res.AllText()
	if !strings.Contains(status, "gopls (go): running, pid ") || !strings.Contains(status, ", ready, ") || !strings.Contains(status, "v0.") {
		t.Fatalf("status: %s", status)
	}
	// The typed answer holds the rows; its JSON puts them in an object.
	out := structured[*tools.LSPResult](t, res)
	i := slices.IndexFunc(out.Servers, func(row lsp.StatusRow) bool { return row.Server == "gopls" })
	if out.Action != "status" || i < 0 || !out.Servers[i].Running || out.Servers[i].PID <= 0 || !strings.Contains(status, fmt.Sprintf("pid %d", out.Servers[i].PID)) {
		t.Fatalf("status: want gopls's running row, got %+v", out)
	}
	var rows struct{ Servers []lsp.StatusRow }
	if b, err := json.Marshal(out); err != nil || json.Unmarshal(b, &rows) != nil || len(rows.Servers) != len(out.Servers) {
		t.Fatalf("status JSON: want {\"servers\": [...]}, got %s (%v)", b, err)
	}
	caps := callResult(t, r, "lsp", map[string]any{"action": "capabilities"}).AllText()
	for _, want := range []string{"gopls (go): ready", "supports: definition", "rename", "code_actions (", "source.organizeImports", "execute_command", "dart (dart): not started: pubspec.yaml found, dart not on PATH"} {
		if !strings.Contains(caps, want) {
			t.Errorf("capabilities: want %q in\n%s", want, caps)
		}
	}
	if _, err := call(t, r, "lsp", map[string]any{"action": "status", "timeout": 601}); err == nil || !strings.Contains(err.Error(), "timeout") {
		t.Fatalf("timeout 601: want it refused, got %v", err)
	}
}

// TestLSPDiagnosticsFiles checks a glob and a list of files together with
// gopls: their errors are counted and shown as one page; a glob that
// matches nothing says so.
func TestLSPDiagnosticsFiles(t *testing.T) {
	r, dir := lspRun(t)
	if err := os.WriteFile(filepath.Join(dir, "broken.go"), []byte("package shapes\n\nvar a int = \"x\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sub/more.go"), []byte("package sub\n\nvar b string = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := callResult(t, r, "lsp", map[string]any{"action": "diagnostics", "files": []string{"**/*.go"}, "timeout": 120})
	out := res.AllText()
	page := structured[*tools.LSPResult](t, res).Diagnostics
	if page == nil || page.Total != 2 || !strings.Contains(out, "broken.go") || !strings.Contains(out, "sub/more.go") {
		t.Fatalf("diagnostics over **/*.go: %s", out)
	}
	res = callResult(t, r, "lsp", map[string]any{"action": "diagnostics", "files": []string{"use.go", "sub/*.go"}})
	if page := structured[*tools.LSPResult](t, res).Diagnostics; page == nil || page.Total != 1 || !strings.Contains(res.AllText(), "sub/more.go") {
		t.Fatalf("diagnostics over a list: %s", res.AllText())
	}
	if out := callResult(t, r, "lsp", map[string]any{"action": "diagnostics", "files": []string{"nope/**/*.go"}}).AllText(); !strings.Contains(out, "matches no file") {
		t.Fatalf("a glob matching nothing: %s", out)
	}
}

// TestLSPApplyCommand stages typescript-language-server's "Extract to
// function", an action that is a command (_typescript.applyRefactoring):
// the edit the server sends back through workspace/applyEdit is staged,
// not written, and resolve applies it. gopls's "Browse documentation"
// command makes no edit and is refused without being run.
func TestLSPApplyCommand(t *testing.T) {
	r, dir := tsRun(t)
	app := filepath.Join(dir, "src/app.ts")
	orig := testenv.ReadText(t, app)
	listed := callResult(t, r, "lsp", map[string]any{"action": "code_actions", "file": "src/app.ts", "line": 9, "end_line": 10}).AllText()
	if !strings.Contains(listed, "Extract to function in module scope (refactor.extract.function) [runs _typescript.applyRefactoring]") {
		t.Fatalf("code_actions: %s", listed)
	}
	id := stageID(t, r, "lsp_apply", map[string]any{"file": "src/app.ts", "line": 9, "end_line": 10, "action": "Extract to function in module scope"},
		"+  return newFunction();", "+function newFunction() {")
	if testenv.ReadText(t, app) != orig {
		t.Fatal("the command's edit was written before resolve")
	}
	res := callResult(t, r, "resolve", map[string]any{"edit_id": id, "action": "accept"})
	if got := testenv.ReadText(t, app); res.IsError || !strings.Contains(got, "function newFunction()") {
		t.Fatalf("accept: %s\n%s", res.AllText(), got)
	}

	t.Run("a command that does not edit", func(t *testing.T) {
		r, _ := lspRun(t)
		listed := callResult(t, r, "lsp", map[string]any{"action": "code_actions", "file": "use.go", "line": 4, "symbol": "Big"}).AllText()
		if !strings.Contains(listed, "[refused: its command is of kind source.doc") {
			t.Fatalf("code_actions: %s", listed)
		}
		_, err := call(t, r, "lsp_apply", map[string]any{"file": "use.go", "line": 4, "symbol": "Big", "action": "source.doc"})
		if err == nil || !strings.Contains(err.Error(), "nothing was run or staged") {
			t.Fatalf("want the command refused, got %v", err)
		}
	})
}

// TestLSPApplyCreatesFile stages typescript-language-server's "Move to a
// new file", whose edit creates a file: the creation is staged with the
// other edits and applied with them; a file created at that path after
// staging rejects the whole change.
func TestLSPApplyCreatesFile(t *testing.T) {
	r, dir := tsRun(t)
	args := map[string]any{"file": "src/app.ts", "line": 3, "end_line": 6, "action": "Move to a new file"}
	id := stageID(t, r, "lsp_apply", args, "--- /dev/null", "+++ b/src/big.ts")
	if _, err := os.Stat(filepath.Join(dir, "src/big.ts")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("lsp_apply created the file before resolve")
	}
	if err := os.WriteFile(filepath.Join(dir, "src/big.ts"), []byte("// taken\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := call(t, r, "resolve", map[string]any{"edit_id": id, "action": "accept"}); !errors.Is(err, search.ErrStale) || !strings.Contains(err.Error(), "src/big.ts") {
		t.Fatalf("accept with the new file's path taken: want it rejected, got %v", err)
	}
	if err := os.Remove(filepath.Join(dir, "src/big.ts")); err != nil {
		t.Fatal(err)
	}
	res := callResult(t, r, "resolve", map[string]any{"edit_id": id, "action": "accept"})
	if res.IsError || !strings.Contains(res.AllText(), "src/big.ts (created)") {
		t.Fatalf("accept: %s", res.AllText())
	}
	if got := testenv.ReadText(t, filepath.Join(dir, "src/big.ts")); !strings.Contains(got, "export function big()") {
		t.Fatalf("the new file:\n%s", got)
	}
	if got := testenv.ReadText(t, filepath.Join(dir, "src/app.ts")); strings.Contains(got, "export function big()") || !strings.Contains(got, `"./big"`) {
		t.Fatalf("app.ts after the move:\n%s", got)
	}
}

// TestLSPApplyForDiagnostic asks gopls for the fixes of one diagnostic,
// found by a part of its message with no line, and stages one; a
// diagnostic that matches none is refused with those there listed.
func TestLSPApplyForDiagnostic(t *testing.T) {
	r, dir := lspRun(t)
	file := filepath.Join(dir, "up.go")
	if err := os.WriteFile(file, []byte("package shapes\n\nfunc Up(s []byte) []byte { return bytes.ToUpper(s) }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	listed := callResult(t, r, "lsp", map[string]any{"action": "code_actions", "file": "up.go", "diagnostic": "undefined: bytes"}).AllText()
	if !strings.Contains(listed, `the diagnostic "undefined: bytes" of up.go`) || !strings.Contains(listed, "Add import") {
		t.Fatalf("code_actions for a diagnostic: %s", listed)
	}
	id := stageID(t, r, "lsp_apply", map[string]any{"file": "up.go", "diagnostic": "undefined: bytes", "action": "quickfix"}, `+import "bytes"`)
	callResult(t, r, "resolve", map[string]any{"edit_id": id, "action": "discard"})
	_, err := call(t, r, "lsp", map[string]any{"action": "code_actions", "file": "up.go", "diagnostic": "no such message"})
	if err == nil || !strings.Contains(err.Error(), `no diagnostic matches "no such message"`) || !strings.Contains(err.Error(), "undefined: bytes") {
		t.Fatalf("want the diagnostics listed, got %v", err)
	}
}

// TestLSPApplyAddTest stages gopls's "Add test for Big": a command whose
// edit, sent back through workspace/applyEdit, creates shapes_test.go
// (a create operation and its text); resolve creates it.
func TestLSPApplyAddTest(t *testing.T) {
	r, dir := lspRun(t)
	id := stageID(t, r, "lsp_apply", map[string]any{"file": "use.go", "line": 4, "symbol": "Big", "action": "source.addTest"}, "--- /dev/null", "+++ b/use_test.go")
	if _, err := os.Stat(filepath.Join(dir, "use_test.go")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the test file exists before resolve")
	}
	res := callResult(t, r, "resolve", map[string]any{"edit_id": id, "action": "accept"})
	if got := testenv.ReadText(t, filepath.Join(dir, "use_test.go")); res.IsError || !strings.Contains(got, "func TestBig(") {
		t.Fatalf("accept: %s\n%s", res.AllText(), got)
	}
}

// TestRenameFileDiagnostics: a moved file carries its diagnostics with it
// (its old error is not new at its new path, nor cleared at its old one),
// and a file that imports it by its old path, which pyright gives no edit
// for, is checked and its broken import reported new; moving it back
// clears that and reports nothing of the old path.
func TestRenameFileDiagnostics(t *testing.T) {
	r, _ := projectRun(t, "pyright-langserver", map[string]string{
		"pyproject.toml":  "[project]\nname = \"p\"\n",
		"pkg/__init__.py": "",
		"pkg/util.py":     "def helper(x: int) -> int:\n    return x\n\n\nBAD: int = \"x\"\n",
		"pkg/main.py":     "from pkg.util import helper\n\nprint(helper(1))\n",
	})
	if out, err := lspCall(t, r, "lsp", map[string]any{"action": "diagnostics", "file": "pkg/util.py"}); err != nil || !strings.Contains(out, "pkg/util.py:5:") {
		t.Fatalf("pkg/util.py before the move, want its one error: %v\n%s", err, out)
	}
	rep, out := writeCall(t, r, "rename_file", map[string]any{"from": "pkg/util.py", "to": "pkg/tools.py"})
	importBroken := false
	for _, d := range rep.New {
		if d.Path == "pkg/tools.py" || d.Path == "pkg/util.py" {
			t.Errorf("the moved file's old error reported new: %s", d)
		}
		importBroken = importBroken || d.Path == "pkg/main.py" && strings.Contains(d.Message, "pkg.util")
	}
	if !importBroken || rep.Cleared["pkg/util.py"] != 0 || rep.Incomplete["pkg/util.py"] != "" {
		t.Fatalf("after moving pkg/util.py, want main.py's import reported new and nothing of the old path:\n%s", out)
	}
	rep, out = writeCall(t, r, "rename_file", map[string]any{"from": "pkg/tools.py", "to": "pkg/util.py"})
	if len(rep.New) != 0 || rep.Cleared["pkg/main.py"] == 0 || rep.Cleared["pkg/tools.py"] != 0 || rep.Incomplete["pkg/tools.py"] != "" {
		t.Fatalf("after moving it back, want main.py's error cleared and nothing else:\n%s", out)
	}
}

// TestRenameFileTypeScriptExcludedTests: a test file outside the tsconfig
// (tsserver checks it in an inferred project) that mentions a name on an
// import line the move rewrites, but not the moved module, has nothing
// cleared by the move: its one error is there before and after. Its
// baseline cannot be had after the move by showing the server the old
// text (tsserver resolves imports on disk, where the moved file is at its
// new path only: the old api.ts would not find util and the test would
// get an error it never had), so it is taken before the move.
func TestRenameFileTypeScriptExcludedTests(t *testing.T) {
	r, dir := projectRun(t, "typescript-language-server", map[string]string{
		"package.json":  `{ "name": "p", "version": "0.1.0", "private": true }` + "\n",
		"tsconfig.json": `{"compilerOptions":{"target":"ES2020","module":"ESNext","moduleResolution":"Bundler","strict":true,"noEmit":true},"include":["src"],"exclude":["src/__tests__"]}` + "\n",
		"src/util.ts":   "export interface Filters {\n  key: string\n}\n",
		"src/api.ts": "import type { Filters } from './util'\n\nexport type { Filters } from './util'\n\n" +
			"export interface RefetchFilters extends Filters {\n  refetch?: boolean\n}\n\nexport function refetch(f: RefetchFilters): string {\n  return f.key\n}\n",
		"src/__tests__/api.test.ts": "import { refetch, type Filters } from '../api'\n\n" +
			"const f: Filters = { key: 'a' }\nrefetch({ key: f.key, refetch: true })\n\nexport const bad: number = 'not a number'\n",
	})
	const test = "src/__tests__/api.test.ts"
	rep, out := writeCall(t, r, "rename_file", map[string]any{"from": "src/util.ts", "to": "src/util_moved.ts"})
	if !strings.Contains(testenv.ReadText(t, filepath.Join(dir, "src/api.ts")), "'./util_moved'") {
		t.Fatalf("the importer was not updated:\n%s", out)
	}
	for _, d := range rep.New {
		if d.Path == test {
			t.Errorf("reported new in %s: %s", test, d)
		}
	}
	if n := rep.Cleared[test]; n != 0 {
		t.Fatalf("%d diagnostic(s) of %s reported cleared; its one error is there before and after:\n%s", n, test, out)
	}
	if !slices.Contains(rep.Checked, test) || rep.Unknown[test] != "" {
		t.Fatalf("%s not compared with its diagnostics from before the move:\n%s", test, out)
	}
	if got, err := lspCall(t, r, "lsp", map[string]any{"action": "diagnostics", "file": test}); err != nil || !strings.Contains(got, "1 error") {
		t.Fatalf("%s after the move, want its one error: %v\n%s", test, err, got)
	}
}
