package store

import "context"
import "sync"
import "sync/atomic"

// parseBudget bounds the source bytes being parsed at once in the process,
// by every searcher together. A parse takes 40 to 80 bytes of wasm memory
// a source byte (TypeScript's 12 MB tsserver.js 370 MB, an 8.7 MB minified
// bundle 700 MB, up to the engine's cap), so with a worker a core each
// parsing a bundle the memory grew with the cores. Under this budget a
// bundle near the size cap is parsed alone, smaller files go on beside
// smaller bundles, and a file larger than the budget is parsed alone. It is
// the size cap of a search (search.DefaultMaxFileSize).
const parseBudget = 16 << 20

// parses admits the parses of the process (Parse).
var parses = func() *atomic.Pointer[byteGate] {
	var p atomic.Pointer[byteGate]
	p.Store(newByteGate(parseBudget))
	return &p
}()

// byteGate admits work by its size in bytes while the admitted total stays
// within a capacity, first come first served (a large file waiting is not
// passed by a stream of small ones); work larger than the capacity counts
// as the capacity, so it runs alone.
type byteGate struct {
	mu    sync.Mutex
	cond  *sync.Cond
	cap   int64
	used  int64
	peak  int64 // the most admitted at once (tests)
	next  uint64
	serve uint64          // the ticket admitted next
	gone  map[uint64]bool // tickets given up while waiting
}

func newByteGate(capacity int64) *byteGate {
	g := &byteGate{cap: capacity, gone: map[uint64]bool{}}
	g.cond = sync.NewCond(&g.mu)
	return g
}

// acquire waits until n bytes fit (or ctx is done, then its error) and
// returns the release of what it admitted.
func (g *byteGate) acquire(ctx context.Context, n int64) (release func(), err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	n = min(max(n, 1), g.cap)
	t := g.next
	g.next++
	wake := context.AfterFunc(ctx, func() {
		g.mu.Lock()
		g.cond.Broadcast()
		g.mu.Unlock()
	})
	defer wake()
	for t != g.serve || g.used+n > g.cap {
		if err := ctx.Err(); err != nil {
			g.abandon(t)
			return nil, err
		}
		g.cond.Wait()
	}
	g.advance()
	g.used += n
	g.peak = max(g.peak, g.used)
	g.cond.Broadcast() // the next ticket may fit beside this one
	return func() {
		g.mu.Lock()
		g.used -= n
		g.mu.Unlock()
		g.cond.Broadcast()
	}, nil
}

// abandon gives ticket t up (its waiter's context is done).
func (g *byteGate) abandon(t uint64) {
	if t != g.serve {
		g.gone[t] = true
		return
	}
	g.advance()
	g.cond.Broadcast()
}

// advance moves on to the next ticket still waiting.
func (g *byteGate) advance() {
	g.serve++
	for g.gone[g.serve] {
		delete(g.gone, g.serve)
		g.serve++
	}
}
