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

// TestSandboxNoHostAccess instantiates a module that tries to open, create and
// list host files and read the environment, with exactly the configuration
// grammar instances get, and checks every attempt fails.
func TestSandboxNoHostAccess(t *testing.T) {
	clang := testenv.RequireBinary(t, "clang-16")
	dir := t.TempDir()
	wasmPath := filepath.Join(dir, "escape.wasm")
	out, err := exec.Command(clang, "--target=wasm32-wasi", "-mexec-model=reactor", "-O1",
		"-o", wasmPath, filepath.Join("testdata", "escape.c")).CombinedOutput()
	if err != nil {
		t.Fatalf("clang: %v\n%s", err, out)
	}
	wasm, err := os.ReadFile(wasmPath)
	if err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(dir, "secret.txt")
	if err := os.WriteFile(secret, []byte("S"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TETHER_SANDBOX_PROBE", "visible")

	ctx := context.Background()
	e := newTestEngine(t, NewConfig().WithoutCompilationCache())
	cm, err := e.runtime.CompileModule(ctx, wasm)
	if err != nil {
		t.Fatal(err)
	}
	// It is not a grammar module: the engine would refuse it as one.
	if err := checkExports(cm); !errors.Is(err, ErrBadModule) || !strings.Contains(err.Error(), "tether_parse") {
		t.Errorf("checkExports on a foreign module = %v", err)
	}
	mod, err := e.runtime.InstantiateModule(ctx, cm, sandbox())
	if err != nil {
		t.Fatal(err)
	}
	defer mod.Close(ctx)
	call := func(fn, path string) int32 {
		t.Helper()
		r, err := mod.ExportedFunction("path").Call(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !mod.Memory().Write(uint32(r[0]), append([]byte(path), 0)) {
			t.Fatal("write path")
		}
		r, err = mod.ExportedFunction(fn).Call(ctx)
		if err != nil {
			t.Fatalf("%s(%s): %v", fn, path, err)
		}
		return int32(r[0])
	}
	rel, _ := filepath.Rel("/", secret)
	for _, p := range []string{secret, "/etc/passwd", rel, "../" + rel, "./secret.txt", "/proc/self/environ"} {
		if got := call("try_open", p); got >= 0 {
			t.Errorf("module opened host file %s (read byte %d)", p, got)
		}
	}
	created := filepath.Join(dir, "created.txt")
	if got := call("try_create", created); got >= 0 {
		t.Errorf("module created %s", created)
	}
	if _, err := os.Stat(created); err == nil {
		t.Errorf("%s exists on the host", created)
	}
	for _, p := range []string{"/", ".", dir} {
		if got := call("try_list", p); got >= 0 {
			t.Errorf("module listed %s: %d entries", p, got)
		}
	}
	r, err := mod.ExportedFunction("env_count").Call(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r[0] != 0 {
		t.Errorf("module sees %d environment variables", r[0])
	}
}

// TestGrammarImports checks a grammar module asks the host for nothing beyond
// WASI (with nothing mounted) and the cancellation probe.
func TestGrammarImports(t *testing.T) {
	requireBuilt(t, "go")
	e := newTestEngine(t, NewConfig())
	m, err := e.module(mustLang("go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range m.compiled.ImportedFunctions() {
		mod, name, _ := imp.Import()
		switch {
		case mod == "tether" && name == "should_stop":
		case mod == "wasi_snapshot_preview1":
			if strings.HasPrefix(name, "sock_") {
				t.Errorf("grammar imports %s.%s", mod, name)
			}
		default:
			t.Errorf("grammar imports %s.%s", mod, name)
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
