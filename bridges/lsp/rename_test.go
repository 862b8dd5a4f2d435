package lsp_test

import "io/fs"
import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/internal/testenv"

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

// TestRenameToInvalidName: a new name that is no identifier, or a reserved
// word of the file's language, is refused with a clear error naming the word
// and the language, before any server starts, and nothing is written.
// pyright and typescript-language-server do not check: they returned edits
// writing "1bad" into every file that used the symbol, and
// typescript-language-server renamed a function to "class" in 8 places.
// Java has no server row here: the refusal comes before a server is looked
// for, so a Java file is refused the same way (and a C header without
// clangd). The project's server binary is required where there is one, so
// the refusal is shown to come first even when the server could start.
func TestRenameToInvalidName(t *testing.T) {
	pyTotal := lsp.Position{File: "pkg/shapes.py", Line: 21, Symbol: "total"}
	tsTotal := lsp.Position{File: "src/shapes.ts", Line: 16, Symbol: "total"}
	goTotal := lsp.Position{File: "shapes.go", Line: 17, Symbol: "Total"}
	javaTotal := lsp.Position{File: "src/Shapes.java", Line: 2, Symbol: "total"}
	cases := []struct {
		server  string
		project string
		pos     lsp.Position
		newName string
		want    string
	}{
		{"pyright-langserver", "pyproj", pyTotal, "1bad", `cannot rename "total" to "1bad": "1bad" is not a valid Python identifier`},
		{"pyright-langserver", "pyproj", pyTotal, "class", `"class" is a reserved word in Python`},
		{"pyright-langserver", "pyproj", pyTotal, "def", `cannot rename "total" to "def": "def" is a reserved word in Python; nothing was changed`},
		{"pyright-langserver", "pyproj", pyTotal, "sum areas", `"sum areas" is not a valid Python identifier`},
		{"typescript-language-server", "tsproj", tsTotal, "1bad", `cannot rename "total" to "1bad": "1bad" is not a valid TypeScript identifier`},
		{"typescript-language-server", "tsproj", tsTotal, "sum-areas", `"sum-areas" is not a valid TypeScript identifier`},
		{"typescript-language-server", "tsproj", tsTotal, "class", `cannot rename "total" to "class": "class" is a reserved word in TypeScript; nothing was changed`},
		{"typescript-language-server", "tsproj", lsp.Position{File: "src/shapes.ts", Line: 7, Symbol: "Square"}, "interface", `"interface" is a reserved word in TypeScript`},
		{"gopls", "goproj", goTotal, "9lives", `"9lives" is not a valid Go identifier`},
		{"gopls", "goproj", goTotal, "func", `cannot rename "Total" to "func": "func" is a reserved word in Go; nothing was changed`},
		{"", "javaproj", javaTotal, "class", `cannot rename "total" to "class": "class" is a reserved word in Java; nothing was changed`},
		{"", "javaproj", javaTotal, "synchronized", `"synchronized" is a reserved word in Java`},
		{"", "cproj", lsp.Position{File: "shapes.h", Line: 10, Symbol: "square_area"}, "class", `"class" is a reserved word in C/C++`},
	}
	sups := map[string]*lsp.Supervisor{}
	dirs := map[string]string{}
	parent := t
	for _, tc := range cases {
		t.Run(tc.project+"/"+tc.newName, func(t *testing.T) {
			if tc.server != "" {
				testenv.RequireBinary(t, tc.server)
			}
			if sups[tc.project] == nil { // one supervisor per project, for every case
				if tc.project == "javaproj" {
					dirs[tc.project] = parent.TempDir()
					testenv.WriteFiles(parent, dirs[tc.project], map[string]string{
						"src/Shapes.java": "class Shapes {\n    static int total(int[] xs) { return xs.length; }\n}\n",
					})
				} else {
					dirs[tc.project] = testenv.LSPProject(parent, tc.project)
				}
				sups[tc.project] = newSupervisor(parent, dirs[tc.project])
			}
			before := snapshot(t, dirs[tc.project])
			res, err := sups[tc.project].Rename(ctxT(t), tc.pos, tc.newName)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "lsp: ") {
				t.Fatalf("want an error containing %q, got %v (%+v)", tc.want, err, res)
			}
			for _, row := range sups[tc.project].Status() {
				if row.Running {
					t.Errorf("%s started for a refused rename", row.Server)
				}
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
