package search_test

import "context"
import "fmt"
import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/search"

// BenchmarkSearch searches this repository's Go code: cold (a new searcher,
// so every candidate file is parsed) and warm (the same query again, served
// by the tree cache). bench/astgrep compares with ast-grep.
func BenchmarkSearch(b *testing.B) {
	p := parser(b)
	root := testenv.RepoRoot()
	paths := []string{filepath.Join(root, "matcher"), filepath.Join(root, "search"), filepath.Join(root, "tools"), filepath.Join(root, "engine")}
	for _, pat := range []string{"fmt.Errorf($$$ARGS)", "if err != nil { return $$$ }"} {
		q := search.Query{Pattern: pat, Language: "go", Paths: paths}
		b.Run("cold/"+pat, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := search.NewSearcher(p, search.Config{}).Search(context.Background(), q); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("warm/"+pat, func(b *testing.B) {
			s := search.NewSearcher(p, search.Config{})
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

// BenchmarkDiff times the unified diff of a rewrite of a 1.2 MB Go file:
// one replacement, and 20,000 (one in every function).
func BenchmarkDiff(b *testing.B) {
	p := parser(b)
	var src strings.Builder
	src.WriteString("package p\n\n")
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&src, "func f%d(a, b int) int {\n\tx := a + b\n\treturn g(x, %d)\n}\n\n", i, i)
	}
	f := filepath.Join(b.TempDir(), "big.go")
	if err := os.WriteFile(f, []byte(src.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	s := search.NewSearcher(p, search.Config{})
	for _, pat := range []string{"g($X, 7)", "g($X, $Y)"} {
		plan, err := s.Rewrite(context.Background(), search.Query{Pattern: pat, Language: "go", Paths: []string{f}}, "h($X)")
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("%d replacements", plan.Replacements), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				plan.Diff(0)
			}
		})
	}
}
