package rule_test

import "errors"
import "strings"
import "testing"

import "github.com/tetherhq/tether/matcher"
import "github.com/tetherhq/tether/matcher/rule"

func TestOperators(t *testing.T) {
	goSrc := `package p

func f(mu *sync.Mutex) {
	mu.Lock()
	defer mu.Unlock()
	g(1, 2)
}

func h(mu *sync.Mutex) {
	mu.Lock()
	work()
	mu.Unlock()
}
`
	cases := []struct {
		name, lang, rule, src string
		want                  []string
	}{
		{"kind", "go", `{"kind":"function_declaration","has":{"pattern":"defer $X.Unlock()","stopBy":"end"}}`, goSrc, []string{"func f(mu *sync.Mutex) {\n\tmu.Lock()\n\tdefer mu.Unlock()\n\tg(1, 2)\n}"}},
		{"lock not followed by defer", "go", `{"kind":"expression_statement","has":{"pattern":"$M.Lock()"},"not":{"precedes":{"pattern":"defer $M.Unlock()"}}}`, goSrc, []string{"mu.Lock()"}},
		{"inside", "go", `{"pattern":"$F($$$)","inside":{"kind":"function_declaration","has":{"field":"name","regex":"^h$"},"stopBy":"end"}}`, goSrc, []string{"mu.Lock()", "work()", "mu.Unlock()"}},
		{"fix", "go", `{"rule":{"pattern":"g($A, $B)"},"fix":"g($B, $A)"}`, goSrc, []string{"g(1, 2) => [67,74) \"g(2, 1)\""}},
		{"transform", "go", `{"rule":{"pattern":"g($A, $B)"},"transform":{"N":{"convert":{"source":"$A","toCase":"upperCase"}},"M":"substring($N, startChar=0)"},"fix":"x$M"}`, goSrc, []string{"g(1, 2) => [67,74) \"x1\""}},
		{"nthChild", "go", `{"kind":"int_literal","nthChild":2}`, goSrc, []string{"2"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := run(t, c.lang, c.rule, c.src)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got %q\nwant %q", got, c.want)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	cases := []struct{ name, rule, want string }{
		{"unknown key", `{"pattern":"f()","hass":{"kind":"identifier"}}`, "rule.hass: unknown key"},
		{"not positive", `{"regex":"x"}`, "can match a node of any kind"},
		{"never", `{"all":[{"kind":"identifier"},{"kind":"int_literal"}]}`, "can never match"},
		{"cycle", `{"rule":{"matches":"a"},"utils":{"a":{"matches":"b"},"b":{"any":[{"kind":"identifier"},{"matches":"a"}]}}}`, "cycle: a -> b -> a"},
		{"bad kind", `{"kind":"nope"}`, `rule.kind: "nope" is not a node kind`},
		{"undefined transform source", `{"rule":{"pattern":"f($A)"},"transform":{"B":"substring($C, startChar=1)"}}`, "transform.B: $C is not a metavariable of the rule"},
		{"deep unknown", `{"all":[{"kind":"identifier"},{"inside":{"kind":"block","stopby":"end"}}]}`, "rule.all[1].inside.stopby: unknown key"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := run(t, "go", c.rule, "package p")
			if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, rule.ErrInvalid) {
				t.Errorf("err = %v, want one saying %q", err, c.want)
			}
		})
	}
}

// TestBudget: a rule whose relational parts search the whole file from
// every candidate runs out of its per-file budget with ErrTooExpensive,
// never answering "no matches".
func TestBudget(t *testing.T) {
	src := "package p\n\nfunc f() {\n" + strings.Repeat("\tv := a + b\n", 2500) + "}\n"
	_, err := run(t, "go", `{"kind":"identifier","inside":{"kind":"source_file","stopBy":"end","has":{"kind":"identifier","regex":"^nowhere$","stopBy":"end"}}}`, src)
	if !errors.Is(err, matcher.ErrTooExpensive) {
		t.Fatalf("err = %v, want ErrTooExpensive", err)
	}
}
