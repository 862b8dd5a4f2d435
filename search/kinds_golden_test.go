package search_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherhq/tether/search"
	"github.com/tetherhq/tether/search/internal/searchtest"
	"github.com/tetherhq/tether/search/store"
)

// goldenKindRun searches q with s, after a warm-up of q's paths has noted
// the kind set of every file, and with a searcher over an empty store,
// which knows no kind set, and fails unless both find the same. It returns
// the first result. (search/store's tests hold the rest of the kind sets'.)
func goldenKindRun(t *testing.T, s *search.Searcher, q search.Query) *search.Result {
	t.Helper()
	base, err := search.NewSearcher(parser(t), search.Config{Cache: store.NewCache(0)}).Search(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q.Pattern, err)
	}
	return searchtest.SameWithKindSets(t, s, q, base)
}

// TestKindPrefilterGolden: every golden pattern finds the same matches with
// the kind sets of all the golden inputs of its language as without: each
// language's inputs are one directory, searched by every pattern of the
// language (its own input and the others').
func TestKindPrefilterGolden(t *testing.T) {
	p := parser(t)
	byLang := map[string][]*goldenCase{}
	for _, c := range loadCases(t) {
		if _, bad := c.section("error"); !bad {
			byLang[c.lang] = append(byLang[c.lang], c)
		}
	}
	skipped, searched := 0, 0
	for lang, cases := range byLang {
		dir := t.TempDir()
		for _, c := range cases {
			name := strings.ReplaceAll(strings.TrimSuffix(filepath.Base(c.path), ".txtar"), ".", "_") + filepath.Ext(c.inputName)
			if err := os.WriteFile(filepath.Join(dir, name), c.input, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		s := search.NewSearcher(p, search.Config{Cache: store.NewCache(0)})
		for _, c := range cases {
			r := goldenKindRun(t, s, search.Query{Pattern: c.pattern, Selector: c.selector, Language: lang, Paths: []string{dir}})
			skipped += r.KindSkipped
			searched += r.Searched
		}
	}
	if skipped == 0 {
		t.Errorf("no file of %d skipped by its kinds", searched)
	}
	t.Logf("%d of %d files skipped by their kinds", skipped, searched)
}
