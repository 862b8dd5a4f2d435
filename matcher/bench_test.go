package matcher_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/tetherhq/tether/internal/testenv"
	"github.com/tetherhq/tether/matcher"
)

// BenchmarkSearch searches this repository's Go code: cold (a new searcher,
// so every candidate file is parsed) and warm (the same query again, served
// by the tree cache). bench/astgrep compares with ast-grep.
func BenchmarkSearch(b *testing.B) {
	p := parser(b)
	root := testenv.RepoRoot()
	paths := []string{filepath.Join(root, "matcher"), filepath.Join(root, "tools"), filepath.Join(root, "engine")}
	for _, pat := range []string{"fmt.Errorf($$$ARGS)", "if err != nil { return $$$ }"} {
		q := matcher.Query{Pattern: pat, Language: "go", Paths: paths}
		b.Run("cold/"+pat, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := matcher.NewSearcher(p, matcher.Config{}).Search(context.Background(), q); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("warm/"+pat, func(b *testing.B) {
			s := matcher.NewSearcher(p, matcher.Config{})
			if _, err := s.Search(context.Background(), q); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := s.Search(context.Background(), q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
