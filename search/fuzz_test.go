package search

import (
	"context"
	"sync"
	"testing"

	"github.com/tetherhq/tether/engine"
	"github.com/tetherhq/tether/matcher"
)

var (
	fuzzOnce sync.Once
	fuzzEng  *engine.Engine
	fuzzErr  error
)

func fuzzParser(t testing.TB) matcher.Parser {
	fuzzOnce.Do(func() { fuzzEng, fuzzErr = engine.New(context.Background(), engine.NewConfig()) })
	if fuzzErr != nil {
		t.Fatalf("engine: %v", fuzzErr)
	}
	return fuzzEng
}

// FuzzIgnore: any ignore file parses, and matching never panics.
func FuzzIgnore(f *testing.F) {
	f.Add("*.go\n!keep.go\n/build/\ndocs/**/x\n[a-", "a/b.go")
	f.Fuzz(func(t *testing.T, rules, path string) {
		set := &ignoreSet{base: "/r", rules: parseIgnore([]byte(rules))}
		ignored([]*ignoreSet{set}, "/r/"+path, false)
	})
}
