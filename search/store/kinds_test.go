package store_test

import "context"
import "errors"
import "io/fs"
import "maps"
import "os"
import "path/filepath"
import "reflect"
import "runtime"
import "sort"
import "strings"
import "sync"
import "testing"
import "time"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/search/internal/searchtest"
import "github.com/tetherhq/tether/search/store"

// kindRun searches q twice over a store holding every tree of paths: once
// with no kind set known (the search as it was before kind sets), once with
// the set of every file (after a warm-up notes them), and fails unless both
// find the same. It returns the second result.
func kindRun(t *testing.T, s *search.Searcher, q search.Query) *search.Result {
	t.Helper()
	store.ClearKindSets(s.Cache())
	base, err := s.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q.Pattern, err)
	}
	return searchtest.SameWithKindSets(t, s, q, base)
}

// TestKindPrefilterCorpus: token-free patterns find the same matches with
// kind sets as without over real code: a slice of the Go standard library,
// Python (the kernel's driver, the repository's Python files and typeshed's
// stubs when pyright is installed) and TypeScript (the repository's, the
// JavaScript kernel's prelude read as TypeScript, and TypeScript's lib.es5.d.ts
// when installed); and they skip files by their kinds.
func TestKindPrefilterCorpus(t *testing.T) {
	root := testenv.RepoRoot()
	goroot := filepath.Join(runtime.GOROOT(), "src")
	var goPaths []string
	for _, d := range []string{"strings", "bufio", "sort", "container", "unicode/utf8", "encoding/csv", "text/tabwriter", "sync"} {
		goPaths = append(goPaths, filepath.Join(goroot, filepath.FromSlash(d)))
	}
	py := t.TempDir()
	copyInto(t, py, "", filepath.Join(root, "kernels", "python", "driver.py"), filepath.Join(root, "testdata", "lsp", "pyproj", "app.py"),
		filepath.Join(root, "testdata", "lsp", "pyproj", "pkg", "shapes.py"), filepath.Join(root, "testdata", "parse", "python", "ok.py"))
	if stubs, _ := filepath.Glob(filepath.Join(root, ".deps", "npm", "node_modules", "pyright", "dist", "typeshed-fallback", "stdlib", "*.pyi")); len(stubs) > 0 {
		sort.Strings(stubs)
		copyInto(t, py, ".py", stubs[:min(len(stubs), 60)]...)
	}
	ts := t.TempDir()
	copyInto(t, ts, "", filepath.Join(root, "testdata", "lsp", "tsproj", "src", "app.ts"), filepath.Join(root, "testdata", "lsp", "tsproj", "src", "shapes.ts"),
		filepath.Join(root, "testdata", "parse", "typescript", "ok.ts"))
	copyInto(t, ts, ".ts", filepath.Join(root, "kernels", "js", "prelude.js"))
	if lib := filepath.Join(root, ".deps", "npm", "node_modules", "typescript", "lib", "lib.es5.d.ts"); fileExists(lib) {
		copyInto(t, ts, "", lib)
	}
	for _, tc := range []struct {
		lang     string
		paths    []string
		patterns []string
	}{
		{"go", goPaths, []string{"$X++", "$A += $B", "$A <- $B", "&$T{}", "$A && $B", "$X[$I] = $V", "case $X:", "$F($$$A)"}},
		{"python", []string{py}, []string{"$A += $B", "$X[$I] = $V", "{$K: $V}", "$A[$B:$C]", "$F(*$A)", "[$X, $$$]", "$A @ $B", "$X.$Y = $Z"}},
		{"typescript", []string{ts}, []string{"$A ?? $B", "$X!", "$X?.$Y", "[...$A]", "{ ...$O }", "$X++", "$A | $B", "($A) => $B", "$A += $B"}},
	} {
		s := search.NewSearcher(parser(t), search.Config{Cache: store.NewCache(0)})
		skipped := 0
		for _, pat := range tc.patterns {
			r := kindRun(t, s, search.Query{Pattern: pat, Language: tc.lang, Paths: tc.paths})
			if r.Searched < 4 {
				t.Fatalf("%s: %s searched %d files", tc.lang, pat, r.Searched)
			}
			skipped += r.KindSkipped
		}
		if skipped == 0 {
			t.Errorf("%s: no file skipped by its kinds", tc.lang)
		}
	}
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// copyInto copies files into dir, their names given ext when it is set.
func copyInto(t *testing.T, dir, ext string, files ...string) {
	t.Helper()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f)
		if ext != "" {
			name = strings.TrimSuffix(name, filepath.Ext(name)) + ext
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// freshSearcher searches with whole files over a new store.
func freshSearcher(t *testing.T) *search.Searcher {
	return search.NewSearcher(parser(t), search.Config{Cache: store.NewCache(0), WholeFiles: true})
}

// sameAsFresh fails unless got, q's result, has the matches fresh finds with
// no kind set known (its sets are forgotten first; its trees are kept) and
// skipped files by their kinds.
func sameAsFresh(t *testing.T, fresh *search.Searcher, q search.Query, got *search.Result) {
	t.Helper()
	store.ClearKindSets(fresh.Cache())
	want, err := fresh.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if got.Total != want.Total || !reflect.DeepEqual(got.Matches, want.Matches) || got.KindSkipped == 0 {
		t.Errorf("%s: %d matches, fresh %d; %d of %d files skipped by kind", q.Pattern, got.Total, want.Total, got.KindSkipped, got.Searched)
	}
}

// TestKindSetNeverStale: a file changed to hold what a pattern needs, at the
// same size and with its time set back, is searched as it is now: the set of
// what it was does not rule it out.
func TestKindSetNeverStale(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{"x.go": "package x\n\nfunc f() { i = 1 }\n", "y.go": "package x\n\nfunc g() { j = 2 }\n"})
	s := search.NewSearcher(parser(t), search.Config{Cache: store.NewCache(0)})
	q := search.Query{Pattern: "$X++", Language: "go", Paths: []string{dir}}
	for i := range 2 {
		r, err := s.Search(ctx, q)
		if err != nil || r.Total != 0 || r.KindSkipped != 2*i {
			t.Fatalf("search %d: %v, %d matches, %d files skipped by kind", i, err, r.Total, r.KindSkipped)
		}
	}
	testenv.WriteTimedAs(t, filepath.Join(dir, "x.go"), filepath.Join(dir, "x.go"), "package x\n\nfunc f() { i++;  }\n")
	r, err := s.Search(ctx, q)
	if err != nil || r.Total != 1 || r.Matches[0].Text != "i++" || r.KindSkipped != 1 {
		t.Fatalf("after the change: %v %+v", err, r)
	}
}

// TestKindSetsOutliveTrees: a store too small to keep any tree still keeps
// the files' kind sets, and a pattern whose kinds they lack parses nothing.
func TestKindSetsOutliveTrees(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(testenv.RepoRoot(), "search")
	store := store.NewCache(1)
	s := search.NewSearcher(parser(t), search.Config{Cache: store, WholeFiles: true})
	first, err := s.Search(ctx, search.Query{Pattern: "$X.Lock()", Language: "go", Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	// the token "Lock" passes few files: a token-free pattern parses the rest
	if _, err := s.Search(ctx, search.Query{Pattern: "$A && $B", Language: "go", Paths: []string{dir}}); err != nil {
		t.Fatal(err)
	}
	st := store.Stats()
	if st.Entries != 0 || st.KindSets < first.Searched || st.KindBytes == 0 {
		t.Fatalf("store: %d trees, %d kind sets in %d bytes, want no tree and %d sets", st.Entries, st.KindSets, st.KindBytes, first.Searched)
	}
	q := search.Query{Pattern: "$A &^ $B", Language: "go", Paths: []string{dir}}
	r, err := s.Search(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	sameAsFresh(t, freshSearcher(t), q, r)
	if r.KindSkipped < r.Searched/2 || r.Parsed+r.KindSkipped != r.Searched {
		t.Errorf("%s: %d files parsed, %d of %d skipped by kind", q.Pattern, r.Parsed, r.KindSkipped, r.Searched)
	}
	t.Logf("%d kind sets, %d bytes (%d a file)", st.KindSets, st.KindBytes, st.KindBytes/int64(st.KindSets))
}

// filledIndex fills a new disk tier with the trees and kind sets of the
// search package (a token-free search parses every file) and returns its
// directory, the package's, the searcher, the tier and the index's shard
// files' bytes by path.
func filledIndex(t *testing.T) (dir, src string, s *search.Searcher, d *store.DiskCache, shards map[string][]byte) {
	t.Helper()
	dir = t.TempDir()
	src = filepath.Join(testenv.RepoRoot(), "search")
	s, d = withDisk(t, dir, 0, true)
	if _, err := s.Search(context.Background(), search.Query{Pattern: "$A && $B", Language: "go", Paths: []string{src}}); err != nil {
		t.Fatal(err)
	}
	return dir, src, s, d, readShards(t, d)
}

// readShards returns the bytes of every shard file of d's index by path.
func readShards(t *testing.T, d *store.DiskCache) map[string][]byte {
	t.Helper()
	ents, err := os.ReadDir(store.KindIndexDir(d))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".idx") {
			continue
		}
		p := filepath.Join(store.KindIndexDir(d), e.Name())
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[p] = b
	}
	return out
}

// shardRecords lists the records of every shard file, failing on one that
// is in a file not its shard's.
func shardRecords(t *testing.T, d *store.DiskCache, shards map[string][]byte) map[[32]byte]string {
	t.Helper()
	out := map[[32]byte]string{}
	for p, b := range shards {
		for k, v := range store.KindIndexRecords(b) {
			if store.KindShardPath(d, k) != p {
				t.Fatalf("a record of %s is in %s", store.KindShardPath(d, k), p)
			}
			out[k] = v
		}
	}
	return out
}

// TestKindIndexServesNewProcess: a new process (an empty memory store over
// the same disk tier) has the kind sets before reading any tree, skips the
// files they rule out without loading them, and finds what a fresh parse
// finds; damaged and foreign records, and a record in another shard's file,
// are skipped, never read as sets.
func TestKindIndexServesNewProcess(t *testing.T) {
	ctx := context.Background()
	dir, src, _, d, shards := filledIndex(t)
	recs := shardRecords(t, d, shards)
	if len(recs) < 20 || len(shards) < 10 {
		t.Fatalf("%d records in %d shards", len(recs), len(shards))
	}
	fresh := freshSearcher(t)
	for _, pat := range []string{"$A <- $B", "$X++", "case $X:"} {
		q := search.Query{Pattern: pat, Language: "go", Paths: []string{src}}
		s2, _ := withDisk(t, dir, 0, true)
		got, err := s2.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		sameAsFresh(t, fresh, q, got)
		if got.Parsed+got.Prefiltered != got.Searched {
			t.Errorf("%s: %d of %d files skipped by kind, %d parsed", pat, got.KindSkipped, got.Searched, got.Parsed)
		}
		if st := s2.Cache().Stats(); st.Entries != got.Parsed {
			t.Errorf("%s: %d trees loaded for %d files searched in them", pat, st.Entries, got.Parsed)
		}
	}
	// a record in another shard's file, claiming no kind for a key: not read
	var paths []string
	for p := range shards {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var inFirst, inLast [32]byte
	for k := range recs {
		switch store.KindShardPath(d, k) {
		case paths[0]:
			inFirst = k
		case paths[len(paths)-1]:
			inLast = k
		}
	}
	if err := os.WriteFile(paths[0], append(append([]byte(nil), shards[paths[0]]...), store.KindRecord(inLast, "")...), 0o600); err != nil {
		t.Fatal(err)
	}
	c := store.NewCache(0)
	c.SetDisk(d)
	if set, ok := store.KindSetOf(c, inFirst); !ok || set != recs[inFirst] {
		t.Fatalf("the set of a key of the first shard: %v", ok)
	}
	if set, ok := store.KindSetOf(c, inLast); !ok || set != recs[inLast] {
		t.Fatalf("a record in another shard's file was read as a set (found %v, %d bytes, want %d)", ok, len(set), len(recs[inLast]))
	}
	// damage in every shard: garbage before the records, a bit flipped in
	// every third shard's first record, a torn record at the end
	left := map[[32]byte]string{}
	for i, p := range paths {
		b := shards[p]
		damaged := append([]byte("not an index\n"), b...)
		if i%3 == 0 {
			damaged[13+40] ^= 0x10
		}
		damaged = append(damaged, b[:40]...)
		if err := os.WriteFile(p, damaged, 0o600); err != nil {
			t.Fatal(err)
		}
		maps.Copy(left, store.KindIndexRecords(damaged))
	}
	if len(left) == 0 || len(left) >= len(recs) {
		t.Fatalf("%d of %d records check out after the damage", len(left), len(recs))
	}
	for k, v := range left {
		if recs[k] != v {
			t.Fatalf("a damaged record read as a set")
		}
	}
	q := search.Query{Pattern: "$X++", Language: "go", Paths: []string{src}}
	s3, _ := withDisk(t, dir, 0, true)
	got, err := s3.Search(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	sameAsFresh(t, fresh, q, got)
}

// TestKindIndexIgnoresSingleFile: the single index file an earlier version
// kept (kinds.idx at the tier's top, the same records) is never read: here
// it claims no kind for every file, which would rule them all out; a new
// process finds what a fresh parse finds, and removes it.
func TestKindIndexIgnoresSingleFile(t *testing.T) {
	dir, src, _, d, shards := filledIndex(t)
	var old []byte
	for k := range shardRecords(t, d, shards) {
		old = append(old, store.KindRecord(k, "")...)
	}
	oldPath := filepath.Join(filepath.Dir(store.KindIndexDir(d)), "kinds.idx")
	if err := os.WriteFile(oldPath, old, 0o600); err != nil {
		t.Fatal(err)
	}
	q := search.Query{Pattern: "$X++", Language: "go", Paths: []string{src}}
	s2, _ := withDisk(t, dir, 0, true)
	got, err := s2.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	sameAsFresh(t, freshSearcher(t), q, got)
	if _, err := os.Stat(oldPath); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the earlier version's index is still there: %v", err)
	}
}

// TestKindIndexConcurrentWriters: two disk tiers on one directory (as two
// processes) appending at once to the same shards leave every record
// readable, each in its shard's file.
func TestKindIndexConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	const n = 300
	var d *store.DiskCache
	for w := range 2 {
		dw, err := openTier(t, dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		d = dw
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range n {
				var k [32]byte
				k[0], k[1], k[2], k[3] = byte(i%4), byte(w), byte(i), byte(i>>8)
				store.AppendKindSet(dw, k, strings.Repeat(string(rune('a'+w)), 1+i%40))
			}
			dw.Settle(time.Minute) // as the process exits
		}()
	}
	wg.Wait()
	shards := readShards(t, d)
	if recs := shardRecords(t, d, shards); len(recs) != 2*n || len(shards) != 4 {
		t.Errorf("%d of %d records read back from %d shard files, want 4", len(recs), 2*n, len(shards))
	}
}

// TestKindPrefilterKeepsUncheckedTokens: the tokens a $$$ takes unchecked are
// not needed: f($$$A,) matches f(a) and f($$$M, $Z) matches f(b) in files
// without a comma, with kind sets as without.
func TestKindPrefilterKeepsUncheckedTokens(t *testing.T) {
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{"a.go": "package x\n\nfunc g() { f(a) }\n", "b.go": "package x\n\nfunc h() { f(b) }\n"})
	s := search.NewSearcher(parser(t), search.Config{Cache: store.NewCache(0)})
	for _, pat := range []string{"f($$$A,)", "f($$$M, $Z)"} {
		if r := kindRun(t, s, search.Query{Pattern: pat, Language: "go", Paths: []string{dir}}); r.Total != 2 {
			t.Errorf("%s: %d matches, want 2", pat, r.Total)
		}
	}
}

// TestKindIndexStaysWithinCap: a shard of the index past its cap is
// rewritten with the newest sets of that shard the store holds, by the
// process appending to it and by one that finds it too large, and stays
// readable and right; the other shards are left as they are.
func TestKindIndexStaysWithinCap(t *testing.T) {
	defer store.SetKindIndexCap(256 << 10)() // 1 KiB a shard
	shardCap := store.KindShardCap()
	set := strings.Repeat("\x5a", 40) // 82 bytes a record
	// the appending process: 300 sets in shard 7, 5 in shard 8
	d, err := openTier(t, t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	c := store.NewCache(0)
	c.SetDisk(d)
	key := func(sh byte, i int) (k [32]byte) {
		k[0], k[1], k[2] = sh, byte(i), byte(i>>8)
		return k
	}
	for i := range 5 {
		store.NoteKindSet(c, key(8, i), set)
	}
	for i := range 300 {
		store.NoteKindSet(c, key(7, i), set)
	}
	shards := readShards(t, d)
	seven, eight := shards[store.KindShardPath(d, key(7, 0))], shards[store.KindShardPath(d, key(8, 0))]
	if int64(len(seven)) > shardCap+100 || len(store.KindIndexRecords(eight)) != 5 || len(shards) != 2 {
		t.Fatalf("shard 7 of %d bytes (cap %d), shard 8 with %d records, %d shard files", len(seven), shardCap, len(store.KindIndexRecords(eight)), len(shards))
	}
	if got := store.KindIndexRecords(seven)[key(7, 299)]; got != set {
		t.Fatalf("the newest set is not in its rewritten shard")
	}
	// too large when a new process reads it: its newest records read,
	// the shard rewritten at once
	big := append([]byte(nil), seven...)
	for i := 300; int64(len(big)) < 4*shardCap; i++ {
		big = append(big, store.KindRecord(key(7, i), set)...)
	}
	last := key(7, 300+(len(big)-len(seven))/len(store.KindRecord(key(7, 0), set))-1)
	if err := os.WriteFile(store.KindShardPath(d, last), big, 0o600); err != nil {
		t.Fatal(err)
	}
	c2 := store.NewCache(0)
	c2.SetDisk(d)
	if got, ok := store.KindSetOf(c2, last); !ok || got != set {
		t.Fatalf("the newest record of an oversized shard is not read")
	}
	if read, _ := store.KindIndexRead(c2); read > 2*shardCap {
		t.Errorf("%d bytes read of a shard of %d (cap %d)", read, len(big), shardCap)
	}
	if fi, err := os.Stat(store.KindShardPath(d, last)); err != nil || fi.Size() > shardCap {
		t.Errorf("the oversized shard was not rewritten: %v", err)
	}
	// and over real files: every shard within its cap, right after a
	// new process rewrote an oversized one
	ctx := context.Background()
	dir, src, _, _, shards2 := filledIndex(t)
	var largest string
	for p, b := range shards2 {
		if int64(len(b)) > shardCap+200 {
			t.Errorf("%s: %d bytes", p, len(b))
		}
		if largest == "" || len(b) > len(shards2[largest]) {
			largest = p
		}
	}
	big = nil
	for int64(len(big)) < 4*shardCap {
		big = append(big, shards2[largest]...)
	}
	if err := os.WriteFile(largest, big, 0o600); err != nil {
		t.Fatal(err)
	}
	q := search.Query{Pattern: "$X++", Language: "go", Paths: []string{src}}
	s2, _ := withDisk(t, dir, 0, true)
	got, err := s2.Search(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	sameAsFresh(t, freshSearcher(t), q, got)
	if fi, err := os.Stat(largest); err != nil || fi.Size() > shardCap {
		t.Errorf("the oversized shard was not rewritten: %v", err)
	}
}

// TestKindIndexFirstLookupReadsOneShard: a new process's first lookup reads
// one shard of the index, at most twice a shard's cap, whether the tier
// holds 1,000, 10,000 or 100,000 sets (bytes and records read are counted,
// not timed); with the default cap it reads that shard's file only.
func TestKindIndexFirstLookupReadsOneShard(t *testing.T) {
	set := strings.Repeat("\x33", 40)
	fill := func(n int) (*store.DiskCache, [32]byte, int64) {
		d, err := openTier(t, t.TempDir(), 0)
		if err != nil {
			t.Fatal(err)
		}
		files := map[string][]byte{}
		var k [32]byte
		for i := range n {
			k = [32]byte{byte(i), byte(i >> 8), byte(i >> 16), byte(i >> 24)}
			p := store.KindShardPath(d, k)
			files[p] = append(files[p], store.KindRecord(k, set)...)
		}
		if err := os.MkdirAll(store.KindIndexDir(d), 0o700); err != nil {
			t.Fatal(err)
		}
		var total int64
		for p, b := range files {
			if err := os.WriteFile(p, b, 0o600); err != nil {
				t.Fatal(err)
			}
			total += int64(len(b))
		}
		return d, k, total
	}
	first := func(d *store.DiskCache, k [32]byte) (bytes, records int64) {
		c := store.NewCache(0)
		c.SetDisk(d)
		if got, ok := store.KindSetOf(c, k); !ok || got != set {
			t.Fatalf("the newest set is not found")
		}
		return store.KindIndexRead(c)
	}
	// default cap: the one shard's file, 1/256 of the index
	for _, n := range []int{1_000, 100_000} {
		d, k, total := fill(n)
		fi, err := os.Stat(store.KindShardPath(d, k))
		if err != nil {
			t.Fatal(err)
		}
		read, recs := first(d, k)
		if read != fi.Size() || recs > int64(n/256+1) {
			t.Errorf("%d sets (%d bytes): read %d bytes, %d records; the shard holds %d bytes", n, total, read, recs, fi.Size())
		}
	}
	// a small cap, reached: the same bytes read at 10,000 as at 100,000
	defer store.SetKindIndexCap(256 << 10)() // 1 KiB a shard
	shardCap := store.KindShardCap()
	reads := map[int]int64{}
	for _, n := range []int{1_000, 10_000, 100_000} {
		d, k, total := fill(n)
		read, recs := first(d, k)
		if read > 2*shardCap || recs*int64(len(store.KindRecord(k, set))) > 2*shardCap {
			t.Errorf("%d sets (%d bytes): read %d bytes, %d records (cap %d)", n, total, read, recs, shardCap)
		}
		reads[n] = read
		// the shard was rewritten: the next process reads less
		if again, _ := first(d, k); again > shardCap {
			t.Errorf("%d sets: %d bytes read after the rewrite", n, again)
		}
	}
	if reads[10_000] != reads[100_000] {
		t.Errorf("first lookup read %v bytes by sets in the tier", reads)
	}
}
