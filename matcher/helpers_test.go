package matcher_test

import "context"
import "fmt"
import "sort"
import "testing"

import "github.com/tetherhq/tether/engine/enginetest"
import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/matcher"

// parser returns the shared engine over the embedded grammars.
func parser(t testing.TB) matcher.Parser {
	t.Helper()
	return enginetest.Engine(t)
}

// sourceResult is what matchSource found.
type sourceResult struct {
	Pattern *matcher.Pattern
	Matches []sourceMatch
}

// sourceMatch is one match, as text.
type sourceMatch struct {
	Text     string
	Context  string
	Bindings []sourceBinding // sorted by name
}

type sourceBinding struct {
	Name  string
	Multi bool
	Text  string
}

// matchSource compiles pattern in the language of the file name (by its
// extension), parses src and returns every match in it.
func matchSource(p matcher.Parser, name, src, pattern string) (*sourceResult, error) {
	l, ok := grammars.ForPath(name)
	if !ok {
		return nil, fmt.Errorf("no grammar for %s", name)
	}
	ctx := context.Background()
	pat, err := matcher.Compile(ctx, p, l, pattern)
	if err != nil {
		return nil, err
	}
	tree, err := p.Parse(ctx, l, []byte(src))
	if err != nil {
		return nil, err
	}
	ms, err := matcher.NewMatcher(pat).Find(ctx, tree)
	if err != nil {
		return nil, err
	}
	res := &sourceResult{Pattern: pat}
	for _, m := range ms {
		sm := sourceMatch{Text: src[m.Start():m.End()], Context: m.Reading}
		for _, c := range m.Captures {
			sm.Bindings = append(sm.Bindings, sourceBinding{Name: c.Name, Multi: c.Multi, Text: string(c.Text(tree.Source()))})
		}
		sort.Slice(sm.Bindings, func(i, j int) bool { return sm.Bindings[i].Name < sm.Bindings[j].Name })
		res.Matches = append(res.Matches, sm)
	}
	return res, nil
}
