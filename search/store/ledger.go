package store

import "encoding/binary"
import "hash/crc32"
import "io"
import "os"
import "path/filepath"

import "github.com/tetherhq/tether/internal/fsutil"

// The ledger holds the disk tier's size so that opening the tier reads one
// small file instead of listing every entry. It is a file of records, each
// appended by one write of a file opened for appending (records of several
// processes do not interleave): a base (the tier held this many bytes, as a
// prune counted them) or a delta (a process wrote this many bytes). The size
// is the last base plus the deltas after it. A writer records its bytes
// ahead of writing them and gives back what it did not use, so that a
// killed process leaves the ledger over, never under, the tier. A record that does not check
// out is skipped up to the next magic; a lost record only makes the size
// off until the next prune, which counts the entries and appends a base.
// Past ledgerCompactRecords records it is replaced (atomically) by one base
// of the size it sums to.
const ledgerName = "size.ledger"

// A record: the magic (its third byte the record's kind, its last the
// layout's version), the value (int64), and the CRC-32 (Castagnoli) of both.
const ledgerRecordLen = 4 + 8 + 4

const (
	ledgerBase  = 'b'
	ledgerDelta = 'd'
)

var ledgerCRC = crc32.MakeTable(crc32.Castagnoli)

const (
	// ledgerCompactRecords is how many records the ledger may hold before
	// it is rewritten as one.
	ledgerCompactRecords = 256
	// ledgerMaxBytes bounds what is read of a ledger; one larger is damaged
	// (it is rewritten long before) and the tier is counted again.
	ledgerMaxBytes = 1 << 20
	// ledgerReserveBytes is how many bytes a writer records ahead of what it
	// writes (Settle gives back the rest): a record per entry would cost
	// three system calls per tree written, and a process killed before it
	// settles leaves the ledger at most this much over its tier.
	ledgerReserveBytes = 4 << 20
)

func (d *DiskCache) ledgerPath() string { return filepath.Join(d.dir, ledgerName) }

func appendLedgerRecord(b []byte, kind byte, v int64) []byte {
	start := len(b)
	b = append(b, 't', 'l', kind, 1)
	b = binary.LittleEndian.AppendUint64(b, uint64(v))
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b[start:], ledgerCRC))
}

// sumLedger returns the size the records of b sum to, how many checked out,
// and whether it is whole: a base among them (without one the size is
// unknown) and no byte that is not part of a record.
func sumLedger(b []byte) (size int64, records int, whole bool) {
	based, skipped := false, len(b)%ledgerRecordLen != 0
	for len(b) >= ledgerRecordLen {
		kind := b[2]
		if b[0] != 't' || b[1] != 'l' || b[3] != 1 || (kind != ledgerBase && kind != ledgerDelta) ||
			crc32.Checksum(b[:12], ledgerCRC) != binary.LittleEndian.Uint32(b[12:]) {
			b, skipped = b[1:], true
			continue
		}
		v := int64(binary.LittleEndian.Uint64(b[4:]))
		if kind == ledgerBase {
			size, based = v, true
		} else {
			size += v
		}
		records++
		b = b[ledgerRecordLen:]
	}
	return size, records, based && !skipped
}

// readLedger returns the size the ledger records, how many records it holds,
// and false when there is no ledger to trust (none, too large, or not
// whole).
func (d *DiskCache) readLedger() (int64, int, bool) {
	f, err := os.Open(d.ledgerPath())
	if err != nil {
		return 0, 0, false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, ledgerMaxBytes+1))
	if err != nil || len(b) > ledgerMaxBytes {
		return 0, 0, false
	}
	return sumLedger(b)
}

// startLedger writes the first record of a tier's ledger, a base of 0,
// unless a ledger is there already (another process's, made since this one
// made the directory); it says whether it wrote it.
func (d *DiskCache) startLedger() bool {
	f, err := os.OpenFile(d.ledgerPath(), os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return false
	}
	defer f.Close()
	_, err = f.Write(appendLedgerRecord(nil, ledgerBase, 0))
	return err == nil
}

// recordBase records a size a listing counted: appended, or in place of a
// ledger that was not whole.
func (d *DiskCache) recordBase(size int64) {
	if d.ledgerDamaged.Swap(false) {
		fsutil.WriteCacheFile(d.ledgerPath(), appendLedgerRecord(nil, ledgerBase, size), 0o600)
		return
	}
	d.appendLedger(ledgerBase, size)
}

// appendLedger appends one record (best effort: a lost one costs accuracy
// until the next prune). The caller holds lmu.
func (d *DiskCache) appendLedger(kind byte, v int64) {
	f, err := os.OpenFile(d.ledgerPath(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	f.Write(appendLedgerRecord(nil, kind, v))
	f.Close()
}

// reserve takes n bytes from this process's reservation, first recording
// a new one (of n and ledgerReserveBytes more) when it has too little left.
func (d *DiskCache) reserve(n int64) {
	d.mu.Lock()
	if d.reserved >= n {
		d.reserved -= n
		d.mu.Unlock()
		return
	}
	d.mu.Unlock()
	d.lmu.Lock()
	defer d.lmu.Unlock()
	d.appendLedger(ledgerDelta, n+ledgerReserveBytes)
	d.mu.Lock()
	d.reserved += ledgerReserveBytes
	d.mu.Unlock()
}

// releaseLedger gives back what is left of the reservation, so that the
// ledger counts what was written.
func (d *DiskCache) releaseLedger() {
	d.lmu.Lock()
	defer d.lmu.Unlock()
	d.mu.Lock()
	n := d.reserved
	d.reserved = 0
	d.mu.Unlock()
	if n > 0 {
		d.appendLedger(ledgerDelta, -n)
	}
}

// compactLedger replaces the ledger by one base of what it sums to. Records
// another process appends between the read and the rename are lost (the
// next prune makes them good).
func (d *DiskCache) compactLedger() {
	d.lmu.Lock()
	defer d.lmu.Unlock()
	size, n, ok := d.readLedger()
	if !ok || n <= ledgerCompactRecords {
		return
	}
	fsutil.WriteCacheFile(d.ledgerPath(), appendLedgerRecord(nil, ledgerBase, size), 0o600)
}
