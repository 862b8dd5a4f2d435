package jsproc_test

import "bufio"
import "context"
import "encoding/json"
import "errors"
import "os"
import "os/exec"
import "strconv"
import "strings"
import "syscall"
import "testing"
import "time"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/kernels"
import "github.com/tetherhq/tether/kernels/js"
import "github.com/tetherhq/tether/kernels/jsproc"

// envMode makes this test binary a kernel child ("child") or a parent that
// starts one, prints its pid and waits ("parent").
const envMode = "TETHER_JSPROC_TEST"

func TestMain(m *testing.M) {
	switch os.Getenv(envMode) {
	case "child":
		os.Exit(jsproc.Main())
	case "parent":
		os.Exit(parentMain())
	}
	os.Exit(m.Run())
}

var newKernel = jsproc.Constructor([]string{os.Args[0]}, []string{envMode + "=child"})

func start(t *testing.T, cfg kernels.Config) *jsproc.Kernel {
	t.Helper()
	k, err := newKernel(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	return k.(*jsproc.Kernel)
}

func run(t *testing.T, k kernels.Kernel, code string) *kernels.Result {
	t.Helper()
	r, err := k.Execute(context.Background(), kernels.Cell{Code: code})
	if err != nil {
		t.Fatalf("Execute(%q): %v", code, err)
	}
	return r
}

func value(t *testing.T, r *kernels.Result) string {
	t.Helper()
	if r.Error != nil {
		t.Fatalf("cell failed: %s: %s", r.Error.Name, r.Error.Message)
	}
	if r.Value == nil {
		return "<none>"
	}
	return r.Value.Text
}

// heapCapIsAWall: kernel a holds state and is in a cell (waiting on a bridge
// call, as a cell waits on a tool) while kernel b's cell grows its heap past
// the cap; b's cell is stopped, and a's cell ends as it would have, its state
// kept. It fails with the in-process kernel, whose cap measures the heap the
// two share: a's cell is stopped at the cap too.
func heapCapIsAWall(t *testing.T, newKernel kernels.Constructor) {
	const limit = 64 << 20
	bDone := make(chan struct{})
	entered := make(chan struct{})
	wait := func(ctx context.Context, name string, _ json.RawMessage) (kernels.ToolReply, error) {
		close(entered)
		<-bDone
		return kernels.ToolReply{Text: "waited"}, nil
	}
	a, err := newKernel(kernels.Config{MemoryLimit: limit, Tools: wait})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := newKernel(kernels.Config{MemoryLimit: limit})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if got := value(t, run(t, a, "var kept = 'state'; kept")); got != "'state'" {
		t.Fatalf("a: %s", got)
	}
	value(t, run(t, b, "1"))
	aRes := make(chan *kernels.Result, 1)
	go func() {
		r, err := a.Execute(context.Background(), kernels.Cell{Code: "const w = tool('wait'); let n = 0; for (let i = 0; i < 1e5; i++) n += i; [kept, w, n]"})
		if err != nil {
			t.Error(err)
		}
		aRes <- r
	}()
	<-entered
	rb := run(t, b, "var hoard = []; let s = 'x'; while (true) { s = s + s; hoard.push(s) }")
	close(bDone)
	if rb.Error == nil || rb.Error.Name != kernels.KindMemoryLimit {
		t.Fatalf("b's cell past the cap: %+v", rb.Error)
	}
	ra := <-aRes
	if ra.Error != nil || ra.StateLost {
		t.Fatalf("a's cell was hit by b's growth: %+v (state lost %v)", ra.Error, ra.StateLost)
	}
	if got := value(t, ra); got != "[ 'state', 'waited', 4999950000 ]" {
		t.Errorf("a's cell: %s", got)
	}
	if got := value(t, run(t, a, "kept")); got != "'state'" {
		t.Errorf("a's state after b's stop: %s", got)
	}
}

func TestHeapCapIsAWallBetweenKernels(t *testing.T) {
	heapCapIsAWall(t, newKernel)
}

// TestChildGoneAfterClose: the kernel's process runs while it has a runtime,
// a reset keeps it, and Close ends it.
func TestChildGoneAfterClose(t *testing.T) {
	k := start(t, kernels.Config{})
	if k.Pid() != 0 {
		t.Fatalf("a process before the first cell: %d", k.Pid())
	}
	value(t, run(t, k, "var x = 1"))
	pid := k.Pid()
	if pid == 0 || pid == os.Getpid() || !testenv.Alive(pid) {
		t.Fatalf("no process of its own after a cell: %d", pid)
	}
	if err := k.Reset(); err != nil {
		t.Fatal(err)
	}
	if r := run(t, k, "typeof x"); value(t, r) != "'undefined'" || !r.Fresh || r.StateLost || k.Pid() != pid {
		t.Errorf("after a reset: %+v fresh %v lost %v pid %d (was %d)", r.Value, r.Fresh, r.StateLost, k.Pid(), pid)
	}
	k.Close()
	if testenv.Alive(pid) {
		t.Errorf("process %d still runs after Close", pid)
	}
	if _, err := k.Execute(context.Background(), kernels.Cell{Code: "1"}); err != js.ErrClosed {
		t.Errorf("Execute after Close: %v", err)
	}
}

// TestChildDeathLosesState: a child killed during a cell is a KernelDied
// error saying the state is lost, and the next cell starts a fresh one and
// says why.
func TestChildDeathLosesState(t *testing.T) {
	var pid int
	k := start(t, kernels.Config{Tools: func(ctx context.Context, name string, _ json.RawMessage) (kernels.ToolReply, error) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		<-ctx.Done() // the cell's result ends the call
		return kernels.ToolReply{}, ctx.Err()
	}})
	value(t, run(t, k, "var x = 1"))
	pid = k.Pid()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for testenv.Alive(pid) {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	r, err := k.Execute(ctx, kernels.Cell{Code: "tool('die')"})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(r.Error, kernels.ErrKernelDied) || !r.StateLost || !strings.Contains(r.Error.Message, "signal: killed") || !strings.Contains(r.Error.Message, "state is lost") {
		t.Fatalf("a killed child: %+v lost %v", r.Error, r.StateLost)
	}
	r = run(t, k, "typeof x")
	if value(t, r) != "'undefined'" || !r.Fresh || !r.StateLost || len(r.Notices) != 1 || !strings.Contains(r.Notices[0], "died") {
		t.Errorf("next cell: %+v fresh %v notices %q", r.Value, r.Fresh, r.Notices)
	}
	if k.Pid() == pid || k.Pid() == 0 {
		t.Errorf("the next cell runs in process %d (the dead one was %d)", k.Pid(), pid)
	}
}

// TestChildGoneAfterParentSIGKILL: a parent killed with SIGKILL takes its
// kernel's process with it (internal/proc's parent-death signal).
func TestChildGoneAfterParentSIGKILL(t *testing.T) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), envMode+"=parent")
	out := testenv.StartReading(t, cmd)
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	pid, perr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || perr != nil {
		t.Fatalf("the parent said %q: %v %v", line, err, perr)
	}
	if !testenv.Alive(pid) {
		t.Fatalf("the kernel process %d is not running", pid)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	for i := 0; testenv.Alive(pid); i++ {
		if i == 200 {
			t.Fatalf("the kernel process %d outlived its parent's SIGKILL", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// parentMain starts a kernel, prints its process's pid and waits to be
// killed.
func parentMain() int {
	k, err := newKernel(kernels.Config{})
	if err == nil {
		_, err = k.Execute(context.Background(), kernels.Cell{Code: "var x = 1"})
	}
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1
	}
	os.Stdout.WriteString(strconv.Itoa(k.(*jsproc.Kernel).Pid()) + "\n")
	select {}
}

// TestBigResultsRefusedUpFront: join, JSON.stringify, String concat and
// repeat whose result would pass the heap cap are refused before they build
// it (one native call that goja cannot interrupt): a.concat(a).join(”) over
// 200 references to one 1 MiB string would build 400 MiB against a cap of
// 64 MiB. Each is a RangeError saying so, the kernel's peak resident memory
// stays far below the result's size, and its state is kept.
func TestBigResultsRefusedUpFront(t *testing.T) {
	k := start(t, kernels.Config{MemoryLimit: 64 << 20})
	value(t, run(t, k, "var kept = 'state'; const s = 'x'.repeat(1 << 20); var a = []; for (let i = 0; i < 200; i++) a.push(s); a.length"))
	for _, c := range []struct{ code, what string }{
		{"a.concat(a).join('')", "join()"},
		{"a.join(',')", "join()"},
		{"JSON.stringify(a)", "stringify()"},
		{"JSON.stringify({list: a})", "stringify()"},
		{"''.concat(...a)", "concat()"},
		{"s.repeat(300)", "repeat"},
	} {
		r := run(t, k, c.code)
		if r.Error == nil || r.Error.Name != "RangeError" || !strings.Contains(r.Error.Message, c.what) || !strings.Contains(r.Error.Message, "memory cap") {
			t.Errorf("%s: %+v", c.code, r.Error)
		}
		if r.StateLost {
			t.Fatalf("%s: the kernel lost its state", c.code)
		}
	}
	if got := value(t, run(t, k, "[kept, a.length, a.slice(0, 3).join('').length]")); got != "[ 'state', 200, 3145728 ]" {
		t.Errorf("after the refusals: %s", got)
	}
	status, err := os.ReadFile("/proc/" + strconv.Itoa(k.Pid()) + "/status")
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	var peakKB int64
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			peakKB, _ = strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	if peakKB<<10 > 200<<20 {
		t.Errorf("the kernel's peak resident memory was %d MiB: a result of 400 MiB was built", peakKB>>10)
	}
}

// TestCallTimeoutReachesChild: a cell stopped by the caller's per-call
// timeout (a kernels.CallTimeout cause) is reported as stopped by that
// timeout, not as a caller that gave up, across the process boundary; the
// child's runtime keeps its state.
func TestCallTimeoutReachesChild(t *testing.T) {
	k := start(t, kernels.Config{})
	value(t, run(t, k, "globalThis.kept = 7"))
	ctx, cancel := context.WithTimeoutCause(context.Background(), time.Second, &kernels.CallTimeout{After: time.Second})
	defer cancel()
	r, err := k.Execute(ctx, kernels.Cell{Code: "while (true) {}"})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(r.Error, kernels.ErrInterrupted) || !strings.Contains(r.Error.Message, "its per-call timeout of 1s passed") || !strings.Contains(r.Error.Message, "state is kept") {
		t.Fatalf("cell past its timeout: %+v", r.Error)
	}
	if got := value(t, run(t, k, "kept * 6")); got != "42" {
		t.Errorf("state after the timeout: %s", got)
	}
}

// TestWholeOutputCrossesToParent: output past the stream bound comes back
// cut in Text and whole in Full from the child process.
func TestWholeOutputCrossesToParent(t *testing.T) {
	k := start(t, kernels.Config{})
	r := run(t, k, "for (let i = 0; i < 100000; i++) console.log('line ' + String(i).padStart(6, '0') + ' ' + 'x'.repeat(40))")
	if r.Error != nil {
		t.Fatalf("cell failed: %+v", r.Error)
	}
	const total = 100000 * 53
	if r.Stdout.Cut == 0 || len(r.Stdout.Text) > 100<<10 {
		t.Errorf("stdout not cut: %d bytes shown, cut %d", len(r.Stdout.Text), r.Stdout.Cut)
	}
	if len(r.Stdout.Full) != total || !strings.HasSuffix(r.Stdout.Full, "line 099999 "+strings.Repeat("x", 40)+"\n") {
		t.Errorf("whole stdout: %d bytes, want %d", len(r.Stdout.Full), total)
	}
}
