package store

import "container/list"
import "crypto/sha256"
import "sync"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/grammars"

// DefaultCacheBudget is the memory a Cache may hold when none is given. The
// process's shared cache (SharedCache) has this budget: about the trees of
// the Go standard library's source.
const DefaultCacheBudget = 768 << 20

// Cache is a content-addressed store of parsed trees: a tree is keyed by its
// language, the grammar module's hash and the sha256 of the parsed bytes, so
// it is path-independent (the same file in two checkouts, or in two runs, is
// parsed once) and can never be served for changed content. Entries are
// evicted least recently used first when the memory budget (Tree.MemoryBytes)
// would be exceeded. It is safe for concurrent use.
type Cache struct {
	mu      sync.Mutex
	budget  int64
	used    int64
	entries map[Key]*list.Element
	lru     list.List
	hits    int64
	misses  int64
	disk    *DiskCache
	// kinds are the whole files' kind sets (kinds.go), kept when trees go
	kinds kindStore
	// outlines are the whole files' outlines (outline.go), kept likewise
	outlines sideIndex
	// memo remembers which content each file held when it was last read
	// (statmemo.go), for every searcher of the store
	memo statMemo
}

// Key is the sha256 of a tree's language, grammar module and source.
type Key [sha256.Size]byte

type cacheEntry struct {
	key  Key
	tree *engine.Tree
	cost int64
}

// NewCache returns a tree cache that holds at most budget bytes (estimated);
// budget <= 0 means DefaultCacheBudget.
func NewCache(budget int64) *Cache {
	if budget <= 0 {
		budget = DefaultCacheBudget
	}
	return &Cache{budget: budget, entries: map[Key]*list.Element{}, kinds: newKindStore(0), outlines: newSideIndex(&outlineSpec, defaultOutlineBudget)}
}

var shared = sync.OnceValue(func() *Cache { return NewCache(0) })

// SharedCache returns the process's tree cache, which every search.Searcher
// without a cache of its own uses: one budget for all runs and patterns.
func SharedCache() *Cache { return shared() }

// SetBudget changes the memory budget (<= 0: DefaultCacheBudget), evicting
// what no longer fits.
func (c *Cache) SetBudget(budget int64) {
	if budget <= 0 {
		budget = DefaultCacheBudget
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.budget = budget
	c.evict(0)
}

// SetDisk gives the cache a disk tier (nil: none): trees it does not hold
// are looked for there before parsing, and parsed trees are written there.
func (c *Cache) SetDisk(d *DiskCache) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.disk = d
}

// Disk returns the cache's disk tier, nil when it has none.
func (c *Cache) Disk() *DiskCache {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.disk
}

// KeyOf returns the key of src parsed as lang in partition ("" for none,
// the key trees had before partitions). It holds the language's id and
// the sha256 of its module, so a rebuilt grammar never reads an old tree.
func KeyOf(partition string, lang *grammars.Language, src []byte) Key {
	h := sha256.New()
	mod := ""
	if lang.Module != nil {
		mod = lang.Module.SHA256
	}
	if partition != "" {
		h.Write([]byte("partition\x00" + partition + "\x00"))
	}
	h.Write([]byte(lang.ID))
	h.Write([]byte{0})
	h.Write([]byte(mod))
	h.Write([]byte{0})
	h.Write(src)
	var k Key
	h.Sum(k[:0])
	return k
}

// Get returns k's tree when the cache holds it in memory, counting a hit,
// or nil, counting a miss.
func (c *Cache) Get(k Key) *engine.Tree {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[k]
	if !ok {
		c.misses++
		return nil
	}
	c.hits++
	c.lru.MoveToFront(el)
	return el.Value.(*cacheEntry).tree
}

// Held returns k's tree when the cache holds it in memory (a hit), without
// counting a miss when it does not.
func (c *Cache) Held(k Key) *engine.Tree {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[k]
	if !ok {
		return nil
	}
	c.hits++
	c.lru.MoveToFront(el)
	return el.Value.(*cacheEntry).tree
}

// InMemory reports whether the cache holds k's tree in memory, without
// counting or touching the entry's recency.
func (c *Cache) InMemory(k Key) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.entries[k]
	return ok
}

// Holds reports whether the cache or its disk tier has k's tree, without
// counting or touching the entry's recency.
func (c *Cache) Holds(k Key) bool {
	c.mu.Lock()
	_, ok := c.entries[k]
	disk := c.disk
	c.mu.Unlock()
	return ok || disk != nil && disk.has(k)
}

func (c *Cache) put(k Key, t *engine.Tree) {
	cost := t.MemoryBytes()
	c.mu.Lock()
	defer c.mu.Unlock()
	if cost > c.budget {
		return
	}
	if el, ok := c.entries[k]; ok {
		c.lru.MoveToFront(el)
		return
	}
	c.evict(cost)
	c.entries[k] = c.lru.PushFront(&cacheEntry{key: k, tree: t, cost: cost})
	c.used += cost
}

// evict drops least recently used entries until room more bytes fit.
func (c *Cache) evict(room int64) {
	for c.used+room > c.budget && c.lru.Len() > 0 {
		old := c.lru.Back()
		e := old.Value.(*cacheEntry)
		c.used -= e.cost
		c.lru.Remove(old)
		delete(c.entries, e.key)
	}
}

// Roomy reports whether the cache is below nine tenths of its budget: the
// warm-up stops there, and a searcher that parses whole files while there
// is room parses in chunks from there on, so that neither evicts what
// queries put in.
func (c *Cache) Roomy() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used < c.budget/10*9
}

// CacheStats describes a cache's contents and use.
type CacheStats struct {
	Entries int   // trees held
	Bytes   int64 // estimated memory held
	Budget  int64 // the most it holds
	Hits    int64 // lookups served from the cache
	Misses  int64 // lookups that had to parse
	// KindSets are the whole files whose kind sets are held (kinds.go), in
	// KindBytes (estimated) of a budget of defaultKindBudget
	KindSets  int
	KindBytes int64
	// Outlines are the whole files whose outlines are held (outline.go),
	// in OutlineBytes (estimated) of a budget of defaultOutlineBudget
	Outlines     int
	OutlineBytes int64
}

// Stats returns the cache's current statistics.
func (c *Cache) Stats() CacheStats {
	c.kinds.mu.Lock()
	sets, setBytes := len(c.kinds.sets), c.kinds.used
	c.kinds.mu.Unlock()
	c.outlines.mu.Lock()
	outlines, outlineBytes := len(c.outlines.sets), c.outlines.used
	c.outlines.mu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	return CacheStats{Entries: len(c.entries), Bytes: c.used, Budget: c.budget, Hits: c.hits, Misses: c.misses, KindSets: sets, KindBytes: setBytes, Outlines: outlines, OutlineBytes: outlineBytes}
}
