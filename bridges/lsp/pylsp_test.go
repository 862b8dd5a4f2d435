package lsp_test

import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/internal/testenv"

// TestPylspCodePointColumns: pylsp 1.7 counts columns in code points, not
// the protocol's UTF-16 units, and says nothing about it; a row that says
// position_encoding utf-32 gets its columns right after an emoji, both ways
// (the position sent and the locations read). With UTF-16 assumed, the
// definition of the second "a" below landed two characters further on.
func TestPylspCodePointColumns(t *testing.T) {
	testenv.RequireBinary(t, "pylsp")
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "pyproject.toml"), "[project]\nname = \"p\"\nversion = \"0.1\"\n")
	writeFile(t, filepath.Join(dir, "m.py"), "def use() -> None:\n    s = \"😀😀\"; a = 1; bb = 2; print(s, a, bb)\n")
	pylsp := lsp.Server{Name: "pylsp", Language: "python", Binaries: []string{"pylsp"}, Extensions: []string{".py"},
		RootMarkers: []string{"pyproject.toml"}, PositionEncoding: "utf-32"}
	s := newSupervisor(t, dir, lsp.WithServers(pylsp))
	ctx := ctxT(t)
	cases := []struct {
		name string
		call func() (*lsp.Locations, error)
		want string
	}{
		{"definition", func() (*lsp.Locations, error) {
			return s.Definition(ctx, lsp.Position{File: "m.py", Line: 2, Symbol: "a#2"})
		}, `m.py:2:15: s = "😀😀"; a = 1; bb = 2; print(s, a, bb)`},
		{"references", func() (*lsp.Locations, error) {
			return s.References(ctx, lsp.Position{File: "m.py", Line: 2, Symbol: "bb#1"})
		}, `m.py:2:22: s = "😀😀"; a = 1; bb = 2; print(s, a, bb)` + "\n" + `m.py:2:42: s = "😀😀"; a = 1; bb = 2; print(s, a, bb)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.call()
			if err != nil {
				t.Fatal(err)
			}
			if locStrings(got.Items) != tc.want {
				t.Fatalf("got\n%s\nwant\n%s", locStrings(got.Items), tc.want)
			}
		})
	}
}

// TestWorkspaceSymbolsSurviveOneServer: a workspace search over several
// servers returns the answers of those that could search and says why one
// could not (pylsp offers no workspace/symbol), instead of failing whole.
func TestWorkspaceSymbolsSurviveOneServer(t *testing.T) {
	testenv.RequireBinary(t, "pylsp")
	testenv.RequireBinary(t, "gopls")
	dir := testenv.LSPProject(t, "goproj")
	writeFile(t, filepath.Join(dir, "pyproject.toml"), "[project]\nname = \"p\"\nversion = \"0.1\"\n")
	writeFile(t, filepath.Join(dir, "m.py"), "def total_py() -> int:\n    return 1\n")
	pylsp := lsp.Server{Name: "pylsp", Language: "python", Binaries: []string{"pylsp"}, Extensions: []string{".py"},
		RootMarkers: []string{"pyproject.toml"}, PositionEncoding: "utf-32"}
	s := newSupervisor(t, dir, lsp.WithServers(pylsp))
	got, err := s.WorkspaceSymbols(ctxT(t), "Total", "")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, sym := range got.Items {
		found = found || sym.Name == "Total" && sym.Location.Path == "shapes.go"
	}
	notes := strings.Join(got.Notes, "\n")
	if !found || !strings.Contains(notes, "pylsp (root .) did not search: pylsp does not offer workspace/symbol") {
		t.Fatalf("symbols %+v\nnotes:\n%s", got.Items, notes)
	}
}
