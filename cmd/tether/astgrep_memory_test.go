package main

import "flag"
import "io"
import "math"
import "os"
import "path/filepath"
import "runtime"
import "runtime/debug"
import "runtime/metrics"
import "sync"
import "testing"
import "time"

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

// gcSettings reads GOGC and the soft memory limit without setting them
// (the cleanup that resumes them runs on a goroutine of its own).
func gcSettings() (percent, limit int64) {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64()), int64(s[1].Value.Uint64())
}

// gcCycles is how many collections the process has finished.
func gcCycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestDeferFirstCollection: a one-shot search's process runs with the
// collector's pacing off, under cliStartHeap, until its first collection,
// which puts GOGC and the soft limit back; resume before it does the same,
// and only the process's first call defers anything.
func TestDeferFirstCollection(t *testing.T) {
	prevPercent := debug.SetGCPercent(100)
	prevLimit := debug.SetMemoryLimit(1 << 30)
	t.Cleanup(func() {
		debug.SetGCPercent(prevPercent)
		debug.SetMemoryLimit(prevLimit)
		firstCollection = sync.Once{}
	})
	for _, c := range []struct {
		name    string
		collect bool // a collection comes before resume
	}{{"first collection", true}, {"resume", false}} {
		t.Run(c.name, func(t *testing.T) {
			firstCollection = sync.Once{}
			cycles := gcCycles()
			resume := deferFirstCollection()
			switch p, l := gcSettings(); {
			case p == -1 && l == cliStartHeap:
			case p == 100 && l == 1<<30 && gcCycles() != cycles:
				// the test process's heap was over cliStartHeap: its
				// first collection came at once and put both back
			default:
				t.Errorf("during start-up: GOGC %d, limit %d; want off and %d", p, l, cliStartHeap)
			}
			if again := deferFirstCollection(); again == nil {
				t.Fatal("a second call returned no resume")
			}
			if c.collect {
				runtime.GC()
				deadline := time.Now().Add(10 * time.Second)
				for p, _ := gcSettings(); p != 100 && time.Now().Before(deadline); p, _ = gcSettings() {
					runtime.GC()
					time.Sleep(time.Millisecond)
				}
				if p, l := gcSettings(); p != 100 || l != 1<<30 {
					t.Errorf("after the first collection: GOGC %d, limit %d; want 100 and %d back", p, l, 1<<30)
				}
			}
			resume()
			if p, l := gcSettings(); p != 100 || l != 1<<30 {
				t.Errorf("after: GOGC %d, limit %d; want 100 and %d back", p, l, 1<<30)
			}
		})
	}
}
