package search_test

import "context"
import "path/filepath"
import "reflect"
import "runtime"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/search/store"

func TestNeedsIsWhatThePrefilterLetsThrough(t *testing.T) {
	dir := t.TempDir()
	a := "package p\n\nfunc one() {\n\tmu.Lock()\n}\n\nfunc two() {\n\tmu.Lock()\n}\n\nfunc three() {\n\tx++\n}\n\nfunc four() {\n\tmu.Lock()\n}\n"
	// b holds x++ only; c holds mu and Lock, but in no one declaration
	b, c := "package p\n\nfunc five() { x++ }\n", "package p\n\nfunc six() { Lock() }\n\nfunc seven() { mu.x() }\n"
	testenv.WriteFiles(t, dir, map[string]string{"a.go": a, "b.go": b, "c.go": c, "bin.go": "package p\x00\x00 mu.Lock()"})
	// a's chunks: before "func one", the merged one+two, three, four
	one, three, four := strings.Index(a, "func one"), strings.Index(a, "func three"), strings.Index(a, "func four")
	for _, tc := range []struct {
		name    string
		cfg     search.Config
		pattern string
		want    map[string][]search.Chunk
	}{
		{"token, in chunks", search.Config{}, `mu.Lock()`, map[string][]search.Chunk{
			"a.go": {{Start: one, End: three}, {Start: four, End: len(a)}},
		}},
		{"token, whole files", search.Config{WholeFiles: true}, `mu.Lock()`, map[string][]search.Chunk{
			"a.go": {{Start: 0, End: len(a)}}, "c.go": {{Start: 0, End: len(c)}},
		}},
		{"token-free", search.Config{}, `$X++`, map[string][]search.Chunk{
			"a.go": {{Start: 0, End: len(a)}}, "b.go": {{Start: 0, End: len(b)}}, "c.go": {{Start: 0, End: len(c)}},
		}},
		{"token nowhere", search.Config{}, `unsafe.Slice($P, $N)`, map[string][]search.Chunk{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Cache = store.NewCache(0)
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
	testenv.WriteFiles(t, dir, map[string]string{"a.go": a, "b.go": b})
	s := search.NewSearcher(parser(t), search.Config{Cache: store.NewCache(0)})
	ctx := context.Background()
	needs, err := s.Needs(ctx, search.Query{Rule: map[string]any{"pattern": "mu.Lock()"}, Language: "go", Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []search.Need{{Path: filepath.Join(dir, "a.go"), Size: len(a), Chunks: []search.Chunk{{Start: 0, End: len(a)}}}}; !reflect.DeepEqual(needs, want) {
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

// hostCorpus holds host files (markdown fences, HTML, Svelte and Vue
// script and style, a Svelte template expression, a styled-components template a project's injection
// names) next to plain files of the languages they embed.
var hostCorpus = map[string]string{
	"README.md":      "# Use\n\n```go\nfunc main() {\n\tmu.Lock()\n\tn++\n}\n```\n\nmu.Lock() in prose\n\n```js\ninit(load(1));\n```\n\n> ```go\n> mu.Lock()\n> ```\n",
	"web/page.html":  "<html>\n<head><style>p { color: red; }</style></head>\n<body>\n<script>\n  init(load(2));\n  let n = 0; n++;\n</script>\n<p>init(load(3))</p>\n<script type=\"text/template\">init(load(4))</script>\n</body>\n</html>\n",
	"web/App.svelte": "<script>\n  init(load(5));\n</script>\n\n<p>{init(load(6))}</p>\n\n<style>\n  p { color: red; }\n</style>\n",
	"web/Card.vue":   "<template>\n  <p>init(load(7))</p>\n</template>\n\n<script lang=\"ts\">\ninit(load(8));\n</script>\n\n<style scoped>\n.card { color: red; }\n</style>\n",
	"web/app.js":     "const Button = styled.button`\n  color: red;\n  padding: 4px;\n`;\ninit(load(9));\nconst plain = `color: red;`;\n",
	"web/site.css":   "a { color: red; }\n",
	"main.go":        "package p\n\nfunc f() {\n\tmu.Lock()\n\tn++\n}\n",
}

const hostInjections = "languageInjections:\n- hostLanguage: js\n  rule:\n    pattern: styled.$TAG`$CONTENT`\n  injected: css\n"

// Every match a search finds lies in a chunk Needs names, on a real corpus
// and on one of host files, whose regions Needs names in the host file.
func TestNeedsHoldsEveryMatch(t *testing.T) {
	ctx := context.Background()
	hosts := t.TempDir()
	testenv.WriteFiles(t, hosts, hostCorpus)
	testenv.WriteFiles(t, hosts, map[string]string{"sgconfig.yml": hostInjections})
	injs, err := search.LoadInjections(ctx, parser(t), filepath.Join(hosts, "sgconfig.yml"))
	if err != nil {
		t.Fatal(err)
	}
	stdSync := filepath.Join(runtime.GOROOT(), "src", "sync")
	for _, tc := range []struct {
		corpus, lang, pattern, selector string
		// inHosts is how many matches lie in host files (-1: any number)
		inHosts int
	}{
		{stdSync, "go", `$X.Lock()`, "", -1},
		{stdSync, "go", `if $C { return $$$ }`, "", -1},
		{stdSync, "go", `$X++`, "", -1},
		{stdSync, "go", `atomic.AddInt32($$$)`, "", -1},
		{hosts, "go", `$X.Lock()`, "", 1},
		{hosts, "go", `$X++`, "", 1},
		// README.md's fence, page.html's script, App.svelte's script and
		// its template's {init(load(6))}
		{hosts, "javascript", `init($X)`, "", 4},
		{hosts, "typescript", `init($X)`, "", 1},
		{hosts, "css", `a { color: $C; }`, "declaration", 4},
	} {
		name := "sync/" + tc.pattern
		if tc.corpus == hosts {
			name = "hosts/" + tc.lang + "/" + tc.pattern
		}
		t.Run(name, func(t *testing.T) {
			cache := store.NewCache(0)
			s := search.NewSearcher(parser(t), search.Config{Cache: cache})
			q := search.Query{Pattern: tc.pattern, Selector: tc.selector, Language: tc.lang, Paths: []string{tc.corpus}}
			if tc.corpus == hosts {
				q.Injections = injs
			}
			needs, err := s.Needs(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if st := cache.Stats(); st.Entries != 0 {
				t.Errorf("Needs stored %d trees; it must store none", st.Entries)
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
			chunks, host := map[string][]search.Chunk{}, map[string]string{}
			for _, n := range needs {
				chunks[n.Path], host[n.Path] = n.Chunks, n.Host
			}
			inHosts := 0
			for _, m := range res.Matches {
				in := false
				for _, c := range chunks[m.Path] {
					in = in || c.Start <= m.Span.StartByte && m.Span.EndByte <= c.End
				}
				if !in {
					t.Errorf("match %s:%d (bytes %d-%d) lies in no needed chunk %v", m.Path, m.Span.Start.Line, m.Span.StartByte, m.Span.EndByte, chunks[m.Path])
				}
				if host[m.Path] != "" {
					inHosts++
				}
			}
			if tc.inHosts >= 0 && inHosts != tc.inHosts {
				t.Errorf("%d of the %d matches lie in host files, want %d; needs %+v", inHosts, res.Total, tc.inHosts, needs)
			}
		})
	}
}

// A host file's need is its regions of the query's language that hold the
// pattern's tokens, named with the host's language; a host whose regions
// hold none, or that has none of the language, is not needed.
func TestNeedsOfHostFiles(t *testing.T) {
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, hostCorpus)
	s := search.NewSearcher(parser(t), search.Config{Cache: store.NewCache(0)})
	needs, err := s.Needs(context.Background(), search.Query{Pattern: `init(load(2))`, Language: "javascript", Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	page := hostCorpus["web/page.html"]
	script := strings.Index(page, "\n  init(load(2));")
	want := []search.Need{{Path: filepath.Join(dir, "web/page.html"), Size: len(page), Chunks: []search.Chunk{{Start: script, End: strings.Index(page, "</script>")}}, Host: "html"}}
	if !reflect.DeepEqual(needs, want) {
		t.Errorf("Needs = %+v, want %+v", needs, want)
	}
}

// A file whose kind set, as the store knows it, lacks what the pattern needs
// is not needed.
func TestNeedsUsesTheStoresKindSets(t *testing.T) {
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{
		"send.go":  "package p\n\nfunc f(c chan int) { c <- 1 }\n",
		"plain.go": "package p\n\nfunc g() int { return 1 }\n",
	})
	ctx := context.Background()
	s := search.NewSearcher(parser(t), search.Config{Cache: store.NewCache(0)})
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
