package matcher_test

import "context"
import "os"
import "path/filepath"
import "testing"

import "github.com/tetherhq/tether/engine/enginetest"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/matcher"

// BenchmarkCompile compiles patterns of several shapes: the ladder's parses
// are most of the cost.
func BenchmarkCompile(b *testing.B) {
	p := parser(b)
	for _, pat := range []string{"fmt.Errorf($$$ARGS)", "if err != nil { return $$$ }", "case $X:"} {
		b.Run(pat, func(b *testing.B) {
			for b.Loop() {
				if _, err := matcher.Compile(context.Background(), p, enginetest.Language(b, "go"), pat); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFind matches patterns in one parsed tree (this package's
// pattern.go), without reading or parsing: the matcher's own cost.
func BenchmarkFind(b *testing.B) {
	p := parser(b)
	ctx := context.Background()
	src, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "matcher", "pattern.go"))
	if err != nil {
		b.Fatal(err)
	}
	tree, err := p.Parse(ctx, enginetest.Language(b, "go"), src)
	if err != nil {
		b.Fatal(err)
	}
	for _, pat := range []string{"fmt.Errorf($$$ARGS)", "if err != nil { return $$$ }", "$A == $A", "$F($$$A)"} {
		b.Run(pat, func(b *testing.B) {
			cp, err := matcher.Compile(ctx, p, enginetest.Language(b, "go"), pat)
			if err != nil {
				b.Fatal(err)
			}
			m := matcher.NewMatcher(cp)
			for b.Loop() {
				if _, err := m.Find(ctx, tree); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
