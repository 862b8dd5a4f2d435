package search_test

import "context"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/search"

// TestSearchNamesFilesOverTheSizeCap: a file skipped for its size is named,
// with its size and the cap, even when other files were searched, so a
// partial answer never reads as a complete "no match".
func TestSearchNamesFilesOverTheSizeCap(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"small.go": "package p\n\nfunc f() { g() }\n",
		"big.go":   "package p\n\nfunc h() { g() }\n" + strings.Repeat("// filler line\n", 200),
	}
	testenv.WriteFiles(t, dir, files)
	s := search.NewSearcher(parser(t), search.Config{MaxFileSize: 1000})
	res, err := s.Search(context.Background(), search.Query{Pattern: "g()", Language: "go", Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	sum := res.Summary()
	if res.Skipped.TooLarge != 1 || res.Searched != 1 {
		t.Fatalf("skipped %+v, searched %d: %s", res.Skipped, res.Searched, sum)
	}
	for _, want := range []string{"big.go", "3.0 KiB", "1000 B size cap"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary %q does not say %q", sum, want)
		}
	}
}

// TestScanCountsWhatItSkipped: a scan counts and names, as a search does,
// the files it did not read for their size or their binary content.
func TestScanCountsWhatItSkipped(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"small.go": "package p\n\nfunc f() { g() }\n",
		"big.go":   "package p\n\nfunc h() { g() }\n" + strings.Repeat("// filler line\n", 200),
		"bin.go":   "package p\x00\x01\x02 g()\n",
	}
	testenv.WriteFiles(t, dir, files)
	rules, err := search.CompileRules(context.Background(), parser(t), []byte("id: g\nlanguage: go\nrule: {pattern: g()}\n"), "rules.yml", nil)
	if err != nil {
		t.Fatal(err)
	}
	s := search.NewSearcher(parser(t), search.Config{MaxFileSize: 1000})
	res, err := s.Scan(context.Background(), search.ScanQuery{Rules: rules, Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 1 || res.Searched != 1 || res.Skipped.TooLarge != 1 || res.Skipped.Binary != 1 || len(res.Errors) != 0 {
		t.Fatalf("scan: %d findings in %d files searched, skipped %+v, errors %v; want 1 in 1, one too large, one binary", res.Total, res.Searched, res.Skipped, res.Errors)
	}
	if len(res.Skipped.Large) != 1 || !strings.Contains(res.Skipped.Large[0], "big.go (3.0 KiB)") {
		t.Errorf("Skipped.Large = %q, want big.go with its size", res.Skipped.Large)
	}
}
