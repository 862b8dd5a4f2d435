package store_test

import "encoding/binary"
import "os"
import "path/filepath"
import "strings"
import "sync/atomic"
import "testing"
import "time"

import "github.com/tetherhq/tether/search/store"

// fillKeys numbers the keys fillTier writes, new ones at every call.
var fillKeys atomic.Uint64

// fillTier writes n entries of size bytes each into a new tier in dir and
// lets it settle, as a process that searched and exited. It lets the count
// of the new tier finish first: an entry written as a count ends may be
// counted twice until the next prune, and these tests compare exact sizes.
func fillTier(t *testing.T, dir string, n, size int, budget int64) {
	t.Helper()
	d, err := openTier(t, dir, budget)
	if err != nil {
		t.Fatal(err)
	}
	d.Settle(time.Minute)
	b := make([]byte, size)
	for range n {
		var k [32]byte
		binary.LittleEndian.PutUint64(k[:], fillKeys.Add(1))
		k[31] = 0xa5
		store.WriteDiskEntry(d, k, b)
	}
	d.Settle(time.Minute)
}

// tierBytes is what the tier's packs hold on disk and how many entries its
// index points to.
func tierBytes(t *testing.T, dir string) (total int64, n int) {
	t.Helper()
	for _, p := range store.PackFiles(dir) {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		total += fi.Size()
	}
	return total, len(diskEntries(t, dir))
}

// TestDiskTierOpenListsNothing: opening a tier lists none of its entries,
// whether it holds 50 or 2,000: its size comes from the ledger, and is the
// size on disk.
func TestDiskTierOpenListsNothing(t *testing.T) {
	var listed []int64
	for _, n := range []int{50, 2000} {
		dir := t.TempDir()
		fillTier(t, dir, n, 512, 0)
		want, got := tierBytes(t, dir)
		if got != n {
			t.Fatalf("%d entries written, %d on disk", n, got)
		}
		d, err := openTier(t, dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		l := store.DiskListed(d)
		d.Settle(time.Minute)
		if after := store.DiskListed(d); after != l {
			t.Errorf("%d entries: %d listed in the background after the open", n, after-l)
		}
		if st := d.Stats(); st.Bytes != want {
			t.Errorf("%d entries: the ledger says %d bytes, %d on disk", n, st.Bytes, want)
		}
		listed = append(listed, l)
	}
	if listed[0] != 0 || listed[1] != 0 {
		t.Errorf("opening a tier of 50 entries listed %d, of 2,000 listed %d; want 0 for both", listed[0], listed[1])
	}
}

// TestDiskTierNewListsNothing: a tier its process makes starts its ledger
// at 0 and lists nothing, not even in the background; what it writes is
// what the next process's ledger says.
func TestDiskTierNewListsNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tether", "trees")
	d, err := openTier(t, dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if store.DiskPruning(d) {
		t.Fatal("a new tier is counted by a listing")
	}
	d.Settle(time.Minute)
	b := make([]byte, 700)
	for range 3 {
		var k [32]byte
		binary.LittleEndian.PutUint64(k[:], fillKeys.Add(1))
		store.WriteDiskEntry(d, k, b)
	}
	d.Settle(time.Minute)
	want, n := tierBytes(t, dir)
	if n != 3 {
		t.Fatalf("3 entries written, %d on disk", n)
	}
	again, err := openTier(t, dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if st := again.Stats(); st.Bytes != want || store.DiskListed(again) != 0 {
		t.Fatalf("the next process: the ledger says %d bytes (%d listed), %d on disk", st.Bytes, store.DiskListed(again), want)
	}
}

// TestDiskTierLedgerRecovers: a tier whose ledger is missing, or torn, is
// counted again by a listing in the background (never at open), and its
// size comes out right.
func TestDiskTierLedgerRecovers(t *testing.T) {
	dir := t.TempDir()
	fillTier(t, dir, 300, 1000, 0)
	want, n := tierBytes(t, dir)
	if n != 300 {
		t.Fatalf("%d of 300 entries in the index", n)
	}
	for _, damage := range []string{"missing", "torn", "foreign", "appended"} {
		d, err := openTier(t, dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		p := store.DiskLedgerPath(d)
		switch damage {
		case "missing":
			err = store.RemoveDiskLedger(d)
		case "torn":
			var b []byte
			if b, err = os.ReadFile(p); err == nil {
				err = os.WriteFile(p, b[:len(b)-5], 0o600)
			}
		case "appended":
			var f *os.File
			if f, err = os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0); err == nil {
				f.WriteString("half a record")
				err = f.Close()
			}
		case "foreign":
			err = os.WriteFile(p, []byte(strings.Repeat("not a ledger\n", 10)), 0o600)
		}
		if err != nil {
			t.Fatal(err)
		}
		d, err = openTier(t, dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		d.Settle(time.Minute)
		if l, packs := store.DiskListed(d), len(store.PackFiles(dir)); l < int64(packs) {
			t.Errorf("%s ledger: %d files listed to count the tier, want all %d packs", damage, l, packs)
		}
		if st := d.Stats(); st.Bytes != want {
			t.Errorf("%s ledger: counted %d bytes, %d on disk", damage, st.Bytes, want)
		}
		// the count is recorded: the next process lists nothing
		d, err = openTier(t, dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		if l := store.DiskListed(d); l != 0 || d.Stats().Bytes != want {
			t.Errorf("%s ledger, after the count: %d listed, %d bytes (want 0, %d)", damage, l, d.Stats().Bytes, want)
		}
	}
}

// TestDiskTierPrunesAtOpen: a tier that other processes filled past this
// one's budget is pruned in the background after the open, down to 80% of
// the budget (whole packs, the oldest first), and the ledger stays compact
// across many processes.
func TestDiskTierPrunesAtOpen(t *testing.T) {
	dir := t.TempDir()
	for range 40 { // 40 processes, a pack each
		fillTier(t, dir, 10, 1000, 0)
	}
	d, err := openTier(t, dir, 100_000)
	if err != nil {
		t.Fatal(err)
	}
	d.Settle(time.Minute)
	got, _ := tierBytes(t, dir)
	if got > 80_000 || got == 0 || d.Stats().Bytes != got {
		t.Errorf("after the prune: %d bytes on disk, stats %d, want (0, 80000]", got, d.Stats().Bytes)
	}
	// many small processes, each recording what it wrote
	for i := range 600 {
		d, err := openTier(t, dir, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		var k [32]byte
		binary.LittleEndian.PutUint64(k[:], uint64(10_000+i))
		store.WriteDiskEntry(d, k, make([]byte, 100))
		d.Settle(time.Minute)
	}
	fi, err := os.Stat(filepath.Join(dir, "size.ledger"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > 300*16 {
		t.Errorf("ledger of %d bytes after 600 processes: it is not compacted", fi.Size())
	}
	want, _ := tierBytes(t, dir)
	d, err = openTier(t, dir, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	d.Settle(time.Minute)
	if d.Stats().Bytes != want {
		t.Errorf("after 600 processes the ledger says %d bytes, %d on disk", d.Stats().Bytes, want)
	}
}

// TestDiskTierLedgerOverAfterKill: a process that writes and never settles
// (killed mid-search) leaves the ledger over the tier by at most its
// reservation, never under it: a tier under-counted would never be pruned.
func TestDiskTierLedgerOverAfterKill(t *testing.T) {
	dir := t.TempDir()
	fillTier(t, dir, 10, 1000, 0)
	for round := range 3 {
		d, err := openTier(t, dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 40 {
			var k [32]byte
			binary.LittleEndian.PutUint64(k[:], uint64(1000*(round+1)+i))
			store.WriteDiskEntry(d, k, make([]byte, 100_000))
		}
		// no Settle: the process is gone
	}
	onDisk, _ := tierBytes(t, dir)
	d, err := openTier(t, dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Stats().Bytes; got < onDisk || got > onDisk+3*(4<<20+100_000) {
		t.Errorf("after 3 unsettled processes the ledger says %d bytes, %d on disk: want at least that, and not more than their reservations", got, onDisk)
	}
}
