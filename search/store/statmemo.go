package store

import "io/fs"
import "sync"
import "time"

// Hash only on change: the process remembers, per file path and language,
// what a stat said of the file when it was read (fileStamp: device, inode,
// size, modification and status-change times) and the key of its content.
// A later search that finds the same stamp, and the file's tree in the store,
// takes the content from the tree: the file is neither read nor hashed.
//
// A changed file is never served stale. Any write changes the status-change
// time (ctime), which no one can set back, and a file replaced by a rename is
// another inode; a rewrite of the same size within one tick of the file
// system's clock could leave both times as they were, so a stamp is trusted
// only when both times are older than racyWindow at the moment of the stat
// (as git's index does with racily clean files). Where the stat has no ctime
// or inode (other systems than Linux, macOS, FreeBSD and NetBSD), nothing is remembered and every file is read.

// racyWindow is how old a file's times must be when it is read for its
// stamp to be trusted later: more than any file system's timestamp
// granularity (FAT's 2 s). A variable for tests.
var racyWindow = 3 * time.Second

// maxMemo bounds the remembered stamps (about 200 bytes each); past it the
// memo starts over.
const maxMemo = 1 << 20

// fileStamp is what a stat says of a file.
type fileStamp struct {
	dev, ino     uint64
	size         int64
	mtime, ctime int64 // nanoseconds since the epoch
}

type memoKey struct{ path, lang string }

type memoEntry struct {
	stamp fileStamp
	key   Key
}

// statMemo maps a file's path and language to its stamp and content key.
type statMemo struct {
	mu sync.Mutex
	m  map[memoKey]memoEntry
}

// remember records that the file at path, stat'ed as fi at time at (taken
// before the stat), holds the content whose key is key; a file whose times
// are too recent to be told apart from a rewrite is forgotten instead.
func (sm *statMemo) remember(path, lang string, fi fs.FileInfo, at time.Time, key Key) {
	st, ok := stampOf(fi)
	k := memoKey{path, lang}
	settled := ok && at.UnixNano()-max(st.mtime, st.ctime) > int64(racyWindow)
	sm.mu.Lock()
	defer sm.mu.Unlock()
	if !settled {
		delete(sm.m, k)
		return
	}
	if sm.m == nil || len(sm.m) >= maxMemo {
		sm.m = map[memoKey]memoEntry{}
	}
	sm.m[k] = memoEntry{stamp: st, key: key}
}

// lookup returns the content key remembered for path in lang when a fresh
// stat of it (stat, called only when there is one) says the file is as it
// was.
func (sm *statMemo) lookup(path, lang string, stat func() (fs.FileInfo, error)) (Key, bool) {
	sm.mu.Lock()
	e, found := sm.m[memoKey{path, lang}]
	sm.mu.Unlock()
	if !found {
		return Key{}, false
	}
	fi, err := stat()
	if err != nil || !fi.Mode().IsRegular() {
		return Key{}, false
	}
	if st, ok := stampOf(fi); !ok || e.stamp != st {
		return Key{}, false
	}
	return e.key, true
}

// Remember records that the file at path, read as lang and stat'ed as fi at
// time at (taken before the stat), holds the content whose key is k, for
// every searcher of the store (see statMemo). lang is the language's
// grammars.Language.Key, which tells two custom modules of one name apart.
func (c *Cache) Remember(path, lang string, fi fs.FileInfo, at time.Time, k Key) {
	c.memo.remember(path, lang, fi, at, k)
}

// Unchanged returns the content key remembered for path in lang when a
// fresh stat of it (stat, called only when there is one) says the file is
// as it was when last read.
func (c *Cache) Unchanged(path, lang string, stat func() (fs.FileInfo, error)) (Key, bool) {
	return c.memo.lookup(path, lang, stat)
}
