package store

import "context"
import "errors"
import "io/fs"
import "os"
import "path/filepath"
import "sort"
import "strings"
import "sync"
import "sync/atomic"
import "time"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/grammars"

// DefaultDiskBudget is the disk a DiskCache may hold when none is given.
const DefaultDiskBudget = 1 << 30

// DiskCache is the tree store's disk tier: trees appended to packs under a
// directory (by default under the user cache dir), with an index of where
// each key's entry is (pack.go), so that a new process reads trees instead
// of parsing them. An entry holds its key and the CRC-32C of its body and
// is checked in full when read: a damaged, foreign or torn entry is a
// miss, never a tree. Several processes may share the directory: each
// appends to packs of its own, and to the index with one write a shard.
// The writes are made off the search's path (writer.go) and Settle makes
// them, bounded, before the process exits. When the packs pass the budget,
// the least recently used (by modification time, which a hit refreshes)
// are removed down to 80% of it.
//
// Opening a tier costs the same whatever it holds: its size is read from a
// ledger (ledger.go) that writers append to, not counted by listing it. The
// listing (to prune, or to count a tier whose ledger is missing) runs in
// the background; Settle waits for it, bounded. It is safe for concurrent
// use.
type DiskCache struct {
	dir     string
	budget  int64
	packMax int64 // the size at which a process starts a new pack
	// readOnly: reads leave the packs' times alone (VerifyDiskCache)
	readOnly bool

	mu   sync.Mutex
	size int64 // bytes of packs, as the ledger said at open plus written since
	// reserved is what the ledger counts for this process's writes ahead
	// of them: a writer records a reservation before it writes, so that a
	// process killed mid-search leaves the ledger over its tier (which a
	// prune corrects), never under it (which nothing would)
	reserved int64
	pruning  bool
	added    int64 // bytes written while a prune runs
	inflight int64 // bytes of writes under way
	// ownPack is the pack this process appends to while writingPack:
	// pruning leaves it
	ownPack     packID
	writingPack bool
	bg          sync.WaitGroup
	lmu         sync.Mutex // serializes this process's ledger records

	// ledgerDamaged: the ledger was missing or not whole at open, and the
	// next count replaces it
	ledgerDamaged atomic.Bool
	touched       atomic.Int64 // directory entries listed, for tests

	index   packIndex   // where entries are, as this process knows
	readers packReaders // packs open for reading
	queue   writeQueue  // entries waiting for the writer

	// the writer's, under wmu: the pack it appends to, its batch buffer
	// and the index records of what it wrote, by shard, not yet appended
	wmu  sync.Mutex
	pack *packWriter
	wbuf []byte
	// broken: a pack could not be made or written; this process writes no
	// more (a full or read-only disk costs speed, not a file a tree)
	broken     bool
	pendingIdx [indexShards][]byte
	pendingN   int

	// side-index records (kind sets, outlines: sideindex.go) not yet
	// appended, by index slot and shard; kfmu is held while this process
	// changes a shard's file, so that a rewrite and the writer's appends do
	// not interleave
	kmu     sync.Mutex
	kfmu    sync.Mutex
	pending [sideIndexes]map[byte][]byte
}

// DefaultDiskCacheDir is where the disk tier lives: tether/trees under the
// user cache dir.
func DefaultDiskCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "tether", "trees"), nil
}

// OpenDiskCache opens (creating) the disk tier in dir with a budget in bytes
// (<= 0: DefaultDiskBudget).
func OpenDiskCache(dir string, budget int64) (*DiskCache, error) {
	if budget <= 0 {
		budget = DefaultDiskBudget
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return nil, err
	}
	d := &DiskCache{dir: dir, budget: budget, packMax: packSize(budget)}
	if err := os.Mkdir(dir, 0o700); err == nil && d.startLedger() {
		// a tier this process made holds nothing: no listing to count
		return d, nil
	} else if err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	size, records, ok := d.readLedger()
	d.size = size
	switch {
	case !ok || size < 0:
		// no ledger (a new tier, or one it was lost from) or a damaged
		// one: count by listing, off the critical path
		d.size = 0
		d.ledgerDamaged.Store(true)
		d.startPrune()
	case size > budget:
		d.startPrune()
	case records > ledgerCompactRecords:
		d.bg.Add(1)
		go func() {
			defer d.bg.Done()
			d.compactLedger()
		}()
	}
	return d, nil
}

// Settle makes the writes still queued, then waits for what the tier does
// in the background (pruning, counting, the ledger's upkeep), all at most
// until the bound passes, and appends the bytes written since the last
// record to the ledger. A process calls it after its answer, before it
// exits; the entries the bound leaves unwritten are dropped (a later
// process parses those files again), and what a bound or a kill cuts short
// leaves the tier readable (every entry is checked when read, every
// removal and record is whole) and is done again by a later process. The
// tier may be used again after it.
func (d *DiskCache) Settle(bound time.Duration) {
	deadline := time.Now().Add(bound)
	d.settleWrites(deadline)
	d.mu.Lock()
	over := d.size > d.budget
	d.mu.Unlock()
	if over {
		// a prune leaves the pack being written: now it is not
		d.startPrune()
	}
	done := make(chan struct{})
	go func() {
		d.bg.Wait()
		close(done)
	}()
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
	d.releaseLedger()
}

// DeferWrites makes the tier keep the entries it is given in memory until
// Settle, or until deferStartBytes (1 MiB) wait: a CLI search that parses
// little prints its answer before it writes the trees it parsed, and one
// that parses more writes them as it goes, off the search's path. What waits is bounded
// (maxQueuedBytes, 32 MiB); an entry past that is dropped, not waited for.
func (d *DiskCache) DeferWrites() {
	q := &d.queue
	q.mu.Lock()
	defer q.mu.Unlock()
	q.deferring = true
}

// load returns the encoded tree stored under k, or false when there is none
// or what is there does not check out.
func (d *DiskCache) load(k Key) ([]byte, bool) {
	if b, ok := d.queuedBody(k); ok {
		return b, true
	}
	l, ok := d.lookup(k)
	if !ok {
		return nil, false
	}
	b, ok := d.readEntry(k, l)
	if !ok {
		d.forget(k)
	}
	return b, ok
}

// has reports whether an entry for k exists (unchecked).
func (d *DiskCache) has(k Key) bool {
	if d.isQueued(k) {
		return true
	}
	_, ok := d.lookup(k)
	return ok
}

// bad forgets an entry that checked out but did not decode: the next
// write of its key records a new one.
func (d *DiskCache) bad(k Key) { d.forget(k) }

// storeTree queues t under k for the writer (best effort: a cache that
// cannot be written only costs speed). The writer encodes it, in place in
// the batch it appends to its pack: a cold search writes thousands of
// trees, and an entry buffer of each one's own (growing, copied behind its
// header, or taken from a pool that mostly held the wrong size) made new
// memory for every tree, which cost more in page faults and collections
// than the writes.
func (d *DiskCache) storeTree(k Key, t *engine.Tree) {
	if d.has(k) {
		return
	}
	d.enqueue(queuedEntry{key: k, tree: t, n: entryHead + encodedSize(t)})
}

// encodedSize is the length of t's binary form (engine.Tree.AppendBinary: a
// 16-byte header, then engine.NodeBytes a node).
func encodedSize(t *engine.Tree) int { return 16 + t.Len()*engine.NodeBytes }

// startPrune starts a prune in the background unless one runs.
func (d *DiskCache) startPrune() {
	d.mu.Lock()
	if d.pruning {
		d.mu.Unlock()
		return
	}
	d.pruning = true
	d.bg.Add(1)
	d.mu.Unlock()
	go func() {
		defer d.bg.Done()
		d.prune()
	}()
}

type diskEntry struct {
	path  string
	size  int64
	mtime time.Time
	pack  packID
	// legacy: a tree file of the layout before packs, never read again:
	// removed first
	legacy bool
}

// entries lists the packs (and tree files of the earlier layout), removing
// temporary files an interrupted write left more than an hour ago.
func (d *DiskCache) entries() []diskEntry {
	var out []diskEntry
	filepath.WalkDir(d.dir, func(p string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() {
			return nil
		}
		d.touched.Add(1)
		fi, err := de.Info()
		if err != nil {
			return nil
		}
		if strings.HasPrefix(de.Name(), ".") {
			if time.Since(fi.ModTime()) > time.Hour {
				os.Remove(p)
			}
			return nil
		}
		if id, ok := packOf(p); ok {
			out = append(out, diskEntry{path: p, size: fi.Size(), mtime: fi.ModTime(), pack: id})
		} else if strings.HasSuffix(de.Name(), ".tree") {
			out = append(out, diskEntry{path: p, size: fi.Size(), mtime: fi.ModTime(), legacy: true})
		}
		return nil
	})
	return out
}

// prune removes the least recently used entries down to 80% of the budget
// and records the bytes it left in the ledger, which makes good what the
// ledger lost (a process killed before it appended, records of several
// processes crossing). Entries written while it walks may be missed by its
// listing (and their bytes were counted by their writers), so it walks again
// until a walk sees no write; after a few walks it counts those bytes on top
// of what it left.
func (d *DiskCache) prune() {
	for pass := 0; ; pass++ {
		// added counts every write the listing may miss: those under way
		// as it starts (they may land behind it) and those started
		// while it runs; the ones it did list are counted twice, over
		// and never under, until a later prune
		d.mu.Lock()
		d.added = d.inflight
		d.mu.Unlock()
		total := d.pruneOnce()
		// the base replaces every reservation: this process's is then
		// what it wrote during the walks, recorded after the base
		d.lmu.Lock()
		d.mu.Lock()
		if d.added == 0 || pass == 3 {
			added := d.added
			d.size = total + added
			d.reserved = 0
			// writes made during the walks can leave the tier over its
			// budget with no write to come that would start a prune:
			// another one runs (they stop once writes stop, as each
			// leaves the tier at four fifths of its budget plus what
			// was written meanwhile)
			again := added > 0 && d.size > d.budget
			d.pruning = again
			if again {
				d.bg.Add(1)
			}
			d.mu.Unlock()
			d.recordBase(total)
			if added > 0 {
				d.appendLedger(ledgerDelta, added)
			}
			d.lmu.Unlock()
			if again {
				go func() {
					defer d.bg.Done()
					d.prune()
				}()
			}
			return
		}
		d.mu.Unlock()
		d.lmu.Unlock()
	}
}

// pruneOnce removes the least recently used packs it lists (tree files of
// the earlier layout first) down to 80% of the budget, leaving the one
// this process writes, and returns the bytes of the listed packs left.
// The index then drops the records of the packs removed.
func (d *DiskCache) pruneOnce() int64 {
	es := d.entries()
	sort.Slice(es, func(i, j int) bool {
		if es[i].legacy != es[j].legacy {
			return es[i].legacy
		}
		return es[i].mtime.Before(es[j].mtime)
	})
	var total int64
	for _, e := range es {
		total += e.size
	}
	d.mu.Lock()
	own, writing := d.ownPack, d.writingPack
	d.mu.Unlock()
	removed := map[packID]bool{}
	for _, e := range es {
		if total <= d.budget/5*4 {
			break
		}
		if !e.legacy && writing && e.pack == own {
			continue
		}
		if err := os.Remove(e.path); err == nil || errors.Is(err, fs.ErrNotExist) {
			total -= e.size
			if !e.legacy {
				removed[e.pack] = true
				d.closePack(e.pack)
			}
		}
	}
	if len(removed) > 0 {
		d.compactIndex(removed)
	}
	return total
}

// DiskStats describes the disk tier.
type DiskStats struct {
	Dir    string
	Bytes  int64 // bytes of packs (as the ledger said at open, and written since)
	Budget int64
	// Dropped counts the trees not written: the queue was full, or Settle's
	// bound passed first
	Dropped int64
}

// Stats returns the disk tier's statistics.
func (d *DiskCache) Stats() DiskStats {
	d.queue.mu.Lock()
	dropped := d.queue.dropped
	d.queue.mu.Unlock()
	d.mu.Lock()
	defer d.mu.Unlock()
	return DiskStats{Dir: d.dir, Bytes: d.size, Budget: d.budget, Dropped: dropped}
}

// treeDecoder is what of a Parser the disk tier needs: *engine.Engine and
// *engine.Parser have it.
type treeDecoder interface {
	DecodeTree(ctx context.Context, lang *grammars.Language, src, data []byte) (*engine.Tree, error)
}

// A parser without DecodeTree leaves the disk tier unused: the engine's
// must keep theirs.
var (
	_ treeDecoder = (*engine.Engine)(nil)
	_ treeDecoder = (*engine.Parser)(nil)
)
