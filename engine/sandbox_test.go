package engine

import "bytes"
import "context"
import "errors"
import "os"
import "os/exec"
import "path/filepath"
import "strings"
import "testing"
import "time"

import "github.com/tetratelabs/wazero"

import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/internal/testenv"

// requireBuilt fails the test when a grammar module is not embedded (they
// are committed: only a broken commit lacks one).
func requireBuilt(t *testing.T, ids ...string) {
	t.Helper()
	for _, id := range ids {
		if !grammars.Built(id) {
			t.Fatalf("grammar module %s is not embedded; run `%s`", id, grammars.UpdateCommand)
		}
	}
}

// mustLang returns the shipped language named name.
func mustLang(name string) *grammars.Language {
	l, ok := grammars.Lookup(name)
	if !ok {
		panic("no language " + name)
	}
	return l
}

func newTestEngine(t *testing.T, cfg Config) *Engine {
	t.Helper()
	e, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close(context.Background()) })
	return e
}

// bigGo returns a valid Go file of at least n bytes.
func bigGo(n int) []byte {
	var b bytes.Buffer
	b.WriteString("package big\n\n")
	for i := 0; b.Len() < n; i++ {
		b.WriteString("func f(a, b int) (int, error) {\n\tif a > b {\n\t\treturn a - b, nil\n\t}\n\tx := []int{a, b, a + b}\n\treturn x[0] * x[1], nil\n}\n\n")
	}
	return b.Bytes()
}

// testModule compiles testdata/NAME.c to a wasm32-wasi reactor, then for
// wazero in an engine without a compilation cache.
func testModule(t *testing.T, name string) (*Engine, wazero.CompiledModule) {
	t.Helper()
	clang := testenv.RequireBinary(t, "clang-16")
	wasmPath := filepath.Join(t.TempDir(), name+".wasm")
	out, err := exec.Command(clang, "--target=wasm32-wasi", "-mexec-model=reactor", "-O1",
		"-o", wasmPath, filepath.Join("testdata", name+".c")).CombinedOutput()
	if err != nil {
		t.Fatalf("clang: %v\n%s", err, out)
	}
	wasm, err := os.ReadFile(wasmPath)
	if err != nil {
		t.Fatal(err)
	}
	e := newTestEngine(t, NewConfig().WithoutCompilationCache())
	cm, err := e.runtime.CompileModule(context.Background(), wasm)
	if err != nil {
		t.Fatal(err)
	}
	return e, cm
}

// TestSandboxNoHostAccess: a module that tries to open, create and list
// host files and read the environment imports WASI functions the engine
// does not have, so it is refused before any of its code runs, by the
// engine's check and by instantiation, with exactly the configuration
// grammar instances get.
func TestSandboxNoHostAccess(t *testing.T) {
	e, cm := testModule(t, "escape")
	ctx := context.Background()
	if err := checkExports(cm); !errors.Is(err, ErrBadModule) {
		t.Errorf("checkExports on a foreign module = %v", err)
	}
	if mod, err := e.runtime.InstantiateModule(ctx, cm, sandbox()); err == nil {
		mod.Close(ctx)
		t.Fatal("a module importing path_open, fd_readdir and environ_get was instantiated")
	} else if !strings.Contains(err.Error(), wasiModule) {
		t.Fatalf("want the missing WASI import named, got %v", err)
	}
}

// TestSandboxWASI: the WASI a grammar may import, as a module sees it:
// stdout and stderr take writes and drop them, other descriptors (stdin
// included) are closed, nothing seeks, the monotonic clock moves 1 ms a
// read and the wall clock stands at 2022-01-01.
func TestSandboxWASI(t *testing.T) {
	e, cm := testModule(t, "stdio")
	ctx := context.Background()
	for _, imp := range cm.ImportedFunctions() {
		if mod, name, _ := imp.Import(); mod != wasiModule || !wasiFuncs[name] {
			t.Fatalf("the test module imports %s.%s, outside what grammars may", mod, name)
		}
	}
	mod, err := e.runtime.InstantiateModule(ctx, cm, sandbox())
	if err != nil {
		t.Fatal(err)
	}
	defer mod.Close(ctx)
	call := func(fn string, args ...uint64) int64 {
		t.Helper()
		r, err := mod.ExportedFunction(fn).Call(ctx, args...)
		if err != nil {
			t.Fatalf("%s%v: %v", fn, args, err)
		}
		return int64(int32(r[0]))
	}
	const ebadf, espipe = -8, -70
	for fd, want := range map[uint64]int64{0: ebadf, 1: 6, 2: 6, 3: ebadf, 99: ebadf} {
		if got := call("say", fd); got != want {
			t.Errorf("write to fd %d: got %d, want %d", fd, got, want)
		}
	}
	if got := call("rewind_fd", 1); got != espipe {
		t.Errorf("lseek on stdout: got %d, want ESPIPE", got)
	}
	if got := call("rewind_fd", 5); got != ebadf {
		t.Errorf("lseek on fd 5: got %d, want EBADF", got)
	}
	if got := call("shut", 7); got != ebadf {
		t.Errorf("close fd 7: got %d, want EBADF", got)
	}
	r, err := mod.ExportedFunction("mono").Call(ctx)
	if err != nil || int64(r[0]) != 1e6 {
		t.Errorf("monotonic clock: moved %d ns between reads (%v), want 1 ms", int64(r[0]), err)
	}
	r, err = mod.ExportedFunction("wall").Call(ctx)
	if err != nil || int64(r[0]) != 1640995200 {
		t.Errorf("wall clock: %d (%v), want 1640995200", int64(r[0]), err)
	}
}

// TestGrammarImports checks every embedded grammar module asks the host
// for nothing beyond the WASI subset and the cancellation probe.
func TestGrammarImports(t *testing.T) {
	requireBuilt(t, "go")
	e := newTestEngine(t, NewConfig())
	for _, g := range grammars.All() {
		l := &g
		if !grammars.Built(l.ID) {
			continue
		}
		m, err := e.module(l)
		if err != nil {
			t.Fatalf("%s: %v", l.ID, err)
		}
		for _, imp := range m.compiled.ImportedFunctions() {
			if mod, name, _ := imp.Import(); !(mod == "tether" && name == "should_stop") && !(mod == wasiModule && wasiFuncs[name]) {
				t.Errorf("%s imports %s.%s", l.ID, mod, name)
			}
		}
	}
}

// TestDeadline: a parse past its deadline returns the context's error, and the
// same pool (one instance) keeps working afterwards. Both the cooperative
// stop and wazero's hard close are covered.
func TestDeadline(t *testing.T) {
	requireBuilt(t, "go")
	src := bigGo(3 << 20)
	small := []byte("package main\n\nfunc main() {}\n")
	for _, hard := range []bool{false, true} {
		name := "cooperative"
		if hard {
			name = "hard"
		}
		t.Run(name, func(t *testing.T) {
			e := newTestEngine(t, NewConfig().WithHardCancel(hard))
			p := e.NewParser(Limits{Instances: 1})
			defer p.Close(context.Background())
			// Warm up so the deadline hits the parse, not compilation.
			if _, err := p.Parse(context.Background(), mustLang("go"), small); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 3; i++ {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
				_, err := p.Parse(ctx, mustLang("go"), src)
				cancel()
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("parse past deadline: %v", err)
				}
				tree, err := p.Parse(context.Background(), mustLang("go"), small)
				if err != nil || tree.HasError() {
					t.Fatalf("parse after deadline: %v", err)
				}
			}
			// The tenant's own Timeout works the same way.
			pt := e.NewParser(Limits{Instances: 1, Timeout: time.Millisecond})
			defer pt.Close(context.Background())
			if _, err := pt.Parse(context.Background(), mustLang("go"), src); !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("parse past Limits.Timeout: %v", err)
			}
		})
	}
}

// TestMemoryLimit: an input that needs more than the tenant's memory cap fails
// with ErrMemoryLimit, the instance is replaced and the parser keeps working;
// a tenant with the default cap parses the same input.
func TestMemoryLimit(t *testing.T) {
	requireBuilt(t, "go")
	ctx := context.Background()
	e := newTestEngine(t, NewConfig().WithMemoryLimit(512<<20))
	src := bigGo(1 << 20)
	p := e.NewParser(Limits{Instances: 1, Memory: 8 << 20})
	defer p.Close(ctx)
	for i := 0; i < 2; i++ {
		_, err := p.Parse(ctx, mustLang("go"), src)
		if !errors.Is(err, ErrMemoryLimit) {
			t.Fatalf("parse over the cap: %v", err)
		}
		tree, err := p.Parse(ctx, mustLang("go"), []byte("package main\n"))
		if err != nil || tree.HasError() {
			t.Fatalf("parse after hitting the cap: %v", err)
		}
	}
	big := e.NewParser(Limits{Instances: 1})
	defer big.Close(ctx)
	tree, err := big.Parse(ctx, mustLang("go"), src)
	if err != nil {
		t.Fatalf("parse under the engine cap: %v", err)
	}
	if tree.HasError() {
		t.Fatal("big source has errors")
	}
	// The engine-wide cap (wazero's memory limit) holds without a tenant cap.
	tiny := newTestEngine(t, NewConfig().WithMemoryLimit(8<<20))
	if _, err := tiny.Parse(ctx, mustLang("go"), src); !errors.Is(err, ErrMemoryLimit) {
		t.Fatalf("parse over the engine cap: %v", err)
	}
	if _, err := tiny.Parse(ctx, mustLang("go"), []byte("package main\n")); err != nil {
		t.Fatalf("parse after the engine cap: %v", err)
	}
}

// TestLargeParseDoesNotPinMemory: an instance whose linear memory grew past
// retainMemory for one large source (a 9 MB bundle takes 384 MiB) is dropped
// after the parse instead of kept idle, so a long-running server does not hold
// that memory for good; small parses keep reusing their instance.
func TestLargeParseDoesNotPinMemory(t *testing.T) {
	requireBuilt(t, "go")
	ctx := context.Background()
	e := newTestEngine(t, NewConfig())
	p := e.NewParser(Limits{Instances: 1})
	defer p.Close(ctx)
	idle := func() (n int, largest uint32) {
		p.mu.Lock()
		pl := p.pools["go"]
		p.mu.Unlock()
		pl.mu.Lock()
		defer pl.mu.Unlock()
		for _, inst := range pl.idle {
			largest = max(largest, inst.mem.Size())
		}
		return len(pl.idle), largest
	}
	if _, err := p.Parse(ctx, mustLang("go"), []byte("package main\n")); err != nil {
		t.Fatal(err)
	}
	if n, size := idle(); n != 1 || size > retainMemory {
		t.Fatalf("after a small parse: %d idle instances, largest %d bytes; want 1 kept", n, size)
	}
	tree, err := p.Parse(ctx, mustLang("go"), bigGo(1<<20))
	if err != nil || tree.HasError() {
		t.Fatalf("large parse: %v", err)
	}
	if n, size := idle(); size > retainMemory {
		t.Errorf("after a large parse: %d idle instances, largest %d MiB; want none over %d MiB", n, size>>20, retainMemory>>20)
	}
	if _, err := p.Parse(ctx, mustLang("go"), []byte("package main\n")); err != nil {
		t.Fatalf("parse after dropping the large instance: %v", err)
	}
	_, small := idle()

	// Limits.Retain lowers the bar: a source that grows the instance past
	// it, though far below retainMemory, is dropped too (tether ast-grep)
	low := e.NewParser(Limits{Instances: 1, Retain: uint64(small)})
	defer low.Close(ctx)
	for _, q := range []*Parser{p, low} {
		if _, err := q.Parse(ctx, mustLang("go"), bigGo(64<<10)); err != nil {
			t.Fatal(err)
		}
	}
	if n, size := idle(); n != 1 || size <= small {
		t.Fatalf("default Retain after a 64 KiB parse: %d idle instances, largest %d bytes; want 1 kept, grown past %d", n, size, small)
	}
	low.mu.Lock()
	pl := low.pools["go"]
	low.mu.Unlock()
	pl.mu.Lock()
	n := len(pl.idle)
	pl.mu.Unlock()
	if n != 0 {
		t.Errorf("Retain %d bytes after a 64 KiB parse: %d idle instances, want the grown one dropped", small, n)
	}
}
