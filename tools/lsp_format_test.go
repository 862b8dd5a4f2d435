package tools_test

import "errors"
import "os"
import "path/filepath"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/tools"

// The Go file before and after gofmt.
const (
	unformattedGo = "package shapes\n\nfunc  Double(x  int)int{\nreturn x*2}\n"
	gofmtGo       = "package shapes\n\nfunc Double(x int) int {\n\treturn x * 2\n}\n"
)

// TestLSPFormatGopls: lsp_format stages gopls's formatting (gofmt) for
// resolve, writing nothing before accept; a file changed since rejects
// the whole edit; a formatted file stages nothing and says so; a range
// is refused with why (gopls formats whole files only).
func TestLSPFormatGopls(t *testing.T) {
	r, dir := lspRun(t)
	file := filepath.Join(dir, "double.go")
	testenv.WriteFiles(t, dir, map[string]string{"double.go": unformattedGo})
	t.Run("staged and accepted", func(t *testing.T) {
		id := stageID(t, r, "lsp_format", map[string]any{"file": "double.go"}, "+func Double(x int) int {")
		if testenv.ReadText(t, file) != unformattedGo {
			t.Fatal("lsp_format wrote the file before resolve")
		}
		res := callResult(t, r, "resolve", map[string]any{"edit_id": id, "action": "accept"})
		if got := testenv.ReadText(t, file); res.IsError || got != gofmtGo {
			t.Fatalf("accept: %s\n%q", res.AllText(), got)
		}
		if res.Diagnostics == nil || len(res.Diagnostics.Checked) == 0 {
			t.Fatalf("accept: want diagnostics on write over double.go, got %+v", res.Diagnostics)
		}
	})
	t.Run("formatted already", func(t *testing.T) {
		res := callResult(t, r, "lsp_format", map[string]any{"file": "double.go"})
		st, ok := res.Structured.(*tools.StagedDiff)
		if !ok || st.EditID != "" || len(st.Files) != 0 || !strings.Contains(res.AllText(), "formatted already as gopls formats it") {
			t.Fatalf("a formatted file: want nothing staged, said so, got %T %s", res.Structured, res.AllText())
		}
	})
	t.Run("drift rejects", func(t *testing.T) {
		testenv.WriteFiles(t, dir, map[string]string{"double.go": unformattedGo})
		id := stageID(t, r, "lsp_format", map[string]any{"file": "double.go"})
		drifted := unformattedGo + "// changed after staging\n"
		testenv.WriteFiles(t, dir, map[string]string{"double.go": drifted})
		if _, err := call(t, r, "resolve", map[string]any{"edit_id": id, "action": "accept"}); !errors.Is(err, search.ErrStale) {
			t.Fatalf("accept after a change: want it rejected, got %v", err)
		}
		if testenv.ReadText(t, file) != drifted {
			t.Fatal("a rejected format changed the file")
		}
	})
	t.Run("range unsupported", func(t *testing.T) {
		_, err := call(t, r, "lsp_format", map[string]any{"file": "double.go", "line": 3, "end_line": 4})
		if !errors.Is(err, lsp.ErrNoFormatting) && (err == nil || !strings.Contains(err.Error(), "offers no textDocument/rangeFormatting")) {
			t.Fatalf("a range with gopls: want it refused as unsupported, got %v", err)
		}
	})
}

// formatRun is a run over dir whose supervisor formats on write.
func formatRun(t *testing.T, dir string, opts ...lsp.Option) *tools.Run {
	t.Helper()
	return startRun(t, tools.Config{WorkDir: dir, Policy: tools.PolicyOf(tools.Allow), LSP: lspSupervisor(t, dir, 20*time.Second, append([]lsp.Option{lsp.WithFormatOnWrite(true)}, opts...)...)})
}

// TestLSPFormatOnWriteGopls: with format on write, a write is formatted
// by gopls before diagnostics on write, and the result says so per file;
// a file no server reads says why it was not formatted; a row's
// FormatOnWrite false leaves its files alone, silently since it is off.
func TestLSPFormatOnWriteGopls(t *testing.T) {
	testenv.RequireBinary(t, "gopls")
	dir := testenv.LSPProject(t, "goproj")
	r := formatRun(t, dir)
	res := callResult(t, r, "write", map[string]any{"path": "double.go", "content": unformattedGo})
	if got := testenv.ReadText(t, filepath.Join(dir, "double.go")); res.IsError || got != gofmtGo {
		t.Fatalf("write with format on write: %s\n%q", res.AllText(), got)
	}
	f := res.Diagnostics.Formatted
	if len(f) != 1 || !f[0].Formatted || f[0].Server != "gopls" || f[0].Path != "double.go" || f[0].Edits == 0 ||
		!strings.Contains(res.AllText(), "formatted double.go with gopls") {
		t.Fatalf("want double.go formatted by gopls, reported: %+v\n%s", f, res.AllText())
	}
	// Another writer: edit.
	res = callResult(t, r, "edit", map[string]any{"path": "double.go", "old_string": "return x * 2", "new_string": "return   x*3"})
	if got := testenv.ReadText(t, filepath.Join(dir, "double.go")); res.IsError || got != strings.Replace(gofmtGo, "x * 2", "x * 3", 1) ||
		len(res.Diagnostics.Formatted) != 1 || !res.Diagnostics.Formatted[0].Formatted {
		t.Fatalf("edit with format on write: %s\n%q", res.AllText(), got)
	}
	res = callResult(t, r, "write", map[string]any{"path": "notes.txt", "content": "x  y\n"})
	if f := res.Diagnostics.Formatted; len(f) != 1 || f[0].Formatted || f[0].Reason != "no language server reads such files" ||
		!strings.Contains(res.AllText(), "not formatted notes.txt: no language server reads such files") {
		t.Fatalf("a file no server reads: want why it was not formatted, got %+v\n%s", f, res.AllText())
	}

	off := false
	gopls := lsp.DefaultServers()[0]
	if gopls.Name != "gopls" {
		t.Fatalf("the first default server is %s, not gopls", gopls.Name)
	}
	gopls.FormatOnWrite = &off
	dir2 := testenv.LSPProject(t, "goproj")
	r2 := formatRun(t, dir2, lsp.WithServers(gopls))
	res = callResult(t, r2, "write", map[string]any{"path": "double.go", "content": unformattedGo})
	if got := testenv.ReadText(t, filepath.Join(dir2, "double.go")); got != unformattedGo || res.Diagnostics.Formatted != nil || strings.Contains(res.AllText(), "formatted") {
		t.Fatalf("format_on_write false on gopls: want double.go left alone, got %q\n%s", got, res.AllText())
	}
}

// TestLSPFormatOnWriteServerLacksFormatting: a server that offers no
// formatting is named in the write's result, not skipped silently.
// pyright formats nothing.
func TestLSPFormatOnWriteServerLacksFormatting(t *testing.T) {
	testenv.RequireBinary(t, "pyright-langserver")
	dir := testenv.LSPProject(t, "pyproj")
	r := formatRun(t, dir)
	res := callResult(t, r, "write", map[string]any{"path": "fmt_me.py", "content": "x  =  1\n"})
	f := res.Diagnostics.Formatted
	if len(f) != 1 || f[0].Formatted || f[0].Server != "pyright" || !strings.Contains(f[0].Reason, "does not format") ||
		!strings.Contains(res.AllText(), "not formatted fmt_me.py: the server does not format") {
		t.Fatalf("pyright: want it said that it does not format, got %+v\n%s", f, res.AllText())
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "fmt_me.py")); string(got) != "x  =  1\n" {
		t.Fatalf("the file changed: %q", got)
	}
}

// TestLSPFormatTypeScript: typescript-language-server's formatting is
// staged for resolve, the indent read from the file (two spaces).
func TestLSPFormatTypeScript(t *testing.T) {
	r, dir := tsRun(t)
	src := "export function f(a:number,b:number){\n  if(a>b){\n      return a}\n  return b\n}\n"
	want := "export function f(a: number, b: number) {\n  if (a > b) {\n    return a\n  }\n  return b\n}\n"
	testenv.WriteFiles(t, filepath.Join(dir, "src"), map[string]string{"fmt.ts": src})
	id := stageID(t, r, "lsp_format", map[string]any{"file": "src/fmt.ts"}, "+export function f(a: number, b: number) {")
	if testenv.ReadText(t, filepath.Join(dir, "src/fmt.ts")) != src {
		t.Fatal("lsp_format wrote the file before resolve")
	}
	res := callResult(t, r, "resolve", map[string]any{"edit_id": id, "action": "accept"})
	if got := testenv.ReadText(t, filepath.Join(dir, "src/fmt.ts")); res.IsError || got != want {
		t.Fatalf("accept: %s\n%q", res.AllText(), got)
	}
}

// TestLSPFormatOnWriteNoServer: a Go file where gopls cannot start (no
// go.mod above it) says so in the write's result, and stays as written.
func TestLSPFormatOnWriteNoServer(t *testing.T) {
	dir := t.TempDir()
	r := formatRun(t, dir)
	res := callResult(t, r, "write", map[string]any{"path": "double.go", "content": unformattedGo})
	f := res.Diagnostics.Formatted
	if len(f) != 1 || f[0].Formatted || f[0].Server != "gopls" || !strings.HasPrefix(f[0].Reason, "no server: ") || !strings.Contains(f[0].Reason, "go.mod") ||
		!strings.Contains(res.AllText(), "not formatted double.go: no server") {
		t.Fatalf("no go.mod: want it said that no server formats it, got %+v\n%s", f, res.AllText())
	}
	if testenv.ReadText(t, filepath.Join(dir, "double.go")) != unformattedGo {
		t.Fatal("the file changed")
	}
}
