package main

import (
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
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

// gcPercent is the collector's GOGC setting now.
func gcPercent() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}

// TestDeferFirstGC: under a memory limit a CLI search starts with the
// collector's pacing off, and the first collection (here forced) puts it
// back; without a limit nothing changes, and restore puts it back at once.
func TestDeferFirstGC(t *testing.T) {
	prevLimit, prevGC := debug.SetMemoryLimit(-1), debug.SetGCPercent(100)
	defer func() {
		debug.SetMemoryLimit(prevLimit)
		debug.SetGCPercent(prevGC)
	}()
	debug.SetMemoryLimit(64 << 20)
	restore := deferFirstGC()
	if p := gcPercent(); p != -1 {
		t.Fatalf("GOGC %d after deferFirstGC under a limit, want off (-1)", p)
	}
	runtime.GC()
	deadline := time.Now().Add(time.Minute)
	for gcPercent() != 100 && time.Now().Before(deadline) {
		runtime.GC() // the finalizer runs after a collection, on its own goroutine
		time.Sleep(time.Millisecond)
	}
	if p := gcPercent(); p != 100 {
		t.Errorf("GOGC %d after the first collection, want 100 back", p)
	}
	restore()
	if p := gcPercent(); p != 100 {
		t.Errorf("GOGC %d after restore, want 100", p)
	}

	// pacing off, restored by the caller before any collection
	restore = deferFirstGC()
	restore()
	if p := gcPercent(); p != 100 {
		t.Errorf("GOGC %d after an early restore, want 100", p)
	}

	debug.SetMemoryLimit(math.MaxInt64)
	deferFirstGC()
	if p := gcPercent(); p != 100 {
		t.Errorf("GOGC %d after deferFirstGC without a limit, want it left at 100", p)
	}
}
