package store

import "context"
import "errors"
import "testing"

// TestByteGate: work is admitted while it fits, work larger than the
// capacity runs alone, and a waiter whose context is done gives its turn
// up instead of holding back those after it.
func TestByteGate(t *testing.T) {
	g := newByteGate(10)
	ctx := context.Background()
	r1, err := g.acquire(ctx, 6)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := g.acquire(ctx, 4) // fits beside
	if err != nil {
		t.Fatal(err)
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := g.acquire(done, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("a full gate with a done context: %v, want context.Canceled", err)
	}
	got := make(chan int64)
	go func() {
		r, err := g.acquire(ctx, 100) // larger than the gate: alone
		if err != nil {
			t.Error(err)
			got <- -1
			return
		}
		g.mu.Lock()
		used := g.used
		g.mu.Unlock()
		r()
		got <- used
	}()
	r1()
	r2()
	if used := <-got; used != 10 {
		t.Errorf("work larger than the gate ran beside %d bytes: want alone, counted as the capacity (10)", used-10)
	}
	if g.peak != 10 || g.used != 0 || len(g.gone) != 0 {
		t.Errorf("peak %d, used %d, %d tickets given up left: want 10, 0, 0", g.peak, g.used, len(g.gone))
	}
}
