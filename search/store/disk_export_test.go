package store

import "os"
import "path/filepath"

// Hooks for the external tests of disk.go, pack.go, writer.go and ledger.go.

// DiskListed is how many directory entries d has listed since it was opened
// (to prune, or to count a tier without a ledger).
func DiskListed(d *DiskCache) int64 { return d.touched.Load() }

// entryOf makes body the entry of key.
func entryOf(key [32]byte, body []byte) []byte {
	b := append(make([]byte, entryHead, entryHead+len(body)), body...)
	sealEntry(b, Key(key))
	return b
}

// WriteDiskEntry writes body as the entry for key (any 32 bytes) at once,
// as the writer writes a stored tree: counted, recorded and pruned alike.
// Its index record waits for the writer's next records (at Settle).
func WriteDiskEntry(d *DiskCache, key [32]byte, body []byte) {
	d.wmu.Lock()
	defer d.wmu.Unlock()
	b := entryOf(key, body)
	d.writeBatch([]queuedEntry{{key: Key(key), b: b, n: len(b)}})
}

// DiskLedgerPath is the disk tier's ledger of its size.
func DiskLedgerPath(d *DiskCache) string { return d.ledgerPath() }

// RemoveDiskLedger removes d's ledger, as a tier made before there was one.
func RemoveDiskLedger(d *DiskCache) error { return os.Remove(d.ledgerPath()) }

// DeferredBytes is the memory d's queued entries hold.
func DeferredBytes(d *DiskCache) int64 {
	d.queue.mu.Lock()
	defer d.queue.mu.Unlock()
	return d.queue.bytes
}

// DeferEntry queues body as the entry for key as a parsed tree's entry is
// queued.
func DeferEntry(d *DiskCache, key [32]byte, body []byte) {
	b := entryOf(key, body)
	d.enqueue(queuedEntry{key: Key(key), b: b, n: len(b)})
}

// TierEntry is where an indexed entry of a tier is.
type TierEntry struct {
	Pack string // the pack's path
	Off  int64
	Len  int
}

// TierEntries lists the entries the index of the tier in dir points to
// (the last record of each key).
func TierEntries(dir string) []TierEntry {
	d := &DiskCache{dir: dir}
	var out []TierEntry
	for sh := range indexShards {
		for _, l := range d.readIndexShard(byte(sh)) {
			out = append(out, TierEntry{d.packPath(l.pack), l.off, int(l.n)})
		}
	}
	return out
}

// PackFiles lists the packs of the tier in dir, and tree files of the
// layout before packs.
func PackFiles(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, de os.DirEntry, err error) error {
		if err == nil && !de.IsDir() && (filepath.Ext(p) == ".pack" || filepath.Ext(p) == ".tree") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// DiskPruning says whether a prune (or the count of a tier without a
// ledger) runs.
func DiskPruning(d *DiskCache) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.pruning
}
