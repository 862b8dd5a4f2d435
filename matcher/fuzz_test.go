package matcher

import "context"
import "errors"
import "strings"
import "testing"

import "github.com/tetherhq/tether/engine/enginetest"
import "github.com/tetherhq/tether/internal/testenv"

func fuzzParser(t testing.TB) Parser {
	t.Helper()
	return enginetest.Engine(t)
}

const fuzzSrc = `package p

import "fmt"

func f(xs []int, err error) error {
	for i := range xs {
		if err != nil {
			return fmt.Errorf("x %d: %w", i, err)
		}
	}
	m.Lock()
	defer m.Unlock()
	return g(g(1), /* c */ 2)
}
`

// FuzzCompile: the pattern compiler never panics, and a compiled pattern's
// tokens all occur in the pattern text.
func FuzzCompile(f *testing.F) {
	for _, s := range []string{"fmt.Errorf($$$ARGS)", "$X.Lock()", "if err != nil { return $$$ }",
		"for $I := range $X { $$$ }", "func (", "$$$", "$_", "$$A", "\"$X\"", "a; b", "µX", "$", "{{{"} {
		f.Add(s)
	}
	p := fuzzParser(f)
	goLang := enginetest.Language(f, "go")
	f.Fuzz(func(t *testing.T, pattern string) {
		if len(pattern) > 512 {
			return
		}
		var pat *Pattern
		var err error
		testenv.Bounded(t, "compiling the pattern", func() { pat, err = Compile(context.Background(), p, goLang, pattern) })
		if err != nil {
			return
		}
		for _, tok := range pat.tokens {
			if !strings.Contains(pattern, tok) && !strings.Contains(pattern, strings.ReplaceAll(tok, "$", "µ")) {
				t.Errorf("token %q not in pattern %q", tok, pattern)
			}
		}
	})
}

// FuzzMatch: matching any compiled pattern against any source never panics,
// returns within its step budget (a small one: every input is bounded, and
// the worst ones end with the budget error, never with a hang), and every
// match lies inside the source with its captures inside the match.
func FuzzMatch(f *testing.F) {
	f.Add("g($X)", fuzzSrc)
	f.Add("$$$A, $$$B", fuzzSrc)
	f.Add("f($$$A, $B, $$$C)", "package p\nvar _ = f(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)\n")
	f.Add("$A == $A", "package p\nvar _ = a == a && b == c\n")
	f.Add("f($$$A, $$$A, $$$A, y, x)", testenv.ManyArgs(200))
	f.Add("{ $$$A; $$$B; $$$A }", "package p\nfunc f() {\n"+strings.Repeat("a()\nb()\n", 300)+"}\n")
	p := fuzzParser(f)
	goLang := enginetest.Language(f, "go")
	f.Fuzz(func(t *testing.T, pattern, src string) {
		if len(pattern) > 256 || len(src) > 8192 {
			return
		}
		ctx := context.Background()
		pat, err := Compile(ctx, p, goLang, pattern)
		if err != nil {
			return
		}
		tree, err := p.Parse(ctx, goLang, []byte(src))
		if err != nil {
			return
		}
		const budget = 20_000
		m := NewMatcher(pat)
		m.budget, m.treeBudget = budget, 10*budget
		var raws []Match
		testenv.Bounded(t, "matching", func() { raws, err = m.findAll(tree, 1000) })
		if err != nil && !errors.Is(err, errBudget) {
			t.Fatalf("findAll: %v", err)
		}
		// one step past the budget is where it stops; a visit in progress
		// counts its children at once
		if m.treeSteps > m.treeBudget+len(src)+1 {
			t.Fatalf("%d steps spent, past the tree's budget of %d", m.treeSteps, m.treeBudget)
		}
		for _, r := range raws {
			if int(r.End()) > len(src) || r.Start() > r.End() {
				t.Fatalf("match %d-%d outside the source (%d bytes)", r.Start(), r.End(), len(src))
			}
			for _, b := range r.Captures {
				if s, e, ok := b.span(); ok && (s < r.Start() || e > r.End()) {
					t.Fatalf("capture %s %d-%d outside its match %d-%d", b.Name, s, e, r.Start(), r.End())
				}
			}
		}
	})
}
