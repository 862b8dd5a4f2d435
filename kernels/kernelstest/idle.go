package kernelstest

import "context"
import "encoding/json"
import "sync"
import "testing"
import "time"

import "github.com/tetherhq/tether/kernels"

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
	done := execute(t, k, code)
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

// SignalTool returns a channel and a bridge (Config.Tools) that closes it
// on its first call: a cell calls tool() to say it got somewhere (into its
// loop, quiet after printing).
func SignalTool() (<-chan struct{}, kernels.ToolCaller) {
	signal := make(chan struct{})
	var once sync.Once
	return signal, func(ctx context.Context, name string, args json.RawMessage) (kernels.ToolReply, error) {
		once.Do(func() { close(signal) })
		return kernels.ToolReply{}, nil
	}
}

// CancelOn runs code as one cell of k under a context canceled once signal
// is closed, and returns the cell's result; it fails the test when the
// kernel could not run the cell.
func CancelOn(t testing.TB, k kernels.Kernel, signal <-chan struct{}, code string) *kernels.Result {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-signal:
			cancel()
		case <-ctx.Done():
		}
	}()
	r, err := k.Execute(ctx, kernels.Cell{Code: code})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// UntilQuiet runs a cell that prints for a while, then signals quiet
// (closing or sending on it) and waits for ever. Output is a sign of life:
// while the cell prints, each time the kernel arms the budget the clock is
// moved to 9/10 of the budget past the arm, and once the cell is quiet, a
// whole budget past it, so machine load cannot decide whether the cell is
// idle. move moves the clock (and may tell the cell its time). The test
// fails when the clock moved less than 10 budgets while the cell printed.
// It returns the cell's result.
func UntilQuiet(t testing.TB, k kernels.Kernel, clock *Clock, budget time.Duration, quiet <-chan struct{}, code string, move func(time.Time)) *kernels.Result {
	t.Helper()
	done := execute(t, k, code)
	start, step := clock.Now(), budget*9/10
	for isQuiet, last := false, start; ; {
		select {
		case last = <-clock.Arms():
			if isQuiet {
				move(last.Add(budget))
			} else {
				move(last.Add(step))
			}
		case <-quiet:
			quiet, isQuiet = nil, true
			if printing := clock.Now().Sub(start); printing < 10*budget {
				t.Errorf("the clock moved %s while the cell printed, want at least 10 budgets", printing)
			}
			move(last.Add(budget)) // the last arm may have come first
		case r := <-done:
			return r
		}
	}
}

// execute runs code as one cell of k on its own goroutine and returns where
// its result will be sent.
func execute(t testing.TB, k kernels.Kernel, code string) <-chan *kernels.Result {
	done := make(chan *kernels.Result, 1)
	go func() {
		r, err := k.Execute(context.Background(), kernels.Cell{Code: code})
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	return done
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
