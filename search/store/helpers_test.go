package store_test

import (
	"os"
	"testing"
	"time"

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

// rewriteKeepingTime writes body over the file at path and sets its
// modification time back to what it was: with the size unchanged, a change
// its stat does not show.
func rewriteKeepingTime(t *testing.T, path, body string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, time.Time{}, fi.ModTime()); err != nil {
		t.Fatal(err)
	}
}
