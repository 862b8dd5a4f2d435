package matcher

import "context"
import "errors"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/engine/enginetest"

import "github.com/tetherhq/tether/internal/testenv"

// TestPathologicalPatternHitsTheBudget: f($$$A, $$$A, $$$A, y, x) against
// one call with 3000 arguments tries every pair of splits and compares the
// repeated captures at each. Every comparison counts: Find ends with a
// *BudgetError saying where and what to do, not with "no matches"; the same
// call with a cheap pattern is found. The test has no timing assertion: it
// just must finish.
func TestPathologicalPatternHitsTheBudget(t *testing.T) {
	p := fuzzParser(t)
	ctx := context.Background()
	tree, err := p.Parse(ctx, enginetest.Language(t, "go"), []byte(testenv.ManyArgs(3000)))
	if err != nil {
		t.Fatal(err)
	}
	cheap, err := Compile(ctx, p, enginetest.Language(t, "go"), "f($$$A, y, x)")
	if err != nil {
		t.Fatal(err)
	}
	if ms, err := NewMatcher(cheap).Find(ctx, tree); err != nil || len(ms) != 1 {
		t.Fatalf("f($$$A, y, x): %d matches, %v; want the one match", len(ms), err)
	}
	costly, err := Compile(ctx, p, enginetest.Language(t, "go"), "f($$$A, $$$A, $$$A, y, x)")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := NewMatcher(costly).Find(ctx, tree)
	var be *BudgetError
	if !errors.As(err, &be) || !errors.Is(err, ErrTooExpensive) || ms != nil {
		t.Fatalf("Find = %d matches, %v; want no match and a *BudgetError wrapping ErrTooExpensive", len(ms), err)
	}
	if be.At.Row != 2 || be.At.Column != 8 || be.Budget != stepBudget || be.PerTree {
		t.Errorf("budget error at %+v, budget %d, per tree %v; want 2:8 (zero-based), %d, false", be.At, be.Budget, be.PerTree, stepBudget)
	}
	for _, want := range []string{"pattern too expensive", "the source:3:9", "make it more specific"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// TestCancelStopsRunningMatch: a match that would run for minutes (budgets
// lifted) stops when its context is cancelled, with the context's error.
// The bound is generous; it only keeps a hang from hanging the test binary.
func TestCancelStopsRunningMatch(t *testing.T) {
	p := fuzzParser(t)
	ctx := context.Background()
	pat, err := Compile(ctx, p, enginetest.Language(t, "go"), "f($$$A, $$$A, $$$A, y, x)")
	if err != nil {
		t.Fatal(err)
	}
	tree, err := p.Parse(ctx, enginetest.Language(t, "go"), []byte(testenv.ManyArgs(3000)))
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m := NewMatcher(pat)
	m.ctx = cctx
	m.budget, m.treeBudget = 1<<62, 1<<62
	running := make(chan struct{})
	checks := 0
	m.testHookCheck = func() {
		if checks++; checks == 100 {
			close(running) // well into the match
		}
	}
	done := make(chan error, 1)
	go func() {
		_, err := m.findAll(tree, 0)
		done <- err
	}()
	select {
	case <-running:
	case err := <-done:
		t.Fatalf("the match ended before it was cancelled: %v", err)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled match returned %v, want context.Canceled", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("a cancelled match did not return")
	}
}
