package store

import "bytes"
import "encoding/binary"
import "encoding/hex"
import "hash/crc32"
import "io"
import "os"
import "path/filepath"
import "slices"
import "sync"

import "github.com/tetherhq/tether/internal/fsutil"

// Side indexes: what the store keeps of a whole file beside its tree, under
// the tree's content key, that outlives the tree: the file's kind set
// (kinds.go) and its outline (outline.go). Each is a map in memory with its
// own budget, evicting the oldest first, and an index in the disk tier split
// in sideShards files by the key's first byte (as the trees are stored), each
// capped, of CRC'd records appended by any process, so that a new process
// has them before it reads any tree. A lookup reads the shard of its key
// only, at most twice the shard's cap whatever the number of records.

// sideSpec says what one side index is.
type sideSpec struct {
	// slot is the index's place in DiskCache.pending
	slot int
	// dir is the directory of its shards in the disk tier; legacy, when
	// set, an earlier version's file in the tier, removed when read
	dir, legacy string
	// magic starts every record; its last byte is the layout's version
	magic [4]byte
	// lenBytes is the width of a record's length: 2 or 4
	lenBytes int
	// entryBytes estimates what an entry costs in memory beyond its value
	entryBytes int64
	// indexCap bounds the disk index, all shards together (a variable for
	// tests)
	indexCap *int64
}

// sideIndexes counts the side indexes (the specs' slots).
const sideIndexes = 2

// The index is split in sideShards files by the key's first byte.
const sideShards = 256

func (sp *sideSpec) shardCap() int64 { return *sp.indexCap / sideShards }

func (sp *sideSpec) head() int { return len(sp.magic) + sp.lenBytes + len(Key{}) }

func (sp *sideSpec) recordLen(v string) int { return sp.head() + len(v) + 4 }

// maxValue is the largest value a record holds.
func (sp *sideSpec) maxValue() int { return 1<<(8*sp.lenBytes) - 1 }

// sideRecord is one record of an index: a value under its key. set is the
// value (a kind set, or an outline).
type sideRecord struct {
	key Key
	set string
}

// sideShard is what the store knows of one shard of the disk tier's index.
type sideShard struct {
	read  bool  // its file was read into the store
	bytes int64 // its size, as read plus appended since
}

// sideIndex is the memory tier of one side index: a map with a budget,
// evicting the oldest first, and what it read of the disk tier's shards.
type sideIndex struct {
	spec   *sideSpec
	mu     sync.Mutex
	budget int64
	used   int64
	sets   map[Key]string
	order  []Key // insertion order; order[head:] are live or evicted keys
	head   int
	// loaded is the disk tier whose index shards are tracked in shards
	loaded *DiskCache
	shards [sideShards]sideShard
	// readBytes and readRecords count what was read of the index's shards
	// and the records that checked out in them
	readBytes, readRecords int64
}

func newSideIndex(spec *sideSpec, budget int64) sideIndex {
	return sideIndex{spec: spec, budget: budget, sets: map[Key]string{}}
}

// add keeps v under k and reports whether it was new. The caller holds mu.
func (ix *sideIndex) add(k Key, v string) bool {
	if _, ok := ix.sets[k]; ok {
		return false
	}
	cost := ix.spec.entryBytes + int64(len(v))
	if cost > ix.budget {
		return false
	}
	for ix.used+cost > ix.budget && ix.head < len(ix.order) {
		old := ix.order[ix.head]
		ix.head++
		if s, ok := ix.sets[old]; ok {
			ix.used -= ix.spec.entryBytes + int64(len(s))
			delete(ix.sets, old)
		}
	}
	if ix.head > len(ix.order)/2 && ix.head > 1024 {
		ix.order = append(ix.order[:0], ix.order[ix.head:]...)
		ix.head = 0
	}
	ix.sets[k] = v
	ix.order = append(ix.order, k)
	ix.used += cost
	return true
}

// clear forgets every value held in memory (not the disk tier's index).
func (ix *sideIndex) clear() {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.sets = map[Key]string{}
	ix.order, ix.head, ix.used = nil, 0, 0
}

// syncShard reads the disk tier's index shard of the key k the first time
// the store needs it with that tier: a lookup reads one shard, never the
// whole index. The caller holds mu.
func (ix *sideIndex) syncShard(d *DiskCache, k Key) {
	if d == nil {
		return
	}
	sp := ix.spec
	if ix.loaded != d {
		ix.loaded = d
		ix.shards = [sideShards]sideShard{}
		if sp.legacy != "" {
			os.Remove(filepath.Join(d.dir, sp.legacy))
		}
	}
	sh := k[0]
	s := &ix.shards[sh]
	if s.read {
		return
	}
	s.read = true
	b, size := readSideShard(d.sideShardPath(sp, sh), sp.shardCap())
	s.bytes = size
	// what was read of the file; the records this tier still holds for its
	// writer are in memory, not read
	ix.readBytes += int64(len(b))
	b = append(b, d.pendingRecords(sp, sh)...)
	n := 0
	forEachSideRecord(sp, b, func(k Key, v string) {
		if k[0] == sh { // one of another shard's is foreign here
			ix.add(k, v)
			n++
		}
	})
	ix.readRecords += int64(n)
	if s.bytes > sp.shardCap() || n == 0 && len(b) > 0 {
		s.bytes = d.rewriteSideShard(sp, sh, ix.snapshot(sh))
	}
}

// snapshot returns the newest values of shard sh whose records fit in half
// the shard's cap, oldest first. The caller holds mu.
func (ix *sideIndex) snapshot(sh byte) []sideRecord {
	var out []sideRecord
	room := ix.spec.shardCap() / 2
	for i := len(ix.order) - 1; i >= ix.head; i-- {
		if ix.order[i][0] != sh {
			continue
		}
		s, ok := ix.sets[ix.order[i]]
		if !ok {
			continue
		}
		if room -= int64(ix.spec.recordLen(s)); room < 0 {
			break
		}
		out = append(out, sideRecord{ix.order[i], s})
	}
	slices.Reverse(out)
	return out
}

// lookup returns the value under k, from memory or the disk tier's shard.
func (ix *sideIndex) lookup(d *DiskCache, k Key) (string, bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.syncShard(d, k)
	s, ok := ix.sets[k]
	return s, ok
}

// note keeps v under k in memory and appends it to its shard of the disk
// tier's index, which is rewritten with the store's newest values of that
// shard when it grows past the shard's cap. A value too large for a record
// is kept in memory only.
func (ix *sideIndex) note(d *DiskCache, k Key, v string) {
	sp := ix.spec
	sh := k[0]
	if len(v) > sp.maxValue() || int64(sp.recordLen(v)) > sp.shardCap()/2 {
		d = nil
	}
	ix.mu.Lock()
	ix.syncShard(d, k)
	added := ix.add(k, v)
	var compact []sideRecord
	if added && d != nil {
		s := &ix.shards[sh]
		s.bytes += int64(sp.recordLen(v))
		if s.bytes > sp.shardCap() {
			compact = ix.snapshot(sh)
			s.bytes = 0
		}
	}
	ix.mu.Unlock()
	switch {
	case !added || d == nil:
	case compact != nil:
		n := d.rewriteSideShard(sp, sh, compact)
		ix.mu.Lock()
		ix.shards[sh].bytes += n
		ix.mu.Unlock()
	default:
		d.appendSide(sp, k, v)
	}
}

// A record: the magic, the value's length (lenBytes, little-endian), the
// key, the value, and the CRC-32 (Castagnoli) of length, key and value. A
// record that does not check out is skipped up to the next magic: several
// processes append to one index, and a torn or foreign write costs the
// values in it, never a wrong one.

var sideCRC = crc32.MakeTable(crc32.Castagnoli)

func appendSideRecord(sp *sideSpec, b []byte, k Key, v string) []byte {
	start := len(b)
	b = append(b, sp.magic[:]...)
	if sp.lenBytes == 2 {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(v)))
	} else {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(v)))
	}
	b = append(b, k[:]...)
	b = append(b, v...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b[start+len(sp.magic):], sideCRC))
}

// forEachSideRecord calls fn for every record of b that checks out, in order.
func forEachSideRecord(sp *sideSpec, b []byte, fn func(Key, string)) {
	head := sp.head()
	for len(b) > 0 {
		i := bytes.Index(b, sp.magic[:])
		if i < 0 {
			return
		}
		b = b[i:]
		if len(b) < head+4 {
			return
		}
		var n int
		if sp.lenBytes == 2 {
			n = int(binary.LittleEndian.Uint16(b[len(sp.magic):]))
		} else {
			n = int(binary.LittleEndian.Uint32(b[len(sp.magic):]))
		}
		end := head + n
		if n < 0 || end < head || len(b) < end+4 || crc32.Checksum(b[len(sp.magic):end], sideCRC) != binary.LittleEndian.Uint32(b[end:]) {
			b = b[1:]
			continue
		}
		var k Key
		copy(k[:], b[len(sp.magic)+sp.lenBytes:])
		fn(k, string(b[head:end]))
		b = b[end+4:]
	}
}

// sideShardPath is the file of shard sh of an index: <dir>/XX.idx in the
// tier, XX the shard in hex.
func (d *DiskCache) sideShardPath(sp *sideSpec, sh byte) string {
	return filepath.Join(d.dir, sp.dir, hex.EncodeToString([]byte{sh})+".idx")
}

// readSideShard reads a shard's file, at most the last twice its cap (the
// newest records; a larger one is then rewritten), and returns its size.
func readSideShard(path string, shardCap int64) ([]byte, int64) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0
	}
	size := fi.Size()
	from := max(0, size-2*shardCap)
	b, _ := io.ReadAll(io.NewSectionReader(f, from, size-from))
	return b, size
}

// rewriteSideShard replaces shard sh of an index with recs (atomically: a
// reader sees the old file or the new) and returns its size; records another
// process appends to the old one meanwhile are lost (recomputed, later).
func (d *DiskCache) rewriteSideShard(sp *sideSpec, sh byte, recs []sideRecord) int64 {
	var b []byte
	for _, r := range recs {
		b = appendSideRecord(sp, b, r.key, r.set)
	}
	path := d.sideShardPath(sp, sh)
	// the records still queued of the values it holds, and older ones, would
	// follow the rewrite and grow it past what was counted
	d.kfmu.Lock()
	defer d.kfmu.Unlock()
	d.dropPending(sp, sh, recs)
	if os.MkdirAll(filepath.Dir(path), 0o700) != nil || fsutil.WriteCacheFile(path, b, 0o600) != nil {
		return 0
	}
	return int64(len(b))
}
