package search_test

import (
	"context"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/tetherhq/tether/search"
)

func TestNeedsIsWhatThePrefilterLetsThrough(t *testing.T) {
	dir := t.TempDir()
	a := "package p\n\nfunc one() {\n\tmu.Lock()\n}\n\nfunc two() {\n\tmu.Lock()\n}\n\nfunc three() {\n\tx++\n}\n\nfunc four() {\n\tmu.Lock()\n}\n"
	// b holds x++ only; c holds mu and Lock, but in no one declaration
	b, c := "package p\n\nfunc five() { x++ }\n", "package p\n\nfunc six() { Lock() }\n\nfunc seven() { mu.x() }\n"
	write(t, dir, map[string]string{"a.go": a, "b.go": b, "c.go": c, "bin.go": "package p\x00\x00 mu.Lock()"})
	// a's chunks: before "func one", the merged one+two, three, four
	one, three, four := strings.Index(a, "func one"), strings.Index(a, "func three"), strings.Index(a, "func four")
	for _, tc := range []struct {
		name    string
		cfg     search.Config
		pattern string
		want    map[string][]search.Chunk
	}{
		{"token, in chunks", search.Config{}, `mu.Lock()`, map[string][]search.Chunk{
			"a.go": {{one, three}, {four, len(a)}},
		}},
		{"token, whole files", search.Config{WholeFiles: true}, `mu.Lock()`, map[string][]search.Chunk{
			"a.go": {{0, len(a)}}, "c.go": {{0, len(c)}},
		}},
		{"token-free", search.Config{}, `$X++`, map[string][]search.Chunk{
			"a.go": {{0, len(a)}}, "b.go": {{0, len(b)}}, "c.go": {{0, len(c)}},
		}},
		{"token nowhere", search.Config{}, `unsafe.Slice($P, $N)`, map[string][]search.Chunk{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Cache = search.NewCache(0)
			s := search.NewSearcher(parser(t), tc.cfg)
			needs, err := s.Needs(context.Background(), search.Query{Pattern: tc.pattern, Language: "go", Paths: []string{dir}})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string][]search.Chunk{}
			for _, n := range needs {
				got[filepath.Base(n.Path)] = n.Chunks
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Needs(%q) = %v, want %v", tc.pattern, got, tc.want)
			}
			if st := tc.cfg.Cache.Stats(); st.Entries != 0 {
				t.Errorf("Needs stored %d trees; it must parse nothing", st.Entries)
			}
		})
	}
}

// A rule is matched in whole files, so it needs its files whole; a bad query
// is an error, not an empty need.
func TestNeedsOfARuleAndOfABadQuery(t *testing.T) {
	dir := t.TempDir()
	a, b := "package p\n\nfunc one() {\n\tmu.Lock()\n}\n\nfunc two() {}\n", "package p\n\nfunc three() {}\n"
	write(t, dir, map[string]string{"a.go": a, "b.go": b})
	s := search.NewSearcher(parser(t), search.Config{Cache: search.NewCache(0)})
	ctx := context.Background()
	needs, err := s.Needs(ctx, search.Query{Rule: map[string]any{"pattern": "mu.Lock()"}, Language: "go", Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []search.Need{{Path: filepath.Join(dir, "a.go"), Size: len(a), Chunks: []search.Chunk{{0, len(a)}}}}; !reflect.DeepEqual(needs, want) {
		t.Errorf("Needs of a rule = %+v, want %+v", needs, want)
	}
	for _, q := range []search.Query{
		{Pattern: "func (", Language: "go", Paths: []string{dir}},
		{Pattern: "$X", Rule: map[string]any{"pattern": "$X"}, Language: "go", Paths: []string{dir}},
		{Pattern: "$X", Language: "go", Paths: []string{filepath.Join(dir, "missing")}},
	} {
		needs, err := s.Needs(ctx, q)
		if err == nil || !strings.HasPrefix(err.Error(), "search:") && !strings.HasPrefix(err.Error(), "matcher:") {
			t.Errorf("Needs(%+v) = %v, %v; want an error that says what failed", q, needs, err)
		}
	}
}

// Every match a search finds lies in a chunk Needs names, on a real corpus.
func TestNeedsHoldsEveryMatch(t *testing.T) {
	corpus := filepath.Join(runtime.GOROOT(), "src", "sync")
	ctx := context.Background()
	for _, p := range []string{`$X.Lock()`, `if $C { return $$$ }`, `$X++`, `atomic.AddInt32($$$)`} {
		t.Run(p, func(t *testing.T) {
			s := search.NewSearcher(parser(t), search.Config{Cache: search.NewCache(0)})
			q := search.Query{Pattern: p, Language: "go", Paths: []string{corpus}}
			needs, err := s.Needs(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			res, err := s.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if res.Total == 0 || len(needs) == 0 {
				t.Fatalf("%d matches in %d needed files: the corpus should have both", res.Total, len(needs))
			}
			if len(needs) > res.Parsed {
				t.Errorf("Needs names %d files, the search parsed %d", len(needs), res.Parsed)
			}
			chunks := map[string][]search.Chunk{}
			for _, n := range needs {
				chunks[n.Path] = n.Chunks
			}
			for _, m := range res.Matches {
				in := false
				for _, c := range chunks[m.Path] {
					in = in || c.Start <= m.Span.StartByte && m.Span.EndByte <= c.End
				}
				if !in {
					t.Errorf("match %s:%d (bytes %d-%d) lies in no needed chunk %v", m.Path, m.Span.Start.Line, m.Span.StartByte, m.Span.EndByte, chunks[m.Path])
				}
			}
		})
	}
}

// A file whose kind set, as the store knows it, lacks what the pattern needs
// is not needed.
func TestNeedsUsesTheStoresKindSets(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"send.go":  "package p\n\nfunc f(c chan int) { c <- 1 }\n",
		"plain.go": "package p\n\nfunc g() int { return 1 }\n",
	})
	ctx := context.Background()
	s := search.NewSearcher(parser(t), search.Config{Cache: search.NewCache(0)})
	q := search.Query{Pattern: `$A <- $B`, Language: "go", Paths: []string{dir}}
	names := func() []string {
		needs, err := s.Needs(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		var ns []string
		for _, n := range needs {
			ns = append(ns, filepath.Base(n.Path))
		}
		return ns
	}
	if got := names(); !reflect.DeepEqual(got, []string{"plain.go", "send.go"}) {
		t.Fatalf("before any parse Needs = %v, want both files", got)
	}
	// a token-free search parses both whole, so the store learns their kinds
	if _, err := s.Search(ctx, search.Query{Pattern: `$X`, Language: "go", Paths: []string{dir}}); err != nil {
		t.Fatal(err)
	}
	if got := names(); !reflect.DeepEqual(got, []string{"send.go"}) {
		t.Errorf("with the kind sets Needs = %v, want [send.go]", got)
	}
}
