package enginetest

import "context"
import "os"
import "path/filepath"
import "strings"
import "sync"
import "testing"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/internal/testenv"

var shared = sync.OnceValues(func() (*engine.Engine, error) {
	return engine.New(context.Background(), engine.NewConfig())
})

// Engine returns a process-wide Engine (default config, never closed) after
// checking that the named languages (all shipped ones when none are named)
// are embedded in this test binary.
func Engine(t testing.TB, langs ...string) *engine.Engine {
	t.Helper()
	RequireGrammars(t, langs...)
	e, err := shared()
	if err != nil {
		t.Fatalf("enginetest: %v", err)
	}
	return e
}

// Language returns the shipped language named name (an id or alias),
// failing the test when there is none.
func Language(tb testing.TB, name string) *grammars.Language {
	tb.Helper()
	l, ok := grammars.Lookup(name)
	if !ok {
		tb.Fatalf("enginetest: no language %q", name)
	}
	return l
}

// RequireGrammars fails the test unless the named languages, or all shipped
// ones when none are named, are embedded.
func RequireGrammars(t testing.TB, langs ...string) {
	t.Helper()
	if missing := Unbuilt(langs...); len(missing) > 0 {
		t.Fatalf("enginetest: grammar modules %s are not embedded; run `%s`", strings.Join(missing, ", "), grammars.UpdateCommand)
	}
}

// RequireLoads fails the test unless the shared Engine parses an empty
// source of each named language: its module is embedded and instantiates
// (the modules are committed, so a failure is a defect, never a reason to
// skip).
func RequireLoads(t testing.TB, langs ...string) {
	t.Helper()
	e := Engine(t, langs...)
	for _, name := range langs {
		if _, err := e.Parse(context.Background(), Language(t, name), []byte("")); err != nil {
			t.Fatalf("enginetest: the %s grammar does not load: %v", name, err)
		}
	}
}

// Unbuilt returns which of the named languages (all when none are named) are
// not embedded in this binary; unknown names are returned too.
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

// A custom grammar the tests load as a user's project would: the .wasm
// that tree-sitter-properties (a pinned npm peer, scripts/npm/package.json,
// not a shipped language) ships for web-tree-sitter, checked against its
// sha256 here so another build of it fails loudly.
const (
	PropertiesPackage = "tree-sitter-properties"
	PropertiesWasm    = "tree-sitter-properties.wasm"
	PropertiesSHA256  = "817743f1f33c15e315f10a59595127813806bbf7104dc1974feaabb9e38da908"
)

// PropertiesModule returns the path and bytes of tree-sitter-properties'
// wasm in the repository's npm peers (.deps/npm).
func PropertiesModule(tb testing.TB) (string, []byte) {
	tb.Helper()
	p := filepath.Join(testenv.RepoRoot(), ".deps", "npm", "node_modules", PropertiesPackage, PropertiesWasm)
	b, err := os.ReadFile(p)
	if err != nil {
		testenv.Missing(tb, PropertiesPackage+" (npm)")
	}
	if got := grammars.SHA256(b); got != PropertiesSHA256 {
		tb.Fatalf("enginetest: %s has sha256 %s, want %s (the version pinned in scripts/npm/package.json)", p, got, PropertiesSHA256)
	}
	return p, b
}

// Properties returns tree-sitter-properties' module as a custom language
// named name for .properties files (not registered).
func Properties(tb testing.TB, name string) *grammars.Language {
	tb.Helper()
	p, b := PropertiesModule(tb)
	l, err := grammars.NewCustom(name, b, grammars.CustomSpec{Source: p, Extensions: []string{"properties"}, Symbol: "tree_sitter_properties"})
	if err != nil {
		tb.Fatal(err)
	}
	return l
}
