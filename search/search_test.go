package search_test

import "context"
import "errors"
import "os"
import "path/filepath"
import "reflect"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/matcher"
import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/search/internal/searchtest"
import "github.com/tetherhq/tether/search/stage"
import "github.com/tetherhq/tether/search/store"

func TestSearchReportsWhatItSkipped(t *testing.T) {
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{
		"a.go":          "package a\n\nfunc f() { gee(1); gee(2) }\n",
		"b.go":          "package a\n\nfunc h() {}\n",
		"bin.go":        "package a\x00\x00binary",
		"big.go":        "package a\n" + strings.Repeat("// filler\n", 300_000),
		".hidden/c.go":  "package c\n\nfunc f() { gee(3) }\n",
		"gen/skip.go":   "package gen\n\nfunc f() { gee(4) }\n",
		".ignore":       "gen/\n",
		"notes/read.md": "gee(5)",
	})
	s := search.NewSearcher(parser(t), search.Config{MaxFileSize: 1 << 20})
	res, err := s.Search(context.Background(), search.Query{Pattern: "gee($X)", Language: "go", Paths: []string{dir}, MaxResults: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 2 || len(res.Matches) != 1 || res.Searched != 2 {
		t.Errorf("total %d, shown %d, searched %d; want 2, 1, 2", res.Total, len(res.Matches), res.Searched)
	}
	sum := res.Summary()
	for _, want := range []string{"1 of 2 matches shown", "2 files searched", "1 ignored", "1 hidden", "1 binary", "1 over the size cap"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary %q lacks %q", sum, want)
		}
	}
	if res.Prefiltered != 1 || res.Parsed != 1 {
		t.Errorf("prefiltered %d parsed %d; want b.go ruled out by the token prefilter and a.go parsed", res.Prefiltered, res.Parsed)
	}

	none, err := s.Search(context.Background(), search.Query{Pattern: "nothere($X)", Language: "go", Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(none.Summary(), "no matches in 2 files") {
		t.Errorf("no-match summary: %q", none.Summary())
	}
	if _, err := s.Search(context.Background(), search.Query{Pattern: "g(", Language: "go", Paths: []string{dir}}); !errors.Is(err, matcher.ErrUnparseable) {
		t.Errorf("unparseable pattern: %v", err)
	}
	if inferred, err := s.Search(context.Background(), search.Query{Pattern: "gee($X)", Paths: []string{dir}}); err != nil || inferred.Total != 2 {
		t.Errorf("a directory of Go files searched without a language: %v", err)
	}
	one, err := s.Search(context.Background(), search.Query{Pattern: "gee($X)", Paths: []string{filepath.Join(dir, "a.go")}})
	if err != nil || one.Total != 2 || one.Matches[0].Language != "go" {
		t.Errorf("language from the extension: %v %+v", err, one)
	}
}

func TestSearchCachesTrees(t *testing.T) {
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{"a.go": "package a\n\nfunc f() { m.Lock() }\n", "b.go": "package a\n\nfunc g() { n.Lock() }\n"})
	s := search.NewSearcher(parser(t), search.Config{Cache: store.NewCache(0)})
	q := search.Query{Pattern: "$X.Lock()", Language: "go", Paths: []string{dir}}
	first, err := s.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	second, err := s.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if first.CacheHits != 0 || second.CacheHits != 2 || !reflect.DeepEqual(first.Matches, second.Matches) {
		t.Errorf("cache hits %d then %d (want 0 then 2); same matches: %v", first.CacheHits, second.CacheHits, reflect.DeepEqual(first.Matches, second.Matches))
	}
	// a changed file is parsed again
	testenv.WriteFiles(t, dir, map[string]string{"b.go": "package a\n\nfunc g() { n.Lock(); o.Lock() }\n"})
	third, err := s.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if third.Total != 3 || third.CacheHits != 1 {
		t.Errorf("after an edit: total %d hits %d, want 3 and 1", third.Total, third.CacheHits)
	}
}

// openTier opens a disk tier for a test and settles it when the test ends,
// before its temporary directory is removed (store's tests say why).
func openTier(t testing.TB, dir string, budget int64) (*store.DiskCache, error) {
	d, err := store.OpenDiskCache(dir, budget)
	if d != nil {
		t.Cleanup(func() { d.Settle(time.Minute) })
	}
	return d, err
}

// TestPartitionsKeepTreesApart: searchers of two partitions share a store
// (and its disk tier) but not its trees: after one parses a content, the
// other's search of the same content in its own directory is no hit, in
// its result nor in the store's counters, while a searcher of the same
// partition hits it.
func TestPartitionsKeepTreesApart(t *testing.T) {
	const src = "package a\n\nfunc f() { secret.Lock() }\n"
	alpha, beta := t.TempDir(), t.TempDir()
	testenv.WriteFiles(t, alpha, map[string]string{"a.go": src})
	testenv.WriteFiles(t, beta, map[string]string{"b.go": src})
	cache := store.NewCache(0)
	disk, err := openTier(t, t.TempDir(), 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	cache.SetDisk(disk)
	run := func(partition, dir string) (*search.Result, int64) {
		t.Helper()
		s := search.NewSearcher(parser(t), search.Config{Cache: cache, Partition: partition, WholeFiles: true})
		res, err := s.Search(context.Background(), search.Query{Pattern: "$X.Lock()", Language: "go", Paths: []string{dir}})
		if err != nil || res.Total != 1 {
			t.Fatalf("search in %s: %v %+v", partition, err, res)
		}
		return res, cache.Stats().Hits
	}
	_, before := run("beta", beta) // beta parses the content
	res, after := run("alpha", alpha)
	if res.CacheHits != 0 || after != before {
		t.Errorf("alpha's search of the content beta parsed: %d hits in its result, the store's hits %d -> %d; want none", res.CacheHits, before, after)
	}
	res, again := run("beta", alpha)
	if res.CacheHits != 1 || again != after+1 {
		t.Errorf("the same partition: %d hits in its result, the store's hits %d -> %d; want one", res.CacheHits, after, again)
	}
}

// TestChunkedEqualsWhole: parsing only the declarations that hold the tokens
// finds exactly what parsing whole files finds, over this repository's Go code.
func TestChunkedEqualsWhole(t *testing.T) {
	root := testenv.RepoRoot()
	// a store of its own (SearchBoth's whole-file searcher has another): the
	// shared one could hand the chunked searcher the whole files' trees
	chunked := search.NewSearcher(parser(t), search.Config{Cache: store.NewCache(0)})
	for _, p := range []string{"fmt.Errorf($$$ARGS)", "if err != nil { return $$$ }", "$X.Lock()", "for $I := range $X { $$$ }", "func $F($$$) error { $$$ }"} {
		q := search.Query{Pattern: p, Language: "go", Paths: []string{filepath.Join(root, "matcher"), filepath.Join(root, "search"), filepath.Join(root, "tools")}}
		a, b := searchtest.SearchBoth(t, chunked, q)
		if a.Total == 0 || !reflect.DeepEqual(a.Matches, b.Matches) {
			t.Errorf("%s: chunked found %d, whole files %d (equal lists: %v)", p, a.Total, b.Total, reflect.DeepEqual(a.Matches, b.Matches))
		}
	}
}

func TestRewriteAcceptEndToEnd(t *testing.T) {
	dir := t.TempDir()
	src := "package a\n\nimport \"errors\"\n\nfunc f() error {\n\treturn errors.New(\"x\")\n}\n\nfunc g() error { return errors.New(\"y\") }\n"
	testenv.WriteFiles(t, dir, map[string]string{"a.go": src})
	s := search.NewSearcher(parser(t), search.Config{})
	plan, err := s.Rewrite(context.Background(), search.Query{Pattern: "errors.New($M)", Language: "go", Paths: []string{dir}}, "fmt.Errorf($M)")
	if err != nil {
		t.Fatal(err)
	}
	if plan.Replacements != 2 || len(plan.Changes) != 1 {
		t.Fatalf("plan: %d replacements in %d files", plan.Replacements, len(plan.Changes))
	}
	if r := plan.Result.Matches[0].Replacement; r == nil || *r != `fmt.Errorf("x")` {
		t.Errorf("replacement of the first match: %v", r)
	}
	diff := plan.Diff(0)
	if !strings.Contains(diff, "-\treturn errors.New(\"x\")\n+\treturn fmt.Errorf(\"x\")") {
		t.Errorf("diff:\n%s", diff)
	}
	st := stage.New("")
	id := st.Stage(plan)
	if _, err := st.Accept(id); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "a.go"))
	if want := strings.ReplaceAll(src, "errors.New", "fmt.Errorf"); string(got) != want {
		t.Errorf("after accept:\n%s\nwant:\n%s", got, want)
	}
}

func TestSearchCancelled(t *testing.T) {
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{"a.go": "package a\n\nfunc f() { g(1) }\n"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := search.NewSearcher(parser(t), search.Config{})
	if _, err := s.Search(ctx, search.Query{Pattern: "g($X)", Language: "go", Paths: []string{dir}}); err == nil {
		t.Error("a cancelled search reported success")
	}
}

// A directory search without a language takes the one language its files are
// in, or the one of several that the pattern parses in; otherwise it says which
// languages it found and asks for one.
func TestSearchInfersLanguage(t *testing.T) {
	p := parser(t)
	s := search.NewSearcher(p, search.Config{})
	ctx := context.Background()
	goOnly := t.TempDir()
	testenv.WriteFiles(t, goOnly, map[string]string{"a.go": "package a\n\nfunc f() { gee(1) }\n", "README.md": "gee(2)\n"})
	res, err := s.Search(ctx, search.Query{Pattern: "gee($X)", Paths: []string{goOnly}})
	if err != nil || res.Total != 1 || res.Matches[0].Language != "go" {
		t.Fatalf("go-only dir: %v %+v", err, res)
	}
	// Markdown takes any text, so it counts only for a pattern no language
	// with a syntax of its own parses: prose.
	prose := t.TempDir()
	testenv.WriteFiles(t, prose, map[string]string{"a.go": "package a\n", "notes.md": "# Notes\n\nsome prose here\n"})
	res, err = s.Search(ctx, search.Query{Pattern: "some prose here", Paths: []string{prose}})
	if err != nil || res.Total != 1 || res.Matches[0].Language != "markdown" {
		t.Fatalf("a prose pattern in a dir of Go and markdown: %v %+v", err, res)
	}
	mixed := t.TempDir()
	testenv.WriteFiles(t, mixed, map[string]string{
		"a.go": "package a\n\nfunc f() { gee(1) }\n",
		"b.go": "package a\n\nfunc g() { gee(2) }\n",
		"c.py": "gee(3)\nif k is None:\n    pass\n",
		"d.rs": "fn main() { gee(4); }\n",
	})
	// parses in every language present: ambiguous, and the error names them
	_, err = s.Search(ctx, search.Query{Pattern: "gee($X)", Paths: []string{mixed}})
	if err == nil || !strings.Contains(err.Error(), "go (2 files), python (1 file), rust (1 file)") || !strings.Contains(err.Error(), "pass language") {
		t.Fatalf("mixed dir, ambiguous pattern: %v", err)
	}
	// ast_grep searches each language the error names, most files first
	var several *search.LanguagesError
	if !errors.Is(err, search.ErrSeveralLanguages) || !errors.As(err, &several) || strings.Join(several.Parses, ",") != "go,python,rust" || several.Found[0] != (search.LangCount{Language: "go", Files: 2}) {
		t.Fatalf("mixed dir, ambiguous pattern: not a *LanguagesError naming go, python and rust: %#v", err)
	}
	// parses in Python only
	res, err = s.Search(ctx, search.Query{Pattern: "$X is None", Paths: []string{mixed}})
	if err != nil || res.Total != 1 || res.Matches[0].Language != "python" {
		t.Fatalf("mixed dir, python-only pattern: %v %+v", err, res)
	}
	// parses nowhere: unparseable, not "no matches"
	if _, err = s.Search(ctx, search.Query{Pattern: "gee(((", Paths: []string{mixed}}); !errors.Is(err, matcher.ErrUnparseable) {
		t.Fatalf("mixed dir, broken pattern: %v", err)
	}
	// nothing of a known language at all
	empty := t.TempDir()
	testenv.WriteFiles(t, empty, map[string]string{"notes.txt": "gee(1)\n"})
	if _, err = s.Search(ctx, search.Query{Pattern: "gee($X)", Paths: []string{empty}}); err == nil || !strings.Contains(err.Error(), "no source file of a shipped grammar") {
		t.Fatalf("dir without sources: %v", err)
	}
}

// TestSearchNothingToSearch: a search that found no file of its language
// says it did not look, never "no matches".
func TestSearchNothingToSearch(t *testing.T) {
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{"a.go": "package a\n\nfunc f() { gee(1) }\n", ".hidden/b.py": "gee(2)\n"})
	s := search.NewSearcher(parser(t), search.Config{})
	res, err := s.Search(context.Background(), search.Query{Pattern: "gee($X)", Language: "python", Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	sum := res.Summary()
	if strings.Contains(sum, "no matches") || !strings.Contains(sum, "not searched: no python file") || !strings.Contains(sum, "1 hidden") {
		t.Errorf("summary %q: want it to say no python file was searched, and what was skipped", sum)
	}
}

// TestSearchExplicitFileOfAnotherLanguage: a file named explicitly whose
// extension is another grammar's is skipped and said so, not parsed with the
// wrong grammar; related grammars (C and C++, JavaScript and TypeScript) and
// unknown extensions are searched as asked.
func TestSearchExplicitFileOfAnotherLanguage(t *testing.T) {
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{
		"a.js": "function f() { foo(1); }\n", "b.h": "void f() { foo(2); }\n", "c.txt": "foo(3)\n", "d.go": "package d\n\nfunc f() { foo(4) }\n",
	})
	s := search.NewSearcher(parser(t), search.Config{})
	for _, tc := range []struct {
		lang, file string
		total      int
		summary    string
	}{
		{"go", "a.js", 0, "not searched: no go file could be searched; skipped 1 (1 of another language) such as " + filepath.Join(dir, "a.js") + " (a javascript file: pass language javascript)"},
		{"cpp", "b.h", 1, "1 match in 1 of 1 file searched"},
		{"typescript", "a.js", 1, "1 match"},
		{"python", "c.txt", 1, "1 match"},
		{"go", "d.go", 1, "1 match"},
	} {
		res, err := s.Search(context.Background(), search.Query{Pattern: "foo($X)", Language: tc.lang, Paths: []string{filepath.Join(dir, tc.file)}})
		if err != nil {
			t.Fatalf("%s as %s: %v", tc.file, tc.lang, err)
		}
		if res.Total != tc.total || !strings.HasPrefix(res.Summary(), tc.summary) {
			t.Errorf("%s as %s: %d matches, %q; want %d, %q", tc.file, tc.lang, res.Total, res.Summary(), tc.total, tc.summary)
		}
		if tc.total == 0 && (len(res.Skipped.Examples) != 1 || !strings.Contains(res.Skipped.Examples[0], "a javascript file: pass language javascript")) {
			t.Errorf("%s as %s: examples %q", tc.file, tc.lang, res.Skipped.Examples)
		}
	}
}
