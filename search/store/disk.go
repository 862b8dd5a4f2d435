package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetherhq/tether/engine"
	"github.com/tetherhq/tether/grammars"
	"github.com/tetherhq/tether/internal/fsutil"
)

// DefaultDiskBudget is the disk a DiskCache may hold when none is given.
const DefaultDiskBudget = 1 << 30

// DiskCache is the tree store's disk tier: one file a tree under a directory
// (by default under the user cache dir), so that a new process reads trees
// instead of parsing them. An entry is written atomically (a temporary file
// renamed into place), holds its key and the sha256 of its content, and is
// checked in full when read: a damaged, foreign or truncated entry is a miss
// (and removed), never a tree. Several processes may share the directory:
// each write is one rename, and entries are only ever added whole or
// removed. When the files pass the budget, the least recently used (by
// modification time, which a hit refreshes) are removed down to 80% of it.
//
// Opening a tier costs the same whatever it holds: its size is read from a
// ledger (ledger.go) that writers append to, not counted by listing it. The
// listing (to prune, or to count a tier whose ledger is missing) runs in
// the background; Settle waits for it, bounded. It is safe for concurrent
// use.
type DiskCache struct {
	dir    string
	budget int64

	mu   sync.Mutex
	size int64 // bytes of entries, as the ledger said at open plus written since
	// reserved is what the ledger counts for this process's writes ahead
	// of them: a writer records a reservation before it writes, so that a
	// process killed mid-search leaves the ledger over its tier (which a
	// prune corrects), never under it (which nothing would)
	reserved int64
	pruning  bool
	added    int64            // bytes written while a prune runs
	inflight int64            // bytes of writes under way
	writing  map[Key]struct{} // keys being written, under mu
	bg       sync.WaitGroup
	lmu      sync.Mutex // serializes this process's ledger records

	// ledgerDamaged: the ledger was missing or not whole at open, and the
	// next count replaces it
	ledgerDamaged atomic.Bool
	touched       atomic.Int64 // directory entries listed, for tests

	// deferred writes (DeferWrites): whole entries waiting in memory, by
	// key, in the order they came, and their bytes
	qmu       sync.Mutex
	deferring bool
	queue     []Key
	queued    map[Key][]byte
	qbytes    int64
}

// maxDeferredBytes bounds the entries a tier that defers its writes holds
// in memory: past it an entry is written at once. Go's src/net (390 files)
// makes about 10 MiB of entries.
const maxDeferredBytes = 16 << 20

// diskMagic starts every entry; the version changes with the layout.
const diskMagic = "tether-tree-v1\n\x00"

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
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	d := &DiskCache{dir: dir, budget: budget}
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

// Settle waits, at most until the bound passes, for what the tier does in
// the background (pruning, counting, the ledger's upkeep) and then appends
// the bytes written since the last record to the ledger. A process calls it
// after its answer, before it exits; what a bound or a kill cuts short
// leaves the tier readable (every removal and record is whole) and is done
// again by a later process.
//
// Writes deferred (DeferWrites) are made first, within the same bound; the
// ones the bound leaves are dropped (a later process parses those files
// again).
func (d *DiskCache) Settle(bound time.Duration) {
	deadline := time.Now().Add(bound)
	d.flush(deadline)
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

// DeferWrites makes the tier keep the entries it is given in memory, up to
// a bound (16 MiB), and write them at Settle: a CLI search prints its
// answer before it writes the trees it parsed. An entry past the bound is
// written at once. Each entry is still written whole (a temporary file
// renamed into place), so a process killed before or while it settles
// leaves only whole entries; the trees it did not write are parsed again
// by a later process.
func (d *DiskCache) DeferWrites() {
	d.qmu.Lock()
	defer d.qmu.Unlock()
	d.deferring = true
}

// deferred keeps the entry b under k for Settle and reports true, or
// reports false when writes are not deferred or b does not fit.
func (d *DiskCache) deferred(k Key, b []byte) bool {
	d.qmu.Lock()
	defer d.qmu.Unlock()
	if !d.deferring || d.qbytes+int64(cap(b)) > maxDeferredBytes {
		return false
	}
	if _, ok := d.queued[k]; ok {
		return true
	}
	if d.queued == nil {
		d.queued = map[Key][]byte{}
	}
	d.queued[k] = b
	d.queue = append(d.queue, k)
	d.qbytes += int64(cap(b))
	return true
}

// pendingEntry returns the entry waiting under k, if one does.
func (d *DiskCache) pendingEntry(k Key) ([]byte, bool) {
	d.qmu.Lock()
	defer d.qmu.Unlock()
	b, ok := d.queued[k]
	return b, ok
}

// flush writes the deferred entries, on as many goroutines as the process
// has cores, until they are written or the deadline passes; the rest are
// dropped.
func (d *DiskCache) flush(deadline time.Time) {
	next := func() (Key, []byte, bool) {
		d.qmu.Lock()
		defer d.qmu.Unlock()
		if len(d.queue) == 0 || time.Now().After(deadline) {
			d.queue, d.queued, d.qbytes = nil, nil, 0
			return Key{}, nil, false
		}
		k := d.queue[0]
		d.queue = d.queue[1:]
		return k, d.queued[k], true
	}
	var wg sync.WaitGroup
	for range max(1, min(runtime.GOMAXPROCS(0), 4)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k, b, ok := next()
				if !ok {
					return
				}
				d.write(k, b)
				// the entry stays readable under its key until written
				d.qmu.Lock()
				if d.queued != nil {
					delete(d.queued, k)
					d.qbytes -= int64(cap(b))
				}
				d.qmu.Unlock()
			}
		}()
	}
	wg.Wait()
}

func (d *DiskCache) path(k Key) string {
	h := hex.EncodeToString(k[:])
	return filepath.Join(d.dir, h[:2], h+".tree")
}

// load returns the encoded tree stored under k, or false when there is none
// or what is there does not check out.
func (d *DiskCache) load(k Key) ([]byte, bool) {
	if b, ok := d.pendingEntry(k); ok {
		return b[len(diskMagic)+2*sha256.Size:], true
	}
	p := d.path(k)
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, false
	}
	head := len(diskMagic) + 2*sha256.Size
	if len(b) < head || string(b[:len(diskMagic)]) != diskMagic || !bytes.Equal(b[len(diskMagic):len(diskMagic)+sha256.Size], k[:]) {
		os.Remove(p)
		return nil, false
	}
	sum := sha256.Sum256(b[head:])
	if !bytes.Equal(sum[:], b[len(diskMagic)+sha256.Size:head]) {
		os.Remove(p)
		return nil, false
	}
	// a hit makes the entry recent; not more than once a minute
	if fi, err := os.Stat(p); err == nil && time.Since(fi.ModTime()) > time.Minute {
		now := time.Now()
		os.Chtimes(p, now, now)
	}
	return b[head:], true
}

// has reports whether an entry for k exists (unchecked).
func (d *DiskCache) has(k Key) bool {
	if _, ok := d.pendingEntry(k); ok {
		return true
	}
	_, err := os.Stat(d.path(k))
	return err == nil
}

// bad removes an entry that checked out but did not decode.
func (d *DiskCache) bad(k Key) { os.Remove(d.path(k)) }

// storeTree writes t under k (best effort: a cache that cannot be written
// only costs speed). The entry is built in one buffer sized for it (the
// header, then the tree's binary form appended in place), taken from a pool:
// a cold search writes thousands, and growing each by appending (then copying
// it behind the header) made several times the tree's size in garbage.
func (d *DiskCache) storeTree(k Key, t *engine.Tree) {
	head := len(diskMagic) + 2*sha256.Size
	need := head + encodedSize(t)
	bp, _ := entryBufs.Get().(*[]byte)
	if bp == nil || cap(*bp) < need {
		b := make([]byte, 0, need)
		bp = &b
	}
	b := append((*bp)[:0], diskMagic...)
	b = append(b, k[:]...)
	b = append(b, make([]byte, sha256.Size)...)
	b, err := t.AppendBinary(b)
	if err == nil {
		sum := sha256.Sum256(b[head:])
		copy(b[len(diskMagic)+sha256.Size:], sum[:])
		if d.deferred(k, b) {
			// the buffer is the entry's until the process ends (a
			// load may hand out its tree's bytes): not pooled
			return
		}
		d.write(k, b)
	}
	if cap(b) <= maxPooledEntry {
		*bp = b[:0]
		entryBufs.Put(bp)
	}
}

// encodedSize is the length of t's binary form (engine.Tree.AppendBinary: a
// 16-byte header, then engine.NodeBytes a node).
func encodedSize(t *engine.Tree) int { return 16 + t.Len()*engine.NodeBytes }

// entryBufs holds entry buffers for reuse; one larger than maxPooledEntry is
// let go instead of pinned.
var entryBufs sync.Pool

const maxPooledEntry = 4 << 20

// write puts the whole entry b (header and tree) under k's path atomically
// and prunes when the tier passes its budget.
func (d *DiskCache) write(k Key, b []byte) {
	p := d.path(k)
	n := int64(len(b))
	// An entry is its key's content: one this or another process wrote, or
	// a write of it under way here (two files or regions of the same text
	// parsed at once), is not written again, which would count its bytes
	// twice against the budget.
	d.mu.Lock()
	if _, busy := d.writing[k]; busy {
		d.mu.Unlock()
		return
	}
	if d.writing == nil {
		d.writing = map[Key]struct{}{}
	}
	d.writing[k] = struct{}{}
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		delete(d.writing, k)
		d.mu.Unlock()
	}()
	if _, err := os.Stat(p); err == nil {
		return
	}
	d.reserve(n)
	// counted as under way before the file exists, so that a prune's
	// count (which may or may not list it) is never short of it
	d.mu.Lock()
	d.inflight += n
	if d.pruning {
		d.added += n
	}
	d.mu.Unlock()
	if err := fsutil.WriteCacheFile(p, b, 0o600); err != nil {
		if os.MkdirAll(filepath.Dir(p), 0o700) != nil || fsutil.WriteCacheFile(p, b, 0o600) != nil {
			d.mu.Lock()
			d.inflight -= n
			d.reserved += n
			d.mu.Unlock()
			return
		}
	}
	d.mu.Lock()
	d.inflight -= n
	d.size += n
	prune := d.size > d.budget
	d.mu.Unlock()
	if prune {
		d.startPrune()
	}
}

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
}

// entries lists the entries, removing temporary files an interrupted write
// left more than an hour ago.
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
		if strings.HasSuffix(de.Name(), ".tree") {
			out = append(out, diskEntry{p, fi.Size(), fi.ModTime()})
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

// pruneOnce removes the least recently used entries it lists down to 80% of
// the budget and returns the bytes of the listed entries left.
func (d *DiskCache) pruneOnce() int64 {
	es := d.entries()
	sort.Slice(es, func(i, j int) bool { return es[i].mtime.Before(es[j].mtime) })
	var total int64
	for _, e := range es {
		total += e.size
	}
	for _, e := range es {
		if total <= d.budget/5*4 {
			break
		}
		if err := os.Remove(e.path); err == nil || errors.Is(err, fs.ErrNotExist) {
			total -= e.size
		}
	}
	return total
}

// DiskStats describes the disk tier.
type DiskStats struct {
	Dir    string
	Bytes  int64 // bytes of entries (as the ledger said at open, and written since)
	Budget int64
}

// Stats returns the disk tier's statistics.
func (d *DiskCache) Stats() DiskStats {
	d.mu.Lock()
	defer d.mu.Unlock()
	return DiskStats{Dir: d.dir, Bytes: d.size, Budget: d.budget}
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
