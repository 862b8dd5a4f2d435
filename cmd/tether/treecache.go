package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/tetherhq/tether/matcher"
)

// cliTreeMemory is tether ast-grep's memory budget for trees: one search
// reads each file once, so trees need not stay in memory (the disk tier keeps
// them for the next process); a little lets a rewrite's re-reads hit.
const cliTreeMemory = 64 << 20

// treeCacheFlags set the process's tree store (matcher.SharedCache): its
// memory budget and its disk tier under the user cache dir.
type treeCacheFlags struct {
	off    bool
	disk   sizeFlag
	memory sizeFlag
}

// register adds the flags; memory is the default memory budget.
func (f *treeCacheFlags) register(fs *flag.FlagSet, memory int64) {
	f.disk.n, f.memory.n = matcher.DefaultDiskBudget, memory
	fs.BoolVar(&f.off, "no-cache", false, "do not read or write parsed trees in the disk cache (under the user cache dir)")
	fs.Var(&f.disk, "cache-size", "the most disk the parsed-tree cache holds (such as 1GiB; off: no disk cache)")
	fs.Var(&f.memory, "tree-memory", "the most memory the process's parsed trees hold, shared by every run and pattern (such as 768MiB)")
}

// apply sets the shared store up; a disk tier that cannot be opened is said
// on stderr and the search goes on without it.
func (f *treeCacheFlags) apply(stderr io.Writer) {
	c := matcher.SharedCache()
	if f.memory.n > 0 {
		c.SetBudget(f.memory.n)
	}
	if f.off || f.disk.n <= 0 {
		return
	}
	dir, err := matcher.DefaultDiskCacheDir()
	if err == nil {
		var d *matcher.DiskCache
		if d, err = matcher.OpenDiskCache(dir, f.disk.n); err == nil {
			c.SetDisk(d)
			return
		}
	}
	fmt.Fprintf(stderr, "tether: no disk cache of parsed trees (%v); pass --no-cache to say nothing\n", err)
}
