package search_test

import "context"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/search/store"

// brokenGo has a match in a clean declaration and a syntax error on line 7,
// in a declaration without the pattern's tokens: a chunked parse reads the
// clean declaration alone.
const brokenGo = "package a\n\nimport \"errors\"\n\nfunc f() error { return errors.New(\"x\") }\n\nfunc g() { x := }\n"

const cleanGo = "package a\n\nimport \"errors\"\n\nfunc h() error { return errors.New(\"y\") }\n"

func TestSyntaxErrorsReportedAndLeftOutOfRewrites(t *testing.T) {
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{"broken.go": brokenGo, "clean.go": cleanGo})
	ctx := context.Background()
	for _, whole := range []bool{false, true} {
		s := search.NewSearcher(parser(t), search.Config{WholeFiles: whole, Cache: store.NewCache(0)})
		q := search.Query{Pattern: "errors.New($M)", Language: "go", Paths: []string{dir}}
		plan, err := s.Rewrite(ctx, q, "fmt.Errorf($M)")
		if err != nil {
			t.Fatal(err)
		}
		broken := filepath.Join(dir, "broken.go")
		if len(plan.Changes) != 1 || plan.Changes[0].Path != filepath.Join(dir, "clean.go") {
			t.Errorf("whole=%v: the plan changes %d files; want clean.go alone", whole, len(plan.Changes))
		}
		if len(plan.LeftOut) != 1 || plan.LeftOut[0] != (search.BrokenFile{Path: broken, Line: 7}) {
			t.Errorf("whole=%v: left out %+v; want broken.go at line 7", whole, plan.LeftOut)
		}
		if note := plan.LeftOutNote("include_errors"); !strings.Contains(note, "left out 1 file with syntax errors") || !strings.Contains(note, "broken.go:7") || !strings.Contains(note, "pass include_errors") {
			t.Errorf("whole=%v: note %q", whole, note)
		}
		// the search still reports both matches, and names the broken file
		if plan.Result.Total != 2 || plan.Result.BrokenCount != 1 || len(plan.Result.Broken) != 1 || plan.Result.Broken[0].Line != 7 {
			t.Errorf("whole=%v: result total %d, broken %d %+v", whole, plan.Result.Total, plan.Result.BrokenCount, plan.Result.Broken)
		}
		if sum := plan.Result.Summary(); !strings.Contains(sum, "1 file with syntax errors (first error at "+broken+":7)") {
			t.Errorf("whole=%v: summary %q", whole, sum)
		}
		q.IncludeErrors = true
		plan, err = s.Rewrite(ctx, q, "fmt.Errorf($M)")
		if err != nil {
			t.Fatal(err)
		}
		if len(plan.Changes) != 2 || len(plan.LeftOut) != 0 {
			t.Errorf("whole=%v, include errors: %d files changed, %d left out; want 2 and 0", whole, len(plan.Changes), len(plan.LeftOut))
		}
	}
}

func TestSyntaxErrorsSearchListsBrokenFile(t *testing.T) {
	dir := t.TempDir()
	// the error lies in the one declaration that holds the token
	testenv.WriteFiles(t, dir, map[string]string{"a.go": "package a\n\nfunc f() {\n\terrors.New(\"x\")\n\tif {\n}\n", "b.go": cleanGo})
	s := search.NewSearcher(parser(t), search.Config{Cache: store.NewCache(0)})
	res, err := s.Search(context.Background(), search.Query{Pattern: "errors.New($M)", Language: "go", Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 2 {
		t.Errorf("total %d; want both matches, the broken file's too", res.Total)
	}
	if res.BrokenCount != 1 || len(res.Broken) != 1 || res.Broken[0].Path != filepath.Join(dir, "a.go") || res.Broken[0].Line != 5 {
		t.Errorf("broken %d %+v; want a.go at line 5", res.BrokenCount, res.Broken)
	}
}

func TestSyntaxErrorsListBounded(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := 0; i < search.MaxBrokenListed+5; i++ {
		files[filepath.Join("p", strings.Repeat("x", i+1)+".go")] = "package p\n\nvar v = g(1)\n\nvar w = (\n"
	}
	testenv.WriteFiles(t, dir, files)
	s := search.NewSearcher(parser(t), search.Config{Cache: store.NewCache(0)})
	res, err := s.Search(context.Background(), search.Query{Pattern: "g($A)", Language: "go", Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != search.MaxBrokenListed+5 || res.BrokenCount != search.MaxBrokenListed+5 || len(res.Broken) != search.MaxBrokenListed {
		t.Errorf("broken count %d, listed %d; want %d and %d", res.BrokenCount, len(res.Broken), search.MaxBrokenListed+5, search.MaxBrokenListed)
	}
	if sum := res.Summary(); !strings.Contains(sum, "and 5 more)") {
		t.Errorf("summary %q does not say how many more", sum)
	}
}
