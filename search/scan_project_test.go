package search_test

import "context"
import "encoding/json"
import "os"
import "path/filepath"
import "sort"
import "testing"

import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/search/format"

// TestScanProject scans testdata/rules/project, a project with an
// sgconfig.yml (ruleDirs, utilDirs; rules with severity, message, note,
// files, ignores, a fix, a rule that is off), and checks that every
// finding is, field for field, what `ast-grep scan --json` printed there
// (astgrep.json, recorded by scripts/record-rule-conformance.sh).
func TestScanProject(t *testing.T) {
	p := parser(t)
	dir, err := filepath.Abs(filepath.Join("..", "testdata", "rules", "project"))
	if err != nil {
		t.Fatal(err)
	}
	proj, err := search.LoadProject(context.Background(), p, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(proj.Rules) != 5 {
		t.Fatalf("loaded %d rules, want the 5 of rules/", len(proj.Rules))
	}
	t.Chdir(dir)
	s := search.NewSearcher(p, search.Config{MaxText: -1})
	res, err := s.Scan(context.Background(), search.ScanQuery{Rules: proj.Rules, Base: proj.Dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) > 0 {
		t.Fatalf("scan errors: %v", res.Errors)
	}
	data, err := json.Marshal(format.FindingsJSON(res.Findings))
	if err != nil {
		t.Fatal(err)
	}
	var ours, theirs []map[string]any
	if err := json.Unmarshal(data, &ours); err != nil {
		t.Fatal(err)
	}
	recorded, err := os.ReadFile("astgrep.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(recorded, &theirs); err != nil {
		t.Fatal(err)
	}
	key := func(m map[string]any) string {
		b, _ := json.Marshal([]any{m["file"], m["ruleId"], m["range"]})
		return string(b)
	}
	for _, l := range [][]map[string]any{ours, theirs} {
		sort.Slice(l, func(i, j int) bool { return key(l[i]) < key(l[j]) })
	}
	if len(theirs) == 0 {
		t.Fatal("astgrep.json has no findings: the corpus would check nothing")
	}
	a, _ := json.MarshalIndent(theirs, "", " ")
	b, _ := json.MarshalIndent(ours, "", " ")
	if string(a) != string(b) {
		t.Errorf("tether scan differs from ast-grep 0.51.1's scan:\nast-grep: %s\ntether:   %s", a, b)
	}
	t.Logf("%d findings, the same as ast-grep's", len(ours))
}
