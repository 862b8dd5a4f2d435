package tools_test

import "encoding/json"
import "errors"
import "fmt"
import "net/url"
import "path/filepath"
import "slices"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/tools"

// requestPage calls name and returns its typed raw-request answer (the
// lsp tool's is its result's Request), failing unless it is one.
func requestPage(t *testing.T, r *tools.Run, name string, args map[string]any) *tools.RequestPage {
	t.Helper()
	res := callResult(t, r, name, args)
	pg, ok := res.Structured.(*tools.RequestPage)
	if out, isLSP := res.Structured.(*tools.LSPResult); isLSP {
		pg, ok = out.Request, out.Request != nil && out.Action == "request"
	}
	if res.IsError || !ok {
		t.Fatalf("%s %v: want a request answer, got %T %s", name, args, res.Structured, res.AllText())
	}
	return pg
}

// wholeAnswer reads every page of one answer of the named tool and joins
// them. Each page asks the server again, so when the answer changes in
// between (gopls's known packages grow as other tests fill the module
// cache) the pages carry different Answer digests; it then starts over,
// a few times at most.
func wholeAnswer(t *testing.T, r *tools.Run, name string, args map[string]any) (*tools.RequestPage, json.RawMessage) {
	t.Helper()
	for try := 0; try < 5; try++ {
		delete(args, "start")
		first := requestPage(t, r, name, args)
		if first.Answer == "" {
			t.Fatalf("%s: a page names no answer: %+v", name, first)
		}
		if first.Next == 0 {
			return first, json.RawMessage(first.Text)
		}
		text, same := first.Text, true
		for next := first.Next; next > 0 && same; {
			args["start"] = next
			more := requestPage(t, r, name, args)
			text += "\n" + more.Text
			next, same = more.Next, more.Answer == first.Answer
		}
		if same {
			return first, json.RawMessage(text)
		}
	}
	t.Fatalf("%s: the answer changed between pages five times in a row", name)
	return nil, nil
}

// fileURI is the file:// URI of path.
func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// refusedFor requires err to refuse a method of class for the tier, naming
// the tool that takes it.
func refusedFor(t *testing.T, err error, class lsp.MethodClass, tool string) {
	t.Helper()
	var ce *lsp.ClassError
	if !errors.As(err, &ce) || ce.Class != class || !strings.Contains(err.Error(), tool) {
		t.Fatalf("want a refusal of a %s-class method naming %s, got %v", class, tool, err)
	}
}

// TestLSPRequestGopls: a read method (documentHighlight, the position
// from line and symbol) and a gopls read command answer at read tier as
// JSON with workspace paths; a rename is refused there and, through
// lsp_request, staged for resolve; executeCommand of another command
// goes to lsp_command; tether's own messages and files outside the
// workspace are refused at every tier.
func TestLSPRequestGopls(t *testing.T) {
	r, dir := lspRun(t)
	t.Run("read method", func(t *testing.T) {
		pg := requestPage(t, r, "lsp", map[string]any{"action": "request", "file": "shapes.go", "method": "textDocument/documentHighlight", "line": 14, "symbol": "Side#2"})
		var hl []struct {
			Range struct {
				Start struct{ Line, Character int }
			}
		}
		if err := json.Unmarshal(pg.Result, &hl); err != nil || pg.Server != "gopls" || pg.Class != lsp.ReadMethod {
			t.Fatalf("documentHighlight: %+v (%v)", pg, err)
		}
		// Side is declared on line 10 and used twice on line 14 (0-based
		// 9 and 13; positions as gopls gives them, UTF-16 columns).
		at := map[[2]int]bool{}
		for _, h := range hl {
			at[[2]int{h.Range.Start.Line, h.Range.Start.Character}] = true
		}
		if !at[[2]int{9, 1}] || !at[[2]int{13, 42}] || !at[[2]int{13, 51}] {
			t.Fatalf("highlights of Side: want 10:2, 14:43 and 14:52 among %+v", hl)
		}
	})
	t.Run("read command", func(t *testing.T) {
		pg := requestPage(t, r, "lsp", map[string]any{"action": "request", "file": "use.go", "method": "workspace/executeCommand",
			"params": map[string]any{"command": "gopls.package_symbols", "arguments": []any{map[string]any{"URI": fileURI(filepath.Join(dir, "shapes.go"))}}}})
		var syms struct {
			PackageName string
			Files       []string
			Symbols     []struct{ Name string }
		}
		if err := json.Unmarshal(pg.Result, &syms); err != nil || pg.Class != lsp.ReadMethod {
			t.Fatalf("package_symbols: %+v (%v)", pg, err)
		}
		names := map[string]bool{}
		for _, s := range syms.Symbols {
			names[s.Name] = true
		}
		if syms.PackageName != "shapes" || !names["Square"] || !names["Total"] || len(syms.Files) == 0 || syms.Files[0] != "shapes.go" {
			t.Fatalf("package_symbols: want shapes' symbols and workspace paths, got %s", pg.Result)
		}
	})
	src := testenv.ReadText(t, filepath.Join(dir, "shapes.go"))
	rename := map[string]any{"file": "shapes.go", "method": "textDocument/rename", "params": map[string]any{"newName": "Width"}, "line": 10, "symbol": "Side"}
	t.Run("write method refused at read tier", func(t *testing.T) {
		_, err := call(t, r, "lsp", map[string]any{"action": "request", "file": "shapes.go", "method": "textDocument/rename", "params": map[string]any{"newName": "Width"}, "line": 10, "symbol": "Side"})
		refusedFor(t, err, lsp.WriteMethod, "lsp_request")
		_, err = call(t, r, "lsp", map[string]any{"action": "request", "file": "shapes.go", "method": "gopls/noSuchMethod"})
		refusedFor(t, err, lsp.WriteMethod, "lsp_request")
		_, err = call(t, r, "lsp", map[string]any{"action": "request", "file": "shapes.go", "method": "workspace/executeCommand", "params": map[string]any{"command": "gopls.tidy"}})
		refusedFor(t, err, lsp.ExecMethod, "lsp_command")
		_, err = call(t, r, "lsp_request", map[string]any{"file": "shapes.go", "method": "workspace/executeCommand", "params": map[string]any{"command": "gopls.tidy"}})
		if err == nil || !strings.Contains(err.Error(), "lsp_command") {
			t.Fatalf("executeCommand through lsp_request: want it sent to lsp_command, got %v", err)
		}
		if testenv.ReadText(t, filepath.Join(dir, "shapes.go")) != src {
			t.Fatal("a refused request changed the file")
		}
	})
	t.Run("owned and outside refused", func(t *testing.T) {
		_, err := call(t, r, "lsp_request", map[string]any{"file": "shapes.go", "method": "textDocument/didClose"})
		if err == nil || !strings.Contains(err.Error(), "tether runs the server") {
			t.Fatalf("didClose: want it refused as tether's own, got %v", err)
		}
		out := filepath.Join(filepath.Dir(dir), "elsewhere.go")
		_, err = call(t, r, "lsp", map[string]any{"action": "request", "file": "shapes.go", "method": "textDocument/hover",
			"params": map[string]any{"textDocument": map[string]any{"uri": fileURI(out)}, "position": map[string]any{"line": 0, "character": 0}}})
		if err == nil || !strings.Contains(err.Error(), "outside the workspace") {
			t.Fatalf("a URI outside the workspace: want it refused, got %v", err)
		}
	})
	t.Run("write method staged", func(t *testing.T) {
		pg := requestPage(t, r, "lsp_request", rename)
		if pg.Class != lsp.WriteMethod || pg.Staged == nil || pg.Staged.EditID == "" || len(pg.Staged.Files) != 2 || pg.Staged.Files[0].Path != "shapes.go" || pg.Staged.Files[1].Path != "use.go" {
			t.Fatalf("rename: want its edit staged for shapes.go and use.go, got %+v", pg.Staged)
		}
		var we struct {
			DocumentChanges []struct{ TextDocument struct{ URI string } }
		}
		if json.Unmarshal(pg.Result, &we) != nil || len(we.DocumentChanges) != 2 || we.DocumentChanges[0].TextDocument.URI != "use.go" && we.DocumentChanges[0].TextDocument.URI != "shapes.go" {
			t.Fatalf("rename answer: want the WorkspaceEdit with workspace paths, got %s", pg.Result)
		}
		if testenv.ReadText(t, filepath.Join(dir, "shapes.go")) != src {
			t.Fatal("lsp_request wrote the file before resolve")
		}
		res := callResult(t, r, "resolve", map[string]any{"edit_id": pg.Staged.EditID, "action": "accept"})
		if got := testenv.ReadText(t, filepath.Join(dir, "shapes.go")); res.IsError || strings.Contains(got, "Side") || !strings.Contains(got, "s.Width * s.Width") {
			t.Fatalf("accept: %s\n%s", res.AllText(), got)
		}
	})
}

// TestLSPRequestPaged: an answer longer than a page is shown 400 lines
// at a time, the structured Result only with the whole answer, and start
// pages on to the last line.
func TestLSPRequestPaged(t *testing.T) {
	r, dir := lspRun(t)
	var big strings.Builder
	big.WriteString("package shapes\n")
	for i := range 100 {
		fmt.Fprintf(&big, "\nfunc F%d() int { return %d }\n", i, i)
	}
	testenv.WriteFiles(t, dir, map[string]string{"big.go": big.String()})
	args := map[string]any{"action": "request", "file": "big.go", "method": "textDocument/documentSymbol"}
	first := requestPage(t, r, "lsp", args)
	if first.Lines <= 400 || first.Shown != 400 || first.Next != 400 || first.Result != nil {
		t.Fatalf("first page: %d lines, %d shown, next %d, result %d bytes", first.Lines, first.Shown, first.Next, len(first.Result))
	}
	seen := first.Shown
	for next := first.Next; next > 0; {
		args["start"] = next
		pg := requestPage(t, r, "lsp", args)
		if pg.Start != next || pg.Lines != first.Lines || pg.Answer != first.Answer {
			t.Fatalf("page at %d: %+v", next, pg)
		}
		seen += pg.Shown
		next = pg.Next
	}
	if seen != first.Lines {
		t.Fatalf("pages showed %d of %d lines", seen, first.Lines)
	}
	// A page of a changed answer names another answer, so its pages are
	// not joined with the old ones; a start past the end says so.
	testenv.WriteFiles(t, dir, map[string]string{"big.go": "package shapes\n\nfunc Only() {}\n"})
	args["start"] = 400
	res := callResult(t, r, "lsp", args)
	out, _ := res.Structured.(*tools.LSPResult)
	if res.IsError || out == nil || out.Request == nil {
		t.Fatalf("page past a shrunk answer: want an answer, got %s", res.AllText())
	}
	if pg := out.Request; pg.Answer == first.Answer || pg.Shown != 0 || pg.Lines >= 400 || !strings.Contains(res.AllText(), "none from start 400 on") {
		t.Fatalf("page past a shrunk answer: want a new answer and nothing shown, got %+v\n%s", pg, res.AllText())
	}
}

// TestLSPRequestClangd: clangd's own read requests (switchSourceHeader,
// ast) answer at read tier with workspace paths; a rename is refused
// there and staged through lsp_request; lsp_format stages clang-format's
// formatting of a range.
func TestLSPRequestClangd(t *testing.T) {
	dir := testenv.LSPProject(t, "cproj")
	r := clangdRun(t, dir, "main.c", "shapes.c")
	t.Run("switchSourceHeader", func(t *testing.T) {
		pg := requestPage(t, r, "lsp", map[string]any{"action": "request", "file": "shapes.c", "method": "textDocument/switchSourceHeader",
			"params": map[string]any{"uri": fileURI(filepath.Join(dir, "shapes.c"))}})
		var other string
		if err := json.Unmarshal(pg.Result, &other); err != nil || pg.Server != "clangd" || pg.Class != lsp.ReadMethod || other != "shapes.h" {
			t.Fatalf("switchSourceHeader: want shapes.h, got %+v (%v)", pg, err)
		}
	})
	t.Run("ast", func(t *testing.T) {
		pg := requestPage(t, r, "lsp", map[string]any{"action": "request", "file": "shapes.c", "method": "textDocument/ast",
			"params": map[string]any{"range": map[string]any{"start": map[string]any{"line": 4, "character": 1}, "end": map[string]any{"line": 4, "character": 30}}}})
		var node struct{ Role, Kind string }
		if err := json.Unmarshal(pg.Result, &node); err != nil || node.Role != "statement" || node.Kind != "Return" {
			t.Fatalf("ast of the return statement: %+v (%v)", pg, err)
		}
	})
	rename := map[string]any{"file": "shapes.h", "method": "textDocument/rename", "params": map[string]any{"newName": "edge"}, "line": 6, "symbol": "side"}
	t.Run("rename refused at read tier", func(t *testing.T) {
		_, err := call(t, r, "lsp", map[string]any{"action": "request", "file": "shapes.h", "method": "textDocument/rename", "params": map[string]any{"newName": "edge"}, "line": 6, "symbol": "side"})
		refusedFor(t, err, lsp.WriteMethod, "lsp_request")
	})
	t.Run("rename staged", func(t *testing.T) {
		before := testenv.ReadText(t, filepath.Join(dir, "shapes.c"))
		pg := requestPage(t, r, "lsp_request", rename)
		if pg.Staged == nil || pg.Staged.EditID == "" || len(pg.Staged.Files) != 2 || pg.Staged.Files[0].Path != "shapes.c" || pg.Staged.Files[1].Path != "shapes.h" {
			t.Fatalf("rename: want shapes.c and shapes.h staged, got %+v", pg.Staged)
		}
		if testenv.ReadText(t, filepath.Join(dir, "shapes.c")) != before {
			t.Fatal("lsp_request wrote before resolve")
		}
		callResult(t, r, "resolve", map[string]any{"edit_id": pg.Staged.EditID, "action": "accept"})
		if got := testenv.ReadText(t, filepath.Join(dir, "shapes.c")); !strings.Contains(got, "sq->edge * sq->edge") {
			t.Fatalf("accept: %s", got)
		}
	})
	t.Run("format a range", func(t *testing.T) {
		testenv.WriteFiles(t, dir, map[string]string{"fmt.c": "int f(int a){\nint b=a*2;\nreturn b;}\nint g(int a){return a;}\n"})
		id := stageID(t, r, "lsp_format", map[string]any{"file": "fmt.c", "line": 1, "end_line": 3}, "+int f(int a) {")
		callResult(t, r, "resolve", map[string]any{"edit_id": id, "action": "accept"})
		// LLVM style, two spaces; g, outside the range, is left as it was.
		want := "int f(int a) {\n  int b = a * 2;\n  return b;\n}\nint g(int a){return a;}\n"
		if got := testenv.ReadText(t, filepath.Join(dir, "fmt.c")); got != want {
			t.Fatalf("range format: got %q, want %q", got, want)
		}
	})
}

// TestLSPRequestTypeScript: typescript-language-server answers a read
// method at read tier, and its rename's edit (changes by file) is staged
// through lsp_request after being refused at read tier.
func TestLSPRequestTypeScript(t *testing.T) {
	r, dir := tsRun(t)
	pg := requestPage(t, r, "lsp", map[string]any{"action": "request", "file": "src/app.ts", "method": "textDocument/documentHighlight", "line": 4, "symbol": "sq"})
	var hl []struct {
		Range struct{ Start struct{ Line int } }
	}
	if err := json.Unmarshal(pg.Result, &hl); err != nil || pg.Server != "typescript-language-server" || len(hl) != 2 || hl[0].Range.Start.Line != 3 || hl[1].Range.Start.Line != 4 {
		t.Fatalf("documentHighlight of sq: want lines 4 and 5, got %+v (%v)", pg, err)
	}
	args := map[string]any{"file": "src/shapes.ts", "method": "textDocument/rename", "params": map[string]any{"newName": "sum"}, "line": 16, "symbol": "total"}
	_, err := call(t, r, "lsp", map[string]any{"action": "request", "file": "src/shapes.ts", "method": "textDocument/rename", "params": map[string]any{"newName": "sum"}, "line": 16, "symbol": "total"})
	refusedFor(t, err, lsp.WriteMethod, "lsp_request")
	pg = requestPage(t, r, "lsp_request", args)
	if pg.Staged == nil || len(pg.Staged.Files) != 2 || pg.Staged.Files[0].Path != "src/app.ts" || pg.Staged.Files[1].Path != "src/shapes.ts" {
		t.Fatalf("rename total: want app.ts and shapes.ts staged, got %+v", pg.Staged)
	}
	callResult(t, r, "resolve", map[string]any{"edit_id": pg.Staged.EditID, "action": "accept"})
	if got := testenv.ReadText(t, filepath.Join(dir, "src/shapes.ts")); !strings.Contains(got, "export function sum(") {
		t.Fatalf("accept: %s", got)
	}
}

// TestLSPRequestPyright: pyright answers a read method (its locals'
// highlights) at read tier, and its rename of a local is staged through
// lsp_request after being refused at read tier.
func TestLSPRequestPyright(t *testing.T) {
	testenv.RequireBinary(t, "pyright-langserver")
	dir := testenv.LSPProject(t, "pyproj")
	r := startRun(t, tools.Config{WorkDir: dir, Policy: tools.PolicyOf(tools.Allow), LSP: lspSupervisor(t, dir, 20*time.Second)})
	pg := requestPage(t, r, "lsp", map[string]any{"action": "request", "file": "app.py", "method": "textDocument/documentHighlight", "line": 5, "symbol": "sq"})
	var hl []struct {
		Range struct{ Start struct{ Line int } }
	}
	if err := json.Unmarshal(pg.Result, &hl); err != nil || pg.Server != "pyright" || len(hl) != 2 || hl[0].Range.Start.Line != 4 || hl[1].Range.Start.Line != 5 {
		t.Fatalf("documentHighlight of sq: want lines 5 and 6, got %+v (%v)", pg, err)
	}
	_, err := call(t, r, "lsp", map[string]any{"action": "request", "file": "app.py", "method": "textDocument/rename", "params": map[string]any{"newName": "s"}, "line": 5, "symbol": "sq"})
	refusedFor(t, err, lsp.WriteMethod, "lsp_request")
	pg = requestPage(t, r, "lsp_request", map[string]any{"file": "app.py", "method": "textDocument/rename", "params": map[string]any{"newName": "s"}, "line": 5, "symbol": "sq"})
	if pg.Staged == nil || len(pg.Staged.Files) != 1 || pg.Staged.Files[0].Path != "app.py" || pg.Staged.Files[0].Replacements != 2 {
		t.Fatalf("rename sq: want app.py staged with 2 edits, got %+v", pg.Staged)
	}
	callResult(t, r, "resolve", map[string]any{"edit_id": pg.Staged.EditID, "action": "accept"})
	if got := testenv.ReadText(t, filepath.Join(dir, "app.py")); !strings.Contains(got, "    s = Square(10)\n    return s\n") {
		t.Fatalf("accept: %s", got)
	}
}

// TestLSPCommandGopls runs gopls's commands through lsp_command (exec
// tier, workspace/executeCommand): gopls.add_import edits use.go through
// workspace/applyEdit, which is staged for resolve and written only on
// accept (rejected whole, naming lsp_command, when use.go changed since),
// after which gopls reports the new import as unused;
// gopls.list_known_packages only answers, with the importable packages,
// and stages nothing.
func TestLSPCommandGopls(t *testing.T) {
	r, dir := lspRun(t)
	use := filepath.Join(dir, "use.go")
	src := testenv.ReadText(t, use)
	addImport := map[string]any{"file": "use.go", "command": "gopls.add_import", "arguments": []any{map[string]any{"ImportPath": "strings", "URI": fileURI(use)}}}
	t.Run("stale edit rejected", func(t *testing.T) {
		pg := requestPage(t, r, "lsp_command", addImport)
		if pg.Staged == nil {
			t.Fatalf("add_import: want its edit staged, got %+v", pg)
		}
		testenv.WriteFiles(t, dir, map[string]string{"use.go": src + "\n// changed since\n"})
		_, err := call(t, r, "resolve", map[string]any{"edit_id": pg.Staged.EditID, "action": "accept"})
		if err == nil || !strings.Contains(err.Error(), "run lsp_command again") || testenv.ReadText(t, use) != src+"\n// changed since\n" {
			t.Fatalf("accept after use.go changed: want it rejected, naming lsp_command, got %v", err)
		}
		testenv.WriteFiles(t, dir, map[string]string{"use.go": src})
	})
	t.Run("edit staged", func(t *testing.T) {
		pg := requestPage(t, r, "lsp_command", addImport)
		if pg.Server != "gopls" || pg.Method != "workspace/executeCommand" || pg.Class != lsp.ExecMethod {
			t.Fatalf("add_import: want gopls's answer at exec class, got %+v", pg)
		}
		if pg.Staged == nil || pg.Staged.EditID == "" || len(pg.Staged.Files) != 1 || pg.Staged.Files[0].Path != "use.go" || pg.Staged.Files[0].Added == 0 {
			t.Fatalf("add_import: want its edit of use.go staged, got %+v", pg.Staged)
		}
		if testenv.ReadText(t, use) != src {
			t.Fatal("lsp_command wrote use.go before resolve")
		}
		res := callResult(t, r, "resolve", map[string]any{"edit_id": pg.Staged.EditID, "action": "accept"})
		got := testenv.ReadText(t, use)
		if res.IsError || !strings.HasPrefix(got, "package shapes\n\nimport \"strings\"\n") || !strings.HasSuffix(got, strings.TrimPrefix(src, "package shapes\n")) {
			t.Fatalf("accept: want the import added and the rest as it was: %s\n%s", res.AllText(), got)
		}
		// Diagnostics on accept: the import nothing uses is new.
		if text := res.AllText(); !strings.Contains(text, `"strings" imported and not used`) {
			t.Fatalf("accept: want the unused import reported, got %s", text)
		}
	})
	t.Run("answer only", func(t *testing.T) {
		before := testenv.ReadText(t, use)
		args := map[string]any{"file": "use.go", "command": "gopls.list_known_packages",
			"arguments": []any{map[string]any{"URI": fileURI(use)}}}
		pg, whole := wholeAnswer(t, r, "lsp_command", args)
		var known struct{ Packages []string }
		if err := json.Unmarshal(whole, &known); err != nil || pg.Staged != nil {
			t.Fatalf("list_known_packages: want an answer and nothing staged, got %+v (%v)", pg, err)
		}
		if !slices.Contains(known.Packages, "fmt") || !slices.Contains(known.Packages, "net/http") {
			t.Fatalf("list_known_packages: want the standard library among %d packages: %.300s", len(known.Packages), pg.Result)
		}
		if testenv.ReadText(t, use) != before {
			t.Fatal("a command that only answers changed use.go")
		}
	})
}
