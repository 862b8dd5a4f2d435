package search

// Hooks for the external tests of kinds.go.

// ClearKindSets forgets every kind set c holds in memory (not its disk
// tier's index), as a store that never saw the files has none.
func ClearKindSets(c *Cache) {
	c.kinds.mu.Lock()
	defer c.kinds.mu.Unlock()
	c.kinds.sets = map[treeKey]kindSet{}
	c.kinds.order, c.kinds.head, c.kinds.used = nil, 0, 0
}

// KindIndexPath is the disk tier's index of kind sets.
func KindIndexPath(d *DiskCache) string { return d.kindIndexPath() }

// AppendKindSet writes a record for the key (any 32 bytes) to d's index.
func AppendKindSet(d *DiskCache, key [32]byte, set string) { d.appendKinds(treeKey(key), kindSet(set)) }

// KindIndexRecords lists the records of the index file's bytes that check out.
func KindIndexRecords(b []byte) map[[32]byte]string {
	out := map[[32]byte]string{}
	forEachKindRecord(b, func(k treeKey, s kindSet) { out[k] = string(s) })
	return out
}

// SetKindIndexCap sets the index's cap until the returned func restores it.
func SetKindIndexCap(n int64) (restore func()) {
	old := kindIndexCap
	kindIndexCap = n
	return func() { kindIndexCap = old }
}
