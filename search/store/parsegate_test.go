package store_test

import "context"
import "fmt"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/search/store"

// TestParsesWithinBudget: with four workers, the source bytes parsed at
// once stay within the process's parse budget (each parse takes wasm
// memory in proportion to its source), a file larger than the budget is
// parsed alone, and every match is still found.
func TestParsesWithinBudget(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	body := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "function f%d(a, b) { return a && b; }\n", i)
		}
		return b.String()
	}
	const small, large = 2500, 10000 // about 100 KB and 400 KB
	for i := range 6 {
		files[fmt.Sprintf("s%d.js", i)] = body(small)
	}
	files["large.js"] = body(large)
	testenv.WriteFiles(t, dir, files)
	const budget = 250 << 10
	restore := store.SetParseBudget(budget)
	s := search.NewSearcher(parser(t), search.Config{Cache: store.NewCache(0), Workers: 4, WholeFiles: true})
	res, err := s.Search(context.Background(), search.Query{Pattern: "$A && $B", Language: "javascript", Paths: []string{dir}, MaxResults: 1})
	peak := restore()
	if err != nil {
		t.Fatal(err)
	}
	if want := 6*small + large; res.Total != want || res.Parsed != 7 {
		t.Errorf("%d matches in %d parsed files, want %d in 7", res.Total, res.Parsed, want)
	}
	if peak > budget || peak < 100<<10 {
		t.Errorf("at most %d source bytes parsed at once, want between one small file and the budget (%d)", peak, budget)
	}
}
