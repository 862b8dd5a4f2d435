package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/tetherhq/tether/engine"
	"github.com/tetherhq/tether/grammars"
	"github.com/tetherhq/tether/internal/fsutil"
	"github.com/tetherhq/tether/matcher"
)

// Kind sets: the prefilter from the store. When a whole file's tree is in the
// store (parsed, or read from the disk tier), the store also keeps the set of
// its node kinds (a bitset over the grammar's symbol ids, a few dozen bytes),
// under the same content key. Those sets stay in memory when the tree is
// evicted (they have their own, much smaller budget) and are appended to an
// index in the disk tier, so a new process has them before it reads any
// tree. A pattern yields the kinds a match must contain
// (matcher.Pattern.NeededKinds, NewKindFilter): a file whose set lacks them, in every
// reading of the pattern, is skipped without
// loading or parsing its tree. A file with no stored set is searched as
// before; a changed file has another key, so it is never judged by the set of
// what it was.

// defaultKindBudget is the memory the store keeps kind sets in: about
// kindEntryBytes (~140 bytes) a file, so 16 MiB keeps the sets of about
// 120,000 files (the Go standard library's 7,700 take about 1 MiB).
const defaultKindBudget = 16 << 20

// kindEntryBytes estimates what one set costs beyond its bitset: its key and
// string header in the map with the map's overhead, and its place in the
// eviction queue.
const kindEntryBytes = 112

// kindSet is a bitset over a grammar's symbol ids, as bytes (id i is bit
// i&7 of byte i>>3), without trailing zero bytes.
type kindSet string

func (s kindSet) has(id uint16) bool {
	i := int(id >> 3)
	return i < len(s) && s[i]&(1<<(id&7)) != 0
}

// kindSetOf returns the set of the kinds of t's nodes. ERROR nodes have no id
// in the table and are not in it (no pattern node needs one: NewKindFilter
// drops a kind the table does not name).
func kindSetOf(t *engine.Tree) kindSet {
	b := make([]byte, (len(t.KindNames())+7)/8)
	t.Root().Walk(func(n engine.Node) bool {
		id := n.KindID()
		if i := int(id >> 3); i < len(b) {
			b[i] |= 1 << (id & 7)
		}
		return true
	})
	return kindSet(bytes.TrimRight(b, "\x00"))
}

// kindStore is the memory tier of the sets: a map with a budget, evicting the
// oldest first.
type kindStore struct {
	mu     sync.Mutex
	budget int64
	used   int64
	sets   map[Key]kindSet
	order  []Key // insertion order; order[head:] are live or evicted keys
	head   int
	// loaded is the disk tier whose index shards are tracked in shards
	loaded *DiskCache
	shards [kindShards]kindShard
	// readBytes and readRecords count what was read of the index's shards
	// and the records that checked out in them
	readBytes, readRecords int64
}

// kindShard is what the store knows of one shard of the disk tier's index.
type kindShard struct {
	read  bool  // its file was read into the store
	bytes int64 // its size, as read plus appended since
}

func newKindStore(budget int64) kindStore {
	if budget <= 0 {
		budget = defaultKindBudget
	}
	return kindStore{budget: budget, sets: map[Key]kindSet{}}
}

// add keeps set under k and reports whether it was new. The caller holds mu.
func (ks *kindStore) add(k Key, set kindSet) bool {
	if _, ok := ks.sets[k]; ok {
		return false
	}
	cost := kindEntryBytes + int64(len(set))
	if cost > ks.budget {
		return false
	}
	for ks.used+cost > ks.budget && ks.head < len(ks.order) {
		old := ks.order[ks.head]
		ks.head++
		if s, ok := ks.sets[old]; ok {
			ks.used -= kindEntryBytes + int64(len(s))
			delete(ks.sets, old)
		}
	}
	if ks.head > len(ks.order)/2 && ks.head > 1024 {
		ks.order = append(ks.order[:0], ks.order[ks.head:]...)
		ks.head = 0
	}
	ks.sets[k] = set
	ks.order = append(ks.order, k)
	ks.used += cost
	return true
}

// syncShard reads the disk tier's index shard of the key k the first time
// the store needs it with that tier: a lookup reads one shard, never the
// whole index. The caller holds mu.
func (ks *kindStore) syncShard(d *DiskCache, k Key) {
	if d == nil {
		return
	}
	if ks.loaded != d {
		ks.loaded = d
		ks.shards = [kindShards]kindShard{}
		// an earlier version's single index: its sets are noted again as
		// files are parsed
		os.Remove(filepath.Join(d.dir, "kinds.idx"))
	}
	sh := kindShardOf(k)
	s := &ks.shards[sh]
	if s.read {
		return
	}
	s.read = true
	b, size := readKindShard(d.kindShardPath(sh))
	s.bytes = size
	// what was read of the file; the records this tier still holds for its
	// writer are in memory, not read
	ks.readBytes += int64(len(b))
	b = append(b, d.pendingKindRecords(sh)...)
	n := 0
	forEachKindRecord(b, func(k Key, set kindSet) {
		if kindShardOf(k) == sh { // one of another shard's is foreign here
			ks.add(k, set)
			n++
		}
	})
	ks.readRecords += int64(n)
	if s.bytes > kindShardCap() || n == 0 && len(b) > 0 {
		s.bytes = d.rewriteKindShard(sh, ks.snapshot(sh))
	}
}

// snapshot returns the newest sets of shard sh whose records fit in half
// the shard's cap, oldest first. The caller holds mu.
func (ks *kindStore) snapshot(sh byte) []kindRecord {
	var out []kindRecord
	room := kindShardCap() / 2
	for i := len(ks.order) - 1; i >= ks.head; i-- {
		if kindShardOf(ks.order[i]) != sh {
			continue
		}
		s, ok := ks.sets[ks.order[i]]
		if !ok {
			continue
		}
		if room -= int64(kindRecordLen(s)); room < 0 {
			break
		}
		out = append(out, kindRecord{ks.order[i], s})
	}
	slices.Reverse(out)
	return out
}

// kindsOf returns the stored kind set of the whole file whose key is k.
func (c *Cache) kindsOf(k Key) (kindSet, bool) {
	d := c.Disk()
	ks := &c.kinds
	ks.mu.Lock()
	defer ks.mu.Unlock()
	ks.syncShard(d, k)
	s, ok := ks.sets[k]
	return s, ok
}

// NoteKinds keeps the kind set of t, the tree of a whole file whose key is k,
// in memory and in the disk tier's index, unless the store has it already.
func (c *Cache) NoteKinds(k Key, t *engine.Tree) {
	if _, ok := c.kindsOf(k); ok {
		return
	}
	c.noteKindSet(k, kindSetOf(t))
}

// noteKindSet keeps set under k in memory and appends it to its shard of
// the disk tier's index, which is rewritten with the store's newest sets of
// that shard when it grows past the shard's cap.
func (c *Cache) noteKindSet(k Key, set kindSet) {
	d := c.Disk()
	ks := &c.kinds
	sh := kindShardOf(k)
	ks.mu.Lock()
	ks.syncShard(d, k)
	added := ks.add(k, set)
	var compact []kindRecord
	if added && d != nil {
		s := &ks.shards[sh]
		s.bytes += int64(kindRecordLen(set))
		if s.bytes > kindShardCap() {
			compact = ks.snapshot(sh)
			s.bytes = 0
		}
	}
	ks.mu.Unlock()
	switch {
	case !added || d == nil:
	case compact != nil:
		n := d.rewriteKindShard(sh, compact)
		ks.mu.Lock()
		ks.shards[sh].bytes += n
		ks.mu.Unlock()
	default:
		d.appendKinds(k, set)
	}
}

// The index is split in kindShards files by the key's first byte, as the
// trees are stored under their key's first byte: a lookup reads the shard
// of its key only, at most twice kindShardCap bytes whatever the number of
// sets in the tier.
const kindShards = 256

func kindShardOf(k Key) byte { return k[0] }

// kindIndexCap bounds the disk tier's index of kind sets, all its shards
// together: each shard holds at most 1/kindShards of it, and past that it is
// rewritten with the newest sets of the shard the store holds, in half of it
// (so that a store holding more than the cap does not rewrite it at every
// append). A variable for tests.
var kindIndexCap int64 = 16 << 20

func kindShardCap() int64 { return kindIndexCap / kindShards }

// kindRecordMagic starts every record of the index; its last byte is the
// layout's version.
var kindRecordMagic = [4]byte{'t', 'k', 's', 1}

// A record: the magic, the set's length (uint16), the key, the set, and the
// CRC-32 (Castagnoli) of length, key and set. A record that does not check
// out is skipped up to the next magic: several processes append to one
// index, and a torn or foreign write costs the sets in it, never a wrong one.
const kindRecordHead = len(kindRecordMagic) + 2 + len(Key{})

var kindCRC = crc32.MakeTable(crc32.Castagnoli)

type kindRecord struct {
	key Key
	set kindSet
}

func kindRecordLen(set kindSet) int { return kindRecordHead + len(set) + 4 }

func appendKindRecord(b []byte, k Key, set kindSet) []byte {
	start := len(b)
	b = append(b, kindRecordMagic[:]...)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(set)))
	b = append(b, k[:]...)
	b = append(b, set...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b[start+len(kindRecordMagic):], kindCRC))
}

// forEachKindRecord calls fn for every record of b that checks out, in order.
func forEachKindRecord(b []byte, fn func(Key, kindSet)) {
	for len(b) > 0 {
		i := bytes.Index(b, kindRecordMagic[:])
		if i < 0 {
			return
		}
		b = b[i:]
		if len(b) < kindRecordHead+4 {
			return
		}
		n := int(binary.LittleEndian.Uint16(b[len(kindRecordMagic):]))
		end := kindRecordHead + n
		if len(b) < end+4 || crc32.Checksum(b[len(kindRecordMagic):end], kindCRC) != binary.LittleEndian.Uint32(b[end:]) {
			b = b[1:]
			continue
		}
		var k Key
		copy(k[:], b[len(kindRecordMagic)+2:])
		fn(k, kindSet(b[kindRecordHead:end]))
		b = b[end+4:]
	}
}

// kindShardPath is the file of shard sh of the index: kinds/XX.idx in the
// tier, XX the shard in hex.
func (d *DiskCache) kindShardPath(sh byte) string {
	return filepath.Join(d.dir, "kinds", hex.EncodeToString([]byte{sh})+".idx")
}

// readKindShard reads a shard's file, at most the last twice its cap (the
// newest records; a larger one is then rewritten), and returns its size.
func readKindShard(path string) ([]byte, int64) {
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
	from := max(0, size-2*kindShardCap())
	b, _ := io.ReadAll(io.NewSectionReader(f, from, size-from))
	return b, size
}

// rewriteKindShard replaces shard sh of the index with recs (atomically: a
// reader sees the old file or the new) and returns its size; records another
// process appends to the old one meanwhile are lost (a parse each, later).
func (d *DiskCache) rewriteKindShard(sh byte, recs []kindRecord) int64 {
	var b []byte
	for _, r := range recs {
		b = appendKindRecord(b, r.key, r.set)
	}
	path := d.kindShardPath(sh)
	// the records still queued of the sets it holds, and older ones, would
	// follow the rewrite and grow it past what was counted
	d.kfmu.Lock()
	defer d.kfmu.Unlock()
	d.dropPendingKinds(sh, recs)
	if os.MkdirAll(filepath.Dir(path), 0o700) != nil || fsutil.WriteCacheFile(path, b, 0o600) != nil {
		return 0
	}
	return int64(len(b))
}

// KindFilter is what a pattern or rule needs of a file's kinds, as symbol
// ids: a file may hold a match when, for some reading, each of that
// reading's clauses has one of its ids in the file's set.
type KindFilter struct {
	readings [][][]uint16
}

// admits reports whether a file whose kinds are set may hold a match.
func (f *KindFilter) admits(set kindSet) bool {
	for _, r := range f.readings {
		ok := true
		for _, clause := range r {
			if !anyKind(set, clause) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func anyKind(set kindSet, ids []uint16) bool {
	for _, id := range ids {
		if set.has(id) {
			return true
		}
	}
	return false
}

// kindTables holds each language's kind names as name -> ids, read once per
// process (from a parse of no source) by grammar module.
var kindTables sync.Map // lang + "\x00" + module hash -> map[string][]uint16

func kindTable(ctx context.Context, p matcher.Parser, lang *grammars.Language) map[string][]uint16 {
	key := lang.ID + "\x00"
	if lang.Module != nil {
		key += lang.Module.SHA256
	}
	if v, ok := kindTables.Load(key); ok {
		return v.(map[string][]uint16)
	}
	t, err := p.Parse(ctx, lang, []byte{})
	if err != nil {
		return nil
	}
	table := map[string][]uint16{}
	for id, name := range t.KindNames() {
		table[name] = append(table[name], uint16(id))
	}
	kindTables.Store(key, table)
	return table
}

// NewKindFilter returns the filter of needs in lang (the shape of
// matcher.Pattern.NeededKinds: readings, each a list of clauses, each the
// kind names one of which a match holds), with the kind table p's grammar
// has, or nil when it cannot rule a file out (a reading that needs no
// kind, or no table).
func NewKindFilter(ctx context.Context, p matcher.Parser, needs [][][]string, lang *grammars.Language) *KindFilter {
	table := kindTable(ctx, p, lang)
	if table == nil {
		return nil
	}
	f := &KindFilter{}
	for _, clauses := range needs {
		var r [][]uint16
		for _, names := range clauses {
			var ids []uint16
			known := true
			for _, n := range names {
				if t, ok := table[n]; ok {
					ids = append(ids, t...)
				} else {
					known = false // a kind the table does not name (ERROR): not needed
				}
			}
			if known {
				r = append(r, ids)
			}
		}
		if len(r) == 0 {
			return nil
		}
		f.readings = append(f.readings, r)
	}
	if len(f.readings) == 0 {
		return nil
	}
	return f
}

// RuledOut reports whether the stored kind set of the whole file whose key
// is k shows that f's pattern cannot match in it (nil f rules nothing out).
func (c *Cache) RuledOut(f *KindFilter, k Key) bool {
	if f == nil {
		return false
	}
	set, ok := c.kindsOf(k)
	return ok && !f.admits(set)
}
