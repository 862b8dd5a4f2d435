package main

import "flag"
import "fmt"
import "io"
import "math"
import "os"
import "runtime/debug"
import "time"

import "github.com/tetherhq/tether/search/store"

// cliTreeMemory is tether ast-grep's memory budget for trees: one search
// reads each file once (a rewrite's edits are made as it matches), so trees
// need not stay in memory (the disk tier keeps them for the next process):
// a larger budget only holds trees no one reads again.
const cliTreeMemory = 8 << 20

// parseHeadroom is the memory a long-lived process needs beside its tree
// store to parse and search: two wasm instances of up to 64 MiB a core, a
// parse's records and the garbage between collections.
const parseHeadroom = 384 << 20

// softMemoryLimit is the Go runtime's soft memory limit tether serve sets
// for a tree store of budget bytes: the budget plus parseHeadroom. Without
// one the heap grows to twice a full store (GOGC's doubling) before the
// collector runs.
func softMemoryLimit(budget int64) int64 { return budget + parseHeadroom }

// treeCacheFlags set the process's tree store (store.SharedCache): its
// memory budget and its disk tier under the user cache dir.
type treeCacheFlags struct {
	off    bool
	disk   sizeFlag
	memory sizeFlag
	// limit is serve's soft memory limit: 0 derives it from the tree
	// budget (softMemoryLimit), < 0 is off
	limit    sizeFlag
	limitSet bool
	// defaultLimit, when set, is the limit without the flag or GOMEMLIMIT
	// in place of the one derived from the tree budget (tether ast-grep:
	// cliMemoryLimit)
	defaultLimit int64
	// opened is the disk tier apply opened, nil for none
	opened *store.DiskCache
	// deferWrites: the tier writes the trees a search parsed at settle,
	// after the answer (a CLI search; see store.DiskCache.DeferWrites)
	deferWrites bool
}

// register adds the flags; memory is the default memory budget.
func (f *treeCacheFlags) register(fs *flag.FlagSet, memory int64) {
	f.disk.n, f.memory.n = store.DefaultDiskBudget, memory
	fs.BoolVar(&f.off, "no-cache", false, "do not read or write parsed trees in the disk cache (under the user cache dir)")
	fs.Var(&f.disk, "cache-size", "the most disk the parsed-tree cache holds (such as 1GiB; off: no disk cache)")
	fs.Var(&f.memory, "tree-memory", "the most memory the process's parsed trees hold, shared by every run and pattern (such as 768MiB)")
	fs.Func("memory-limit", "the Go runtime's soft memory limit, a `size` (1GiB) or off; default GOMEMLIMIT when set, else in tether serve --tree-memory plus 384MiB for parsing, in tether ast-grep 48MiB (the collector runs more often near it; nothing fails past it)", func(s string) error {
		f.limitSet = true
		return f.limit.Set(s)
	})
}

// applyMemoryLimit sets serve's soft memory limit (see the flag) and returns
// it, -1 when there is none. Without it a store of 768 MiB of trees let the
// heap grow to twice that (GOGC's doubling) before a collection.
func (f *treeCacheFlags) applyMemoryLimit() int64 {
	n := f.limit.n
	switch {
	case f.limitSet:
	case os.Getenv("GOMEMLIMIT") != "":
		return debug.SetMemoryLimit(-1) // the runtime's, from the environment
	case f.defaultLimit > 0:
		n = f.defaultLimit
	default:
		n = softMemoryLimit(store.SharedCache().Stats().Budget)
	}
	if n <= 0 {
		debug.SetMemoryLimit(math.MaxInt64)
		return -1
	}
	debug.SetMemoryLimit(n)
	return n
}

// settle lets the disk tier finish, bounded, what it does in the background
// (pruning, its ledger): a CLI defers it, so that it runs after the answer.
func (f *treeCacheFlags) settle() {
	if f.opened != nil {
		f.opened.Settle(10 * time.Second)
	}
}

// apply sets the shared store up; a disk tier that cannot be opened is said
// on stderr and the search goes on without it.
func (f *treeCacheFlags) apply(stderr io.Writer) {
	c := store.SharedCache()
	if f.memory.n > 0 {
		c.SetBudget(f.memory.n)
	}
	if f.off || f.disk.n <= 0 {
		return
	}
	dir, err := store.DefaultDiskCacheDir()
	if err == nil {
		var d *store.DiskCache
		if d, err = store.OpenDiskCache(dir, f.disk.n); err == nil {
			if f.deferWrites {
				d.DeferWrites()
			}
			c.SetDisk(d)
			f.opened = d
			return
		}
	}
	fmt.Fprintf(stderr, "tether: no disk cache of parsed trees (%v); pass --no-cache to say nothing\n", err)
}
