package search

import "runtime"
import "sync"
import "testing"

// TestProgressFirstAndLast hammers progress.step from many goroutines at
// once: Query.Progress is told the first file, then counts in increasing
// order, ending at the total, however the workers interleave.
func TestProgressFirstAndLast(t *testing.T) {
	for _, total := range []int{1, 2, 7, 500} {
		for range 20 {
			var got []int
			p := &progress{fn: func(done, n, found int) {
				if found != done {
					t.Errorf("told %d found after %d files of one each", found, done)
				}
				if n != total {
					t.Errorf("told total %d, want %d", n, total)
				}
				got = append(got, done) // step holds its lock around fn
			}, total: total}
			var wg sync.WaitGroup
			workers := 8
			per := make([]int, workers)
			for i := range total {
				per[i%workers]++
			}
			for _, k := range per {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range k {
						runtime.Gosched()
						p.step(1)
					}
				}()
			}
			wg.Wait()
			if len(got) == 0 || got[0] != 1 || got[len(got)-1] != total {
				t.Fatalf("total %d: told %v; want 1 first and %d last", total, got, total)
			}
			for i := 1; i < len(got); i++ {
				if got[i] <= got[i-1] {
					t.Fatalf("total %d: told %v, not increasing", total, got)
				}
			}
		}
	}
}
