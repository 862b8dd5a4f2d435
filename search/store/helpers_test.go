package store_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tetherhq/tether/engine/enginetest"
	"github.com/tetherhq/tether/matcher"
)

// The store's tests search with package search, as its users do: what the
// store must get right is what a search finds with its trees.

// parser returns the shared engine over the embedded grammars.
func parser(t testing.TB) matcher.Parser {
	t.Helper()
	return enginetest.Engine(t)
}

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
