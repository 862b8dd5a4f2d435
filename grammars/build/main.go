// Command build rebuilds tether's grammar modules from the pinned packages and
// checks them against the committed ones: `make grammars` runs it as
// `go run ./grammars/build` from the repository root, and fails when a rebuilt
// module differs from the committed one. `make grammars-update` runs it with
// -update, which writes the rebuilt modules (grammars/wasm/ID.wasm.zst) and
// their records in grammars/manifest.json instead.
//
// For every language in grammars/manifest.json it fetches the pinned npm
// package with `npm pack`, checks the tarball against the manifest's integrity
// hash, and compiles the tree-sitter runtime, the grammar (parser.c and
// scanner.c) and tether's shim (grammars/shim) with clang-16 for wasm32-wasi
// into one self-contained reactor module exporting only what
// grammars/shim/exports.txt lists, then compresses it with zstd
// (klauspost/compress at its best level, one goroutine, so the bytes depend
// only on the module and the codec's version in go.mod).
//
// Every step is cached under the user cache dir (tether/grammars), keyed by
// the hash of its inputs (package integrity, shim, flags, toolchain), so a
// second run, or another checkout on the same machine, costs nothing.
// Languages build in parallel on all cores.
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/tetherhq/tether/grammars"
	"github.com/tetherhq/tether/internal/fsutil"
)

// Compiler flags: recorded in every cache key, so changing them rebuilds.
var (
	cflags = []string{"--target=wasm32-wasi", "-O3", "-mbulk-memory", "-msimd128", "-fno-exceptions",
		"-DNDEBUG", "-Wno-unused-but-set-variable", "-Wno-unused-parameter"}
	ldflags = []string{"--target=wasm32-wasi", "-mexec-model=reactor", "-O3",
		"-Wl,--strip-all", "-Wl,-z,stack-size=1048576", "-Wl,--gc-sections"}
)

type options struct {
	root    string
	out     string
	cache   string
	clang   string
	jobs    int
	only    map[string]bool
	quiet   bool
	srcOnly bool
	npm     string
	update  bool
	set     string // -set PACKAGE@VERSION,...
	chain   string // toolchain identity for cache keys
	tool    string // toolchain as the manifest records it
	shim    []byte
	export  []string
}

func main() {
	var o options
	var only string
	flag.StringVar(&o.root, "root", ".", "repository root (where grammars/manifest.json is)")
	flag.StringVar(&o.set, "set", "", "with -update: pin PACKAGE@VERSION[,...] first (npm view gives its integrity) for every language, or the runtime, built from PACKAGE")
	flag.StringVar(&o.out, "o", "", "also write the uncompressed modules (ID.wasm) to this directory")
	flag.BoolVar(&o.update, "update", false, "write the rebuilt modules to grammars/wasm and their records to grammars/manifest.json instead of checking them against the committed ones")
	flag.StringVar(&o.cache, "cache", "", "cache directory (default $TETHER_GRAMMAR_CACHE or the user cache dir's tether/grammars)")
	flag.StringVar(&o.clang, "clang", envOr("TETHER_CLANG", "clang-16"), "clang that targets wasm32-wasi")
	flag.StringVar(&o.npm, "npm", envOr("TETHER_NPM", "npm"), "npm client used to fetch packages")
	flag.IntVar(&o.jobs, "j", runtime.NumCPU(), "parallel compile jobs")
	flag.StringVar(&only, "only", "", "comma-separated language ids to build (default all)")
	flag.BoolVar(&o.quiet, "q", false, "print only errors and the summary")
	flag.BoolVar(&o.srcOnly, "src", false, "only fetch and verify the packages, then print \"ID DIR\" lines: each grammar's src dir, and the runtime's lib dir as \"runtime DIR\" (for bench/native)")
	flag.Parse()
	if err := run(&o, only); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func (o *options) logf(format string, args ...any) {
	if !o.quiet {
		fmt.Fprintf(os.Stderr, "grammars: "+format+"\n", args...)
	}
}

func run(o *options, only string) error {
	start := time.Now()
	mb, err := os.ReadFile(filepath.Join(o.root, "grammars", "manifest.json"))
	if err != nil {
		return fmt.Errorf("grammars: %w (run from the repository root or pass -root)", err)
	}
	m, err := grammars.ParseManifest(mb)
	if err != nil {
		return err
	}
	pinned := 0
	if o.set != "" {
		if !o.update {
			return errors.New("grammars: -set changes the pinned packages: use it with -update")
		}
		for _, spec := range strings.Split(o.set, ",") {
			name, version, err := splitSpec(strings.TrimSpace(spec))
			if err != nil {
				return err
			}
			integrity, err := npmIntegrity(o.npm, name, version)
			if err != nil {
				return err
			}
			n, err := pin(m, name, version, integrity)
			if err != nil {
				return err
			}
			o.logf("pinned %s@%s (%s): %d changed", name, version, integrity, n)
			pinned += n
		}
		if _, err := grammars.ParseManifest(formatManifest(m)); err != nil {
			return err
		}
	}
	if o.cache == "" {
		o.cache = os.Getenv("TETHER_GRAMMAR_CACHE")
	}
	if o.cache == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return fmt.Errorf("grammars: no user cache dir (%v); pass -cache", err)
		}
		o.cache = filepath.Join(dir, "tether", "grammars")
	}
	if o.jobs < 1 {
		o.jobs = 1
	}
	if o.shim, err = os.ReadFile(filepath.Join(o.root, "grammars", "shim", "shim.c")); err != nil {
		return fmt.Errorf("grammars: %w", err)
	}
	eb, err := os.ReadFile(filepath.Join(o.root, "grammars", "shim", "exports.txt"))
	if err != nil {
		return fmt.Errorf("grammars: %w", err)
	}
	for _, line := range strings.Split(string(eb), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			o.export = append(o.export, line)
		}
	}
	langs := m.Languages
	if only != "" {
		o.only = map[string]bool{}
		for _, id := range strings.Split(only, ",") {
			l, ok := grammars.Lookup(id)
			if !ok {
				return fmt.Errorf("grammars: -only: unknown language %q", id)
			}
			o.only[l.ID] = true
		}
		var sel []grammars.Language
		for _, l := range langs {
			if o.only[l.ID] {
				sel = append(sel, l)
			}
		}
		langs = sel
	}
	if o.chain, o.tool, err = toolchain(o.clang); err != nil {
		return err
	}
	if o.update && o.only != nil && m.Build != nil && m.Build.Toolchain != o.tool {
		return fmt.Errorf("grammars: -update -only: the committed modules were built with %q, this machine has %q; update all of them (-update without -only) or use that toolchain", m.Build.Toolchain, o.tool)
	}
	for _, d := range []string{filepath.Join(o.cache, "npm"), filepath.Join(o.cache, "src"), filepath.Join(o.cache, "obj"), filepath.Join(o.cache, "wasm")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("grammars: %w", err)
		}
	}

	rt := m.Runtime
	if o.srcOnly {
		pkgs := map[string]grammars.Package{rt.Spec(): rt}
		for _, l := range langs {
			pkgs[l.Source().Spec()] = l.Source()
		}
		dirs, err := fetchAll(o, pkgs)
		if err != nil {
			return err
		}
		fmt.Printf("runtime %s\n", filepath.Join(dirs[rt.Spec()], rt.Dir))
		for _, l := range langs {
			fmt.Printf("%s %s\n", l.ID, filepath.Join(dirs[l.Source().Spec()], l.Dir, "src"))
		}
		return nil
	}

	// Link keys first: when every module is cached, nothing is fetched or compiled.
	type plan struct {
		l       grammars.Language
		objKeys []string // runtime, shim, parser, [scanner]
		srcs    []string // files relative to the package's src dir
		key     string
	}
	rtKey := hashOf("runtime.o", rt.Spec(), rt.Integrity, rt.Dir, o.chain, strings.Join(cflags, " "))
	var plans []*plan
	var missing []*plan
	for _, l := range langs {
		p := &plan{l: l}
		plans = append(plans, p)
		p.key = hashOf("link", rtKey, l.ID, l.Function, l.Package, l.Version, l.Integrity, l.Dir, string(o.shim),
			strings.Join(o.export, ","), strings.Join(ldflags, " "), strings.Join(cflags, " "), o.chain)
		if !exists(filepath.Join(o.cache, "wasm", p.key+".wasm")) {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		o.logf("building %d of %d modules with %s, %d jobs (cache %s)", len(missing), len(plans), o.clang, o.jobs, o.cache)
		// Fetch the packages the missing modules need (and the runtime).
		pkgs := map[string]grammars.Package{rt.Spec(): rt}
		for _, p := range missing {
			pkgs[p.l.Source().Spec()] = p.l.Source()
		}
		dirs, err := fetchAll(o, pkgs)
		if err != nil {
			return err
		}
		rtDir := filepath.Join(dirs[rt.Spec()], rt.Dir)
		incRT := []string{"-I", filepath.Join(rtDir, "include"), "-I", filepath.Join(rtDir, "src")}
		// Object jobs, deduplicated by key, biggest sources first.
		type job struct {
			key, src, what string
			args           []string
			size           int64
		}
		jobs := map[string]*job{}
		add := func(key, src, what string, args []string) {
			if _, ok := jobs[key]; ok || exists(filepath.Join(o.cache, "obj", key+".o")) {
				return
			}
			fi, _ := os.Stat(src)
			var size int64
			if fi != nil {
				size = fi.Size()
			}
			jobs[key] = &job{key: key, src: src, what: what, args: args, size: size}
		}
		add(rtKey, filepath.Join(rtDir, "src", "lib.c"), "tree-sitter runtime", incRT)
		for _, p := range missing {
			l := p.l
			src := filepath.Join(dirs[l.Source().Spec()], l.Dir, "src")
			shimKey := hashOf("shim.o", string(o.shim), l.Function, rt.Integrity, o.chain, strings.Join(cflags, " "))
			shimSrc := filepath.Join(o.cache, "obj", shimKey+".c")
			if err := writeAtomic(shimSrc, o.shim); err != nil {
				return err
			}
			add(shimKey, shimSrc, l.ID+" shim", append([]string{"-DTETHER_LANGUAGE=" + l.Function}, incRT...))
			p.objKeys = []string{rtKey, shimKey}
			for _, f := range []string{"parser.c", "scanner.c", "scanner.cc"} {
				path := filepath.Join(src, f)
				if !exists(path) {
					continue
				}
				if f == "scanner.cc" {
					return fmt.Errorf("grammars: %s: C++ scanners are not supported (no libc++ for wasm32-wasi here)", l.ID)
				}
				k := hashOf("obj", l.Package, l.Version, l.Integrity, l.Dir, f, o.chain, strings.Join(cflags, " "), rt.Integrity)
				add(k, path, l.ID+" "+f, append([]string{"-I", src}, incRT...))
				p.objKeys = append(p.objKeys, k)
			}
			if len(p.objKeys) < 3 {
				return fmt.Errorf("grammars: %s: no parser.c under %s in %s", l.ID, filepath.Join(l.Dir, "src"), l.Source().Spec())
			}
		}
		var list []*job
		for _, j := range jobs {
			list = append(list, j)
		}
		sort.Slice(list, func(a, b int) bool { return list[a].size > list[b].size })
		var done atomic.Int32
		err = parallel(o.jobs, len(list), func(i int) error {
			j := list[i]
			t0 := time.Now()
			out := filepath.Join(o.cache, "obj", j.key+".o")
			tmp := out + fmt.Sprintf(".tmp%d", os.Getpid())
			args := append(append(append([]string{}, cflags...), j.args...), "-c", j.src, "-o", tmp)
			if err := runCmd(o.clang, args...); err != nil {
				os.Remove(tmp)
				return fmt.Errorf("grammars: compile %s: %w", j.what, err)
			}
			if err := os.Rename(tmp, out); err != nil {
				return fmt.Errorf("grammars: %w", err)
			}
			o.logf("[%d/%d] compiled %s (%.1fs)", done.Add(1), len(list), j.what, time.Since(t0).Seconds())
			return nil
		})
		if err != nil {
			return err
		}
		err = parallel(o.jobs, len(missing), func(i int) error {
			p := missing[i]
			out := filepath.Join(o.cache, "wasm", p.key+".wasm")
			tmp := out + fmt.Sprintf(".tmp%d", os.Getpid())
			args := append([]string{}, ldflags...)
			for _, k := range p.objKeys {
				args = append(args, filepath.Join(o.cache, "obj", k+".o"))
			}
			for _, e := range o.export {
				args = append(args, "-Wl,--export="+e)
			}
			args = append(args, "-o", tmp)
			if err := runCmd(o.clang, args...); err != nil {
				os.Remove(tmp)
				return fmt.Errorf("grammars: link %s: %w", p.l.ID, err)
			}
			if err := os.Rename(tmp, out); err != nil {
				return fmt.Errorf("grammars: %w", err)
			}
			o.logf("linked %s.wasm", p.l.ID)
			return nil
		})
		if err != nil {
			return err
		}
	}
	if o.out != "" {
		if err := os.MkdirAll(o.out, 0o755); err != nil {
			return fmt.Errorf("grammars: %w", err)
		}
	}
	enc, err := newEncoder()
	if err != nil {
		return err
	}
	wasmDir := filepath.Join(o.root, "grammars", "wasm")
	byID := map[string]*grammars.Language{}
	for i := range m.Languages {
		byID[m.Languages[i].ID] = &m.Languages[i]
	}
	var diffs []string
	changed := pinned
	for _, p := range plans {
		b, err := os.ReadFile(filepath.Join(o.cache, "wasm", p.key+".wasm"))
		if err != nil {
			return fmt.Errorf("grammars: %w", err)
		}
		if o.out != "" {
			if err := writeAtomic(filepath.Join(o.out, grammars.WasmFile(p.l.ID)), b); err != nil {
				return err
			}
		}
		z := enc.EncodeAll(b, nil)
		rec := &grammars.Module{SHA256: grammars.SHA256(b), Size: int64(len(b)),
			File: "wasm/" + grammars.CompressedFile(p.l.ID), FileSHA256: grammars.SHA256(z)}
		dst := filepath.Join(wasmDir, grammars.CompressedFile(p.l.ID))
		if !o.update {
			if why := compare(p.l, rec, dst, z); why != "" {
				diffs = append(diffs, p.l.ID+": "+why)
			}
			continue
		}
		if old, err := os.ReadFile(dst); err != nil || !bytes.Equal(old, z) {
			if err := writeAtomic(dst, z); err != nil {
				return err
			}
			changed++
		}
		l := byID[p.l.ID]
		if l.Module == nil || *l.Module != *rec {
			l.Module = rec
			changed++
		}
	}
	if !o.update {
		if len(diffs) > 0 {
			built := "(none recorded)"
			if m.Build != nil {
				built = m.Build.Toolchain
			}
			return fmt.Errorf("grammars: %d of %d rebuilt modules differ from the committed ones:\n  %s\n"+
				"toolchain here:         %s\nmanifest's toolchain:   %s\n"+
				"If the change is intended (a new package version, shim, flags or toolchain), run `%s`\n"+
				"(go run ./grammars/build -update [-only ID,...]) and commit grammars/manifest.json and grammars/wasm.",
				len(diffs), len(plans), strings.Join(diffs, "\n  "), o.tool, built, grammars.UpdateCommand)
		}
		fmt.Fprintf(os.Stderr, "grammars: %d modules rebuilt from the pinned packages match the committed ones (%d built, %.1fs)\n",
			len(plans), len(missing), time.Since(start).Seconds())
		return nil
	}
	b := &grammars.Build{Toolchain: o.tool, CFlags: cflags, LDFlags: ldflags, Codec: codecName()}
	if m.Build == nil || !equalBuild(m.Build, b) {
		m.Build = b
		changed++
	}
	if changed == 0 {
		fmt.Fprintf(os.Stderr, "grammars: %d modules and the manifest are up to date\n", len(plans))
		return nil
	}
	if err := writeAtomic(filepath.Join(o.root, "grammars", "manifest.json"), formatManifest(m)); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "grammars: wrote %d modules to %s and their records to grammars/manifest.json (%d built, %.1fs); commit both\n",
		len(plans), wasmDir, len(missing), time.Since(start).Seconds())
	return nil
}

// splitSpec splits "name@version" (name may be scoped: "@scope/name") and
// requires an exact version.
func splitSpec(spec string) (name, version string, err error) {
	i := strings.LastIndex(spec, "@")
	if i <= 0 || i == len(spec)-1 {
		return "", "", fmt.Errorf("grammars: -set %q: want PACKAGE@VERSION (tree-sitter-go@0.25.1)", spec)
	}
	name, version = spec[:i], spec[i+1:]
	if strings.ContainsAny(version, "^~*xX<>=| ") || strings.Count(version, ".") < 2 {
		return "", "", fmt.Errorf("grammars: -set %q: the version must be exact (1.2.3), not a range", spec)
	}
	return name, version, nil
}

// npmIntegrity asks the registry (npm view) for the package's tarball
// integrity; the tarball is checked against it when it is fetched.
func npmIntegrity(npm, name, version string) (string, error) {
	cmd := exec.Command(npm, "view", "--silent", name+"@"+version, "dist.integrity")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	integrity := strings.TrimSpace(string(out))
	if err != nil || !strings.HasPrefix(integrity, "sha512-") {
		return "", fmt.Errorf("grammars: npm view %s@%s dist.integrity: %v %s%s: is the version published? (npm view %s versions)",
			name, version, err, strings.TrimSpace(stderr.String()), integrity, name)
	}
	return integrity, nil
}

// pin sets the version and integrity of every language (and the runtime)
// built from package name and returns how many it changed (their module
// records are rewritten by the update that follows).
func pin(m *grammars.Manifest, name, version, integrity string) (int, error) {
	found, changed := false, 0
	set := func(v, i *string) {
		found = true
		if *v != version || *i != integrity {
			*v, *i = version, integrity
			changed++
		}
	}
	if m.Runtime.Package == name {
		set(&m.Runtime.Version, &m.Runtime.Integrity)
	}
	for i := range m.Languages {
		if l := &m.Languages[i]; l.Package == name {
			set(&l.Version, &l.Integrity)
		}
	}
	if !found {
		return 0, fmt.Errorf("grammars: -set: no grammar is built from %s (see grammars/manifest.json)", name)
	}
	return changed, nil
}

// newEncoder is the committed files' codec: zstd at its best level on one
// goroutine, so the output depends only on the input and the codec's version.
func newEncoder() (*zstd.Encoder, error) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, fmt.Errorf("grammars: zstd: %w", err)
	}
	return enc, nil
}

// compare says how the rebuilt module (rec, compressed z) differs from the
// committed file dst and the manifest's record of l, or "" when it does not.
func compare(l grammars.Language, rec *grammars.Module, dst string, z []byte) string {
	if l.Module == nil {
		return "the manifest records no module"
	}
	if l.Module.SHA256 != rec.SHA256 {
		return fmt.Sprintf("rebuilt module sha256 %s (%d bytes), the manifest records %s (%d bytes)", rec.SHA256, rec.Size, l.Module.SHA256, l.Module.Size)
	}
	old, err := os.ReadFile(dst)
	if err != nil {
		return fmt.Sprintf("committed file missing: %v", err)
	}
	if _, err := grammars.Decompress(l, old); err != nil {
		return err.Error()
	}
	if !bytes.Equal(old, z) {
		return fmt.Sprintf("the module matches but its compressed file does not (sha256 %s, committed %s): the codec changed (%s)", rec.FileSHA256, l.Module.FileSHA256, codecName())
	}
	return ""
}

// codecName names the compression and the codec module's version.
func codecName() string {
	v := "(unknown version)"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/klauspost/compress" {
				v = d.Version
				if d.Replace != nil {
					v = d.Replace.Path + " " + d.Replace.Version
				}
			}
		}
	}
	return grammars.Codec + " (github.com/klauspost/compress " + v + ", SpeedBestCompression, one goroutine)"
}

func equalBuild(a, b *grammars.Build) bool {
	return a.Toolchain == b.Toolchain && a.Codec == b.Codec &&
		strings.Join(a.CFlags, "\x00") == strings.Join(b.CFlags, "\x00") &&
		strings.Join(a.LDFlags, "\x00") == strings.Join(b.LDFlags, "\x00")
}

// formatManifest writes the manifest as it is kept by hand: one line per
// package and per language, so a grammar update is a one-line diff.
func formatManifest(m *grammars.Manifest) []byte {
	var buf bytes.Buffer
	buf.WriteString("{\n")
	if len(m.Comment) > 0 {
		buf.WriteString("  \"comment\": [\n")
		for i, c := range m.Comment {
			buf.WriteString("    " + oneLine(c))
			if i < len(m.Comment)-1 {
				buf.WriteString(",")
			}
			buf.WriteString("\n")
		}
		buf.WriteString("  ],\n")
	}
	buf.WriteString("  \"runtime\": " + oneLine(m.Runtime) + ",\n")
	if m.Build != nil {
		buf.WriteString("  \"build\": {\n")
		buf.WriteString("    \"toolchain\": " + oneLine(m.Build.Toolchain) + ",\n")
		buf.WriteString("    \"cflags\": " + oneLine(m.Build.CFlags) + ",\n")
		buf.WriteString("    \"ldflags\": " + oneLine(m.Build.LDFlags) + ",\n")
		buf.WriteString("    \"codec\": " + oneLine(m.Build.Codec) + "\n")
		buf.WriteString("  },\n")
	}
	buf.WriteString("  \"languages\": [\n")
	for i, l := range m.Languages {
		buf.WriteString("    " + oneLine(l))
		if i < len(m.Languages)-1 {
			buf.WriteString(",")
		}
		buf.WriteString("\n")
	}
	buf.WriteString("  ]\n}\n")
	return buf.Bytes()
}

// oneLine is v as JSON on one line, with a space after each colon and comma
// outside strings.
func oneLine(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // only manifest types, which always encode
	}
	var out strings.Builder
	in, esc := false, false
	for _, c := range strings.TrimSpace(buf.String()) {
		out.WriteRune(c)
		switch {
		case esc:
			esc = false
		case in && c == '\\':
			esc = true
		case c == '"':
			in = !in
		case !in && (c == ':' || c == ','):
			out.WriteByte(' ')
		}
	}
	return out.String()
}

// toolchain identifies the compiler and the wasi sysroot: id for cache
// keys, display for the manifest (clang's version line, the sha256 of
// wasi-libc's libc.a, wasm-opt's version).
func toolchain(clang string) (id, display string, err error) {
	out, err := exec.Command(clang, "--version").Output()
	if err != nil {
		return "", "", fmt.Errorf("grammars: %s not found (%v); run scripts/install-deps.sh build (make grammars does)", clang, err)
	}
	id = strings.SplitN(string(out), "\n", 2)[0]
	display = id
	libc, err := exec.Command(clang, "--target=wasm32-wasi", "-print-file-name=libc.a").Output()
	if err == nil {
		if b, err := os.ReadFile(strings.TrimSpace(string(libc))); err == nil {
			id += " libc " + hashOf(string(b))[:16]
			display += "; wasi-libc libc.a sha256 " + grammars.SHA256(b)[:16]
		} else {
			return "", "", fmt.Errorf("grammars: wasi-libc not found for %s; run scripts/install-deps.sh build (make grammars does)", clang)
		}
	}
	// clang's driver runs binaryen's wasm-opt over every optimised wasm link
	// when it finds one on PATH (clang-16 has no switch to stop it), so the
	// modules differ with binaryen installed: its version is part of the key.
	if _, err := exec.LookPath("wasm-opt"); err == nil {
		v, _ := exec.Command("wasm-opt", "--version").Output()
		id += " wasm-opt " + strings.TrimSpace(string(v))
		display += "; " + strings.TrimSpace(string(v))
	}
	return id, display, nil
}

// fetchAll makes sure every package is in the cache, verified and extracted,
// and returns spec -> extracted package directory.
func fetchAll(o *options, pkgs map[string]grammars.Package) (map[string]string, error) {
	specs := make([]string, 0, len(pkgs))
	for s := range pkgs {
		specs = append(specs, s)
	}
	sort.Strings(specs)
	dirs := make([]string, len(specs))
	err := parallel(4, len(specs), func(i int) error {
		d, err := fetch(o, pkgs[specs[i]])
		dirs[i] = d
		return err
	})
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for i, s := range specs {
		out[s] = dirs[i]
	}
	return out, nil
}

func safeName(spec string) string {
	return strings.NewReplacer("@", "", "/", "-").Replace(spec)
}

func fetch(o *options, p grammars.Package) (string, error) {
	base := safeName(p.Package) + "-" + p.Version
	dir := filepath.Join(o.cache, "src", base+"-"+hashOf(p.Integrity)[:12])
	if exists(filepath.Join(dir, ".ok")) {
		return filepath.Join(dir, "package"), nil
	}
	tgz := filepath.Join(o.cache, "npm", base+".tgz")
	b, err := os.ReadFile(tgz)
	if err != nil || checkIntegrity(b, p.Integrity) != nil {
		tmp, err := os.MkdirTemp(filepath.Join(o.cache, "npm"), "pack-")
		if err != nil {
			return "", fmt.Errorf("grammars: %w", err)
		}
		defer os.RemoveAll(tmp)
		if _, err := exec.LookPath(o.npm); err != nil {
			return "", fmt.Errorf("grammars: %s not found (%v): the grammar sources are fetched with `npm pack`; install Node.js with npm, or pass -npm", o.npm, err)
		}
		o.logf("npm pack %s", p.Spec())
		cmd := exec.Command(o.npm, "pack", "--silent", "--pack-destination", tmp, p.Spec())
		cmd.Dir = tmp
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("grammars: npm pack %s: %v: %s", p.Spec(), err, strings.TrimSpace(stderr.String()))
		}
		name := strings.TrimSpace(string(out))
		if i := strings.LastIndex(name, "\n"); i >= 0 {
			name = name[i+1:]
		}
		if b, err = os.ReadFile(filepath.Join(tmp, filepath.Base(name))); err != nil {
			return "", fmt.Errorf("grammars: npm pack %s wrote no tarball: %w", p.Spec(), err)
		}
		if err := checkIntegrity(b, p.Integrity); err != nil {
			return "", fmt.Errorf("grammars: %s: %w; the registry served different bytes than the manifest pins, refusing to build", p.Spec(), err)
		}
		if err := writeAtomic(tgz, b); err != nil {
			return "", err
		}
	}
	os.RemoveAll(dir)
	if err := untar(b, dir); err != nil {
		return "", fmt.Errorf("grammars: extract %s: %w", p.Spec(), err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".ok"), nil, 0o644); err != nil {
		return "", fmt.Errorf("grammars: %w", err)
	}
	return filepath.Join(dir, "package"), nil
}

func checkIntegrity(b []byte, want string) error {
	sum := sha512.Sum512(b)
	got := "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
	if got != want {
		return fmt.Errorf("integrity mismatch: got %s, want %s", got, want)
	}
	return nil
}

func untar(b []byte, dir string) error {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Clean(h.Name)
		if filepath.IsAbs(name) || name == ".." || strings.HasPrefix(name, ".."+string(filepath.Separator)) {
			return fmt.Errorf("unsafe path %q in tarball", h.Name)
		}
		path := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(path, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		}
	}
}

func parallel(n, count int, fn func(i int) error) error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
		next atomic.Int32
	)
	for w := 0; w < n && w < count; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= count {
					return
				}
				mu.Lock()
				failed := len(errs) > 0
				mu.Unlock()
				if failed {
					return
				}
				if err := fn(i); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func runCmd(name string, args ...string) error {
	cmd := exec.Command(name, args...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(out.String())
		if len(msg) > 4000 {
			msg = msg[:4000] + "\n... (cut)"
		}
		return fmt.Errorf("%v\n%s %s\n%s", err, name, strings.Join(args, " "), msg)
	}
	return nil
}

func hashOf(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s;", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// writeAtomic replaces path with b (mode 0644 for a new file) as
// fsutil.WriteFileAtomic does: a synced temporary file renamed over it.
func writeAtomic(path string, b []byte) error {
	if err := fsutil.WriteFileAtomic(path, b, 0o644); err != nil {
		return fmt.Errorf("grammars: %w", err)
	}
	return nil
}
