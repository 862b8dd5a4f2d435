package main

import "context"
import "fmt"
import "io"
import "runtime"
import "runtime/debug"
import "sync"

import "github.com/tetherhq/tether/engine"

// A tether ast-grep process reads each file once, so it keeps little
// (bench/README.md, "Agent session", notes on CLI cold peak RSS):
const (
	// cliRetain is the most linear memory a parser instance keeps between
	// parses (engine.Limits.Retain): one grown past it by a large file is
	// dropped, instead of each instance holding up to 64 MiB for good.
	cliRetain = 16 << 20
	// cliMemoryLimit is the Go runtime's soft memory limit when neither
	// --memory-limit nor GOMEMLIMIT is given: the collector runs more often
	// near it (nothing fails past it), so the heap's garbage between
	// collections does not double a search's peak. It holds the tree
	// store's budget (cliTreeMemory), the trees being parsed and matched,
	// and the matches: a search of the Go tree peaks at about 30 MB live.
	// At 48 MiB its peak RSS is 10-20 MB lower than at 64 MiB for 0-4% more
	// CPU; at 40 MiB, 20% more CPU where many matches are live.
	cliMemoryLimit = 48 << 20
	// cliStartHeap is the most memory a one-shot search's process reaches
	// before its first collection (deferFirstCollection). Start-up (package
	// inits, the grammar module's load) allocates about 4 MiB, which is the
	// runtime's first heap goal: one collection of a heap that is nearly all
	// live, a sixth of a one-file search's CPU.
	cliStartHeap = 16 << 20
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
	restoreLimit := applyCLIMemoryLimit(trees)
	resumeGC := deferFirstCollection()
	restore := func() {
		resumeGC()
		restoreLimit()
	}
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

// firstCollection makes deferFirstCollection act once a process: it is
// the process's start-up that it spares a collection, and searches run in
// one process (tests) would otherwise save each other's settings.
var firstCollection sync.Once

// deferFirstCollection turns the collector's pacing off until the process's
// memory first reaches cliStartHeap (or the soft limit, if lower): a small
// search then ends without a collection. The first collection, whichever
// comes first of it and resume, puts the GOGC and soft limit there were
// back, so a large search's heap grows as before. Only the process's first
// call does anything; the others return a no-op.
func deferFirstCollection() (resume func()) {
	resume = func() {}
	firstCollection.Do(func() {
		percent := debug.SetGCPercent(-1)
		if percent < 0 { // GOGC=off: nothing to defer
			return
		}
		limit := debug.SetMemoryLimit(-1)
		start := min(limit, cliStartHeap)
		debug.SetMemoryLimit(start)
		var once sync.Once
		resume = func() {
			once.Do(func() {
				debug.SetGCPercent(percent)
				// unless a search in the same process has set its own since
				if debug.SetMemoryLimit(-1) == start {
					debug.SetMemoryLimit(limit)
				}
			})
		}
		// the sentinel is unreachable from here on: the first collection
		// finds it so and runs the cleanup
		runtime.AddCleanup(&[2]*byte{}, func(resume func()) { resume() }, resume)
	})
	return resume
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
