package main

import "flag"
import "io"
import "math"
import "runtime/debug"
import "testing"

import "github.com/tetherhq/tether/search/store"

// TestServeMemoryLimit: serve's soft memory limit is the tree budget plus
// the parsing headroom by default, GOMEMLIMIT's when that is set, and the
// flag's when given (off: none).
func TestServeMemoryLimit(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(prev) })
	derived := store.SharedCache().Stats().Budget + parseHeadroom
	for _, c := range []struct {
		name   string
		args   []string
		env    string
		want   int64 // the runtime's limit after
		report int64 // what applyMemoryLimit says
	}{
		{"default", nil, "", derived, derived},
		{"flag", []string{"--memory-limit", "1500MiB"}, "", 1500 << 20, 1500 << 20},
		{"flag beats GOMEMLIMIT", []string{"--memory-limit", "1GiB"}, "2GiB", 1 << 30, 1 << 30},
		{"off", []string{"--memory-limit", "off"}, "", math.MaxInt64, -1},
		{"GOMEMLIMIT", nil, "1234MiB", 777 << 20, 777 << 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("GOMEMLIMIT", c.env)
			// the runtime read GOMEMLIMIT at start; this stands for it
			debug.SetMemoryLimit(777 << 20)
			var f treeCacheFlags
			fs := flag.NewFlagSet("serve", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			f.register(fs, store.DefaultCacheBudget)
			if err := fs.Parse(c.args); err != nil {
				t.Fatal(err)
			}
			if got := f.applyMemoryLimit(); got != c.report {
				t.Errorf("applyMemoryLimit = %d, want %d", got, c.report)
			}
			if got := debug.SetMemoryLimit(-1); got != c.want {
				t.Errorf("the runtime's limit: %d, want %d", got, c.want)
			}
		})
	}
}
