package grammars_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tetherhq/tether/grammars"
)

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
	if l, _ := grammars.Lookup("lua"); l.Package == "tree-sitter-lua" {
		t.Error("lua must come from @tree-sitter-grammars/tree-sitter-lua")
	}
}

func TestLookup(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"go", "go"}, {"golang", "go"}, {"py", "python"}, {"Python", "python"}, {"ts", "typescript"},
		{"tsx", "tsx"}, {"csharp", "c_sharp"}, {"c_sharp", "c_sharp"}, {"cs", "c_sharp"}, {"c++", "cpp"},
		{"sh", "bash"}, {"yml", "yaml"}, {"js", "javascript"}, {"kt", "kotlin"},
		// every name ast-grep 0.51.1 takes for a shipped language (its --lang)
		{"cc", "cpp"}, {"cpp", "cpp"}, {"cxx", "cpp"}, {"jsx", "javascript"}, {"rs", "rust"}, {"rb", "ruby"}, {"GO", "go"},
	} {
		l, ok := grammars.Lookup(c.name)
		if !ok || l.ID != c.want {
			t.Errorf("Lookup(%q) = %q, %v; want %q", c.name, l.ID, ok, c.want)
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
	} {
		l, ok := grammars.ForPath(c.path)
		if !ok || l.ID != c.want {
			t.Errorf("ForPath(%q) = %q, %v; want %q", c.path, l.ID, ok, c.want)
		}
	}
	for _, p := range []string{"Makefile", "x.txt", "noext", ".go/"} {
		if l, ok := grammars.ForPath(p); ok {
			t.Errorf("ForPath(%q) = %s", p, l.ID)
		}
	}
}

func TestParseManifestRejects(t *testing.T) {
	base := `{"runtime": {"package": "tree-sitter", "version": "0.25.0", "integrity": "sha512-x", "dir": "d"}, "languages": [%s]}`
	lang := `{"id": "%s", "aliases": [], "extensions": [%q], "package": "p", "version": "1.0.0", "integrity": "sha512-x", "dir": "", "function": "f"}`
	for name, js := range map[string]string{
		"unknown field":   `{"runtime": {}, "languages": [], "extra": 1}`,
		"no runtime":      `{"languages": []}`,
		"dup id":          fmt.Sprintf(base, fmt.Sprintf(lang, "a", ".a")+","+fmt.Sprintf(lang, "a", ".b")),
		"dup extension":   fmt.Sprintf(base, fmt.Sprintf(lang, "a", ".a")+","+fmt.Sprintf(lang, "b", ".a")),
		"upper extension": fmt.Sprintf(base, fmt.Sprintf(lang, "a", ".A")),
		"no dot":          fmt.Sprintf(base, fmt.Sprintf(lang, "a", "a")),
		"md5 integrity":   strings.Replace(fmt.Sprintf(base, fmt.Sprintf(lang, "a", ".a")), `"integrity": "sha512-x", "dir": ""`, `"integrity": "md5-x", "dir": ""`, 1),
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

func TestWasm(t *testing.T) {
	if _, err := grammars.Wasm("cobol"); err == nil || !strings.Contains(err.Error(), "unknown language") {
		t.Errorf("Wasm(cobol) = %v", err)
	}
	for _, l := range grammars.All() {
		b, err := grammars.Wasm(l.ID)
		if grammars.Built(l.ID) {
			if err != nil || len(b) < 8 || string(b[:4]) != "\x00asm" {
				t.Errorf("%s: built but Wasm = %d bytes, %v", l.ID, len(b), err)
			}
			continue
		}
		if !errors.Is(err, grammars.ErrNotBuilt) || !strings.Contains(err.Error(), "make grammars") {
			t.Errorf("%s: not built but Wasm error = %v", l.ID, err)
		}
	}
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
