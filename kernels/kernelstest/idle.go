package kernelstest

import (
	"context"
	"testing"
	"time"

	"github.com/tetherhq/tether/kernels"
)

// UntilIdle runs a cell that never ends on its own and signals started once
// it got going (closing or sending on it). From then on it moves the kernel's
// clock a whole idle budget past each time the kernel arms the budget, so the
// cell is interrupted once it goes quiet, however slow the machine. It
// returns the cell's result.
func UntilIdle(t testing.TB, k kernels.Kernel, clock *Clock, budget time.Duration, started <-chan struct{}, code string) *kernels.Result {
	t.Helper()
	for drained := false; !drained; { // arms left over from earlier cells
		select {
		case <-clock.Arms():
		default:
			drained = true
		}
	}
	done := make(chan *kernels.Result, 1)
	go func() {
		r, err := k.Execute(context.Background(), kernels.Cell{Code: code})
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	for begun, last := false, clock.Now(); ; {
		select {
		case last = <-clock.Arms():
			if begun {
				clock.AdvanceTo(last.Add(budget))
			}
		case <-started:
			started, begun = nil, true
			clock.AdvanceTo(last.Add(budget)) // the last arm may have come first
		case r := <-done:
			return r
		}
	}
}

// Run executes code as one cell of k and fails the test when the kernel
// could not run it (an error the cell raised is in the result).
func Run(t testing.TB, k kernels.Kernel, code string) *kernels.Result {
	t.Helper()
	r, err := k.Execute(context.Background(), kernels.Cell{Code: code, Label: "test cell"})
	if err != nil {
		t.Fatalf("Execute(%q): %v", code, err)
	}
	return r
}
