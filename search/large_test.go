package search_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherhq/tether/search"
)

// TestSearchNamesFilesOverTheSizeCap: a file skipped for its size is named,
// with its size and the cap, even when other files were searched, so a
// partial answer never reads as a complete "no match".
func TestSearchNamesFilesOverTheSizeCap(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"small.go": "package p\n\nfunc f() { g() }\n",
		"big.go":   "package p\n\nfunc h() { g() }\n" + strings.Repeat("// filler line\n", 200),
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
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
