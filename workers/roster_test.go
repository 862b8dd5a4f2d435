package workers_test

import "context"
import "errors"
import "os"
import "path/filepath"
import "strconv"
import "strings"
import "sync"
import "testing"
import "time"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/workers"

func script(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return "sh " + p
}

func newRoster(t *testing.T, cfg workers.Config) *workers.Roster {
	t.Helper()
	r, err := workers.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// spawn starts a worker and returns its id.
func spawn(t *testing.T, r *workers.Roster, brief, name, tier string) string {
	t.Helper()
	id, err := r.Spawn(brief, name, tier)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// send sends the worker id a follow-up.
func send(t *testing.T, r *workers.Roster, id, message string) {
	t.Helper()
	if err := r.Send(id, message); err != nil {
		t.Fatal(err)
	}
}

// gateRoster returns a roster whose fast tier runs gate.sh, which echoes
// the brief and then waits until the file gate exists (or the brief says
// go-ahead).
func gateRoster(t *testing.T, gate string) *workers.Roster {
	t.Helper()
	return newRoster(t, workers.Config{
		Commands: map[string]string{workers.Fast: script(t, "gate.sh")},
		Env:      []string{"GATE=" + gate},
		// The worker sees only what it is granted: the gate's directory.
		ReadOnly: []string{filepath.Dir(gate)},
	})
}

// wait waits without a timeout: the test's own deadline bounds it.
func wait(t *testing.T, r *workers.Roster, id string) workers.Report {
	t.Helper()
	rep, err := r.Wait(context.Background(), id, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Finished {
		t.Fatalf("Wait without timeout returned an unfinished worker: %+v", rep)
	}
	return rep
}

func TestSpawnListWait(t *testing.T) {
	r := newRoster(t, workers.Config{Commands: map[string]string{
		workers.Fast: script(t, "echo.sh"),
		workers.Good: script(t, "echo.sh"),
	}})
	a := spawn(t, r, "rename Foo to Bar", "renamer", "")
	b := spawn(t, r, "review the rename", "reviewer", workers.Good)
	if a == b {
		t.Fatalf("two workers share id %q", a)
	}
	list := r.List()
	if len(list) != 2 || list[0].ID != a || list[1].ID != b {
		t.Fatalf("List = %+v, want %s then %s", list, a, b)
	}
	if list[0].Label != "renamer" || list[0].Tier != workers.Fast || list[1].Tier != workers.Good {
		t.Errorf("List labels/tiers = %+v", list)
	}

	ra := wait(t, r, a)
	if ra.Status != workers.Done {
		t.Errorf("status = %s, want done (log: %s)", ra.Status, ra.LogTail)
	}
	if want := "label=renamer tier=fast\nrename Foo to Bar\n"; ra.Result != want {
		t.Errorf("result = %q, want %q", ra.Result, want)
	}
	if !strings.Contains(ra.LogTail, "label=renamer") {
		t.Errorf("log tail = %q, want the worker's stderr", ra.LogTail)
	}
	rb := wait(t, r, b)
	if !strings.Contains(rb.Result, "tier=good") || !strings.Contains(rb.Result, "review the rename") {
		t.Errorf("good worker result = %q", rb.Result)
	}
	for _, in := range r.List() {
		if in.Status != workers.Done || in.Unread {
			t.Errorf("after wait: %+v, want done and read", in)
		}
		if !strings.Contains(in.ResultTail, "tier=") {
			t.Errorf("list result tail = %q", in.ResultTail)
		}
	}
	// A result is kept after it is read: wait again returns it again.
	if again := wait(t, r, a); again.Result != ra.Result {
		t.Errorf("second wait result = %q, want %q", again.Result, ra.Result)
	}
}

func TestSendRerunsWithAppendedBrief(t *testing.T) {
	gate := filepath.Join(t.TempDir(), "gate")
	r := gateRoster(t, gate)
	id := spawn(t, r, "fix the tests", "fixer", "")
	// The first run blocks on the gate; send stops it and reruns with the
	// appended brief, which lets the run finish.
	send(t, r, id, "go-ahead: only the parser tests")
	rep := wait(t, r, id)
	if rep.Status != workers.Done || rep.Runs != 2 {
		t.Fatalf("after send: status %s runs %d, want done after 2 runs", rep.Status, rep.Runs)
	}
	if want := "fix the tests\n\ngo-ahead: only the parser tests\n"; rep.Result != want {
		t.Errorf("rerun result = %q, want %q", rep.Result, want)
	}
	// Send to a finished worker reruns it too.
	send(t, r, id, "and the lexer")
	rep = wait(t, r, id)
	if !strings.HasSuffix(rep.Result, "go-ahead: only the parser tests\n\nand the lexer\n") || rep.Runs != 3 {
		t.Errorf("third run: runs %d result %q", rep.Runs, rep.Result)
	}
}

func TestWaitTimeoutSaysStillRunning(t *testing.T) {
	gate := filepath.Join(t.TempDir(), "gate")
	r := gateRoster(t, gate)
	id := spawn(t, r, "wait for the gate", "waiter", workers.Fast)
	rep, err := r.Wait(context.Background(), id, 10*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Finished || rep.Status != workers.Running {
		t.Fatalf("Wait on a gated worker = %+v, want still running", rep)
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	rep = wait(t, r, id)
	if rep.Status != workers.Done || !strings.HasSuffix(rep.Result, "released\n") {
		t.Errorf("after release: %+v", rep)
	}
}

func TestFailingWorker(t *testing.T) {
	r := newRoster(t, workers.Config{Commands: map[string]string{workers.Fast: script(t, "fail.sh")}})
	id := spawn(t, r, "frobnicate", "frob", "")
	rep := wait(t, r, id)
	if rep.Status != workers.Failed {
		t.Fatalf("status = %s, want failed", rep.Status)
	}
	if rep.Exit != "exit status 3" {
		t.Errorf("exit = %q, want exit status 3", rep.Exit)
	}
	if !strings.Contains(rep.LogTail, "fatal: the frobnicator is missing") {
		t.Errorf("log tail = %q, want the stderr tail", rep.LogTail)
	}
	if rep.Result != "partial result\n" {
		t.Errorf("result = %q", rep.Result)
	}
	if l := r.List(); l[0].Status != workers.Failed {
		t.Errorf("list status = %s", l[0].Status)
	}
}

func TestKillStopsTheWholeTree(t *testing.T) {
	for _, how := range []string{"kill", "close"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			r, err := workers.New(workers.Config{
				Commands: map[string]string{workers.Fast: script(t, "tree.sh")},
				Env:      []string{"PIDDIR=" + dir},
				// The sandbox lets a worker write only where it is told to.
				ReadWrite: []string{dir},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			id := spawn(t, r, "start a tree", "tree", "")
			pids := []int{testenv.ReadPid(t, dir, "leader"), testenv.ReadPid(t, dir, "child"), testenv.ReadPid(t, dir, "grandchild")}
			for _, p := range pids {
				if !testenv.Alive(p) {
					t.Fatalf("pid %d is not running before the kill", p)
				}
			}
			if how == "kill" {
				info, err := r.Kill(id)
				if err != nil {
					t.Fatal(err)
				}
				if info.Status != workers.Killed {
					t.Errorf("status after kill = %s, want killed", info.Status)
				}
			} else {
				r.Close()
				if _, err := r.Spawn("more", "x", ""); err == nil {
					t.Error("Spawn after Close succeeded")
				}
			}
			for _, p := range pids {
				if testenv.Alive(p) {
					t.Errorf("pid %d still runs after %s", p, how)
				}
			}
			if rep := wait(t, r, id); rep.Status != workers.Killed {
				t.Errorf("wait after %s: status %s", how, rep.Status)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	if _, err := workers.New(workers.Config{}); err == nil || !strings.HasPrefix(err.Error(), "workers: ") {
		t.Errorf("New without commands: %v", err)
	}
	r := newRoster(t, workers.Config{Commands: map[string]string{workers.Fast: script(t, "echo.sh")}})
	cases := []struct {
		name string
		err  error
		next string // what the error tells the agent to do next, when it must say it
	}{
		{"no good tier", func() error { _, err := r.Spawn("x", "y", workers.Good); return err }(), "--worker good="},
		{"bad tier", func() error { _, err := r.Spawn("x", "y", "best"); return err }(), "use fast"},
		{"empty brief", func() error { _, err := r.Spawn(" ", "y", ""); return err }(), ""},
		{"unknown id", func() error { _, err := r.Wait(context.Background(), "w99", 0); return err }(), ""},
		{"unknown kill", func() error { _, err := r.Kill("w99"); return err }(), ""},
		{"unknown send", r.Send("w99", "hi"), ""},
	}
	for _, c := range cases {
		if c.err == nil || !strings.HasPrefix(c.err.Error(), "workers: ") {
			t.Errorf("%s: err = %v, want a workers: error", c.name, c.err)
		}
		if c.err != nil && !strings.Contains(c.err.Error(), c.next) {
			t.Errorf("%s: err = %v, want it to say %q", c.name, c.err, c.next)
		}
	}
	if _, err := r.Kill("w42"); !errors.Is(err, workers.ErrUnknownWorker) {
		t.Errorf("Kill(w42) = %v, want ErrUnknownWorker", err)
	}
	for _, v := range []string{"fast", "fast=", "best=cmd", "=cmd"} {
		if _, _, err := workers.ParseWorkerFlag(v); err == nil {
			t.Errorf("ParseWorkerFlag(%q) succeeded", v)
		}
	}
	if tier, cmd, err := workers.ParseWorkerFlag("good=my-agent --deep 'x y'"); err != nil || tier != "good" || cmd != "my-agent --deep 'x y'" {
		t.Errorf("ParseWorkerFlag = %q %q %v", tier, cmd, err)
	}
}

// TestResultsKeptUntilRead: a full roster makes room only by dropping workers
// whose results were read; unread results are never dropped.
func TestResultsKeptUntilRead(t *testing.T) {
	r := newRoster(t, workers.Config{Commands: map[string]string{workers.Fast: script(t, "echo.sh")}})
	var ids []string
	for i := 0; i < workers.MaxWorkers; i++ {
		id := spawn(t, r, "task "+strconv.Itoa(i), "", "")
		ids = append(ids, id)
	}
	// Let every worker end without reading any result (bounded: a worker
	// that never ends fails here, not at the suite's timeout).
	for ended, end := false, time.Now().Add(2*time.Minute); !ended; {
		ended = true
		for _, in := range r.List() {
			if in.Status == workers.Running {
				ended = false
			}
		}
		if !ended {
			if time.Now().After(end) {
				t.Fatalf("workers still running after 2m: %+v", r.List())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	if _, err := r.Spawn("one more", "", ""); err == nil || !strings.Contains(err.Error(), "unread results") {
		t.Fatalf("Spawn on a roster full of unread results = %v, want a refusal", err)
	}
	read := ids[5]
	if rep := wait(t, r, read); rep.Result != "label="+read+" tier=fast\ntask 5\n" {
		t.Errorf("result of %s = %q", read, rep.Result)
	}
	if _, err := r.Spawn("one more", "", ""); err != nil {
		t.Fatalf("Spawn after reading a result: %v", err)
	}
	list := r.List()
	if len(list) != workers.MaxWorkers {
		t.Errorf("%d workers listed, want %d", len(list), workers.MaxWorkers)
	}
	for _, in := range list {
		if in.ID == read {
			t.Errorf("the read worker %s was kept; an unread one was dropped instead", read)
		}
	}
}

// TestRosterHammer runs spawn, send, wait, kill and list from many goroutines
// at once (run it with -race).
func TestRosterHammer(t *testing.T) {
	r := newRoster(t, workers.Config{Commands: map[string]string{workers.Fast: script(t, "echo.sh"), workers.Good: script(t, "echo.sh")}})
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := 0; g < 6; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 8; i++ {
				id, err := r.Spawn("hammer", "h", []string{workers.Fast, workers.Good}[i%2])
				if err != nil {
					errs <- err
					return
				}
				switch i % 4 {
				case 0:
					if err := r.Send(id, "again"); err != nil {
						errs <- err
					}
				case 1:
					if _, err := r.Kill(id); err != nil {
						errs <- err
					}
				case 2:
					r.List()
				}
				if _, err := r.Wait(context.Background(), id, 0); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, in := range r.List() {
		if in.Status == workers.Running {
			t.Errorf("%s still running after Wait", in.ID)
		}
	}
}

// TestListKeepsLastResultWhileRerunning: vibe_list's "last result" is the
// previous run's while a rerun is under way, and says which run it is from.
func TestListKeepsLastResultWhileRerunning(t *testing.T) {
	gate := filepath.Join(t.TempDir(), "gate")
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := gateRoster(t, gate)
	id := spawn(t, r, "first pass", "passes", "")
	wait(t, r, id)
	if err := os.Remove(gate); err != nil {
		t.Fatal(err)
	}
	send(t, r, id, "second pass")
	in := r.List()[0]
	if in.Status != workers.Running || in.Runs != 2 || in.ResultRun != 1 || !strings.Contains(in.ResultTail, "first pass\nreleased") {
		t.Errorf("list during the rerun: %+v", in)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	rep := wait(t, r, id)
	if rep.ResultRun != 2 || !strings.Contains(rep.Result, "second pass") {
		t.Errorf("after the rerun: run %d result %q", rep.ResultRun, rep.Result)
	}
}
