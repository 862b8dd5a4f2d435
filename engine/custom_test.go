package engine_test

import "context"
import "errors"
import "fmt"
import "os"
import "path/filepath"
import "strings"
import "sync"
import "testing"
import "time"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/engine/enginetest"
import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/internal/testenv"

const propertiesSrc = "# db\ndb.url = jdbc:x\ndb.password: hunter2\n"

// TestCustomLanguage: a grammar's web-tree-sitter module (tree-sitter build
// --wasm, as npm packages ship it) parses in the engine's sandbox; the
// bash module bash-language-server ships gives the trees the shipped bash
// module gives; two modules under one name never share a module.
func TestCustomLanguage(t *testing.T) {
	ctx := context.Background()
	e := newEngine(t, engine.NewConfig())
	props := enginetest.Properties(t, "properties")
	tr, err := e.Parse(ctx, props, []byte(propertiesSrc))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tr.Root().String(), "(file (comment) (property (key) (value)) (property (key) (value)))"; got != want {
		t.Errorf("properties tree = %s, want %s", got, want)
	}
	if tr.Language() != "properties" {
		t.Errorf("Language() = %q", tr.Language())
	}

	bashWeb := bashWebModule(t, "websh")
	bash := enginetest.Language(t, "bash")
	for _, src := range []string{
		"if [ -f x ]; then echo \"$HOME\"; fi\n",
		"for i in 1 2; do echo $i | tr a b; done\n",
		"f() { local x=${1:-y}; cat <<EOF\n$x\nEOF\n}\n",
		"case $1 in a) echo a;; *) exit 1;; esac\n",
	} {
		want, err := e.Parse(ctx, bash, []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.Parse(ctx, bashWeb, []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if got.Root().String() != want.Root().String() {
			t.Errorf("%q: web module\n%s\nshipped module\n%s", src, got.Root(), want.Root())
		}
	}

	// one name, two modules: each parses with its own grammar
	a := enginetest.Properties(t, "conf")
	b := bashWebModule(t, "conf")
	for _, c := range []struct {
		l    *grammars.Language
		root string
	}{{a, "file"}, {b, "program"}, {a, "file"}} {
		tr, err := e.Parse(ctx, c.l, []byte("a=b\n"))
		if err != nil {
			t.Fatal(err)
		}
		if tr.Root().Kind() != c.root {
			t.Errorf("conf (%s): root %s, want %s", c.l.Key(), tr.Root().Kind(), c.root)
		}
	}
	if a.Key() == b.Key() {
		t.Errorf("two modules share the key %s", a.Key())
	}
}

// bashWebModule is the tree-sitter-bash.wasm that bash-language-server (a
// pinned npm peer) ships for web-tree-sitter, as a custom language.
func bashWebModule(t *testing.T, name string) *grammars.Language {
	t.Helper()
	mod := filepath.Join(testenv.RepoRoot(), ".deps", "npm", "node_modules", "bash-language-server", "tree-sitter-bash.wasm")
	b, err := os.ReadFile(mod)
	if err != nil {
		testenv.Missing(t, "bash-language-server (npm)")
	}
	l, err := grammars.NewCustom(name, b, grammars.CustomSpec{Source: mod, Extensions: []string{"websh"}, Symbol: "tree_sitter_bash"})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func newEngine(t *testing.T, cfg engine.Config) *engine.Engine {
	t.Helper()
	e, err := engine.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close(context.Background()) })
	return e
}

// Bodies that replace a grammar's functions in the hostile modules: each
// is valid for any signature (it never returns).
var (
	bodyTrap = []byte{0, 0x00, 0x0b}                            // unreachable
	bodyLoop = []byte{0, 0x03, 0x40, 0x0c, 0, 0x0b, 0x00, 0x0b} // loop br 0 end; unreachable
	// loop: memory.grow 16 pages until it fails; then unreachable
	bodyGrow = []byte{0, 0x03, 0x40, 0x41, 0x10, 0x40, 0, 0x41, 0x7f, 0x47, 0x0d, 0, 0x0b, 0x00, 0x0b}
)

// TestCustomLanguageHostile: a custom grammar that traps, loops or grows
// its memory without end, while parsing or while loading, is cut off with
// an error that names it and says what to do; the engine and the tenant
// go on parsing, the shipped languages and the good module alike. The
// hostile modules are tree-sitter-properties' module with its lexer (or
// its language function) replaced.
func TestCustomLanguageHostile(t *testing.T) {
	ctx := context.Background()
	e := newEngine(t, engine.NewConfig().WithMemoryLimit(256<<20))
	p := e.NewParser(engine.Limits{Memory: 64 << 20, CustomTimeout: 2 * time.Second, Instances: 1})
	defer p.Close(ctx)
	_, good := enginetest.PropertiesModule(t)
	for _, c := range []struct {
		name   string
		body   []byte
		load   bool // replace tree_sitter_properties, not the lexer
		is     error
		advice string
	}{
		{"trap", bodyTrap, false, engine.ErrGrammarTrapped, "rebuild it with `tree-sitter build --wasm`"},
		{"loop", bodyLoop, false, engine.ErrCustomTimeout, "ran past 2s while parsing"},
		{"grow", bodyGrow, false, engine.ErrMemoryLimit, "grew its memory past the cap of 64 MiB"},
		{"trap at load", bodyTrap, true, engine.ErrGrammarTrapped, "while loading"},
		{"loop at load", bodyLoop, true, engine.ErrCustomTimeout, "while loading"},
	} {
		t.Run(c.name, func(t *testing.T) {
			bad := patchSide(t, good, c.body, c.load)
			l, err := grammars.NewCustom("evil", bad, grammars.CustomSpec{Source: "evil.wasm", Extensions: []string{"evil"}, Symbol: "tree_sitter_properties"})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, err = p.Parse(ctx, l, []byte(propertiesSrc))
			var ce *engine.CustomError
			if !errors.Is(err, c.is) || !errors.As(err, &ce) || ce.Lang != "evil" || ce.SHA256 != grammars.SHA256(bad) {
				t.Fatalf("Parse = %v, want a CustomError for evil wrapping %v", err, c.is)
			}
			for _, s := range []string{"custom language evil (evil.wasm, sha256 " + grammars.SHA256(bad)[:12], c.advice} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q lacks %q", err, s)
				}
			}
			t.Log(err)
			if d := time.Since(start); d > time.Minute {
				t.Errorf("cut off after %v", d)
			}
			// the tenant goes on: the good module, a shipped language
			ok := enginetest.Properties(t, "properties")
			if _, err := p.Parse(ctx, ok, []byte(propertiesSrc)); err != nil {
				t.Errorf("good module after %s: %v", c.name, err)
			}
			if _, err := p.Parse(ctx, enginetest.Language(t, "go"), []byte("package p\n")); err != nil {
				t.Errorf("go after %s: %v", c.name, err)
			}
		})
	}
}

// TestCustomLanguageBadModules: a module the host cannot link is refused
// before it runs, with what is wrong and what to give instead.
func TestCustomLanguageBadModules(t *testing.T) {
	ctx := context.Background()
	e := newEngine(t, engine.NewConfig())
	_, good := enginetest.PropertiesModule(t)
	goWasm, err := grammars.Wasm(enginetest.Language(t, "go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, symbol string
		wasm         []byte
		want         string
	}{
		{"not wasm", "", []byte("#!/bin/sh\n"), "not a WebAssembly module"},
		{"a shipped module", "tree_sitter_go", goWasm, "not a side module (no dylink.0 section first)"},
		{"wrong symbol", "tree_sitter_props", good, "exports no function tree_sitter_props"},
		{"GOT import", "", sideWithImport("GOT.func", "tree_sitter_x_scan", 3), "global offset table"},
		{"unknown function", "", sideWithImport("env", "fopen", 0), "imports env.fopen, which the host does not provide"},
		{"other module", "", sideWithImport("wasi_snapshot_preview1", "fd_write", 0), "imports from \"env\" only"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sym := c.symbol
			if sym == "" {
				sym = "tree_sitter_properties"
			}
			l, err := grammars.NewCustom("bad", c.wasm, grammars.CustomSpec{Source: "bad.wasm", Extensions: []string{"bad"}, Symbol: sym})
			if err != nil {
				t.Fatal(err)
			}
			_, err = e.Parse(ctx, l, []byte("a=b\n"))
			if !errors.Is(err, engine.ErrBadModule) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "custom language bad (bad.wasm") {
				t.Errorf("Parse = %v, want ErrBadModule saying %q", err, c.want)
			}
		})
	}
}

// sideWithImport is a side module (a dylink.0 section) whose one import is
// module.name of kind (0 a function of type () -> (), 3 a mutable i32).
func sideWithImport(module, name string, kind byte) []byte {
	var desc []byte
	if kind == 0 {
		desc = []byte{0, 0}
	} else {
		desc = []byte{3, 0x7f, 1}
	}
	imp := append(append(append([]byte{1}, vname(module)...), vname(name)...), desc...)
	out := []byte("\x00asm\x01\x00\x00\x00")
	dylink := append(vname("dylink.0"), 1, 4, 0, 0, 0, 0)
	out = append(append(out, 0, byte(len(dylink))), dylink...)
	out = append(append(out, 1, 4), 1, 0x60, 0, 0) // type () -> ()
	return append(append(out, 2, byte(len(imp))), imp...)
}

func vname(s string) []byte { return append([]byte{byte(len(s))}, s...) }

// TestCustomLanguageHammer: many goroutines parse a custom language through
// one tenant's pool of several instances at once (each its own host, link
// and side module, the side module's data at the same address in each),
// with the shipped Go grammar alongside; every tree is the grammar's.
func TestCustomLanguageHammer(t *testing.T) {
	ctx := context.Background()
	e := newEngine(t, engine.NewConfig())
	p := e.NewParser(engine.Limits{Instances: 4})
	defer p.Close(ctx)
	props := enginetest.Properties(t, "properties")
	goLang := enginetest.Language(t, "go")
	const want = "(file (comment) (property (key) (value)) (property (key) (value)))"
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				tr, err := p.Parse(ctx, props, []byte(propertiesSrc))
				if err == nil && tr.Root().String() != want {
					err = fmt.Errorf("tree %s", tr.Root())
				}
				if err == nil && i%5 == 0 {
					_, err = p.Parse(ctx, goLang, []byte("package p\n"))
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
