// Package enginetest gives tests one shared Engine over the built grammar
// modules, and fails or skips a test when a grammar is not built: under
// TETHER_REQUIRE_PEERS=1 (which `make test` sets) a missing grammar fails the
// test, otherwise it skips it and says to run `make grammars`.
package enginetest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/tetherhq/tether/engine"
	"github.com/tetherhq/tether/grammars"
	"github.com/tetherhq/tether/internal/testenv"
)

var shared = sync.OnceValues(func() (*engine.Engine, error) {
	return engine.New(context.Background(), engine.NewConfig())
})

// Engine returns a process-wide Engine (default config, never closed) after
// checking that the named languages (all shipped ones when none are named)
// are built into this test binary.
func Engine(t testing.TB, langs ...string) *engine.Engine {
	t.Helper()
	RequireGrammars(t, langs...)
	e, err := shared()
	if err != nil {
		t.Fatalf("enginetest: %v", err)
	}
	return e
}

// RequireGrammars fails (TETHER_REQUIRE_PEERS=1) or skips the test unless the
// named languages, or all shipped ones when none are named, are built.
func RequireGrammars(t testing.TB, langs ...string) {
	t.Helper()
	if missing := Unbuilt(langs...); len(missing) > 0 {
		testenv.Missing(t, fmt.Sprintf("grammar modules (%s; built by `%s`)", strings.Join(missing, ", "), grammars.BuildCommand))
	}
}

// Unbuilt returns which of the named languages (all when none are named) are
// not built into this binary; unknown names are returned too.
func Unbuilt(langs ...string) []string {
	if len(langs) == 0 {
		langs = grammars.IDs()
	}
	var missing []string
	for _, id := range langs {
		l, ok := grammars.Lookup(id)
		if !ok || !grammars.Built(l.ID) {
			missing = append(missing, id)
		}
	}
	return missing
}
