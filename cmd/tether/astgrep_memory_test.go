package main

import (
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

// TestAstGrepMemoryLimit: tether ast-grep runs under cliMemoryLimit unless
// --memory-limit or GOMEMLIMIT says otherwise, and puts the limit there was
// back when it returns.
func TestAstGrepMemoryLimit(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(prev) })
	const before = 3 << 30
	for _, c := range []struct {
		name string
		args []string
		env  string
		want int64 // the runtime's limit during the search
	}{
		{"default", nil, "", cliMemoryLimit},
		{"flag", []string{"--memory-limit", "300MiB"}, "", 300 << 20},
		{"off", []string{"--memory-limit", "off"}, "", math.MaxInt64},
		{"GOMEMLIMIT", nil, "3GiB", before}, // the runtime read it at start: left alone
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("GOMEMLIMIT", c.env)
			debug.SetMemoryLimit(before)
			var f treeCacheFlags
			fs := flag.NewFlagSet("ast-grep", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			f.register(fs, cliTreeMemory)
			if err := fs.Parse(c.args); err != nil {
				t.Fatal(err)
			}
			restore := applyCLIMemoryLimit(&f)
			if got := debug.SetMemoryLimit(-1); got != c.want {
				t.Errorf("limit during a search: %d, want %d", got, c.want)
			}
			restore()
			if got := debug.SetMemoryLimit(-1); got != before {
				t.Errorf("limit after a search: %d, want %d back", got, before)
			}
		})
	}

	// a whole search in process leaves it as it was too
	debug.SetMemoryLimit(before)
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
