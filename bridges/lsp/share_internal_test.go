package lsp

import "context"
import "sync"
import "sync/atomic"
import "testing"
import "time"

// TestViewGateHammer: under -race, views exclude each other and queries,
// queries run together, and a view's own (and a query's nested) queries
// never wait on the gate.
func TestViewGateHammer(t *testing.T) {
	s, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var readers, views atomic.Int32
	var bad atomic.Value
	fail := func(msg string) { bad.CompareAndSwap(nil, msg) }
	var wg sync.WaitGroup
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				if (g+i)%5 == 0 {
					vctx, done, err := s.View(ctx)
					if err != nil {
						fail(err.Error())
						return
					}
					if views.Add(1) != 1 || readers.Load() != 0 {
						fail("a view ran alongside another view or a query")
					}
					// The view's own query runs inside it.
					qctx, qdone, err := s.reading(vctx)
					if err != nil || qctx != vctx {
						fail("the view's own query waited or failed")
					}
					qdone()
					views.Add(-1)
					done()
					done() // idempotent
					continue
				}
				qctx, done, err := s.reading(ctx)
				if err != nil {
					fail(err.Error())
					return
				}
				readers.Add(1)
				if views.Load() != 0 {
					fail("a query ran during a view")
				}
				// A nested query does not wait, even with a view queued.
				_, ndone, err := s.reading(qctx)
				if err != nil {
					fail(err.Error())
				}
				ndone()
				if _, _, err := s.View(qctx); err == nil {
					fail("a view was taken inside a query")
				}
				readers.Add(-1)
				done()
			}
		}()
	}
	wg.Wait()
	if msg := bad.Load(); msg != nil {
		t.Fatal(msg)
	}
}

// TestViewReleaseUndoesShownContent: releasing a view runs the undo of
// what was shown under it when the caller did not.
func TestViewReleaseUndoesShownContent(t *testing.T) {
	s, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	vctx, done, err := s.View(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	s.heldView(vctx).onRelease(func() { ran++ })
	done()
	done()
	if ran != 1 {
		t.Fatalf("release ran the view's undo %d times, want 1", ran)
	}
	if s.heldView(vctx) != nil {
		t.Fatal("the view is still held after release")
	}
}
