package search

import "context"
import "errors"
import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/matcher"

// TestSearchPathologicalPatternHitsTheBudget: a search and a rewrite with
// f($$$A, $$$A, $$$A, y, x) over a file with one call of 3000 arguments end
// with matcher.ErrTooExpensive, naming the file, line and column and what to
// do, not with "no matches"; the same call with a cheap pattern is found.
// The test has no timing assertion: it just must finish.
func TestSearchPathologicalPatternHitsTheBudget(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.go")
	if err := os.WriteFile(path, []byte(testenv.ManyArgs(3000)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, pattern string }{
		{"repeated $$$", "f($$$A, $$$A, $$$A, y, x)"},
		{"one $$$", "f($$$A, y, x)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := NewSearcher(fuzzParser(t), Config{})
			res, err := s.Search(context.Background(), Query{Pattern: tt.pattern, Language: "go", Paths: []string{path}})
			if tt.name == "one $$$" {
				// the same call, a pattern that is cheap: an answer
				if err != nil || res.Total != 1 {
					t.Fatalf("f($$$A, y, x): %v, %+v; want the one match", err, res)
				}
				return
			}
			if !errors.Is(err, matcher.ErrTooExpensive) {
				t.Fatalf("search = %+v, %v; want matcher.ErrTooExpensive", res, err)
			}
			for _, want := range []string{"pattern too expensive", "a.go:3:9", "make it more specific"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
			_, err = s.Rewrite(context.Background(), Query{Pattern: tt.pattern, Language: "go", Paths: []string{path}}, "g($$$A)")
			if !errors.Is(err, matcher.ErrTooExpensive) {
				t.Errorf("rewrite: %v; want matcher.ErrTooExpensive", err)
			}
		})
	}
}

// TestCancelStopsSearch: a search whose context is cancelled while it runs
// says it was cancelled, wrapping the context's error (matcher's
// TestCancelStopsRunningMatch shows a match in progress stops on it).
func TestCancelStopsSearch(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.go")
	if err := os.WriteFile(path, []byte(testenv.ManyArgs(3000)), 0o644); err != nil {
		t.Fatal(err)
	}
	s := NewSearcher(fuzzParser(t), Config{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.testHookRead = func(string) { cancel() }
	_, err := s.Search(ctx, Query{Pattern: "f($$$A, $$$A, $$$A, y, x)", Language: "go", Paths: []string{path}})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "cancelled") {
		t.Errorf("search cancelled mid-search: %v, want it to say so and wrap context.Canceled", err)
	}
}
