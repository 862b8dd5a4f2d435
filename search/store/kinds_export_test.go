package store

import "path/filepath"

// Hooks for the external tests of kinds.go.

// ClearKindSets forgets every kind set c holds in memory (not its disk
// tier's index), as a store that never saw the files has none.
func ClearKindSets(c *Cache) {
	c.kinds.clear()
}

// KindIndexDir is the directory of the disk tier's index shards.
func KindIndexDir(d *DiskCache) string { return filepath.Dir(d.kindShardPath(0)) }

// KindShardPath is the file of the index shard that holds key's set.
func KindShardPath(d *DiskCache, key [32]byte) string {
	return d.kindShardPath(kindShardOf(Key(key)))
}

// KindShardCap is what one shard of the index holds before it is rewritten.
func KindShardCap() int64 { return kindShardCap() }

// AppendKindSet writes a record for the key (any 32 bytes) to d's index.
func AppendKindSet(d *DiskCache, key [32]byte, set string) { d.appendKinds(Key(key), kindSet(set)) }

// NoteKindSet keeps set under key in c and its disk tier's index, as
// parsing a whole file whose kinds are set does.
func NoteKindSet(c *Cache, key [32]byte, set string) { c.noteKindSet(Key(key), kindSet(set)) }

// KindSetOf is c's set of key, looked up as a search does.
func KindSetOf(c *Cache, key [32]byte) (string, bool) {
	s, ok := c.kindsOf(Key(key))
	return string(s), ok
}

// KindIndexRead is what c has read of its disk tier's index: bytes, and
// records that checked out.
func KindIndexRead(c *Cache) (bytes, records int64) {
	c.kinds.mu.Lock()
	defer c.kinds.mu.Unlock()
	return c.kinds.readBytes, c.kinds.readRecords
}

// KindRecord is the index's record of set under key.
func KindRecord(key [32]byte, set string) []byte {
	return appendKindRecord(nil, Key(key), kindSet(set))
}

// KindIndexRecords lists the records of the index file's bytes that check out.
func KindIndexRecords(b []byte) map[[32]byte]string {
	out := map[[32]byte]string{}
	forEachKindRecord(b, func(k Key, s kindSet) { out[k] = string(s) })
	return out
}

// SetKindIndexCap sets the index's cap (all shards together) until the
// returned func restores it.
func SetKindIndexCap(n int64) (restore func()) {
	old := kindIndexCap
	kindIndexCap = n
	return func() { kindIndexCap = old }
}

func kindRecordLen(set kindSet) int { return kindSpec.recordLen(set) }

func appendKindRecord(b []byte, k Key, set kindSet) []byte {
	return appendSideRecord(&kindSpec, b, k, set)
}

func forEachKindRecord(b []byte, fn func(Key, kindSet)) { forEachSideRecord(&kindSpec, b, fn) }

func (d *DiskCache) kindShardPath(sh byte) string { return d.sideShardPath(&kindSpec, sh) }

func (d *DiskCache) rewriteKindShard(sh byte, recs []kindRecord) int64 {
	return d.rewriteSideShard(&kindSpec, sh, recs)
}

func (d *DiskCache) appendKinds(k Key, set kindSet) { d.appendSide(&kindSpec, k, set) }
