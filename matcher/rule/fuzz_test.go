package rule_test

import "context"
import "encoding/json"
import "errors"
import "testing"

import "github.com/tetherhq/tether/engine/enginetest"
import "github.com/tetherhq/tether/matcher"
import "github.com/tetherhq/tether/matcher/rule"

const fuzzSrc = `package p

func f(mu *sync.Mutex, xs []int) int {
	mu.Lock()
	defer mu.Unlock()
	for _, x := range xs {
		if x > 1 { return x }
	}
	g(1, 2)
	return 0
}
`

// FuzzCompileRule compiles arbitrary JSON as a Go rule and, when it
// compiles, matches it and expands its fix: neither may panic, and a
// refused rule's error wraps rule.ErrInvalid (or is a pattern's error).
func FuzzCompileRule(f *testing.F) {
	for _, seed := range []string{
		`{"kind":"call_expression"}`,
		`{"pattern":"$M.Lock()","not":{"precedes":{"pattern":"defer $M.Unlock()"}}}`,
		`{"kind":"identifier","inside":{"kind":"for_statement","stopBy":"end","field":"body"}}`,
		`{"kind":"int_literal","nthChild":{"position":"2n+1","reverse":true,"ofRule":{"kind":"int_literal"}}}`,
		`{"rule":{"matches":"a"},"utils":{"a":{"any":[{"kind":"identifier"},{"matches":"a"}]}}}`,
		`{"rule":{"pattern":"g($A, $B)"},"transform":{"C":"substring($A, startChar=-1)","D":{"convert":{"source":"$C","toCase":"snakeCase"}}},"fix":{"template":"h($D)","expandEnd":{"regex":";"}}}`,
		`{"rule":{"kind":"block","has":{"pattern":"$S","kind":"return_statement","stopBy":{"kind":"if_statement"}}},"rewriters":[{"id":"r","rule":{"kind":"int_literal"},"fix":"0"}],"transform":{"X":{"rewrite":{"source":"$S","rewriters":["r"],"joinBy":","}}}}`,
		`{"pattern":{"context":"func _() { g($A, $B) }","selector":"call_expression","strictness":"signature"}}`,
		`{"all":[{"kind":"identifier"},{"range":{"start":{"line":3,"column":1},"end":{"line":3,"column":3}}}]}`,
		`{"kind":"call_expression > argument_list > :is(identifier, int_literal):nth-child(-n+2 of identifier) ~ identifier:has(> identifier):not(int_literal)"}`,
		`{"rule":{"kind":"call_expression","has":{"matches":"e","stopBy":"end"}},"utils":{"e":{"any":[{"kind":"int_literal"},{"kind":"call_expression","has":{"matches":"e"}},{"kind":"identifier","inside":{"matches":"e"}}]}}}`,
	} {
		f.Add(seed)
	}
	p := parser(f)
	goLang := enginetest.Language(f, "go")
	tree, err := p.Parse(context.Background(), goLang, []byte(fuzzSrc))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var v any
		if json.Unmarshal([]byte(text), &v) != nil {
			return
		}
		r, err := rule.Compile(context.Background(), p, goLang, v, rule.Options{})
		if err != nil {
			if !errors.Is(err, rule.ErrInvalid) && !errors.Is(err, matcher.ErrUnparseable) {
				t.Fatalf("error %v wraps neither rule.ErrInvalid nor matcher.ErrUnparseable", err)
			}
			return
		}
		rn := rule.NewRunner(r)
		ms, err := rn.Find(context.Background(), tree)
		if err != nil {
			return // a budget error is an answer too
		}
		for i := range ms {
			rn.Fix(&ms[i])
		}
	})
}
