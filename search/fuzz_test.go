package search

import "testing"

import "github.com/tetherhq/tether/engine/enginetest"
import "github.com/tetherhq/tether/matcher"

func fuzzParser(t testing.TB) matcher.Parser {
	t.Helper()
	return enginetest.Engine(t)
}

// FuzzIgnore: any ignore file parses, and matching never panics.
func FuzzIgnore(f *testing.F) {
	f.Add("*.go\n!keep.go\n/build/\ndocs/**/x\n[a-", "a/b.go")
	f.Fuzz(func(t *testing.T, rules, path string) {
		set := &ignoreSet{base: "/r", rules: parseIgnore([]byte(rules))}
		ignored([]*ignoreSet{set}, "/r/"+path, false)
	})
}
