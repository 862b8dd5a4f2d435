package rule_test

import "context"
import "encoding/json"
import "fmt"
import "testing"

import "github.com/tetherhq/tether/engine/enginetest"
import "github.com/tetherhq/tether/matcher"
import "github.com/tetherhq/tether/matcher/rule"

func parser(t testing.TB) matcher.Parser {
	t.Helper()
	return enginetest.Engine(t)
}

// run compiles the JSON rule for lang and returns its matches in src as
// "text" lines, each with its fix's replacement when it has one.
func run(t *testing.T, lang, ruleJSON, src string) ([]string, error) {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(ruleJSON), &v); err != nil {
		t.Fatalf("bad test JSON: %v", err)
	}
	p := parser(t)
	l := enginetest.Language(t, lang)
	r, err := rule.Compile(context.Background(), p, l, v, rule.Options{})
	if err != nil {
		return nil, err
	}
	tree, err := p.Parse(context.Background(), l, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	rn := rule.NewRunner(r)
	ms, err := rn.Find(context.Background(), tree)
	if err != nil {
		return nil, err
	}
	var out []string
	for i := range ms {
		s := string(src[ms[i].Start():ms[i].End()])
		if e, ok := rn.Fix(&ms[i]); ok {
			s += fmt.Sprintf(" => [%d,%d) %q", e.Start, e.End, e.Text)
		}
		out = append(out, s)
	}
	return out, nil
}
