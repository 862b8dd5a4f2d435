package python_test

import "context"
import "errors"
import "os"
import "path/filepath"
import "strconv"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/kernels"
import "github.com/tetherhq/tether/kernels/kernelstest"

// untilIdle is kernelstest.UntilIdle for a Python cell that creates the file
// "started" in its directory once it got going (not a bridge call: the budget
// starts over when one returns, before the cell is back from it). From then
// on it moves the kernel's clock a whole idle budget past each time the
// kernel arms the budget, so the cell is interrupted once it goes quiet,
// however slow the machine.
func untilIdle(t *testing.T, k kernels.Kernel, clock *kernelstest.Clock, budget time.Duration, dir, code string) *kernels.Result {
	t.Helper()
	started := make(chan struct{})
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			if _, err := os.Stat(filepath.Join(dir, "started")); err == nil {
				close(started)
				return
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond): // polling the condition
			}
		}
	}()
	return kernelstest.UntilIdle(t, k, clock, budget, started, code)
}

func TestInterruptKeepsState(t *testing.T) {
	clock, dir := kernelstest.NewClock(), t.TempDir()
	k := newKernel(t, kernels.Config{Dir: dir, IdleTimeout: 2 * time.Second, InterruptGrace: time.Minute, Clock: clock})
	mustOK(t, run(t, k, "state = 'kept'"))
	r := untilIdle(t, k, clock, 2*time.Second, dir, "n = 1\nopen('started', 'w').close()\nwhile True:\n    n += 1")
	if !errors.Is(r.Error, kernels.ErrInterrupted) || r.StateLost {
		t.Fatalf("runaway loop: error %+v stateLost %v", r.Error, r.StateLost)
	}
	if !strings.Contains(r.Error.Message, "idle budget") || !strings.Contains(r.Error.Message, "state is kept") || (r.Error.Line < 2 || r.Error.Line > 4) {
		t.Errorf("interrupt message/line: %q line %d", r.Error.Message, r.Error.Line)
	}
	if got := value(t, run(t, k, "state, n > 0")); got != "('kept', True)" {
		t.Errorf("after interrupt: %s", got)
	}
}

func TestCancelInterrupts(t *testing.T) {
	// The caller gives up once the cell is in its loop: the cell says when
	// it gets there.
	started, tools := kernelstest.SignalTool()
	k := newKernel(t, kernels.Config{InterruptGrace: time.Minute, Tools: tools})
	mustOK(t, run(t, k, "v = 5"))
	r := kernelstest.CancelOn(t, k, started, "import time\ntool('started')\nwhile True:\n    time.sleep(0.01)")
	if !errors.Is(r.Error, kernels.ErrInterrupted) || !strings.Contains(r.Error.Message, "gave up") {
		t.Fatalf("canceled cell: %+v", r.Error)
	}
	if got := value(t, run(t, k, "v")); got != "5" {
		t.Errorf("after cancel: v = %s", got)
	}
}

// TestCancelBeforeTheCellStarts: the first SIGINT may land before the driver
// has started the cell (it ignores SIGINT between cells); the host sends it
// again until the cell comes back.
func TestCancelBeforeTheCellStarts(t *testing.T) {
	k := newKernel(t, kernels.Config{InterruptGrace: time.Minute})
	mustOK(t, run(t, k, "w = 9"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := k.Execute(ctx, kernels.Cell{Code: "import time\nwhile True:\n    time.sleep(0.01)"})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(r.Error, kernels.ErrInterrupted) {
		t.Fatalf("cell canceled up front: %+v", r.Error)
	}
	if got := value(t, run(t, k, "w")); got != "9" {
		t.Errorf("after cancel: w = %s", got)
	}
}

func TestUnresponsiveKernelIsRestarted(t *testing.T) {
	clock, dir := kernelstest.NewClock(), t.TempDir()
	k := newKernel(t, kernels.Config{Dir: dir, IdleTimeout: 3 * time.Second, InterruptGrace: time.Second, Clock: clock})
	mustOK(t, run(t, k, "doomed = 1"))
	r := untilIdle(t, k, clock, 3*time.Second, dir, "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nopen('started', 'w').close()\nwhile True:\n    pass")
	if !errors.Is(r.Error, kernels.ErrKernelRestarted) || !r.StateLost || !strings.Contains(r.Error.Message, "state is lost") {
		t.Fatalf("kernel ignoring SIGINT: %+v stateLost %v", r.Error, r.StateLost)
	}
	r = run(t, k, "doomed")
	if !r.Fresh || !r.StateLost || len(r.Notices) == 0 || !strings.Contains(r.Notices[0], "did not come back") {
		t.Errorf("next cell: fresh %v lost %v notices %q", r.Fresh, r.StateLost, r.Notices)
	}
	if r.Error == nil || r.Error.Name != "NameError" {
		t.Errorf("state survived a restart: %+v", r.Error)
	}
}

// TestPrintingCellIsNotIdle: output is a sign of life. A cell printing
// steadily for much longer than its idle budget runs on; once it goes quiet
// the budget runs out and it is interrupted on the silent line with its state
// kept. The bridge call that says "quiet" shares the silent line with the
// sleep: the kernel re-arms the budget when it sends the call's reply, and the
// interrupt may reach Python before it has read that reply. The idle budget's time is a clock the test moves, in step with the
// cell (which waits after each print until the test writes the clock's new
// time to a file), so machine load cannot decide the outcome: each sign of
// life moves the clock to 9/10 of the budget past it, 45 budgets in all while
// the cell prints, and once the cell says it is quiet, a whole budget.
func TestPrintingCellIsNotIdle(t *testing.T) {
	const budget = 3 * time.Second
	clock := kernelstest.NewClock()
	quiet, tools := kernelstest.SignalTool()
	dir := t.TempDir()
	k := newKernel(t, kernels.Config{Dir: dir, IdleTimeout: budget, InterruptGrace: time.Minute, Clock: clock, Tools: tools})
	code := "import time\n" +
		"def now():\n    try:\n        return open('clock').read()\n    except FileNotFoundError:\n        return ''\n" +
		"ticks = 0\nfor i in range(50):\n    t = now()\n    print('tick', flush=True)\n    ticks += 1\n" +
		"    while now() == t:\n        time.sleep(0.005)\n" +
		"print('quiet now', flush=True)\ntool('quiet'); time.sleep(600)"
	silent := strings.Count(code, "\n") + 1
	// tell moves the clock and writes its time where the cell reads it.
	tell := func(at time.Time) {
		clock.AdvanceTo(at)
		tmp := filepath.Join(dir, "clock.tmp")
		if err := os.WriteFile(tmp, []byte(clock.Now().Format(time.RFC3339Nano)), 0o644); err != nil {
			t.Error(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, "clock")); err != nil {
			t.Error(err)
		}
	}
	r := kernelstest.UntilQuiet(t, k, clock, budget, quiet, code, tell)
	if !errors.Is(r.Error, kernels.ErrInterrupted) || r.Error.Line != silent {
		t.Fatalf("want the cell interrupted on line %d (the silent sleep), got %+v\nstdout %q", silent, r.Error, r.Stdout.Text)
	}
	if n := strings.Count(r.Stdout.Text, "tick\n"); n != 50 || !strings.HasSuffix(r.Stdout.Text, "quiet now\n") {
		t.Errorf("%d ticks, stdout %q", n, r.Stdout.Text)
	}
	if got := value(t, run(t, k, "ticks")); got != "50" {
		t.Errorf("state after the interrupt: ticks = %s", got)
	}
}

// TestIdleKernelDoesNotWake: between cells no thread of the kernel but the
// one that reads the next cell wakes. The thread that sends text held back
// for batching sleeps until something is written (it used to wake every
// 50 ms for good, 20 times a second in each of a host's idle kernels).
func TestIdleKernelDoesNotWake(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	const switches = `import os
def _switches():
    n = {}
    for t in os.listdir('/proc/self/task'):
        if int(t) == os.getpid():
            continue  # the thread that reads cells
        try:
            with open('/proc/self/task/%s/status' % t) as f:
                for l in f:
                    if l.startswith('voluntary_ctxt_switches'):
                        n[t] = int(l.split()[1])
        except OSError:
            pass
    return n
`
	// A partial line wakes the ticker once; then it sleeps again.
	if r := mustOK(t, run(t, k, switches+"import time\nprint('partial', end='')\ntime.sleep(0.3)")); r.Stdout.Text != "partial" {
		t.Errorf("stdout %q, want the partial line", r.Stdout.Text)
	}
	mustOK(t, run(t, k, "before = _switches()"))
	time.Sleep(2 * time.Second)
	got := value(t, run(t, k, "after = _switches()\nsum(after[t] - before[t] for t in after if t in before)"))
	n, err := strconv.Atoi(got)
	if err != nil {
		t.Fatalf("switches: %q", got)
	}
	// Waking every 50 ms would be about 40 in 2 s; what is allowed covers
	// the idle heap trim and the runtime's own.
	if n > 8 {
		t.Errorf("the kernel's threads woke %d times in 2 s between cells, want (about) none", n)
	}
}
