package store

import "errors"
import "io/fs"
import "os"
import "path/filepath"
import "sync"
import "time"

import "github.com/tetherhq/tether/engine"

// The tier's writes are made by one goroutine a process, off the search's
// path: storeTree queues an entry and returns, and the writer appends the
// queued entries to the process's pack a batch at a time. A tier that
// defers its writes (DeferWrites: a CLI search) lets them wait until
// Settle, or until deferStartBytes are queued; past maxQueuedBytes an entry
// is dropped (a later process parses that file again) rather than make the
// search wait for the disk.
const (
	deferStartBytes = 8 << 20
	maxQueuedBytes  = 32 << 20
	// batchBytes is about how much the writer appends in one write
	batchBytes = 1 << 20
	// maxPendingRecords is how many index and kind records the writer
	// holds before it appends them (it also does when it goes idle, unless
	// the tier defers its writes, and at Settle)
	maxPendingRecords = 4096
)

// queuedEntry is a tree waiting for the writer, or a whole entry (b).
type queuedEntry struct {
	key  Key
	tree *engine.Tree
	b    []byte
	n    int // the entry's length, header and body
}

// appendEntry appends e's entry (the header, then the body) to buf.
func (e *queuedEntry) appendEntry(buf []byte) []byte {
	if e.b != nil {
		return append(buf, e.b...)
	}
	start := len(buf)
	buf, _ = e.tree.AppendBinary(append(buf, make([]byte, entryHead)...))
	sealEntry(buf[start:], e.key)
	return buf
}

// writeQueue holds the entries waiting for the writer.
type writeQueue struct {
	mu        sync.Mutex
	deferring bool
	// settling: Settle wants everything written now; past dropAfter what
	// is left is dropped
	settling  bool
	dropAfter time.Time
	entries   []queuedEntry
	byKey     map[Key]*queuedEntry // queued or being written, readable until written
	bytes     int64
	running   bool
	idle      chan struct{} // closed when the running writer stops
	dropped   int64
}

// runnable reports whether the writer has work now. The caller holds mu.
func (q *writeQueue) runnable() bool {
	return len(q.entries) > 0 && (!q.deferring || q.settling || q.bytes > deferStartBytes)
}

// enqueue queues the entry e for the writer and starts it when it has work
// and is not running; it reports false when e is not queued (its key is,
// or the queue is full).
func (d *DiskCache) enqueue(e queuedEntry) bool {
	q := &d.queue
	q.mu.Lock()
	if _, ok := q.byKey[e.key]; ok {
		q.mu.Unlock()
		return false
	}
	if q.bytes+int64(e.n) > maxQueuedBytes {
		q.dropped++
		q.mu.Unlock()
		return false
	}
	if q.byKey == nil {
		q.byKey = map[Key]*queuedEntry{}
	}
	q.byKey[e.key] = &e
	q.entries = append(q.entries, e)
	q.bytes += int64(e.n)
	start := d.startWriterLocked()
	q.mu.Unlock()
	if start {
		go d.runWriter()
	}
	return true
}

// startWriterLocked marks the writer running when it has work and is not,
// and reports whether the caller must start it. The caller holds queue.mu.
func (d *DiskCache) startWriterLocked() bool {
	q := &d.queue
	if q.running || !q.runnable() {
		return false
	}
	q.running = true
	q.idle = make(chan struct{})
	return true
}

// queuedBody returns the body of the entry queued under k, encoded anew.
func (d *DiskCache) queuedBody(k Key) ([]byte, bool) {
	q := &d.queue
	q.mu.Lock()
	e, ok := q.byKey[k]
	q.mu.Unlock()
	if !ok {
		return nil, false
	}
	return e.appendEntry(nil)[entryHead:], true
}

func (d *DiskCache) isQueued(k Key) bool {
	q := &d.queue
	q.mu.Lock()
	defer q.mu.Unlock()
	_, ok := q.byKey[k]
	return ok
}

// takeBatch takes about batchBytes of the queue for the writer, nil when
// it has nothing to do now; past Settle's bound it drops what is queued.
func (d *DiskCache) takeBatch() []queuedEntry {
	q := &d.queue
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.settling && !q.dropAfter.IsZero() && time.Now().After(q.dropAfter) {
		d.dropQueuedLocked()
	}
	if !q.runnable() {
		return nil
	}
	n, size := 0, 0
	for n < len(q.entries) && (n == 0 || size+q.entries[n].n <= batchBytes) {
		size += q.entries[n].n
		n++
	}
	batch := append([]queuedEntry(nil), q.entries[:n]...)
	q.entries = q.entries[n:]
	return batch
}

// dropQueuedLocked drops every queued entry. The caller holds queue.mu.
func (d *DiskCache) dropQueuedLocked() {
	q := &d.queue
	for _, e := range q.entries {
		delete(q.byKey, e.key)
		q.bytes -= int64(e.n)
		q.dropped++
	}
	q.entries = nil
}

// dropped counts n trees not written.
func (d *DiskCache) dropped(n int64) {
	d.queue.mu.Lock()
	d.queue.dropped += n
	d.queue.mu.Unlock()
}

// doneBatch takes the written batch off the queue.
func (d *DiskCache) doneBatch(batch []queuedEntry) {
	q := &d.queue
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, e := range batch {
		delete(q.byKey, e.key)
		q.bytes -= int64(e.n)
	}
}

// runWriter writes batches until there is nothing to write now, then
// appends the records it holds unless the tier defers its writes.
func (d *DiskCache) runWriter() {
	q := &d.queue
	for {
		if batch := d.takeBatch(); batch != nil {
			d.wmu.Lock()
			d.writeBatch(batch)
			d.wmu.Unlock()
			d.doneBatch(batch)
			continue
		}
		q.mu.Lock()
		deferring := q.deferring && !q.settling
		q.mu.Unlock()
		if !deferring {
			d.wmu.Lock()
			d.flushRecords()
			d.wmu.Unlock()
		}
		q.mu.Lock()
		if q.runnable() {
			q.mu.Unlock()
			continue
		}
		q.running = false
		close(q.idle)
		q.mu.Unlock()
		return
	}
}

// packWriter is the pack this process appends to.
type packWriter struct {
	id   packID
	f    *os.File
	size int64
}

// writeBatch appends the entries of batch that are not in the tier to the
// process's pack (one write a batch, a new pack when it reaches its size),
// then records where they are. The caller holds wmu.
func (d *DiskCache) writeBatch(batch []queuedEntry) {
	type placed struct {
		key Key
		off int64
		n   int64
	}
	var put []placed
	if d.wbuf == nil {
		// one buffer for the process's batches: growing one by appending
		// touched several times its size in new memory
		d.wbuf = make([]byte, 0, batchBytes)
	}
	buf := d.wbuf[:0]
	flush := func() {
		if len(buf) == 0 {
			return
		}
		_, err := d.pack.f.Write(buf)
		for _, p := range put {
			n := p.n
			d.mu.Lock()
			d.inflight -= n
			if err == nil {
				d.size += n
			} else {
				d.reserved += n // given back: not written
			}
			d.mu.Unlock()
			if err == nil {
				l := loc{pack: d.pack.id, off: p.off, n: uint32(n)}
				d.noteLoc(p.key, l)
				sh := shardOf(p.key)
				d.pendingIdx[sh] = appendIndexRecord(d.pendingIdx[sh], p.key, l)
				d.pendingN++
			}
		}
		if err != nil {
			d.broken = true
			empty := d.pack.size == 0
			path := d.packPath(d.pack.id)
			d.closeOwnPack()
			if empty {
				os.Remove(path)
			}
		} else {
			d.pack.size += int64(len(buf))
		}
		buf, put = buf[:0], put[:0]
	}
	for _, e := range batch {
		if d.broken {
			d.dropped(1)
			continue
		}
		if _, ok := d.lookup(e.key); ok {
			continue // this or another process wrote it
		}
		n := int64(e.n)
		if d.pack != nil && d.pack.size+int64(len(buf)) > 0 && d.pack.size+int64(len(buf))+n > d.packMax ||
			cap(buf)-len(buf) < e.n {
			flush()
			if d.pack != nil && d.pack.size+n > d.packMax {
				d.closeOwnPack()
			}
		}
		if d.pack == nil && !d.openOwnPack() {
			continue
		}
		d.reserve(n)
		// counted as under way before it is written, so that a prune's
		// count (which may or may not list it) is never short of it
		d.mu.Lock()
		d.inflight += n
		if d.pruning {
			d.added += n
		}
		d.mu.Unlock()
		put = append(put, placed{e.key, d.pack.size + int64(len(buf)), n})
		if cap(buf)-len(buf) >= e.n {
			buf = e.appendEntry(buf)
			continue
		}
		// larger than the batch buffer: encoded and written alone
		buf = e.appendEntry(make([]byte, 0, e.n))
		flush()
		buf = d.wbuf[:0]
	}
	if d.pack != nil {
		flush()
	}
	if d.pendingN >= maxPendingRecords {
		d.flushRecords()
	}
	d.mu.Lock()
	prune := d.size > d.budget
	d.mu.Unlock()
	if prune {
		d.startPrune()
	}
}

// openOwnPack starts a new pack for this process's writes. The caller
// holds wmu.
func (d *DiskCache) openOwnPack() bool {
	id := newPackID()
	path := d.packPath(id)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrNotExist) && os.MkdirAll(filepath.Dir(path), 0o700) == nil {
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	}
	if err != nil {
		d.broken = true
		return false
	}
	d.pack = &packWriter{id: id, f: f}
	d.mu.Lock()
	d.ownPack, d.writingPack = id, true
	d.mu.Unlock()
	return true
}

// closeOwnPack closes the pack this process appends to, if any: it is
// never written again. The caller holds wmu.
func (d *DiskCache) closeOwnPack() {
	if d.pack == nil {
		return
	}
	d.pack.f.Close()
	d.pack = nil
	d.mu.Lock()
	d.writingPack = false
	d.mu.Unlock()
}

// flushRecords appends the index records of the entries written, then the
// kind sets noted, each shard's in one write. The caller holds wmu.
func (d *DiskCache) flushRecords() {
	for sh := range d.pendingIdx {
		if b := d.pendingIdx[sh]; len(b) > 0 {
			appendShard(d.indexShardPath(byte(sh)), b)
			d.pendingIdx[sh] = b[:0]
		}
	}
	d.pendingN = 0
	d.kfmu.Lock()
	defer d.kfmu.Unlock()
	d.kmu.Lock()
	pending := d.pending
	d.pending = [sideIndexes]map[byte][]byte{}
	d.kmu.Unlock()
	for _, sp := range sideSpecs {
		for sh, b := range pending[sp.slot] {
			appendShard(d.sideShardPath(sp, sh), b)
		}
	}
}

// dropPending removes from the records of shard sh of an index not yet
// appended those queued up to the last of a key in recs, a rewrite of the
// shard: they are in the rewrite or older than what it keeps. The caller
// holds kfmu.
func (d *DiskCache) dropPending(sp *sideSpec, sh byte, recs []sideRecord) {
	d.kmu.Lock()
	defer d.kmu.Unlock()
	b := d.pending[sp.slot][sh]
	if len(b) == 0 {
		return
	}
	in := make(map[Key]bool, len(recs))
	for _, r := range recs {
		in[r.key] = true
	}
	var kept []byte
	forEachSideRecord(sp, b, func(k Key, v string) {
		if in[k] {
			kept = kept[:0]
			return
		}
		kept = appendSideRecord(sp, kept, k, v)
	})
	d.pending[sp.slot][sh] = kept
}

// appendSide queues one record for an index, appended with the writer's
// next records (best effort, as the trees are written: a lost record costs
// a walk of the tree, or a parse, and the value is noted again then).
func (d *DiskCache) appendSide(sp *sideSpec, k Key, v string) {
	d.kmu.Lock()
	if d.pending[sp.slot] == nil {
		d.pending[sp.slot] = map[byte][]byte{}
	}
	sh := k[0]
	d.pending[sp.slot][sh] = appendSideRecord(sp, d.pending[sp.slot][sh], k, v)
	d.kmu.Unlock()
	d.kickWriter()
}

// pendingRecords returns a copy of the records of shard sh of an index not
// yet appended.
func (d *DiskCache) pendingRecords(sp *sideSpec, sh byte) []byte {
	d.kmu.Lock()
	defer d.kmu.Unlock()
	return append([]byte(nil), d.pending[sp.slot][sh]...)
}

// kickWriter has the writer append the records it holds when the tier
// does not defer its writes (a long-lived process: others see them).
func (d *DiskCache) kickWriter() {
	q := &d.queue
	q.mu.Lock()
	if q.deferring || q.running {
		q.mu.Unlock()
		return
	}
	q.running = true
	q.idle = make(chan struct{})
	q.mu.Unlock()
	go d.runWriter()
}

// settleWrites writes what is queued, by deadline (the rest is dropped),
// appends the records held and closes the process's pack.
func (d *DiskCache) settleWrites(deadline time.Time) {
	q := &d.queue
	q.mu.Lock()
	q.settling, q.dropAfter = true, deadline
	start := d.startWriterLocked()
	idle := q.idle
	running := q.running
	q.mu.Unlock()
	if start {
		go d.runWriter()
	}
	if running {
		t := time.NewTimer(time.Until(deadline))
		select {
		case <-idle:
		case <-t.C:
			q.mu.Lock()
			d.dropQueuedLocked()
			q.mu.Unlock()
		}
		t.Stop()
	}
	d.wmu.Lock()
	d.flushRecords()
	d.closeOwnPack()
	d.wmu.Unlock()
	q.mu.Lock()
	q.settling, q.dropAfter = false, time.Time{}
	q.mu.Unlock()
}
