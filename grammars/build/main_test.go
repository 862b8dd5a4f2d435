package main

import "archive/tar"
import "bytes"
import "compress/gzip"
import "crypto/sha512"
import "encoding/base64"
import "errors"
import "fmt"
import "os"
import "path/filepath"
import "regexp"
import "strings"
import "testing"

import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/internal/testenv"

func tgz(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, body := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

func TestCheckIntegrity(t *testing.T) {
	b := []byte("package bytes")
	sum := sha512.Sum512(b)
	good := "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
	if err := checkIntegrity(b, good); err != nil {
		t.Errorf("matching bytes: %v", err)
	}
	if err := checkIntegrity(append(b, '!'), good); err == nil || !strings.Contains(err.Error(), "integrity mismatch") {
		t.Errorf("changed bytes: %v", err)
	}
}

func TestUntar(t *testing.T) {
	dir := t.TempDir()
	if err := untar(tgz(t, map[string]string{"package/src/parser.c": "int x;"}), dir); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "package", "src", "parser.c")); err != nil || string(b) != "int x;" {
		t.Errorf("extracted %q, %v", b, err)
	}
	for _, bad := range []string{"../escape.c", "/abs/escape.c", "package/../../escape.c"} {
		if err := untar(tgz(t, map[string]string{bad: "x"}), t.TempDir()); err == nil {
			t.Errorf("%s: extracted outside the directory", bad)
		}
	}
}

func TestHashOfSeparatesParts(t *testing.T) {
	if hashOf("ab", "c") == hashOf("a", "bc") {
		t.Error("part boundaries do not change the key")
	}
	if hashOf("x") != hashOf("x") {
		t.Error("hash is not stable")
	}
}

// committedManifest reads and parses grammars/manifest.json.
func committedManifest(t *testing.T) ([]byte, *grammars.Manifest) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := grammars.ParseManifest(b)
	if err != nil {
		t.Fatal(err)
	}
	return b, m
}

// TestFormatManifest: what -update writes is the committed manifest's own
// layout, so rewriting it changes only what changed.
func TestFormatManifest(t *testing.T) {
	b, m := committedManifest(t)
	if got := formatManifest(m); string(got) != string(b) {
		t.Errorf("formatManifest does not reproduce grammars/manifest.json:\n%s", got)
	}
	if got := oneLine(map[string]any{"a": "x, y: \"<z>\"", "b": []int{1, 2}}); got != `{"a": "x, y: \"<z>\"", "b": [1, 2]}` {
		t.Errorf("oneLine = %s", got)
	}
}

// TestCommittedFilesRecompress: compressing a committed module again gives
// the committed file byte for byte, and compare, the check `make grammars`
// runs, accepts it and names what differs in a changed module or file. (The
// small modules only: `make grammars` recompresses and compares all of them, and
// the best zstd level takes ~1 min for all under -race.)
func TestCommittedFilesRecompress(t *testing.T) {
	enc, err := newEncoder()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"json", "html", "css", "lua", "go"} {
		found, _ := grammars.Lookup(id)
		l := *found
		dst := filepath.Join("..", "wasm", grammars.CompressedFile(l.ID))
		z, err := os.ReadFile(dst)
		if err != nil {
			t.Fatal(err)
		}
		b, err := grammars.Decompress(l, z)
		if err != nil {
			t.Fatal(err)
		}
		again := enc.EncodeAll(b, nil)
		rec := &grammars.Module{SHA256: grammars.SHA256(b), Size: int64(len(b)), File: "wasm/" + grammars.CompressedFile(l.ID), FileSHA256: grammars.SHA256(again)}
		if why := compare(l, rec, dst, again); why != "" {
			t.Errorf("%s: the committed module does not match itself: %s", l.ID, why)
		}
		if l.ID != "json" {
			continue
		}
		changed := append(append([]byte(nil), b...), 0)
		crec := &grammars.Module{SHA256: grammars.SHA256(changed), Size: int64(len(changed))}
		if why := compare(l, crec, dst, enc.EncodeAll(changed, nil)); !strings.Contains(why, "rebuilt module sha256 "+crec.SHA256) {
			t.Errorf("changed module: compare = %q", why)
		}
		other := filepath.Join(t.TempDir(), "json.wasm.zst")
		os.WriteFile(other, append(append([]byte(nil), z...), 0), 0o644)
		if why := compare(l, rec, other, again); !strings.Contains(why, "sha256") {
			t.Errorf("changed committed file: compare = %q", why)
		}
		if why := compare(l, rec, filepath.Join(t.TempDir(), "none"), again); !strings.Contains(why, "committed file missing") {
			t.Errorf("missing committed file: compare = %q", why)
		}
	}
}

func TestSplitSpecAndPin(t *testing.T) {
	for spec, want := range map[string]string{
		"tree-sitter-go@0.25.1":                       "tree-sitter-go 0.25.1",
		"@tree-sitter-grammars/tree-sitter-lua@0.4.2": "@tree-sitter-grammars/tree-sitter-lua 0.4.2",
		"tree-sitter-go":                              "error",
		"@tree-sitter-grammars/tree-sitter-lua":       "error",
		"tree-sitter-go@^0.25.1":                      "error",
		"tree-sitter-go@0.25":                         "error",
		"tree-sitter-go@":                             "error",
	} {
		name, version, err := splitSpec(spec)
		got := name + " " + version
		if err != nil {
			got = "error"
			if !strings.HasPrefix(err.Error(), "grammars: -set ") {
				t.Errorf("%s: %v", spec, err)
			}
		}
		if got != want {
			t.Errorf("splitSpec(%q) = %q, want %q", spec, got, want)
		}
	}
	_, m := committedManifest(t)
	integrity := "sha512-" + strings.Repeat("A", 86) + "=="
	if n, err := pin(m, "tree-sitter-typescript", "0.23.3", integrity); err != nil || n != 2 {
		t.Fatalf("pin tree-sitter-typescript = %d, %v; want both typescript and tsx", n, err)
	}
	for _, l := range m.Languages {
		pinned := l.Version == "0.23.3" && l.Integrity == integrity
		if pinned != (l.ID == "typescript" || l.ID == "tsx") {
			t.Errorf("%s: %s %s", l.ID, l.Version, l.Integrity)
		}
	}
	if n, err := pin(m, "tree-sitter", "0.25.1", integrity); err != nil || n != 1 || m.Runtime.Version != "0.25.1" {
		t.Errorf("pin the runtime = %d, %v, %+v", n, err, m.Runtime)
	}
	if n, err := pin(m, "tree-sitter", "0.25.1", integrity); err != nil || n != 0 {
		t.Errorf("pin the runtime again = %d, %v; want no change", n, err)
	}
	if _, err := pin(m, "tree-sitter-cobol", "1.0.0", integrity); err == nil || !strings.Contains(err.Error(), "no grammar is built from tree-sitter-cobol") {
		t.Errorf("pin an unknown package: %v", err)
	}
}

// TestFindCXX: libc++ and libc++abi for wasm32-wasi are found where clang
// links them, with libc++'s headers, and named by sha256 for the manifest;
// a clang that finds neither gives an error naming the missing file.
func TestFindCXX(t *testing.T) {
	clang := testenv.RequireBinary(t, "clang-16")
	c := findCXX(clang)
	if c.err != nil {
		testenv.Missing(t, fmt.Sprintf("%v (libc++-16-dev-wasm32 and libc++abi-16-dev-wasm32: scripts/install-deps.sh build)", c.err))
	}
	if !exists(filepath.Join(c.inc, "vector")) {
		t.Errorf("headers %s hold no vector", c.inc)
	}
	if !regexp.MustCompile(`^libc\+\+\.a sha256 [0-9a-f]{16}, libc\+\+abi\.a sha256 [0-9a-f]{16}$`).MatchString(c.display) {
		t.Errorf("display %q", c.display)
	}
	if again := findCXX(clang); again.id != c.id || again.id == "" {
		t.Errorf("id %q, then %q", c.id, again.id)
	}

	// A clang that finds no such file prints the bare name back.
	fake := filepath.Join(t.TempDir(), "clang")
	script := "#!/bin/sh\nfor a; do case \"$a\" in -print-file-name=*) echo \"${a#-print-file-name=}\" ;; esac; done\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if c := findCXX(fake); c.err == nil || !strings.Contains(c.err.Error(), "libc++.a for wasm32-wasi") {
		t.Errorf("fake clang: %+v", c)
	}
}

// TestLinkKeyCXX: a C module's cache key does not depend on libc++ (installing
// or updating it rebuilds nothing but C++ modules); a C++ module's does, and
// without libc++ it is refused with what to install.
func TestLinkKeyCXX(t *testing.T) {
	o := &options{chain: "clang", shim: []byte("shim"), export: []string{"tether_init"}}
	found, _ := grammars.Lookup("go")
	goLang := *found
	vue := grammars.Language{ID: "vue", Package: "tree-sitter-vue", Version: "0.2.1", Function: "tree_sitter_vue", CXX: true}
	keys := func(c cxxLib) (string, string, error) {
		o.cxx = c
		kc, err := linkKey(o, "rt", goLang)
		if err != nil {
			t.Fatal(err)
		}
		kcc, err := linkKey(o, "rt", vue)
		return kc, kcc, err
	}
	c1, cc1, err1 := keys(cxxLib{id: "libc++.a 1"})
	c2, cc2, err2 := keys(cxxLib{id: "libc++.a 2"})
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if c1 != c2 {
		t.Error("go's key changed with libc++")
	}
	if cc1 == cc2 {
		t.Error("vue's key did not change with libc++")
	}
	c3, _, err := keys(cxxLib{err: errors.New("libc++.a for wasm32-wasi, which clang-16 does not find")})
	if c3 != c1 {
		t.Error("go's key changed without libc++")
	}
	if err == nil || !strings.Contains(err.Error(), "vue: its scanner.cc needs libc++.a") || !strings.Contains(err.Error(), "scripts/install-deps.sh build") {
		t.Errorf("vue without libc++: %v", err)
	}
}
