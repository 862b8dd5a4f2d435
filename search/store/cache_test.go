package store_test

import "context"
import "path/filepath"
import "reflect"
import "sync"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/search/internal/searchtest"
import "github.com/tetherhq/tether/search/store"

var storePatterns = []string{"fmt.Errorf($$$ARGS)", "if err != nil { return $$$ }", "$X.Lock()", "for $I := range $X { $$$ }", "$A = $B", "$F($$$A)"}

// TestStoreMatchesFreshParse: over this repository's search package, every
// pattern finds the same matches with trees from a store that other patterns
// and searchers filled (chunks and whole files) as with a fresh parse, and a
// second searcher on the store parses nothing.
func TestStoreMatchesFreshParse(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(testenv.RepoRoot(), "search")
	c := store.NewCache(0)
	run := func(s *search.Searcher, p string) *search.Result {
		t.Helper()
		r, err := s.Search(ctx, search.Query{Pattern: p, Language: "go", Paths: []string{dir}})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		return r
	}
	first := search.NewSearcher(parser(t), search.Config{Cache: c})
	for _, p := range storePatterns {
		run(first, p)
	}
	second := search.NewSearcher(parser(t), search.Config{Cache: c})
	for _, p := range storePatterns {
		fresh := run(search.NewSearcher(parser(t), search.Config{Cache: store.NewCache(0), WholeFiles: true}), p)
		got := run(second, p)
		if got.Total == 0 || !reflect.DeepEqual(got.Matches, fresh.Matches) || got.Total != fresh.Total {
			t.Errorf("%s: from the store %d matches, fresh %d (equal lists: %v)", p, got.Total, fresh.Total, reflect.DeepEqual(got.Matches, fresh.Matches))
		}
		if got.CacheHits != got.Parsed {
			t.Errorf("%s: %d of %d parsed files came from the store, want all", p, got.CacheHits, got.Parsed)
		}
	}
}

// TestStoreIsPathIndependent: the same file in two checkouts, searched by two
// searchers (two runs) on the store, is parsed once.
func TestStoreIsPathIndependent(t *testing.T) {
	ctx := context.Background()
	a, b := t.TempDir(), t.TempDir()
	files := map[string]string{"x.go": "package x\n\nfunc f() { mu.Lock(); defer mu.Unlock() }\n"}
	testenv.WriteFiles(t, a, files)
	testenv.WriteFiles(t, b, files)
	c := store.NewCache(0)
	q := search.Query{Pattern: "$X.Lock()", Language: "go"}
	q.Paths = []string{a}
	if r, err := search.NewSearcher(parser(t), search.Config{Cache: c}).Search(ctx, q); err != nil || r.Total != 1 || r.CacheHits != 0 {
		t.Fatalf("first checkout: %v %+v", err, r)
	}
	q.Paths = []string{b}
	r, err := search.NewSearcher(parser(t), search.Config{Cache: c}).Search(ctx, q)
	if err != nil || r.Total != 1 || r.CacheHits != 1 || r.Matches[0].Path != filepath.Join(b, "x.go") {
		t.Fatalf("second checkout: %v %+v", err, r)
	}
	if st := c.Stats(); st.Entries != 1 {
		t.Errorf("store holds %d trees, want 1", st.Entries)
	}
}

// TestStoreNeverStale: a file changed to the same size with its time set
// back is searched as it is now, not as the store had it.
func TestStoreNeverStale(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{"x.go": "package x\n\nfunc f() { a.Lock() }\n"})
	s := search.NewSearcher(parser(t), search.Config{Cache: store.NewCache(0)})
	q := search.Query{Pattern: "$X.Lock()", Language: "go", Paths: []string{dir}}
	if r, err := s.Search(ctx, q); err != nil || r.Total != 1 || r.Matches[0].Text != "a.Lock()" {
		t.Fatalf("before: %v %+v", err, r)
	}
	testenv.WriteTimedAs(t, filepath.Join(dir, "x.go"), filepath.Join(dir, "x.go"), "package x\n\nfunc f() { b.Lock() }\n")
	r, err := s.Search(ctx, q)
	if err != nil || r.Total != 1 || r.Matches[0].Text != "b.Lock()" || r.CacheHits != 0 {
		t.Fatalf("after the change: %v %+v", err, r)
	}
}

// TestStoreBudget: a store keeps within its budget, evicting the least
// recently used trees, and searches through it stay correct.
func TestStoreBudget(t *testing.T) {
	dir := filepath.Join(testenv.RepoRoot(), "search")
	c := store.NewCache(64 << 10)
	s := search.NewSearcher(parser(t), search.Config{Cache: c, WholeFiles: true})
	q := search.Query{Pattern: "$X.Lock()", Language: "go", Paths: []string{dir}}
	for range 2 {
		got, want := searchtest.SearchBoth(t, s, q)
		if !reflect.DeepEqual(got.Matches, want.Matches) {
			t.Fatalf("under a small budget: %d matches, want %d", got.Total, want.Total)
		}
	}
	if st := c.Stats(); st.Bytes > st.Budget || st.Entries == 0 {
		t.Errorf("store holds %d bytes in %d trees, budget %d", st.Bytes, st.Entries, st.Budget)
	}
	c.SetBudget(1)
	if st := c.Stats(); st.Entries != 0 || st.Bytes != 0 {
		t.Errorf("after shrinking the budget: %d bytes in %d trees", st.Bytes, st.Entries)
	}
}

// TestStoreConcurrentSearches: searchers with different patterns share one
// store at once (run it under -race).
func TestStoreConcurrentSearches(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(testenv.RepoRoot(), "search")
	c := store.NewCache(0)
	want := map[string]int{}
	for _, p := range storePatterns[:4] {
		r, err := search.NewSearcher(parser(t), search.Config{Cache: store.NewCache(0), Workers: 1}).Search(ctx, search.Query{Pattern: p, Language: "go", Paths: []string{dir}})
		if err != nil {
			t.Fatal(err)
		}
		want[p] = r.Total
	}
	var wg sync.WaitGroup
	for i := range 8 {
		p := storePatterns[i%4]
		wg.Go(func() {
			r, err := search.NewSearcher(parser(t), search.Config{Cache: c, Workers: 1}).Search(ctx, search.Query{Pattern: p, Language: "go", Paths: []string{dir}})
			if err != nil {
				t.Errorf("%s: %v", p, err)
			} else if r.Total != want[p] {
				t.Errorf("%s: %d matches, want %d", p, r.Total, want[p])
			}
		})
	}
	wg.Wait()
}
