package search_test

import "context"
import "errors"
import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/fsutil"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/search"

// TestSearchConfinedToRoot: with Config.Root every access goes through the
// workspace root. A path that leads out through a symbolic link, given
// directly or met on the walk, is refused and named, never read; without a
// root (the command line) paths are used as they are.
func TestSearchConfinedToRoot(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{"in/a.go": "package a\n\nfunc f() { call(\"inside\") }\n"})
	testenv.WriteFiles(t, outside, map[string]string{"a.go": "package a\n\nfunc f() { call(\"OUTSIDE\") }\n"})
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	confined := search.NewSearcher(parser(t), search.Config{Root: dir})
	ctx := context.Background()

	res, err := confined.Search(ctx, search.Query{Pattern: "call($X)", Language: "go", Paths: []string{filepath.Join(dir, "out", "a.go")}})
	if !errors.Is(err, fsutil.ErrOutside) {
		t.Errorf("a file through a link that leads out: %+v, %v; want ErrOutside", res, err)
	}
	if _, err := confined.Search(ctx, search.Query{Pattern: "call($X)", Language: "go", Paths: []string{outside}}); !errors.Is(err, fsutil.ErrOutside) {
		t.Errorf("a directory outside the root: %v; want ErrOutside", err)
	}
	res, err = confined.Search(ctx, search.Query{Pattern: "call($X)", Language: "go", Paths: []string{dir}})
	if err != nil || res.Total != 1 || !strings.Contains(res.Matches[0].Text, "inside") {
		t.Errorf("the workspace itself: %v, %+v; want the one match inside", err, res)
	}

	missing := search.NewSearcher(parser(t), search.Config{Root: filepath.Join(dir, "missing")})
	if _, err := missing.Search(ctx, search.Query{Pattern: "call($X)", Language: "go", Paths: []string{dir}}); err == nil || !strings.Contains(err.Error(), "cannot confine searches to the workspace") {
		t.Errorf("a workspace that does not exist: %v; want an error that says searches cannot be confined", err)
	}

	plain := search.NewSearcher(parser(t), search.Config{})
	res, err = plain.Search(ctx, search.Query{Pattern: "call($X)", Language: "go", Paths: []string{filepath.Join(dir, "out", "a.go")}})
	if err != nil || res.Total != 1 {
		t.Errorf("without a root, a path named on the command line is searched: %v, %+v", err, res)
	}
}

// TestSearchRelativeToRoot: with Config.Root a relative path is the
// root's, wherever the process runs (its working directory here holds no
// such file), and one that climbs out of the root is refused.
func TestSearchRelativeToRoot(t *testing.T) {
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{"in/a.go": "package a\n\nfunc f() { call(\"inside\") }\n"})
	s := search.NewSearcher(parser(t), search.Config{Root: dir})
	ctx := context.Background()
	for _, p := range []string{"in/a.go", "in", "."} {
		res, err := s.Search(ctx, search.Query{Pattern: "call($X)", Language: "go", Paths: []string{p}})
		if err != nil || res.Total != 1 {
			t.Errorf("relative path %q: %v, %+v; want the one match under the root", p, err, res)
		}
	}
	if _, err := s.Search(ctx, search.Query{Pattern: "call($X)", Language: "go", Paths: []string{"../x"}}); !errors.Is(err, fsutil.ErrOutside) {
		t.Errorf("a relative path that climbs out: %v; want ErrOutside", err)
	}
}
