package store

// Outlines: what a map (package search) keeps of a whole file beside its
// tree, under the tree's content key: its definitions and the names it uses,
// encoded by search (the store holds them as opaque bytes). Like the kind
// sets (kinds.go) they stay in memory when the tree is evicted, with a
// budget of their own, and are appended to a sharded index in the disk tier
// (sideindex.go), so that a map in a new process reads neither the tree nor
// the source's parse: a file's outline is found by the key its unchanged
// content has. A changed file has another key, so it is outlined again.

// defaultOutlineBudget is the memory the store keeps outlines in: the Go
// standard library's 7,800 files take about 40 MiB.
const defaultOutlineBudget = 128 << 20

// outlineEntryBytes estimates what one outline costs beyond its bytes: its
// key and string header in the map, and its place in the eviction queue.
const outlineEntryBytes = 112

// outlineIndexCap bounds the disk tier's index of outlines, all its shards
// together (1 MiB a shard; an outline over half of that is kept in memory
// only). A variable for tests.
var outlineIndexCap int64 = 256 << 20

// outlineSpec is the outlines' side index: outlines/XX.idx in the tier, each
// record's length four bytes.
var outlineSpec = sideSpec{
	slot: 1, dir: "outlines",
	magic: [4]byte{'t', 'o', 'l', 1}, lenBytes: 4,
	entryBytes: outlineEntryBytes, indexCap: &outlineIndexCap,
}

// sideSpecs are the side indexes, by slot.
var sideSpecs = [sideIndexes]*sideSpec{&kindSpec, &outlineSpec}

// Outline returns the outline noted for the whole file whose key is k, from
// memory or the disk tier's index; the caller must not change it.
func (c *Cache) Outline(k Key) (string, bool) {
	return c.outlines.lookup(c.Disk(), k)
}

// NoteOutline keeps outline under k, the key of a whole file's tree, in
// memory and in the disk tier's index, unless the store has it already.
func (c *Cache) NoteOutline(k Key, outline string) {
	c.outlines.note(c.Disk(), k, outline)
}
