package search_test

import "context"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/matcher"
import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/search/store"

// scanFix compiles the rules of the YAML text rules and scans dir with
// them, fixes on, with a new searcher and store of its own.
func scanFix(t *testing.T, p matcher.Parser, rules, dir string) *search.ScanResult {
	t.Helper()
	compiled, err := search.CompileRules(context.Background(), p, []byte(rules), "rules.yml", nil)
	if err != nil {
		t.Fatal(err)
	}
	s := search.NewSearcher(p, search.Config{Cache: store.NewCache(0)})
	res, err := s.Scan(context.Background(), search.ScanQuery{Rules: compiled, Paths: []string{dir}, Fix: true})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestScanSkips checks what a scan does not parse: a file lacking a
// literal token of every rule is prefiltered, and on a second scan a file
// whose stored kind set lacks every rule's kinds is ruled out unread; each
// file is parsed once whatever the number of rules.
func TestScanSkips(t *testing.T) {
	p := parser(t)
	dir := t.TempDir()
	files := map[string]string{
		"lock.go":  "package p\n\nfunc f() {\n\tmu.Lock()\n\twork()\n}\n",
		"plain.go": "package p\n\nfunc g() { work() }\n",
		"goes.go":  "package p\n\nfunc h() { go work() }\n",
	}
	testenv.WriteFiles(t, dir, files)
	rules, err := search.CompileRules(context.Background(), p, []byte(`id: lock
language: go
rule:
  kind: expression_statement
  has: {pattern: $M.Lock()}
---
id: lock-call
language: go
rule: {pattern: $M.Lock()}
`), "rules.yml", nil)
	if err != nil {
		t.Fatal(err)
	}
	s := search.NewSearcher(p, search.Config{Cache: store.NewCache(0)})
	res, err := s.Scan(context.Background(), search.ScanQuery{Rules: rules, Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 2 || res.Parsed != 1 || res.Prefiltered != 2 || res.Searched != 3 {
		t.Fatalf("scan: %d findings, %d parsed, %d prefiltered of %d searched; want 2 findings, 1 parsed (two rules, one parse), 2 prefiltered of 3", res.Total, res.Parsed, res.Prefiltered, res.Searched)
	}
	// a kind rule has no token: a file is parsed (or its tree taken from
	// the store) until its kind set is known, which then rules out the
	// files without a go statement unread (lock.go's is known from the
	// first scan)
	goRule, err := search.CompileRules(context.Background(), p, []byte("id: go\nlanguage: go\nrule: {kind: go_statement}\n"), "go.yml", nil)
	if err != nil {
		t.Fatal(err)
	}
	for round, want := range []struct{ parsed, kindSkipped int }{{2, 1}, {1, 2}} {
		res, err = s.Scan(context.Background(), search.ScanQuery{Rules: goRule, Paths: []string{dir}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Total != 1 || res.Parsed != want.parsed || res.KindSkipped != want.kindSkipped {
			t.Errorf("round %d: %d findings, %d parsed, %d kind-skipped; want 1, %d, %d", round+1, res.Total, res.Parsed, res.KindSkipped, want.parsed, want.kindSkipped)
		}
	}
}
