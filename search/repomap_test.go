package search_test

import "context"
import "errors"
import "fmt"
import "path/filepath"
import "slices"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/search/store"

// mapProject writes files under a new directory and returns it.
func mapProject(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, files)
	return dir
}

// rankedProject is a Go project where parseConfig (util/helper.go) is
// called from five files, renderPage (web/render.go) from three and
// lonelyThing from none: the ranking is known by construction. A Python
// and a TypeScript file and a JSON file sit beside them.
func rankedProject() map[string]string {
	files := map[string]string{
		"util/helper.go": "package util\n\n// parseConfig reads a config.\nfunc parseConfig(path string) (map[string]string, error) {\n\treturn nil, nil\n}\n\nfunc lonelyThing() {}\n",
		"web/render.go":  "package web\n\ntype Page struct{ Title string }\n\nfunc renderPage(p Page) string {\n\treturn p.Title\n}\n",
		"tool.py":        "MAX_SIZE = 10\n\nclass Loader:\n    def load(self, path):\n        return parseConfig(path)\n\ndef helper_py():\n    pass\n",
		"app.ts":         "export interface Options { verbose: boolean }\nexport function startApp(o: Options): void {\n  parseConfig(\"x\");\n}\n",
		"data.json":      "{\"a\": 1}\n",
	}
	for i := range 3 {
		files[fmt.Sprintf("cmd/c%d/main.go", i)] = fmt.Sprintf("package main\n\nfunc main%d() {\n\tparseConfig(\"a\")\n\trenderPage(Page{})\n}\n", i)
	}
	// two of the five callers are the Python and TypeScript files
	return files
}

// TestMapRanksByReferences: the helper that five other files call ranks
// first, then the one two files call; an unreferenced one ranks last; the
// languages outlined and those not are named.
func TestMapRanksByReferences(t *testing.T) {
	dir := mapProject(t, rankedProject())
	s := search.NewSearcher(parser(t), search.Config{Root: dir, Cache: store.NewCache(0)})
	res, err := s.Map(context.Background(), search.MapQuery{Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	defs := rankedDefs(res)
	if len(defs) < 3 || defs[0].Name != "parseConfig" || defs[0].Files != 5 {
		t.Fatalf("first definitions %+v, want parseConfig named by 5 files first", defs[:min(3, len(defs))])
	}
	if defs[1].Name != "renderPage" && defs[1].Name != "Page" {
		t.Errorf("second definition %+v, want renderPage or Page (named by 3 files)", defs[1])
	}
	if last := defs[len(defs)-1]; last.Rank != 0 || last.Files != 0 {
		t.Errorf("last definition %+v, want one nobody names", last)
	}
	if res.Files[0].Path != filepath.Join(dir, "util/helper.go") {
		t.Errorf("first file %s, want util/helper.go", res.Files[0].Path)
	}
	for _, l := range []string{"go", "python", "typescript"} {
		if res.Languages[l] == 0 {
			t.Errorf("languages %v: %s not outlined", res.Languages, l)
		}
	}
	if res.NotOutlined["json"] != 1 {
		t.Errorf("not outlined %v, want the json file", res.NotOutlined)
	}
	want := map[string]string{
		"parseConfig": "func parseConfig(path string) (map[string]string, error)",
		"Page":        "type Page struct{ Title string }",
		"Loader":      "class Loader:",
		"MAX_SIZE":    "MAX_SIZE = 10",
		"Options":     "interface Options",
		"startApp":    "function startApp(o: Options): void",
	}
	for name, sig := range want {
		i := slices.IndexFunc(defs, func(d search.MapDef) bool { return d.Name == name })
		if i < 0 || defs[i].Signature != sig {
			t.Errorf("%s: %+v, want signature %q", name, defs[max(i, 0)], sig)
		}
	}
}

// TestMapFocus: symbols and query words lift what they name above the
// most referenced definition; focused paths list their files first.
func TestMapFocus(t *testing.T) {
	dir := mapProject(t, rankedProject())
	s := search.NewSearcher(parser(t), search.Config{Root: dir, Cache: store.NewCache(0)})
	for _, c := range []struct {
		name  string
		q     search.MapQuery
		first string
	}{
		{"symbols", search.MapQuery{Symbols: []string{"lonelyThing"}}, "lonelyThing"},
		{"words", search.MapQuery{Words: []string{"LOADER"}}, "Loader"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.q.Paths = []string{dir}
			res, err := s.Map(context.Background(), c.q)
			if err != nil {
				t.Fatal(err)
			}
			if got := rankedDefs(res)[0].Name; got != c.first {
				t.Errorf("first definition %s, want %s", got, c.first)
			}
		})
	}
	res, err := s.Map(context.Background(), search.MapQuery{Paths: []string{dir}, Focus: []string{filepath.Join(dir, "tool.py")}, MaxFiles: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Files[0].Path != filepath.Join(dir, "tool.py") || !res.Files[0].Focused || res.OverCap == 0 || res.Read != 2 {
		t.Errorf("focused map: first %s (focused %v), read %d, over the cap %d", res.Files[0].Path, res.Files[0].Focused, res.Read, res.OverCap)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Map(ctx, search.MapQuery{Paths: []string{dir}}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled map: %v", err)
	}
}

// rankedDefs lists every definition of res, best ranked first.
func rankedDefs(res *search.MapResult) []search.MapDef {
	var defs []search.MapDef
	for _, f := range res.Files {
		defs = append(defs, f.Defs...)
	}
	slices.SortStableFunc(defs, func(a, b search.MapDef) int {
		switch {
		case a.Rank > b.Rank:
			return -1
		case a.Rank < b.Rank:
			return 1
		}
		return 0
	})
	return defs
}
