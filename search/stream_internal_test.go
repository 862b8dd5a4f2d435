package search

import "context"
import "testing"

// TestStreamerHoldsBackWorkers: a file past the first not yet handed on
// waits while what waits to be handed on is over the budget, the first
// never waits, and files are handed on in order, each let go after.
func TestStreamerHoldsBackWorkers(t *testing.T) {
	jobs := make([]*fileJob, 3)
	for i := range jobs {
		jobs[i] = &fileJob{path: string(rune('a' + i)), matches: []Match{{Path: string(rune('a' + i))}}}
	}
	var order []string
	s := newStreamer(func(ms []Match) error {
		order = append(order, ms[0].Path)
		return nil
	}, jobs, 0)
	ctx := context.Background()
	// file 1 is searched before file 0, holding more than the budget
	jobs[1].held = streamBudget + 1
	if err := s.finish(1); err != nil {
		t.Fatal(err)
	}
	if len(order) != 0 || s.held != streamBudget+1 {
		t.Fatalf("handed on %v, holding %d: want nothing handed on before file 0, %d held", order, s.held, streamBudget+1)
	}
	if !s.wait(ctx, 0) {
		t.Fatal("the first file not handed on waits")
	}
	started := make(chan bool)
	go func() { started <- s.wait(ctx, 2) }()
	// file 2 may start only once 0 and 1 are handed on
	if err := s.finish(0); err != nil {
		t.Fatal(err)
	}
	if !<-started {
		t.Fatal("file 2 was not let start")
	}
	if got := len(order); got != 2 || order[0] != "a" || order[1] != "b" {
		t.Errorf("handed on %v, want [a b]", order)
	}
	if s.held != 0 || jobs[0].matches != nil || jobs[1].matches != nil {
		t.Errorf("held %d after handing on, matches kept: want 0, none", s.held)
	}
	// once the search is over no file starts, the first not handed on
	// included
	s.cancel()
	if s.wait(ctx, 2) {
		t.Error("a wait after cancel says go on")
	}
}
