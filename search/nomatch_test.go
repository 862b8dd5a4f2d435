package search_test

import "context"
import "os"
import "path/filepath"
import "slices"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/engine/enginetest"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/matcher"
import "github.com/tetherhq/tether/search"

// noMatchCases are a file in each language and a pattern that misses the
// method call in it (read as a bare call, or as a statement).
var noMatchCases = []struct {
	lang, file, src, pattern, root, hint string
	candidates                           int
}{
	{"go", "a.go", "package p\n\nfunc f(o T) {\n\to.run(1)\n\tx := load(2)\n\t_ = x\n}\n", "run($A)", "call_expression", "function_call", 2},
	{"python", "a.py", "def f(o):\n    o.run(1)\n    x = load(2)\n    return x\n", "run($A)", "call", "function_call", 2},
	{"typescript", "a.ts", "function f(o: T) {\n  o.run(1);\n  return load(2);\n}\n", "load($A);", "expression_statement", "statement", 1},
	{"rust", "a.rs", "fn f(o: T) -> u32 {\n    o.run(1);\n    load(2)\n}\n", "run($A)", "call_expression", "function_call", 2},
}

// TestSearchNoMatch: a search that looks and finds nothing says how the
// pattern was read, counts its root kind in the files parsed and names the
// nearest miss; the same query over source given as text (Snippet) says
// the same; a search that found no file to look at has none of it.
func TestSearchNoMatch(t *testing.T) {
	p := parser(t)
	for _, c := range noMatchCases {
		t.Run(c.lang, func(t *testing.T) {
			enginetest.RequireGrammars(t, c.lang)
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, c.file), []byte(c.src), 0o644)
			os.Mkdir(filepath.Join(dir, "empty"), 0o755)
			s := search.NewSearcher(p, search.Config{})
			q := search.Query{Pattern: c.pattern, Language: c.lang, Paths: []string{dir}}
			res, err := s.Search(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			nm := res.NoMatch
			if res.Total != 0 || nm == nil {
				t.Fatalf("want no match with NoMatch: %+v", res)
			}
			if nm.RootKind != c.root || nm.Reading.Context != "statement" || nm.Candidates != c.candidates || nm.Parsed != 1 || nm.Nearest == nil || nm.Nearest.Start.Line < 2 {
				t.Errorf("no match = %+v (nearest %+v)", nm, nm.Nearest)
			}
			if !slices.ContainsFunc(nm.Hints, func(h matcher.Hint) bool { return h.Kind == c.hint }) {
				t.Errorf("hints = %+v, want %s", nm.Hints, c.hint)
			}
			if !strings.Contains(res.Summary(), "no matches in 1 file (the pattern was read as statement") {
				t.Errorf("summary = %s", res.Summary())
			}
			snip, tree, err := s.Snippet(context.Background(), q, []byte(c.src))
			if err != nil || tree == nil {
				t.Fatal(err)
			}
			if snip.NoMatch == nil || snip.NoMatch.Candidates != c.candidates || snip.NoMatch.Nearest.Path != search.SnippetPath {
				t.Errorf("snippet's no match = %+v", snip.NoMatch)
			}
			q.Paths = []string{filepath.Join(dir, "empty")}
			if none, err := s.Search(context.Background(), q); err != nil || none.NoMatch != nil || !strings.HasPrefix(none.Summary(), "not searched") {
				t.Errorf("nothing to search is not a miss: %v %+v", err, none)
			}
			q.Pattern = "load($A)"
			q.Paths = []string{dir}
			if hit, err := s.Search(context.Background(), q); err != nil || hit.Total != 1 || hit.NoMatch != nil {
				t.Errorf("a match has no NoMatch: %v %+v", err, hit)
			}
		})
	}
}

// BenchmarkNoMatchHints times a search that finds nothing over this
// repository's Go code, warm, with what NoMatch needs and without,
// alternating the two so that both see the same load, and reports the
// ratio (hints/none) measured in the same run.
func BenchmarkNoMatchHints(b *testing.B) {
	p := parser(b)
	root := testenv.RepoRoot()
	paths := []string{filepath.Join(root, "matcher"), filepath.Join(root, "search"), filepath.Join(root, "tools"), filepath.Join(root, "engine")}
	q := search.Query{Pattern: "fmt.Errorf($A, $B, $C, $D, $E, $F, $G, $H, $I, $J, $K, $L)", Language: "go", Paths: paths}
	s := search.NewSearcher(p, search.Config{})
	if _, err := s.Search(context.Background(), q); err != nil {
		b.Fatal(err)
	}
	var spent [2]time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range 2 {
			k := (i + j) % 2 // each goes first every other round
			off := k == 1
			search.SetNoHints(s, off)
			start := time.Now()
			res, err := s.Search(context.Background(), q)
			spent[k] += time.Since(start)
			if err != nil || res.Total != 0 || (res.NoMatch == nil) != off {
				b.Fatalf("%v %+v", err, res)
			}
		}
	}
	b.ReportMetric(float64(spent[0])/float64(spent[1]), "hints/none")
}
