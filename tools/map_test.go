package tools_test

import "fmt"
import "os"
import "path/filepath"
import "runtime"
import "slices"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/tools"

// mapRun starts a run with a parser over dir, on the plan surface (map is
// read tier).
func mapRun(t *testing.T, dir string) *tools.Run {
	t.Helper()
	return startRun(t, tools.Config{WorkDir: dir, Surface: tools.SurfacePlan, Search: tools.SearchConfig{Parser: parseEngine(t)}})
}

// callMap calls map and checks the text stays within the budget it
// reports, in tokens of 4 bytes.
func callMap(t *testing.T, r *tools.Run, args map[string]any) (string, *tools.MapResult) {
	t.Helper()
	res := callResult(t, r, "map", args)
	text := res.AllText()
	if res.IsError {
		t.Fatalf("map %v: %s", args, text)
	}
	out := structured[*tools.MapResult](t, res)
	if len(text) > out.Budget*4 || out.Tokens > out.Budget || out.Tokens*4 < len(text) {
		t.Errorf("map %v: %d bytes (%d tokens) for a budget of %d tokens", args, len(text), out.Tokens, out.Budget)
	}
	return text, out
}

// TestMapToolRanksTheSharedHelperFirst: in a project where a helper is
// called from five other files (three Go, a Python and a TypeScript one),
// the map lists its file first and it first; the JSON file is named as
// not outlined; paging with start shows the next definitions.
func TestMapToolRanksTheSharedHelperFirst(t *testing.T) {
	files := map[string]string{
		"util/helper.go": "package util\n\nfunc parseConfig(path string) (map[string]string, error) {\n\treturn nil, nil\n}\n\nfunc lonelyThing() {}\n",
		"web/render.go":  "package web\n\nfunc renderPage(title string) string {\n\treturn title\n}\n",
		"tool.py":        "class Loader:\n    def load(self, path):\n        return parseConfig(path)\n",
		"app.ts":         "export function startApp(): void {\n  parseConfig(\"x\");\n}\n",
		"data.json":      "{\"a\": 1}\n",
	}
	for i := range 3 {
		files[fmt.Sprintf("cmd/c%d/main.go", i)] = fmt.Sprintf("package main\n\nfunc main%d() {\n\tparseConfig(\"a\")\n\trenderPage(\"t\")\n}\n", i)
	}
	r, _ := structuralRun(t, tools.SurfacePlan, files)
	if !hasTool(r, "map") {
		t.Fatalf("the plan surface lists %v, without map", toolNames(r))
	}
	text, out := callMap(t, r, map[string]any{})
	if len(out.Files) == 0 || out.Files[0].Path != "util/helper.go" || out.Files[0].Defs[0].Name != "parseConfig" || out.Files[0].Defs[0].Files != 5 {
		t.Fatalf("first file %+v, want util/helper.go with parseConfig named by 5 files; text:\n%s", out.Files[:min(1, len(out.Files))], text)
	}
	if !strings.Contains(text, "util/helper.go:\n  3: func parseConfig(path string) (map[string]string, error)\n") {
		t.Errorf("the text does not list parseConfig's row under its file:\n%s", text)
	}
	if out.NotOutlined["json"] != 1 || !strings.Contains(text, "no definition table for json 1") || out.Languages["typescript"] != 1 {
		t.Errorf("languages %v, not outlined %v; text:\n%s", out.Languages, out.NotOutlined, text)
	}
	if out.Shown != out.Total || out.NextStart != 0 || !strings.Contains(out.Summary, "all ") {
		t.Errorf("summary %q: %d of %d shown", out.Summary, out.Shown, out.Total)
	}
	// page two of one-definition pages: the second best
	_, p2 := callMap(t, r, map[string]any{"start": 1, "symbols": []string{"lonelyThing"}})
	if p2.Files[0].Defs[0].Name != "parseConfig" || p2.Start != 1 {
		t.Errorf("start 1 with lonelyThing asked first: %+v, want parseConfig next", p2.Files[0].Defs)
	}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"budget": 50}, "budget"},
		{map[string]any{"paths": []string{"nowhere"}}, "does not exist"},
		{map[string]any{"paths": []string{"../outside"}}, "outside"},
	} {
		res, err := call(t, r, "map", c.args)
		if err == nil && !res.IsError {
			t.Errorf("map %v: no error", c.args)
			continue
		}
		if msg := fmt.Sprint(err) + res.AllText(); !strings.Contains(msg, c.want) {
			t.Errorf("map %v: %s, want it to name %q", c.args, msg, c.want)
		}
	}
}

// TestMapToolGoStandardLibrary: over $(go env GOROOT)/src, focused on fmt
// and then on net/http (max_files keeps the test's parsing small), the
// answer stays within its budget and lists the focused package's
// definitions first.
func TestMapToolGoStandardLibrary(t *testing.T) {
	src := filepath.Join(runtime.GOROOT(), "src")
	if _, err := os.Stat(filepath.Join(src, "fmt", "print.go")); err != nil {
		testenv.Missing(t, "the Go standard library's sources")
	}
	r := mapRun(t, src)
	for _, c := range []struct {
		args map[string]any
		rows []string
	}{
		{map[string]any{"paths": []string{"fmt"}, "max_files": 300}, []string{"fmt/print.go:", "func Println(a ...any) (n int, err error)", "func Errorf(format string, a ...any) (err error)"}},
		{map[string]any{"paths": []string{"net/http"}, "max_files": 300, "budget": 1000, "symbols": []string{"ServeHTTP"}},
			[]string{"net/http/server.go:", "func (mux *ServeMux) ServeHTTP(w ResponseWriter, r *Request)"}},
	} {
		text, out := callMap(t, r, c.args)
		for _, row := range c.rows {
			if !strings.Contains(text, row) {
				t.Errorf("map %v: no %q in:\n%s", c.args, row, text)
			}
		}
		if out.OverCap == 0 || !strings.Contains(text, "not read (over max_files 300") || out.NextStart == 0 {
			t.Errorf("map %v: read %d, over the cap %d, next start %d; text:\n%s", c.args, out.Read, out.OverCap, out.NextStart, text)
		}
		if !out.Files[0].Focused {
			t.Errorf("map %v: first file %s is not of the focus", c.args, out.Files[0].Path)
		}
	}
}

// TestMapToolTypeScriptPackage: a TypeScript package (vscode-jsonrpc, its
// declarations and its compiled JavaScript) fits a small budget, its
// central types first, and the next page holds other definitions.
func TestMapToolTypeScriptPackage(t *testing.T) {
	dir := filepath.Join(testenv.RepoRoot(), ".deps", "npm", "node_modules", "vscode-jsonrpc")
	if _, err := os.Stat(filepath.Join(dir, "lib", "common", "cancellation.d.ts")); err != nil {
		testenv.Missing(t, "vscode-jsonrpc (scripts/install-peers.sh puts it in .deps/npm)")
	}
	r := mapRun(t, dir)
	text, out := callMap(t, r, map[string]any{"budget": 500})
	if out.Languages["typescript"] == 0 || out.Languages["javascript"] == 0 {
		t.Errorf("languages %v, want typescript and javascript", out.Languages)
	}
	if !strings.Contains(text, "CancellationToken") || !strings.Contains(text, ".d.ts:\n") {
		t.Errorf("no CancellationToken or .d.ts file in:\n%s", text)
	}
	if out.NextStart == 0 || out.Shown == 0 {
		t.Fatalf("%d of %d shown in 500 tokens, next start %d", out.Shown, out.Total, out.NextStart)
	}
	_, next := callMap(t, r, map[string]any{"budget": 500, "start": out.NextStart})
	first := map[string]bool{}
	for _, f := range out.Files {
		for _, d := range f.Defs {
			first[f.Path+":"+fmt.Sprint(d.Line)] = true
		}
	}
	for _, f := range next.Files {
		if slices.ContainsFunc(f.Defs, func(d tools.MapDef) bool { return first[f.Path+":"+fmt.Sprint(d.Line)] }) {
			t.Errorf("page 2 repeats a definition of %s shown on page 1", f.Path)
		}
	}
}
