package store_test

import "testing"

import "github.com/tetherhq/tether/engine/enginetest"
import "github.com/tetherhq/tether/matcher"

// The store's tests search with package search, as its users do: what the
// store must get right is what a search finds with its trees.

// parser returns the shared engine over the embedded grammars.
func parser(t testing.TB) matcher.Parser {
	t.Helper()
	return enginetest.Engine(t)
}
