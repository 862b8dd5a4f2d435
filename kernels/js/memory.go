package js

import "runtime"
import "runtime/debug"
import "runtime/metrics"
import "sync"
import "sync/atomic"
import "time"

// samplePeriod is how often the heap guard looks at the heap while a cell
// runs. A look is one runtime/metrics read (no collection, no stop of the
// world), about a microsecond.
const samplePeriod = time.Millisecond

// heapGuard enforces the heap cap on one cell (see the package doc).
//
// It trips on the cheap measure, the heap's object bytes (live and not yet
// swept) over base+limit, and the cell is interrupted at once: it does not
// collect first to see what is really live. A collection has to stop the
// world, which waits for the cell's goroutine to reach a safe point, and a
// goroutine copying a 1 GiB string reaches none until the copy is done; by
// the time such a collection answered, a doubling string had doubled again
// (and again: a cap of 512 MiB let `s = s + s` reach 8 GiB). Interrupted at
// the next instruction, the cell cannot start another allocation after the one
// that crossed the cap.
//
// So that garbage is never mistaken for growth, the guard starts a collection
// in the background whenever unswept garbage fills half of the headroom left
// below the cap: garbage is collected long before it could reach the cap, and
// what remains over it is live (or was allocated in one step faster than a
// collection could run, which the cap is for).
type heapGuard struct {
	limit int64
	base  int64 // the live heap when the cell started
	gcing atomic.Bool
}

// newHeapGuard measures the heap a cell starts from. When the last
// collection's figure is stale (a quarter of the cap or more allocated since,
// by an earlier cell or anything else in the process), it collects first, so
// an earlier cell's data is not counted against this one.
func newHeapGuard(limit int64) *heapGuard {
	objects, live := heapBytes()
	if objects-live > limit/4 {
		live = liveAfterGC()
	}
	return &heapGuard{limit: limit, base: live}
}

// over reports whether the heap has grown past the cap since the cell
// started, and by how much (live data and not yet collected garbage).
func (g *heapGuard) over() (grown int64, over bool) {
	objects, live := heapBytes()
	if grown := objects - g.base; grown > g.limit {
		return grown, true
	}
	if headroom := g.base + g.limit - live; objects-live > headroom/2 && g.gcing.CompareAndSwap(false, true) {
		go func() {
			defer g.gcing.Store(false)
			runtime.GC()
		}()
	}
	return 0, false
}

// afterStop collects what a stopped cell left, returns the freed memory to
// the operating system (a cell stopped at 1 GiB must not leave tether 1 GiB
// resident), and reports how much of the cell's growth is still live.
func (g *heapGuard) afterStop() (kept int64) {
	debug.FreeOSMemory()
	_, live := heapBytes()
	return live - g.base
}

var (
	heapMu      sync.Mutex
	heapSamples = []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"}, // live and not yet swept
		{Name: "/gc/heap/live:bytes"},                // live as of the last GC
	}
)

// heapBytes returns the Go heap's current object bytes (garbage not yet swept
// included) and its live bytes as of the last GC.
func heapBytes() (objects, live int64) {
	heapMu.Lock()
	defer heapMu.Unlock()
	metrics.Read(heapSamples)
	v := func(i int) int64 {
		if heapSamples[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return int64(heapSamples[i].Value.Uint64())
	}
	return v(0), v(1)
}

// liveAfterGC collects and returns the live heap.
func liveAfterGC() int64 {
	runtime.GC()
	_, live := heapBytes()
	return live
}
