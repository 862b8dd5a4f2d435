package search_test

import (
	"context"
	"os"
	"testing"

	"github.com/tetherhq/tether/search"
	"github.com/tetherhq/tether/search/store"
)

func TestZZProf(t *testing.T) {
	p := parser(t)
	for i := 0; i < 3; i++ {
		s := search.NewSearcher(p, search.Config{Cache: store.NewCache(0)})
		r, err := s.Search(context.Background(), search.Query{Pattern: os.Getenv("ZZ_PAT"), Language: "typescript", Paths: []string{"/tmp/typeorm"}})
		if err != nil {
			t.Fatal(err)
		}
		t.Log(len(r.Matches))
	}
}
