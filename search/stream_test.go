package search_test

import "context"
import "errors"
import "fmt"
import "reflect"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/search/store"

// TestOnMatchesStreamsInOrder: a search with OnMatches hands on every file's
// matches in the order a search without it lists them, keeps none itself,
// cuts them at MaxResults while counting them all, and stops with the
// error OnMatches returns.
func TestOnMatchesStreamsInOrder(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 300 {
		// files of one to four matches, some with none; the longest line
		// makes texts long enough for the held bytes to count
		var b strings.Builder
		for k := range i % 5 {
			fmt.Fprintf(&b, "function f%d(a, b) { return a && b%d; }\n", k, k)
		}
		b.WriteString("const x = 1;\n")
		files[fmt.Sprintf("d%02d/f%03d.js", i%7, i)] = b.String()
	}
	testenv.WriteFiles(t, dir, files)
	ctx := context.Background()
	for _, maxText := range []int{0, -1} {
		t.Run(fmt.Sprintf("maxText=%d", maxText), func(t *testing.T) {
			s := search.NewSearcher(parser(t), search.Config{Cache: store.NewCache(0), Workers: 4, MaxText: maxText})
			q := search.Query{Pattern: "$A && $B", Language: "javascript", Paths: []string{dir}}
			want, err := s.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if want.Total != 600 || len(want.Matches) != 600 {
				t.Fatalf("%d matches, %d kept: want 600", want.Total, len(want.Matches))
			}

			var got []search.Match
			calls := 0
			q.OnMatches = func(ms []search.Match) error {
				calls++
				for _, m := range ms[1:] {
					if m.Path != ms[0].Path {
						t.Errorf("one call holds %s and %s: want one file's matches", ms[0].Path, m.Path)
					}
				}
				got = append(got, ms...)
				return nil
			}
			res, err := s.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want.Matches) {
				t.Errorf("handed on %d matches, differing from the %d a search keeps", len(got), len(want.Matches))
			}
			if len(res.Matches) != 0 || res.Handed != 600 || res.Total != 600 || calls != 240 {
				t.Errorf("kept %d, handed %d of %d in %d calls: want 0, 600 of 600 in 240 (one a file with matches)", len(res.Matches), res.Handed, res.Total, calls)
			}
			if sum := res.Summary(); !strings.HasPrefix(sum, "600 matches in 240 of 300 files searched") {
				t.Errorf("summary %q", sum)
			}

			// MaxResults: the first ones handed on, all counted
			got = nil
			q.MaxResults = 7
			if res, err = s.Search(ctx, q); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want.Matches[:7]) || res.Handed != 7 || res.Total != 600 {
				t.Errorf("with MaxResults 7: handed %d (%d), total %d", len(got), res.Handed, res.Total)
			}
			if sum := res.Summary(); !strings.HasPrefix(sum, "7 of 600 matches shown") {
				t.Errorf("summary %q", sum)
			}

			// an error of OnMatches stops the search and is returned
			q.MaxResults = 0
			stop := errors.New("output closed")
			calls = 0
			q.OnMatches = func([]search.Match) error { calls++; return stop }
			if _, err := s.Search(ctx, q); !errors.Is(err, stop) {
				t.Errorf("error %v, want %v", err, stop)
			}
			if calls != 1 {
				t.Errorf("OnMatches called %d times after failing: want once", calls)
			}

			// a rewrite keeps its matches for its plan
			if _, err := s.Rewrite(ctx, q, "$A || $B"); err == nil || !strings.Contains(err.Error(), "OnMatches") {
				t.Errorf("rewrite with OnMatches: %v, want an error naming it", err)
			}
		})
	}
}
