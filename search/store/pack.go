package store

import "bytes"
import "crypto/rand"
import "encoding/binary"
import "encoding/hex"
import "errors"
import "fmt"
import "hash/crc32"
import "io"
import "io/fs"
import "os"
import "path/filepath"
import "strings"
import "sync"
import "time"

import "github.com/tetherhq/tether/internal/fsutil"

// The disk tier's layout. Trees are appended to packs (packs/ID.pack), each
// written by one process and never changed after: a process appends the
// entries it writes to its own pack, one write per batch of entries, and
// starts another when one reaches the tier's pack size. Where an entry is
// is recorded in an index (index/XX.idx, XX the key's first byte in hex) of
// fixed-size records that processes append to, after the entry's bytes are
// in its pack. A lookup reads the shard of its key once per process; the
// last record of a key wins. The index has few shards (indexShards): a
// cold run makes each file it appends to, and on this kind of disk a new
// file costs tens of microseconds of kernel time, as much as a shard read.
//
// Nothing is trusted that does not check out: a record whose checksum is
// wrong is skipped, and an entry is read whole and checked (its magic, its
// key, its length and the CRC-32C of its body) before it is a tree. A
// process killed mid-write leaves a pack with a torn tail that no record
// points to, or records that point to bytes that do not check out: misses,
// never trees.

// entryMagic starts every entry in a pack; its last byte is the layout's
// version.
var entryMagic = [4]byte{'t', 'p', 'e', 1}

// An entry: the magic, the key, the body's length (uint32) and the CRC-32
// (Castagnoli) of the body, then the body (the tree's binary form).
const entryHead = len(entryMagic) + len(Key{}) + 4 + 4

// indexMagic starts every index record; its last byte is the layout's
// version.
var indexMagic = [4]byte{'t', 'p', 'x', 1}

// An index record: the magic, the key, the pack's id, the entry's offset in
// the pack (int64) and its whole length (uint32), and the CRC-32C of all
// but the magic.
const indexRecordLen = len(indexMagic) + len(Key{}) + len(packID{}) + 8 + 4 + 4

const indexShards = 16

// shardOf is the index shard of k: its first four bits.
func shardOf(k Key) byte { return k[0] >> 4 }

// maxIndexShardBytes bounds what is read of an index shard: a 1 GiB tier of
// stdlib-sized trees holds about 80,000 entries, 300 KB a shard.
const maxIndexShardBytes = 16 << 20

var packCRC = crc32.MakeTable(crc32.Castagnoli)

type packID [8]byte

func (id packID) String() string { return hex.EncodeToString(id[:]) }

// loc is where an entry is: its pack, offset and whole length.
type loc struct {
	pack packID
	off  int64
	n    uint32
}

func newPackID() packID {
	var id packID
	rand.Read(id[:])
	return id
}

func (d *DiskCache) packPath(id packID) string {
	return filepath.Join(d.dir, "packs", id.String()+".pack")
}

func (d *DiskCache) indexShardPath(sh byte) string {
	return filepath.Join(d.dir, "index", fmt.Sprintf("%x.idx", sh))
}

// packOf returns the id of the pack file at path, false for another file.
func packOf(path string) (packID, bool) {
	var id packID
	name := filepath.Base(path)
	if !strings.HasSuffix(name, ".pack") {
		return id, false
	}
	b, err := hex.DecodeString(strings.TrimSuffix(name, ".pack"))
	if err != nil || len(b) != len(id) {
		return id, false
	}
	copy(id[:], b)
	return id, true
}

// sealEntry fills in the header of the entry b (entryHead bytes, then the
// body), whose key is k.
func sealEntry(b []byte, k Key) {
	copy(b, entryMagic[:])
	copy(b[len(entryMagic):], k[:])
	body := b[entryHead:]
	binary.LittleEndian.PutUint32(b[entryHead-8:], uint32(len(body)))
	binary.LittleEndian.PutUint32(b[entryHead-4:], crc32.Checksum(body, packCRC))
}

// entryBody returns the body of the entry b when b is a whole entry of k.
func entryBody(b []byte, k Key) ([]byte, bool) {
	if len(b) < entryHead || !bytes.Equal(b[:len(entryMagic)], entryMagic[:]) || !bytes.Equal(b[len(entryMagic):len(entryMagic)+len(k)], k[:]) {
		return nil, false
	}
	body := b[entryHead:]
	if int(binary.LittleEndian.Uint32(b[entryHead-8:])) != len(body) || crc32.Checksum(body, packCRC) != binary.LittleEndian.Uint32(b[entryHead-4:]) {
		return nil, false
	}
	return body, true
}

func appendIndexRecord(b []byte, k Key, l loc) []byte {
	start := len(b)
	b = append(b, indexMagic[:]...)
	b = append(b, k[:]...)
	b = append(b, l.pack[:]...)
	b = binary.LittleEndian.AppendUint64(b, uint64(l.off))
	b = binary.LittleEndian.AppendUint32(b, l.n)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b[start+len(indexMagic):], packCRC))
}

// forEachIndexRecord calls fn for every record of b that checks out, in
// order; a damaged stretch is skipped up to the next magic.
func forEachIndexRecord(b []byte, fn func(Key, loc)) {
	for len(b) >= indexRecordLen {
		if !bytes.Equal(b[:len(indexMagic)], indexMagic[:]) ||
			crc32.Checksum(b[len(indexMagic):indexRecordLen-4], packCRC) != binary.LittleEndian.Uint32(b[indexRecordLen-4:]) {
			i := bytes.Index(b[1:], indexMagic[:])
			if i < 0 {
				return
			}
			b = b[1+i:]
			continue
		}
		var k Key
		var l loc
		p := len(indexMagic)
		p += copy(k[:], b[p:])
		p += copy(l.pack[:], b[p:])
		l.off = int64(binary.LittleEndian.Uint64(b[p:]))
		l.n = binary.LittleEndian.Uint32(b[p+8:])
		fn(k, l)
		b = b[indexRecordLen:]
	}
}

// readIndexShard returns the records of shard sh that check out, the last
// of each key.
func (d *DiskCache) readIndexShard(sh byte) map[Key]loc {
	out := map[Key]loc{}
	f, err := os.Open(d.indexShardPath(sh))
	if err != nil {
		return out
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, maxIndexShardBytes))
	forEachIndexRecord(b, func(k Key, l loc) {
		if shardOf(k) == sh { // one of another shard's is foreign here
			out[k] = l
		}
	})
	return out
}

// appendShard appends b to the file at path (one write of a file opened for
// appending, so that records of several processes do not interleave),
// making its directory when it is missing.
func appendShard(path string, b []byte) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if errors.Is(err, fs.ErrNotExist) && os.MkdirAll(filepath.Dir(path), 0o700) == nil {
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	}
	if err != nil {
		return
	}
	f.Write(b)
	f.Close()
}

// indexShard is what this process knows of one shard of the index.
type indexShard struct {
	read bool
	locs map[Key]loc
}

// packIndex is the process's view of the index: the shards it read, with
// the entries it wrote since.
type packIndex struct {
	mu     sync.Mutex
	shards [indexShards]indexShard
}

// lookup returns where k's entry is, reading its shard the first time.
func (d *DiskCache) lookup(k Key) (loc, bool) {
	x := &d.index
	x.mu.Lock()
	defer x.mu.Unlock()
	s := &x.shards[shardOf(k)]
	if !s.read {
		s.read = true
		locs := d.readIndexShard(shardOf(k))
		for key, l := range s.locs { // written here before the read
			locs[key] = l
		}
		s.locs = locs
	}
	l, ok := s.locs[k]
	return l, ok
}

// noteLoc records where this process wrote k's entry.
func (d *DiskCache) noteLoc(k Key, l loc) {
	x := &d.index
	x.mu.Lock()
	defer x.mu.Unlock()
	s := &x.shards[shardOf(k)]
	if s.locs == nil {
		s.locs = map[Key]loc{}
	}
	s.locs[k] = l
}

// forget drops k's entry from the process's view: it did not check out,
// and the next write of k records a new one.
func (d *DiskCache) forget(k Key) {
	x := &d.index
	x.mu.Lock()
	defer x.mu.Unlock()
	delete(x.shards[shardOf(k)].locs, k)
}

// packReaders holds the packs this process reads, open.
type packReaders struct {
	mu      sync.Mutex
	open    map[packID]*os.File
	touched map[packID]bool
}

// maxOpenPacks bounds the packs a process keeps open for reading.
const maxOpenPacks = 64

// readEntry reads the entry at l whose key is k and returns its body, or
// false when it cannot be read or does not check out.
func (d *DiskCache) readEntry(k Key, l loc) ([]byte, bool) {
	if l.n < uint32(entryHead) || l.off < 0 {
		return nil, false
	}
	f, once := d.packFile(l.pack)
	if f == nil {
		return nil, false
	}
	if once {
		defer f.Close()
	}
	b := make([]byte, l.n)
	if _, err := f.ReadAt(b, l.off); err != nil {
		return nil, false
	}
	return entryBody(b, k)
}

// packFile returns pack id open for reading, nil when it is gone, and
// whether the caller closes it (past maxOpenPacks a pack is opened for one
// read: one kept open is never closed under a reader). A hit makes the
// pack recent (its modification time, which pruning goes by), once a
// process and not more than once a minute.
func (d *DiskCache) packFile(id packID) (*os.File, bool) {
	r := &d.readers
	r.mu.Lock()
	defer r.mu.Unlock()
	if f, ok := r.open[id]; ok {
		return f, false
	}
	f, err := os.Open(d.packPath(id))
	if err != nil {
		return nil, false
	}
	if r.open == nil {
		r.open, r.touched = map[packID]*os.File{}, map[packID]bool{}
	}
	if !r.touched[id] && !d.readOnly {
		r.touched[id] = true
		if fi, err := f.Stat(); err == nil && time.Since(fi.ModTime()) > time.Minute {
			now := time.Now()
			os.Chtimes(f.Name(), now, now)
		}
	}
	if len(r.open) >= maxOpenPacks {
		return f, true
	}
	r.open[id] = f
	return f, false
}

// closePack closes pack id when this process reads it (it was removed).
func (d *DiskCache) closePack(id packID) {
	r := &d.readers
	r.mu.Lock()
	defer r.mu.Unlock()
	if f, ok := r.open[id]; ok {
		f.Close()
		delete(r.open, id)
	}
}

// packSize is the size at which a process starts a new pack: a sixteenth
// of the budget (pruning removes whole packs), from 16 KiB to 64 MiB.
func packSize(budget int64) int64 { return min(max(budget/16, 16<<10), 64<<20) }

// compactIndex rewrites the index shards without the records of the packs
// gone (removed here, or found missing), after a prune. Records another
// process appends to a shard between the read and the rename are lost (a
// parse each, later).
func (d *DiskCache) compactIndex(removed map[packID]bool) {
	exists := func(id packID) bool {
		gone, seen := removed[id]
		if !seen {
			_, err := os.Stat(d.packPath(id))
			gone = errors.Is(err, fs.ErrNotExist)
			removed[id] = gone
		}
		return !gone
	}
	for sh := range indexShards {
		path := d.indexShardPath(byte(sh))
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		var keep []byte
		dropped := false
		forEachIndexRecord(b, func(k Key, l loc) {
			if exists(l.pack) {
				keep = appendIndexRecord(keep, k, l)
			} else {
				dropped = true
			}
		})
		if dropped || len(keep) != len(b) {
			fsutil.WriteCacheFile(path, keep, 0o600)
		}
	}
}

// DiskCheck is what VerifyDiskCache found in a tier.
type DiskCheck struct {
	Entries   int   // indexed entries that check out
	Bad       int   // indexed entries that do not (torn, damaged)
	Dangling  int   // index records whose pack is gone (pruned)
	PackBytes int64 // bytes of the packs, with what no record points to
}

// VerifyDiskCache reads every entry the index of the tier in dir points to
// (the last record of each key) and checks it, without changing anything.
func VerifyDiskCache(dir string) (DiskCheck, error) {
	var c DiskCheck
	if _, err := os.Stat(dir); err != nil {
		return c, err
	}
	d := &DiskCache{dir: dir, readOnly: true}
	err := filepath.WalkDir(filepath.Join(dir, "packs"), func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if _, ok := packOf(p); ok {
			fi, err := de.Info()
			if err != nil {
				return err
			}
			c.PackBytes += fi.Size()
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return c, err
	}
	for sh := range indexShards {
		for k, l := range d.readIndexShard(byte(sh)) {
			if _, err := os.Stat(d.packPath(l.pack)); errors.Is(err, fs.ErrNotExist) {
				c.Dangling++
			} else if _, ok := d.readEntry(k, l); ok {
				c.Entries++
			} else {
				c.Bad++
			}
		}
	}
	d.readers.closeAll()
	return c, nil
}

func (r *packReaders) closeAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, f := range r.open {
		f.Close()
		delete(r.open, id)
	}
}
