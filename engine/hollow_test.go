package engine

import "bytes"
import "context"
import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetratelabs/wazero"

import "github.com/tetherhq/tether/grammars"

// hollowSrc is a Go file whose tree every variant of the engine must agree on.
const hollowSrc = "package p\n\nfunc f(a int) int {\n\tif a > 1 {\n\t\treturn a * f(a-1)\n\t}\n\treturn 1\n}\n"

// parsed parses hollowSrc with e and says whether e's Go module is a hollow
// copy.
func parsed(t *testing.T, e *Engine) (string, bool) {
	t.Helper()
	l := mustLang("go")
	tree, err := e.Parse(context.Background(), l, []byte(hollowSrc))
	if err != nil {
		t.Fatal(err)
	}
	e.mu.Lock()
	m := e.modules[l.Key()]
	e.mu.Unlock()
	return tree.String(), m.hollow
}

// hollowEntry is the cache entry of Go's hollow copy under a cache dir.
func hollowEntry(t *testing.T, e *Engine) (hollowFile, entry, fullEntry string) {
	t.Helper()
	l := mustLang("go")
	full, err := grammars.Wasm(l)
	if err != nil {
		t.Fatal(err)
	}
	hollow, err := os.ReadFile(e.hollow.file(l))
	if err != nil {
		t.Fatalf("no hollow copy after a full compile: %v", err)
	}
	return e.hollow.file(l), filepath.Join(e.hollow.entries, e.hollow.key(hollow)), filepath.Join(e.hollow.entries, e.hollow.key(full))
}

// TestHollowLoad: the first engine on a cache compiles Go's module in full
// and links its hollow copy's cache entry to the full one's; the next
// loads the hollow copy and parses exactly as the full module and an
// engine without a cache do. With hard cancel (another key) the same.
func TestHollowLoad(t *testing.T) {
	requireBuilt(t, "go")
	want, _ := parsed(t, newTestEngine(t, NewConfig().WithoutCompilationCache()))
	for _, hard := range []bool{false, true} {
		dir := t.TempDir()
		cfg := NewConfig().WithCompilationCacheDir(dir).WithHardCancel(hard)
		first := newTestEngine(t, cfg)
		if got, hollow := parsed(t, first); got != want || hollow {
			t.Fatalf("hard cancel %v, first engine: want the full module's tree, got hollow=%v\n%s", hard, hollow, got)
		}
		_, entry, fullEntry := hollowEntry(t, first)
		a, errA := os.Stat(entry)
		b, errB := os.Stat(fullEntry)
		if errA != nil || errB != nil || !os.SameFile(a, b) || links(a) < 2 {
			t.Fatalf("hard cancel %v: want the hollow entry linked to the full one (our keys are wazero's): %v %v", hard, errA, errB)
		}
		second := newTestEngine(t, cfg)
		if got, hollow := parsed(t, second); got != want || !hollow {
			t.Fatalf("hard cancel %v, second engine: want the hollow copy and the same tree, got hollow=%v\n%s", hard, hollow, got)
		}
	}
}

// TestHollowEntryNotALink: a hollow copy's entry that wazero wrote itself
// (compiled from the hollow bodies, which only trap) is never used: the
// engine compiles the full module, parses right, and links the entry
// again; an entry or hollow copy that is missing costs only the speed.
func TestHollowEntryNotALink(t *testing.T) {
	requireBuilt(t, "go")
	want, _ := parsed(t, newTestEngine(t, NewConfig().WithoutCompilationCache()))
	dir := t.TempDir()
	cfg := NewConfig().WithCompilationCacheDir(dir)
	first := newTestEngine(t, cfg)
	parsed(t, first)
	file, entry, _ := hollowEntry(t, first)

	// wazero compiles the hollow bodies when their entry is gone, and
	// writes them as the entry.
	if err := os.Remove(entry); err != nil {
		t.Fatal(err)
	}
	hollow, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cache, err := wazero.NewCompilationCacheWithDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCompilationCache(cache))
	if _, err := r.CompileModule(ctx, hollow); err != nil {
		t.Fatalf("the hollow copy does not compile: %v", err)
	}
	r.Close(ctx)
	st, err := os.Stat(entry)
	if err != nil || links(st) != 1 {
		t.Fatalf("want wazero's own entry for the hollow bodies: %v", err)
	}

	second := newTestEngine(t, cfg)
	if got, hollow := parsed(t, second); got != want || hollow {
		t.Fatalf("an entry that is not a link: want the full module's tree, got hollow=%v\n%s", hollow, got)
	}
	if st, err := os.Stat(entry); err != nil || links(st) < 2 {
		t.Fatalf("want the entry linked again after the full compile: %v", err)
	}
	if got, hollow := parsed(t, newTestEngine(t, cfg)); got != want || !hollow {
		t.Fatalf("after the link is made again: want the hollow copy, got hollow=%v\n%s", hollow, got)
	}

	for _, gone := range []string{entry, file} {
		if err := os.Remove(gone); err != nil {
			t.Fatal(err)
		}
		if got, hollow := parsed(t, newTestEngine(t, cfg)); got != want || hollow {
			t.Fatalf("without %s: want the full module, got hollow=%v", filepath.Base(gone), hollow)
		}
		if got, hollow := parsed(t, newTestEngine(t, cfg)); got != want || !hollow {
			t.Fatalf("after %s was made again: want the hollow copy, got hollow=%v", filepath.Base(gone), hollow)
		}
	}
}

// TestHollowOf: the hollow copy keeps every section but the code, whose
// bodies trap, and ends with the full module's sha256; a module of another
// full module has another copy, and garbage is refused.
func TestHollowOf(t *testing.T) {
	requireBuilt(t, "go")
	l := mustLang("go")
	full, err := grammars.Wasm(l)
	if err != nil {
		t.Fatal(err)
	}
	hollow, err := hollowOf(full, fullSum(l))
	if err != nil {
		t.Fatal(err)
	}
	if len(hollow) >= len(full) || !bytes.HasSuffix(hollow, fullSum(l)) {
		t.Fatalf("hollow copy: %d bytes of a %d-byte module", len(hollow), len(full))
	}
	other := *l
	mod := *l.Module
	mod.SHA256 = strings.Repeat("ab", 32)
	other.Module = &mod
	if again, _ := hollowOf(full, fullSum(&other)); bytes.Equal(again, hollow) {
		t.Fatal("two full modules with one hollow copy")
	}
	ctx := context.Background()
	r := wazero.NewRuntime(ctx)
	defer r.Close(ctx)
	cm, err := r.CompileModule(ctx, hollow)
	if err != nil {
		t.Fatalf("wazero refuses the hollow copy: %v", err)
	}
	if err := checkExports(cm); err != nil {
		t.Fatalf("the hollow copy lost exports: %v", err)
	}
	// Compiled from its own bodies it runs nothing: its start traps.
	if err := hostModules(ctx, r); err != nil {
		t.Fatal(err)
	}
	if _, err := r.InstantiateModule(ctx, cm, sandbox()); err == nil || !strings.Contains(err.Error(), "unreachable") {
		t.Fatalf("the hollow bodies: want a trap, got %v", err)
	}
	if _, err := hollowOf([]byte("\x00asm\x01\x00\x00\x00\x0a\xff"), nil); err == nil {
		t.Fatal("a section past the end: want an error")
	}
	if _, err := hollowOf([]byte("not wasm"), nil); err == nil {
		t.Fatal("not wasm: want an error")
	}
}
