package search

import "context"
import "os"
import "path/filepath"
import "testing"
import "time"

import "github.com/tetherhq/tether/engine/enginetest"
import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/internal/testenv"

// TestCustomLanguageReplaced: a name registered again with another module
// parses an unchanged file with the new module, in the same searcher and
// store: the stat memo (which would serve the old module's tree of a file
// it trusts unchanged) and the trees are keyed by the module, not the
// name; the same module again is served from the memo.
func TestCustomLanguageReplaced(t *testing.T) {
	ctx := context.Background()
	_, props := enginetest.PropertiesModule(t)
	bashPath := filepath.Join(testenv.RepoRoot(), ".deps", "npm", "node_modules", "bash-language-server", "tree-sitter-bash.wasm")
	bash, err := os.ReadFile(bashPath)
	if err != nil {
		testenv.Missing(t, "bash-language-server (npm)")
	}
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{"a.swp": "password = x\n"})
	t.Chdir(dir)
	s, reads := memoSearcher(t)
	// the file's stamp is old enough to be trusted
	s.testHookNow = func() time.Time { return time.Now().Add(time.Hour) }
	for i, c := range []struct {
		wasm      []byte
		sym, kind string
		reads     int // times the search read the file
	}{
		{props, "tree_sitter_properties", "property", 1},
		{props, "tree_sitter_properties", "property", 0},
		{bash, "tree_sitter_bash", "command", 1},
		{props, "tree_sitter_properties", "property", 0},
	} {
		l, err := grammars.NewCustom("swap", c.wasm, grammars.CustomSpec{Extensions: []string{"swp"}, Symbol: c.sym})
		if err == nil {
			_, err = grammars.RegisterCustom(l)
		}
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Search(ctx, Query{Rule: map[string]any{"kind": c.kind}, Language: "swap", Paths: []string{"a.swp"}})
		if err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		if len(r.Matches) != 1 || r.Matches[0].Text != "password = x" {
			t.Errorf("%d: kind %s in the %s module: matches %+v", i, c.kind, c.sym, r.Matches)
		}
		if n := reads(); n != c.reads {
			t.Errorf("%d: the file was read %d times, want %d", i, n, c.reads)
		}
	}
}
