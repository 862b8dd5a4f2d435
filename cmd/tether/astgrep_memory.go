package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/tetherhq/tether/engine"
)

// A tether ast-grep process reads each file once, so it keeps little
// (bench/README.md, "Agent session", notes on CLI cold peak RSS):
const (
	// cliRetain is the most linear memory a parser instance keeps between
	// parses (engine.Limits.Retain): one grown past it by a large file is
	// dropped, instead of each instance holding up to 64 MiB for good.
	cliRetain = 16 << 20
	// cliMemoryLimit is the Go runtime's soft memory limit when neither
	// --memory-limit nor GOMEMLIMIT is given: the collector runs more often near it (nothing fails past
	// it), so the heap's garbage between collections does not double a
	// search's peak. It holds the tree store's budget (cliTreeMemory), the
	// trees being parsed and matched, and the matches.
	cliMemoryLimit = 64 << 20
)

// startCLIEngine starts the engine for a one-shot search: its instances keep
// at most cliRetain each.
func startCLIEngine(ctx context.Context, stderr io.Writer) (*engine.Engine, bool) {
	e, err := engine.New(ctx, engine.NewConfig().WithLimits(engine.Limits{Retain: cliRetain}))
	if err != nil {
		fmt.Fprintln(stderr, "tether:", err)
		return nil, false
	}
	return e, true
}

// startCLISearch starts the engine of a one-shot search or scan under the
// tree cache flags: their memory limit (applyCLIMemoryLimit), then the
// engine, then the tree store. stop undoes them in reverse order: it
// settles the store's deferred writes, closes the engine and puts back
// the memory limit.
func startCLISearch(ctx context.Context, trees *treeCacheFlags, stderr io.Writer) (e *engine.Engine, stop func(), ok bool) {
	restore := applyCLIMemoryLimit(trees)
	if e, ok = startCLIEngine(ctx, stderr); !ok {
		restore()
		return nil, nil, false
	}
	trees.apply(stderr)
	return e, func() {
		trees.settle()
		e.Close(ctx)
		restore()
	}, true
}

// applyCLIMemoryLimit sets the soft memory limit of --memory-limit, else
// GOMEMLIMIT's, else cliMemoryLimit; restore puts back the limit there was
// (for tests, which search in process).
func applyCLIMemoryLimit(f *treeCacheFlags) (restore func()) {
	prev := debug.SetMemoryLimit(-1)
	f.defaultLimit = cliMemoryLimit
	f.applyMemoryLimit()
	return func() { debug.SetMemoryLimit(prev) }
}
