package searchtest

import "context"
import "reflect"
import "testing"

import "github.com/tetherhq/tether/engine/enginetest"
import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/search/store"

// SearchBoth runs q with s and with a fresh parse of whole files (a
// searcher over an empty store).
func SearchBoth(t testing.TB, s *search.Searcher, q search.Query) (got, fresh *search.Result) {
	t.Helper()
	got, err := s.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err = search.NewSearcher(enginetest.Engine(t), search.Config{Cache: store.NewCache(0), WholeFiles: true}).Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return got, fresh
}

// SameWithKindSets searches q with s after a warm-up of q's paths has noted
// the kind set of every file, and fails unless it finds what base, a
// search of q that knew no kind set, found. It returns the result.
func SameWithKindSets(t testing.TB, s *search.Searcher, q search.Query, base *search.Result) *search.Result {
	t.Helper()
	ctx := context.Background()
	if base.KindSkipped != 0 {
		t.Fatalf("%s: %d files skipped by kind sets in the search that was to know none", q.Pattern, base.KindSkipped)
	}
	if err := s.WarmUp(ctx, q.Paths...); err != nil {
		t.Fatal(err)
	}
	got, err := s.Search(ctx, q)
	if err != nil {
		t.Fatalf("%s: %v", q.Pattern, err)
	}
	if got.Total != base.Total || !reflect.DeepEqual(got.Matches, base.Matches) || got.Searched != base.Searched || len(got.Errors) != len(base.Errors) {
		t.Errorf("%s %s: with kind sets %d matches in %d files, without %d in %d (equal lists: %v)",
			q.Language, q.Pattern, got.Total, got.Searched, base.Total, base.Searched, reflect.DeepEqual(got.Matches, base.Matches))
	}
	return got
}
