package store

import "os"

// Hooks for the external tests of disk.go and ledger.go.

// DiskListed is how many directory entries d has listed since it was opened
// (to prune, or to count a tier without a ledger).
func DiskListed(d *DiskCache) int64 { return d.touched.Load() }

// WriteDiskEntry writes b as the entry for key (any 32 bytes), as a stored
// tree is written: counted, recorded and pruned alike.
func WriteDiskEntry(d *DiskCache, key [32]byte, b []byte) { d.write(Key(key), b) }

// DiskLedgerPath is the disk tier's ledger of its size.
func DiskLedgerPath(d *DiskCache) string { return d.ledgerPath() }

// RemoveDiskLedger removes d's ledger, as a tier made before there was one.
func RemoveDiskLedger(d *DiskCache) error { return os.Remove(d.ledgerPath()) }

// DeferredBytes is the memory d's deferred entries hold (DeferWrites).
func DeferredBytes(d *DiskCache) int64 {
	d.qmu.Lock()
	defer d.qmu.Unlock()
	return d.qbytes
}

// DeferEntry stores b as the entry for key as a parsed tree's entry is
// stored: kept for Settle while writes are deferred and it fits.
func DeferEntry(d *DiskCache, key [32]byte, b []byte) {
	if !d.deferred(Key(key), b) {
		d.write(Key(key), b)
	}
}
