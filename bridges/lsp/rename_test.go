package lsp_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherhq/tether/bridges/lsp"
	"github.com/tetherhq/tether/internal/testenv"
)

// snapshot returns every file of dir with its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			out[p] = string(b)
		}
		return nil
	})
	return out
}

// TestRenameToInvalidName: a new name that is no identifier is refused with
// a clear error and nothing is written. pyright and
// typescript-language-server do not check: they returned edits writing
// "1bad" into every file that used the symbol. Where the server does check
// (gopls, a keyword), its own error comes through.
func TestRenameToInvalidName(t *testing.T) {
	cases := []struct {
		server  string
		project string
		pos     lsp.Position
		newName string
		want    string
	}{
		{"pyright-langserver", "pyproj", lsp.Position{File: "pkg/shapes.py", Line: 21, Symbol: "total"}, "1bad",
			`cannot rename "total" to "1bad": "1bad" is not a valid python identifier`},
		{"pyright-langserver", "pyproj", lsp.Position{File: "pkg/shapes.py", Line: 21, Symbol: "total"}, "class",
			`"class" is a Python keyword`},
		{"pyright-langserver", "pyproj", lsp.Position{File: "pkg/shapes.py", Line: 21, Symbol: "total"}, "sum areas",
			`"sum areas" is not a valid python identifier`},
		{"typescript-language-server", "tsproj", lsp.Position{File: "src/shapes.ts", Line: 16, Symbol: "total"}, "1bad",
			`cannot rename "total" to "1bad": "1bad" is not a valid typescript identifier`},
		{"typescript-language-server", "tsproj", lsp.Position{File: "src/shapes.ts", Line: 16, Symbol: "total"}, "sum-areas",
			`"sum-areas" is not a valid typescript identifier`},
		{"gopls", "goproj", lsp.Position{File: "shapes.go", Line: 17, Symbol: "Total"}, "9lives",
			`"9lives" is not a valid go identifier`},
		{"gopls", "goproj", lsp.Position{File: "shapes.go", Line: 17, Symbol: "Total"}, "func",
			`gopls answered textDocument/rename with an error: invalid identifier to rename: "func"`},
	}
	sups := map[string]*lsp.Supervisor{}
	dirs := map[string]string{}
	parent := t
	for _, tc := range cases {
		t.Run(tc.server+"/"+tc.newName, func(t *testing.T) {
			testenv.RequireBinary(t, tc.server)
			if sups[tc.project] == nil { // one server per project, for every case
				dirs[tc.project] = testenv.LSPProject(parent, tc.project)
				sups[tc.project] = newSupervisor(parent, dirs[tc.project])
			}
			before := snapshot(t, dirs[tc.project])
			res, err := sups[tc.project].Rename(ctxT(t), tc.pos, tc.newName)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "lsp: ") {
				t.Fatalf("want an error containing %q, got %v (%+v)", tc.want, err, res)
			}
			after := snapshot(t, dirs[tc.project])
			for p, b := range before {
				if after[p] != b {
					t.Errorf("%s changed:\n%s", p, after[p])
				}
			}
		})
	}
}
