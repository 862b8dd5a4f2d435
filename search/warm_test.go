package search_test

import "context"
import "path/filepath"
import "reflect"
import "strings"
import "sync"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/search/internal/searchtest"
import "github.com/tetherhq/tether/search/store"

var storePatterns = []string{"fmt.Errorf($$$ARGS)", "if err != nil { return $$$ }", "$X.Lock()", "for $I := range $X { $$$ }", "$A = $B", "$F($$$A)"}

// TestWarmUpFillsStore: after a warm-up over a directory, every pattern's
// first query finds all its trees in the store, with the matches of a fresh
// parse, and the status counts every file.
func TestWarmUpFillsStore(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(testenv.RepoRoot(), "search")
	s := search.NewSearcher(parser(t), search.Config{Cache: store.NewCache(0)})
	if err := s.WarmUp(ctx, dir); err != nil {
		t.Fatal(err)
	}
	st := s.WarmStatus()
	if st.Running || st.Stopped != "" || st.Total == 0 || st.Done != st.Total {
		t.Fatalf("after the warm-up: %+v", st)
	}
	if !strings.HasPrefix(st.String(), "structural index: ") {
		t.Errorf("status %q", st)
	}
	for _, p := range storePatterns {
		q := search.Query{Pattern: p, Language: "go", Paths: []string{dir}}
		got, want := searchtest.SearchBoth(t, s, q)
		if got.CacheHits != got.Parsed || !reflect.DeepEqual(got.Matches, want.Matches) {
			t.Errorf("%s: %d of %d trees warm; %d matches, fresh %d", p, got.CacheHits, got.Parsed, got.Total, want.Total)
		}
	}
}

// TestWarmUpYieldsToQueries: queries during a warm-up (which they interrupt)
// are answered correctly and the warm-up still finishes; a cancelled warm-up
// says so. Run under -race.
func TestWarmUpYieldsToQueries(t *testing.T) {
	ctx := context.Background()
	root := testenv.RepoRoot()
	dirs := []string{filepath.Join(root, "matcher"), filepath.Join(root, "search"), filepath.Join(root, "engine"), filepath.Join(root, "tools")}
	s := search.NewSearcher(parser(t), search.Config{Cache: store.NewCache(0)})
	var wg sync.WaitGroup
	var werr error
	wg.Go(func() { werr = s.WarmUp(ctx, dirs...) })
	q := search.Query{Pattern: "$X.Lock()", Language: "go", Paths: dirs[:1]}
	want, err := search.NewSearcher(parser(t), search.Config{Cache: store.NewCache(0)}).Search(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		got, err := s.Search(ctx, q)
		if err != nil || !reflect.DeepEqual(got.Matches, want.Matches) {
			t.Fatalf("during the warm-up: %v, %d matches, want %d", err, got.Total, want.Total)
		}
	}
	wg.Wait()
	if st := s.WarmStatus(); werr != nil || st.Done != st.Total || st.Running {
		t.Fatalf("warm-up: %v, %+v", werr, st)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	s2 := search.NewSearcher(parser(t), search.Config{Cache: store.NewCache(0)})
	if err := s2.WarmUp(cctx, dirs...); err == nil || s2.WarmStatus().Stopped != "cancelled" {
		t.Errorf("a cancelled warm-up: %v, %+v", err, s2.WarmStatus())
	}
}
