package main

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

// TestAstGrepMemoryLimit: tether ast-grep runs under cliMemoryLimit unless
// GOMEMLIMIT is set, and puts the limit there was back when it returns.
func TestAstGrepMemoryLimit(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(prev) })
	const before = 3 << 30
	debug.SetMemoryLimit(before)

	restore := applyCLIMemoryLimit()
	if got := debug.SetMemoryLimit(-1); got != cliMemoryLimit {
		t.Errorf("limit during a search: %d, want cliMemoryLimit %d", got, cliMemoryLimit)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit after a search: %d, want %d back", got, before)
	}

	// the runtime read GOMEMLIMIT at start; set, it is left alone
	t.Setenv("GOMEMLIMIT", "3GiB")
	restore = applyCLIMemoryLimit()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit with GOMEMLIMIT set: %d, want %d left as it was", got, before)
	}
	restore()

	// a whole search in process leaves it as it was too
	t.Setenv("GOMEMLIMIT", "")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte(cliSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI(t, "-p", "fmt.Errorf($$$ARGS)", "-l", "go", "--no-cache", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit after tether ast-grep: %d, want %d back", got, before)
	}
}
