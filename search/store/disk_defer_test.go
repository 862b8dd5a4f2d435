package store_test

import "encoding/binary"
import "os"
import "path/filepath"
import "testing"
import "time"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/search/internal/searchtest"
import "github.com/tetherhq/tether/search/store"

// TestDiskTierDefersWrites: a tier that defers its writes (a CLI search)
// writes no entry while the search runs, serves the trees it holds to a
// new store before it settles, and writes every one at Settle, counted in
// its ledger.
func TestDiskTierDefersWrites(t *testing.T) {
	dir := t.TempDir()
	s, d := withDisk(t, dir, 0, true)
	d.DeferWrites()
	q := search.Query{Pattern: "$X.Lock()", Language: "go", Paths: []string{filepath.Join(testenv.RepoRoot(), "search")}}
	first, err := s.Search(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	if first.Total == 0 || first.Parsed == 0 {
		t.Fatalf("%d matches in %d trees: want some", first.Total, first.Parsed)
	}
	if n := len(diskEntries(t, dir)); n != 0 {
		t.Fatalf("%d entries written during the search, want them all deferred", n)
	}
	if store.DeferredBytes(d) == 0 {
		t.Fatal("nothing deferred")
	}
	// a new memory store over the same tier finds every tree
	c := store.NewCache(0)
	c.SetDisk(d)
	again, err := search.NewSearcher(parser(t), search.Config{Cache: c, WholeFiles: true}).Search(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	if again.Total != first.Total || again.CacheHits != again.Parsed {
		t.Errorf("before Settle: %d matches (want %d), %d of %d trees from the tier", again.Total, first.Total, again.CacheHits, again.Parsed)
	}
	d.Settle(time.Minute)
	if store.DeferredBytes(d) != 0 {
		t.Errorf("%d bytes still deferred after Settle", store.DeferredBytes(d))
	}
	onDisk, n := tierBytes(t, dir)
	if n == 0 {
		t.Fatal("Settle wrote no entry")
	}
	if got := d.Stats().Bytes; got != onDisk {
		t.Errorf("the tier counts %d bytes, %d on disk", got, onDisk)
	}
	checkFromDisk(t, dir, []string{"$X.Lock()"}, true)
}

// TestDiskTierDeferredBound: what a tier that defers its writes holds in
// memory stays within its bound (32 MiB); past 1 MiB the writer starts,
// and an entry that finds the queue full is dropped (counted), never
// waited for. After Settle every entry is on disk or counted as dropped.
func TestDiskTierDeferredBound(t *testing.T) {
	dir := t.TempDir()
	d, err := openTier(t, dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	d.DeferWrites()
	const entries, size = 60, 1 << 20
	for i := range entries {
		var k [32]byte
		binary.LittleEndian.PutUint64(k[:], uint64(i+1))
		store.DeferEntry(d, k, make([]byte, size))
		if got := store.DeferredBytes(d); got > 32<<20 {
			t.Fatalf("after %d entries %d bytes queued, over the 32 MiB bound", i+1, got)
		}
	}
	d.Settle(time.Minute)
	if got := store.DeferredBytes(d); got != 0 {
		t.Errorf("%d bytes still queued after Settle", got)
	}
	_, n := tierBytes(t, dir)
	if dropped := d.Stats().Dropped; n == 0 || int64(n)+dropped != entries {
		t.Errorf("after Settle %d entries on disk and %d dropped, want %d in all", n, dropped, entries)
	}
}

// TestDiskTierUnwritable: a tier whose packs cannot be made (here a file
// where their directory goes) costs speed, never an answer: the search
// finds what a fresh one finds, the trees are counted as dropped, and the
// process tries no more packs once one failed.
func TestDiskTierUnwritable(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "packs"), []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, d := withDisk(t, dir, 0, true)
	q := search.Query{Pattern: "$X.Lock()", Language: "go", Paths: []string{filepath.Join(testenv.RepoRoot(), "search")}}
	got, want := searchtest.SearchBoth(t, s, q)
	if got.Total == 0 || got.Total != want.Total {
		t.Fatalf("%d matches over an unwritable tier, %d fresh", got.Total, want.Total)
	}
	d.Settle(time.Minute)
	if st := d.Stats(); st.Dropped == 0 || st.Bytes != 0 {
		t.Errorf("unwritable tier: %d trees dropped, %d bytes counted; want some dropped and none counted", st.Dropped, st.Bytes)
	}
	if n := len(store.PackFiles(dir)); n != 0 {
		t.Errorf("%d packs made in an unwritable tier", n)
	}
}
