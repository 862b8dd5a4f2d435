package matcher

import (
	"container/list"
	"hash/maphash"
	"sync"

	"github.com/tetherhq/tether/engine"
)

// DefaultCacheBudget is the memory a Cache may hold when none is given.
const DefaultCacheBudget = 1 << 30

// nodeCost is the estimated memory of one tree node in bytes.
const nodeCost = 48

// Cache keeps parsed trees within one run so a second query over the same
// files does not reparse them. Entries are keyed by path, language, size,
// modification time and a hash of the content, and evicted least recently used
// first when the memory budget is exceeded. It is safe for concurrent use.
type Cache struct {
	mu      sync.Mutex
	budget  int64
	used    int64
	seed    maphash.Seed
	entries map[string]*list.Element
	lru     list.List
	hits    int64
	misses  int64
}

type cacheKey struct {
	lang  string
	size  int64
	mtime int64
	hash  uint64
}

type cacheEntry struct {
	path string
	key  cacheKey
	tree *engine.Tree
	cost int64
}

// NewCache returns a tree cache that holds at most budget bytes (estimated);
// budget <= 0 means DefaultCacheBudget.
func NewCache(budget int64) *Cache {
	if budget <= 0 {
		budget = DefaultCacheBudget
	}
	return &Cache{budget: budget, seed: maphash.MakeSeed(), entries: map[string]*list.Element{}}
}

func (c *Cache) key(lang string, size, mtime int64, src []byte) cacheKey {
	return cacheKey{lang: lang, size: size, mtime: mtime, hash: maphash.Bytes(c.seed, src)}
}

func (c *Cache) get(path string, k cacheKey) *engine.Tree {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[path]
	if !ok || el.Value.(*cacheEntry).key != k {
		c.misses++
		return nil
	}
	c.hits++
	c.lru.MoveToFront(el)
	return el.Value.(*cacheEntry).tree
}

func (c *Cache) put(path string, k cacheKey, t *engine.Tree) {
	cost := int64(len(t.Source())) + int64(t.Len())*nodeCost
	c.mu.Lock()
	defer c.mu.Unlock()
	if cost > c.budget {
		return
	}
	if el, ok := c.entries[path]; ok {
		c.used -= el.Value.(*cacheEntry).cost
		c.lru.Remove(el)
		delete(c.entries, path)
	}
	for c.used+cost > c.budget && c.lru.Len() > 0 {
		old := c.lru.Back()
		e := old.Value.(*cacheEntry)
		c.used -= e.cost
		c.lru.Remove(old)
		delete(c.entries, e.path)
	}
	c.entries[path] = c.lru.PushFront(&cacheEntry{path: path, key: k, tree: t, cost: cost})
	c.used += cost
}

// CacheStats describes a cache's contents and use.
type CacheStats struct {
	Entries int   // trees held
	Bytes   int64 // estimated memory held
	Hits    int64 // lookups served from the cache
	Misses  int64 // lookups that had to parse
}

// Stats returns the cache's current statistics.
func (c *Cache) Stats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return CacheStats{Entries: len(c.entries), Bytes: c.used, Hits: c.hits, Misses: c.misses}
}
