package grammars_test

import "errors"
import "fmt"
import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/grammars"

func TestManifestShipsTheRequiredLanguages(t *testing.T) {
	want := []string{"go", "python", "javascript", "typescript", "tsx", "rust", "c", "cpp", "java",
		"dart", "ruby", "bash", "json", "c_sharp", "php", "kotlin", "swift", "scala", "lua", "yaml", "css", "html"}
	for _, id := range want {
		l, ok := grammars.Lookup(id)
		if !ok {
			t.Errorf("%s is not shipped", id)
			continue
		}
		if l.Version == "" || strings.ContainsAny(l.Version, "^~*x<>= ") {
			t.Errorf("%s: version %q is not exact", id, l.Version)
		}
		if !strings.HasPrefix(l.Integrity, "sha512-") || len(l.Integrity) != len("sha512-")+88 {
			t.Errorf("%s: integrity %q is not an npm sha512", id, l.Integrity)
		}
		if len(l.Extensions) == 0 {
			t.Errorf("%s has no extensions", id)
		}
	}
	rt := grammars.Runtime()
	if rt.Spec() != "tree-sitter@0.25.0" || rt.Dir != "vendor/tree-sitter/lib" {
		t.Errorf("runtime = %+v", rt)
	}
	// The known-bad Lua package must not come back.
	if l, ok := grammars.Lookup("lua"); ok && l.Package == "tree-sitter-lua" {
		t.Error("lua must come from @tree-sitter-grammars/tree-sitter-lua")
	}
}

func TestLookup(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"go", "go"}, {"golang", "go"}, {"py", "python"}, {"Python", "python"}, {"ts", "typescript"},
		{"tsx", "tsx"}, {"csharp", "c_sharp"}, {"c_sharp", "c_sharp"}, {"cs", "c_sharp"}, {"c++", "cpp"},
		{"sh", "bash"}, {"yml", "yaml"}, {"js", "javascript"}, {"kt", "kotlin"},
		// every name the pinned ast-grep (scripts/npm/package.json) takes for a shipped language (its --lang)
		{"cc", "cpp"}, {"cpp", "cpp"}, {"cxx", "cpp"}, {"jsx", "javascript"}, {"rs", "rust"}, {"rb", "ruby"}, {"GO", "go"},
	} {
		if l, ok := grammars.Lookup(c.name); !ok || l.ID != c.want {
			t.Errorf("Lookup(%q) = %v, %v; want %q", c.name, l, ok, c.want)
		}
	}
	if _, ok := grammars.Lookup("cobol"); ok {
		t.Error("Lookup(cobol) found something")
	}
}

func TestForPath(t *testing.T) {
	for _, c := range []struct{ path, want string }{
		{"main.go", "go"}, {"a/b/App.TSX", "tsx"}, {"x.ts", "typescript"}, {"x.d.ts", "typescript"},
		{"lib.rs", "rust"}, {"x.h", "c"}, {"x.hpp", "cpp"}, {"Main.java", "java"}, {"x.dart", "dart"},
		{"Rakefile.rake", "ruby"}, {"x.cs", "c_sharp"}, {"index.php", "php"}, {"b.kts", "kotlin"},
		{"x.swift", "swift"}, {"x.sc", "scala"}, {"init.lua", "lua"}, {"ci.yml", "yaml"},
		{"s.css", "css"}, {"i.htm", "html"}, {"p.json", "json"}, {"run.sh", "bash"}, {"m.mjs", "javascript"},
		{"lib/a.ex", "elixir"}, {"main.tf", "hcl"}, {"README.md", "markdown"}, {"Cargo.toml", "toml"},
		{"Makefile", "make"}, {"src/GNUmakefile", "make"}, {"rules.mk", "make"}, {"pom.xml", "xml"},
		{"App.svelte", "svelte"}, {"App.vue", "vue"}, {"q.sql", "sql"}, {"x.ml", "ocaml"}, {"build.gradle", "groovy"},
		{"a.R", "r"}, {"flake.nix", "nix"}, {"Token.sol", "solidity"}, {"main.zig", "zig"},
	} {
		if l, ok := grammars.ForPath(c.path); !ok || l.ID != c.want {
			t.Errorf("ForPath(%q) = %v, %v; want %q", c.path, l, ok, c.want)
		}
	}
	// a file name matches whole and exactly: "makefile.txt" and "MAKEFILE" are not make
	for _, p := range []string{"makefile.txt", "MAKEFILE", "x.txt", "noext", ".go/"} {
		if l, ok := grammars.ForPath(p); ok {
			t.Errorf("ForPath(%q) = %s", p, l.ID)
		}
	}
}

func TestParseManifestRejects(t *testing.T) {
	base := `{"runtime": {"package": "tree-sitter", "version": "0.25.0", "integrity": "sha512-x", "dir": "d"}, "languages": [%s]}`
	lang := `{"id": "%s", "name": "A", "ast_grep": "A", "aliases": [], "extensions": [%q], "package": "p", "version": "1.0.0", "integrity": "sha512-x", "dir": "", "function": "f"}`
	for name, js := range map[string]string{
		"unknown field":   `{"runtime": {}, "languages": [], "extra": 1}`,
		"no runtime":      `{"languages": []}`,
		"dup id":          fmt.Sprintf(base, fmt.Sprintf(lang, "a", ".a")+","+fmt.Sprintf(lang, "a", ".b")),
		"dup extension":   fmt.Sprintf(base, fmt.Sprintf(lang, "a", ".a")+","+fmt.Sprintf(lang, "b", ".a")),
		"upper extension": fmt.Sprintf(base, fmt.Sprintf(lang, "a", ".A")),
		"no dot":          fmt.Sprintf(base, fmt.Sprintf(lang, "a", "a")),
		"module of another file": strings.Replace(fmt.Sprintf(base, fmt.Sprintf(lang, "a", ".a")), `"function": "f"`,
			`"function": "f", "module": {"sha256": "`+strings.Repeat("0", 64)+`", "size": 1, "file": "wasm/b.wasm.zst", "file_sha256": "`+strings.Repeat("0", 64)+`"}`, 1),
		"no name":       strings.Replace(fmt.Sprintf(base, fmt.Sprintf(lang, "a", ".a")), `"name": "A", `, "", 1),
		"md5 integrity": strings.Replace(fmt.Sprintf(base, fmt.Sprintf(lang, "a", ".a")), `"integrity": "sha512-x", "dir": ""`, `"integrity": "md5-x", "dir": ""`, 1),
		"dup file name": strings.Replace(strings.Replace(fmt.Sprintf(base, fmt.Sprintf(lang, "a", ".a")+","+fmt.Sprintf(lang, "b", ".b")),
			`".a"]`, `".a"], "filenames": ["Makefile"]`, 1), `".b"]`, `".b"], "filenames": ["Makefile"]`, 1),
		"file name with a dir": strings.Replace(fmt.Sprintf(base, fmt.Sprintf(lang, "a", ".a")), `".a"]`, `".a"], "filenames": ["a/Makefile"]`, 1),
	} {
		if _, err := grammars.ParseManifest([]byte(js)); err == nil || !strings.HasPrefix(err.Error(), "grammars: ") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	good := fmt.Sprintf(base, fmt.Sprintf(lang, "a", ".a"))
	if _, err := grammars.ParseManifest([]byte(good)); err != nil {
		t.Errorf("valid manifest: %v", err)
	}
}

// TestWasm decompresses every committed module and checks it against the
// manifest: every shipped language is embedded, there is no other module, a
// module is decompressed once per process, and an alias names its language.
// Wasm hashes nothing on a process's start, so this is where the committed
// files and modules are proved to match the manifest's sha256s, and every
// file's zstd frame to carry the checksum that covers its decompression.
//
// The host module (custom languages run in it) is checked the same way.
func TestWasm(t *testing.T) {
	if _, err := grammars.Wasm(&grammars.Language{ID: "cobol"}); err == nil || !strings.Contains(err.Error(), "unknown language") {
		t.Errorf("Wasm(cobol) = %v", err)
	}
	for _, l := range grammars.All() {
		if !grammars.Built(l.ID) {
			t.Errorf("%s is not embedded", l.ID)
		}
		b, err := grammars.Wasm(&l)
		if err != nil || len(b) < 8 || string(b[:4]) != "\x00asm" {
			t.Errorf("%s: Wasm = %d bytes, %v", l.ID, len(b), err)
			continue
		}
		if got := grammars.SHA256(b); got != l.Module.SHA256 || int64(len(b)) != l.Module.Size {
			t.Errorf("%s: sha256 %s (%d bytes), manifest %s (%d)", l.ID, got, len(b), l.Module.SHA256, l.Module.Size)
		}
		checkCommittedFile(t, l.Module)
		shared, _ := grammars.Lookup(l.ID)
		if again, _ := grammars.Wasm(shared); &again[0] != &b[0] {
			t.Errorf("%s: decompressed twice", l.ID)
		}
		for _, a := range l.Aliases {
			if al, ok := grammars.Lookup(a); !ok || al != shared {
				t.Errorf("Lookup(%q) is not %s's language", a, l.ID)
			}
		}
	}
	files, err := filepath.Glob(filepath.Join("wasm", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := filepath.Base(f)
		if name == "README.md" || strings.HasSuffix(name, ".wasm") { // .wasm: left by an older build, never embedded
			continue
		}
		if "wasm/"+name == grammars.HostFile {
			b, err := grammars.HostWasm()
			if err != nil || string(b[:4]) != "\x00asm" {
				t.Errorf("HostWasm = %d bytes, %v", len(b), err)
				continue
			}
			m, _ := grammars.ParseManifest(grammars.ManifestJSON)
			if got := grammars.SHA256(b); m.Host == nil || got != m.Host.SHA256 || int64(len(b)) != m.Host.Size {
				t.Errorf("host module: sha256 %s (%d bytes), manifest %+v", got, len(b), m.Host)
				continue
			}
			checkCommittedFile(t, m.Host)
			continue
		}
		id, ok := strings.CutSuffix(name, ".wasm.zst")
		if l, known := grammars.Lookup(id); !ok || !known || l.ID != id {
			t.Errorf("grammars/wasm/%s is not a shipped language's module", name)
		}
	}
	if b := grammars.BuildInfo(); b == nil || b.Toolchain == "" || len(b.CFlags) == 0 || !strings.HasPrefix(b.Codec, grammars.Codec+" ") {
		t.Errorf("manifest build record = %+v", b)
	}
}

// TestDecompressChecks: a committed file that does not match the manifest's
// record, or a module that does not, is refused and says what to run.
func TestDecompressChecks(t *testing.T) {
	l, _ := grammars.Lookup("json")
	z, err := os.ReadFile(filepath.Join("wasm", grammars.CompressedFile("json")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := grammars.Decompress(*l, z); err != nil {
		t.Fatalf("committed json module: %v", err)
	}
	bad := append([]byte(nil), z...)
	bad[len(bad)/2] ^= 0xff
	for name, c := range map[string]struct {
		l grammars.Language
		z []byte
	}{
		"changed file":         {*l, bad},
		"file of another":      {*l, mustRead(t, filepath.Join("wasm", grammars.CompressedFile("css")))},
		"module not in record": {withModule(*l, func(m *grammars.Module) { m.SHA256 = strings.Repeat("0", 64) }), z},
		"no record":            {withModule(*l, nil), z},
	} {
		_, err := grammars.Decompress(c.l, c.z)
		if !errors.Is(err, grammars.ErrNotBuilt) || !strings.HasPrefix(err.Error(), "grammars: json: ") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

// checkCommittedFile checks the committed file of mod against its record's
// sha256, and that its zstd frame carries a content checksum.
func checkCommittedFile(t *testing.T, mod *grammars.Module) {
	t.Helper()
	z := mustRead(t, mod.File)
	if got := grammars.SHA256(z); got != mod.FileSHA256 {
		t.Errorf("%s: sha256 %s, manifest %s", mod.File, got, mod.FileSHA256)
	}
	// RFC 8878 3.1.1.1: the magic number, then the frame header descriptor,
	// whose bit 2 is Content_Checksum_Flag
	if len(z) < 5 || string(z[:4]) != "\x28\xb5\x2f\xfd" || z[4]&4 == 0 {
		t.Errorf("%s: not a zstd frame with a content checksum", mod.File)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func withModule(l grammars.Language, edit func(*grammars.Module)) grammars.Language {
	if edit == nil {
		l.Module = nil
		return l
	}
	m := *l.Module
	edit(&m)
	l.Module = &m
	return l
}

func ExampleForPath() {
	l, _ := grammars.ForPath("web/app.tsx")
	fmt.Println(l.ID, l.Package, l.Dir)
	// Output: tsx tree-sitter-typescript tsx
}

func ExampleLookup() {
	l, _ := grammars.Lookup("csharp")
	fmt.Println(l.ID, l.Extensions)
	// Output: c_sharp [.cs]
}

// BenchmarkDecompress measures what a process pays on a module's first use:
// decompressing the embedded file and checking both sha256s (grammars/README.md
// records the numbers and the codec comparison).
func BenchmarkDecompress(b *testing.B) {
	for _, l := range grammars.All() {
		z, err := os.ReadFile(filepath.Join("wasm", grammars.CompressedFile(l.ID)))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(l.ID, func(b *testing.B) {
			b.SetBytes(l.Module.Size)
			for b.Loop() {
				if _, err := grammars.Decompress(l, z); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
