package search_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tetherhq/tether/internal/testenv"
	"github.com/tetherhq/tether/search"
)

// kindRun searches q twice over a store holding every tree of paths: once
// with no kind set known (the search as it was before kind sets), once with
// the set of every file (after a warm-up notes them), and fails unless both
// find the same. It returns the second result.
func kindRun(t *testing.T, s *search.Searcher, q search.Query) *search.Result {
	t.Helper()
	ctx := context.Background()
	search.ClearKindSets(s.Cache())
	base, err := s.Search(ctx, q)
	if err != nil {
		t.Fatalf("%s: %v", q.Pattern, err)
	}
	if base.KindSkipped != 0 {
		t.Fatalf("%s: %d files skipped by kind sets the store had forgotten", q.Pattern, base.KindSkipped)
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
		s := search.NewSearcher(p, search.Config{Cache: search.NewCache(0)})
		for _, c := range cases {
			r := kindRun(t, s, search.Query{Pattern: c.pattern, Selector: c.selector, Language: lang, Paths: []string{dir}})
			skipped += r.KindSkipped
			searched += r.Searched
		}
	}
	if skipped == 0 {
		t.Errorf("no file of %d skipped by its kinds", searched)
	}
	t.Logf("%d of %d files skipped by their kinds", skipped, searched)
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
		s := search.NewSearcher(parser(t), search.Config{Cache: search.NewCache(0)})
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
	return search.NewSearcher(parser(t), search.Config{Cache: search.NewCache(0), WholeFiles: true})
}

// sameAsFresh fails unless got, q's result, has the matches fresh finds with
// no kind set known (its sets are forgotten first; its trees are kept) and
// skipped files by their kinds.
func sameAsFresh(t *testing.T, fresh *search.Searcher, q search.Query, got *search.Result) {
	t.Helper()
	search.ClearKindSets(fresh.Cache())
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
	write(t, dir, map[string]string{"x.go": "package x\n\nfunc f() { i = 1 }\n", "y.go": "package x\n\nfunc g() { j = 2 }\n"})
	p := filepath.Join(dir, "x.go")
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	s := search.NewSearcher(parser(t), search.Config{Cache: search.NewCache(0)})
	q := search.Query{Pattern: "$X++", Language: "go", Paths: []string{dir}}
	for i := range 2 {
		r, err := s.Search(ctx, q)
		if err != nil || r.Total != 0 || r.KindSkipped != 2*i {
			t.Fatalf("search %d: %v, %d matches, %d files skipped by kind", i, err, r.Total, r.KindSkipped)
		}
	}
	write(t, dir, map[string]string{"x.go": "package x\n\nfunc f() { i++;  }\n"})
	if err := os.Chtimes(p, time.Time{}, fi.ModTime()); err != nil {
		t.Fatal(err)
	}
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
	store := search.NewCache(1)
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
// directory, the package's, the searcher, the tier and the index's bytes.
func filledIndex(t *testing.T) (dir, src string, s *search.Searcher, d *search.DiskCache, index []byte) {
	t.Helper()
	dir = t.TempDir()
	src = filepath.Join(testenv.RepoRoot(), "search")
	s, d = withDisk(t, dir, 0, true)
	if _, err := s.Search(context.Background(), search.Query{Pattern: "$A && $B", Language: "go", Paths: []string{src}}); err != nil {
		t.Fatal(err)
	}
	index, err := os.ReadFile(search.KindIndexPath(d))
	if err != nil {
		t.Fatal(err)
	}
	return dir, src, s, d, index
}

// TestKindIndexServesNewProcess: a new process (an empty memory store over
// the same disk tier) has the kind sets before reading any tree, skips the
// files they rule out without loading them, and finds what a fresh parse
// finds; damaged and foreign records are skipped, never read as sets.
func TestKindIndexServesNewProcess(t *testing.T) {
	ctx := context.Background()
	dir, src, _, d, index := filledIndex(t)
	recs := search.KindIndexRecords(index)
	if len(recs) < 20 {
		t.Fatalf("%d records in the index", len(recs))
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
	// damage: a bit flipped in every third record, garbage between records,
	// a torn record at the end
	damaged := append([]byte("not an index\n"), index...)
	for i := 13 + 100; i < len(damaged); i += 300 {
		damaged[i] ^= 0x10
	}
	damaged = append(damaged, index[:40]...)
	if err := os.WriteFile(search.KindIndexPath(d), damaged, 0o600); err != nil {
		t.Fatal(err)
	}
	left := search.KindIndexRecords(damaged)
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

// TestKindIndexConcurrentWriters: two disk tiers on one directory (as two
// processes) appending at once leave every record readable.
func TestKindIndexConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	const n = 300
	var d *search.DiskCache
	for w := range 2 {
		dw, err := search.OpenDiskCache(dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		d = dw
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range n {
				var k [32]byte
				k[0], k[1], k[2] = byte(w), byte(i), byte(i>>8)
				search.AppendKindSet(dw, k, strings.Repeat(string(rune('a'+w)), 1+i%40))
			}
		}()
	}
	wg.Wait()
	b, err := os.ReadFile(search.KindIndexPath(d))
	if err != nil {
		t.Fatal(err)
	}
	if recs := search.KindIndexRecords(b); len(recs) != 2*n {
		t.Errorf("%d of %d records read back", len(recs), 2*n)
	}
}

// TestKindPrefilterKeepsUncheckedTokens: the tokens a $$$ takes unchecked are
// not needed: f($$$A,) matches f(a) and f($$$M, $Z) matches f(b) in files
// without a comma, with kind sets as without.
func TestKindPrefilterKeepsUncheckedTokens(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"a.go": "package x\n\nfunc g() { f(a) }\n", "b.go": "package x\n\nfunc h() { f(b) }\n"})
	s := search.NewSearcher(parser(t), search.Config{Cache: search.NewCache(0)})
	for _, pat := range []string{"f($$$A,)", "f($$$M, $Z)"} {
		if r := kindRun(t, s, search.Query{Pattern: pat, Language: "go", Paths: []string{dir}}); r.Total != 2 {
			t.Errorf("%s: %d matches, want 2", pat, r.Total)
		}
	}
}

// TestKindIndexStaysWithinCap: an index past its cap is rewritten with the
// sets the store holds, by the process appending to it and by one that
// finds it too large, and stays readable and right.
func TestKindIndexStaysWithinCap(t *testing.T) {
	defer search.SetKindIndexCap(1 << 10)()
	ctx := context.Background()
	dir, src, s, d, b := filledIndex(t)
	n := s.Cache().Stats().KindSets
	if len(b) > 1<<10+200 || len(search.KindIndexRecords(b)) == 0 || n < 20 {
		t.Fatalf("index of %d bytes, %d records, after noting %d sets (cap 1 KiB)", len(b), len(search.KindIndexRecords(b)), n)
	}
	// too large when a new process reads it: rewritten at once
	big := append([]byte(nil), b...)
	for len(big) < 4<<10 {
		big = append(big, b...)
	}
	if err := os.WriteFile(search.KindIndexPath(d), big, 0o600); err != nil {
		t.Fatal(err)
	}
	q := search.Query{Pattern: "$X++", Language: "go", Paths: []string{src}}
	s2, _ := withDisk(t, dir, 0, true)
	got, err := s2.Search(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	sameAsFresh(t, freshSearcher(t), q, got)
	if fi, err := os.Stat(search.KindIndexPath(d)); err != nil || fi.Size() > 1<<10+200 {
		t.Errorf("the oversized index was not rewritten: %v", err)
	}
}
