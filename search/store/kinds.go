package store

import "bytes"
import "context"
import "sync"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/matcher"

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
type kindSet = string

// kindHas reports whether set holds id.
func kindHas(s kindSet, id uint16) bool {
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

// kindStore is the memory tier of the sets (sideindex.go).
type kindStore = sideIndex

// kindRecord is one record of the sets' index.
type kindRecord = sideRecord

// kindSpec is the kind sets' side index: kinds/XX.idx in the tier, each
// record's length two bytes (a set is a few dozen).
var kindSpec = sideSpec{
	slot: 0, dir: "kinds", legacy: "kinds.idx",
	magic: [4]byte{'t', 'k', 's', 1}, lenBytes: 2,
	entryBytes: kindEntryBytes, indexCap: &kindIndexCap,
}

func newKindStore(budget int64) kindStore {
	if budget <= 0 {
		budget = defaultKindBudget
	}
	return newSideIndex(&kindSpec, budget)
}

// kindsOf returns the stored kind set of the whole file whose key is k.
func (c *Cache) kindsOf(k Key) (kindSet, bool) {
	return c.kinds.lookup(c.Disk(), k)
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
// the disk tier's index.
func (c *Cache) noteKindSet(k Key, set kindSet) { c.kinds.note(c.Disk(), k, set) }

// kindShards is the number of the index's shards.
const kindShards = sideShards

func kindShardOf(k Key) byte { return k[0] }

// kindIndexCap bounds the disk tier's index of kind sets, all its shards
// together: each shard holds at most 1/kindShards of it, and past that it is
// rewritten with the newest sets of the shard the store holds, in half of it
// (so that a store holding more than the cap does not rewrite it at every
// append). A variable for tests.
var kindIndexCap int64 = 16 << 20

func kindShardCap() int64 { return kindSpec.shardCap() }

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
		if kindHas(set, id) {
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
