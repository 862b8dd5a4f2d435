package search_test

import "context"
import "os"
import "path/filepath"
import "regexp"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/search/store"

// TestFindProject: the project config is the working directory's or the
// nearest one above it, sgconfig.yml before sgconfig.yaml.
func TestFindProject(t *testing.T) {
	root := t.TempDir()
	testenv.WriteFiles(t, root, map[string]string{
		"a/sgconfig.yaml": "ruleDirs: [rules]\n",
		"a/b/c/x.go":      "package c\n",
		"d/sgconfig.yml":  "ruleDirs: [rules]\n",
		"d/sgconfig.yaml": "ruleDirs: [other]\n",
	})
	for _, c := range []struct {
		dir, want string
	}{
		{"a/b/c", "a/sgconfig.yaml"},
		{"a", "a/sgconfig.yaml"},
		{"d", "d/sgconfig.yml"},
	} {
		t.Run(c.dir, func(t *testing.T) {
			if got := search.FindProject(filepath.Join(root, c.dir)); got != filepath.Join(root, c.want) {
				t.Errorf("FindProject = %q, want %q", got, filepath.Join(root, c.want))
			}
		})
	}
}

// TestDo: a search job finds what Search finds and makes no plan; a
// rewrite job plans the change and writes it only with Apply.
func TestDo(t *testing.T) {
	dir := t.TempDir()
	const src = "package p\n\nfunc f() { old(1); old(2) }\n"
	testenv.WriteFiles(t, dir, map[string]string{"a.go": src})
	s := search.NewSearcher(parser(t), search.Config{Cache: store.NewCache(0)})
	q := search.Query{Pattern: "old($A)", Language: "go", Paths: []string{dir}}
	ctx := context.Background()
	res, plan, err := s.Do(ctx, search.Job{Query: q})
	if err != nil || plan != nil || res.Total != 2 {
		t.Fatalf("search job: %v, plan %v, %d matches; want 2 and no plan", err, plan, res.Total)
	}
	rw := "fresh($A)"
	for _, apply := range []bool{false, true} {
		res, plan, err := s.Do(ctx, search.Job{Query: q, Rewrite: &rw, Apply: apply})
		if err != nil || plan == nil || plan.Replacements != 2 || res != plan.Result {
			t.Fatalf("rewrite job (apply %v): %v, %+v", apply, err, plan)
		}
		got, err := os.ReadFile(filepath.Join(dir, "a.go"))
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]string{false: src, true: "package p\n\nfunc f() { fresh(1); fresh(2) }\n"}[apply]; string(got) != want {
			t.Errorf("apply %v: the file holds %q, want %q", apply, got, want)
		}
	}
}

// TestLoadRulesAndDoScan: rules given inline are filtered by id, and a
// scan job applies the fixes of the rules kept.
func TestLoadRulesAndDoScan(t *testing.T) {
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{"a.py": "if x == None:\n    pass\nprint(y)\n"})
	ctx := context.Background()
	p := parser(t)
	rules := "id: none\nlanguage: python\nrule: {pattern: $X == None}\nfix: $X is None\n---\n" +
		"id: no-print\nlanguage: python\nrule: {pattern: print($$$)}\n"
	proj, err := search.LoadRules(ctx, p, search.RuleSource{Inline: rules, InlineName: "inline", Filter: regexp.MustCompile("^none$")})
	if err != nil {
		t.Fatal(err)
	}
	if len(proj.Rules) != 1 || proj.Rules[0].ID != "none" || proj.Dir != "" {
		t.Fatalf("rules after the filter: %d (dir %q), want none alone", len(proj.Rules), proj.Dir)
	}
	s := search.NewSearcher(p, search.Config{Cache: store.NewCache(0)})
	res, err := s.DoScan(ctx, search.ScanJob{Query: search.ScanQuery{Rules: proj.Rules, Paths: []string{dir}}, Apply: true})
	if err != nil || res.Total != 1 || res.Plan == nil || res.Plan.Edits != 1 {
		t.Fatalf("scan job: %v, %+v", err, res)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.py")); string(got) != "if x is None:\n    pass\nprint(y)\n" {
		t.Errorf("after the scan job: %q", got)
	}
	if _, err := search.LoadRules(ctx, p, search.RuleSource{Inline: "id: a\nlanguage: go\nrule: {kinds: x}\n", InlineName: "inline"}); err == nil {
		t.Error("a bad inline rule compiled")
	}
}
