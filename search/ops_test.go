package search_test

import "context"
import "errors"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/search/store"

// TestRewriteOps combines ops into one plan in both parse modes: each op
// matches the original text (op 1 does not see op 0's output), an overlap
// names both ops and its line, and a broken file is left out.
func TestRewriteOps(t *testing.T) {
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{
		"a.go":      "package a\n\nfunc f(x int) int { return x }\n\nvar (\n\tp = f(1)\n\tq = g(f(2), f(3))\n)\n",
		"broken.go": brokenGo,
	})
	ctx := context.Background()
	op := func(name, pattern, rewrite string) search.Op {
		return search.Op{Name: name, Rewrite: rewrite, Query: search.Query{Pattern: pattern, Language: "go", Paths: []string{dir}}}
	}
	for _, whole := range []bool{false, true} {
		s := search.NewSearcher(parser(t), search.Config{WholeFiles: whole, Cache: store.NewCache(0)})

		// h(1) from op 0 is not seen by op 1's h($X): it matches the file as it was
		plan, err := s.RewriteOps(ctx, []search.Op{op("op0", "f(1)", "h(1)"), op("op1", "h($X)", "k($X)"), op("op2", "errors.New($M)", "fmt.Errorf($M)")})
		if err != nil {
			t.Fatalf("whole=%v: %v", whole, err)
		}
		if len(plan.Changes) != 1 || plan.Replacements != 1 || !strings.Contains(string(plan.Changes[0].New), "\tp = h(1)\n") {
			t.Errorf("whole=%v: %d changes, %d replacements: %+v", whole, len(plan.Changes), plan.Replacements, plan.Changes)
		}
		if len(plan.LeftOut) != 1 || plan.LeftOut[0].Path != filepath.Join(dir, "broken.go") {
			t.Errorf("whole=%v: left out %+v; want broken.go", whole, plan.LeftOut)
		}

		plan, err = s.RewriteOps(ctx, []search.Op{op("op0", "f($A)", "h($A)"), op("op1", "g($$$B)", "k($$$B)")})
		var ov *search.OverlapError
		if !errors.As(err, &ov) || ov.A != 0 || ov.B != 1 || ov.Line != 7 || ov.Path != filepath.Join(dir, "a.go") ||
			!strings.Contains(err.Error(), "op0 and op1 replace overlapping text at "+filepath.Join(dir, "a.go")+":7") {
			t.Errorf("whole=%v: overlap: %v (%+v)", whole, err, plan)
		}

		// an op that spans two of another op's matches, listed first
		_, err = s.RewriteOps(ctx, []search.Op{op("wide", "g($$$B)", "k()"), op("narrow", "f(3)", "f(4)"), op("other", "f(2)", "f(5)")})
		if !errors.As(err, &ov) || ov.NameA != "wide" || ov.Line != 7 {
			t.Errorf("whole=%v: spanning overlap: %v", whole, err)
		}

		// every op sees the same broken file: with IncludeErrors on all, it is rewritten
		inc := op("op2", "errors.New($M)", "fmt.Errorf($M)")
		inc.Query.IncludeErrors = true
		if plan, err = s.RewriteOps(ctx, []search.Op{inc}); err != nil || len(plan.Changes) != 1 || len(plan.LeftOut) != 0 {
			t.Errorf("whole=%v: include errors: %v %+v", whole, err, plan)
		}
	}
	s := search.NewSearcher(parser(t), search.Config{})
	if _, err := s.RewriteOps(ctx, nil); err == nil || !strings.Contains(err.Error(), "give at least one") {
		t.Errorf("no ops: %v", err)
	}
	if _, err := s.RewriteOps(ctx, make([]search.Op, search.MaxOps+1)); err == nil || !strings.Contains(err.Error(), "split them") {
		t.Errorf("too many ops: %v", err)
	}
	if _, err := s.RewriteOps(ctx, []search.Op{op("bad", "f(", "g()")}); err == nil || !strings.HasPrefix(err.Error(), "search: bad: ") {
		t.Errorf("an op that does not compile: %v", err)
	}
}
