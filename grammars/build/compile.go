// Compiling and linking the modules with clang, cached by the hash of their inputs.

package main

import "bytes"
import "crypto/sha256"
import "encoding/hex"
import "errors"
import "fmt"
import "os"
import "os/exec"
import "path/filepath"
import "sort"
import "strings"
import "sync"
import "sync/atomic"
import "time"

import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/internal/fsutil"

// plan is one language's module: the cache keys of its objects and of the
// linked module.
type plan struct {
	l       grammars.Language
	objKeys []string // runtime, shim, parser, [scanner], [C++ shim]
	key     string
	cxx     bool // a C++ scanner: the link adds cxxlibs
	host    bool // the host module: the shim with no grammar (grammars.HostWasm)
}

// job compiles one object.
type job struct {
	key, src, what string
	args           []string
	size           int64
}

// build makes sure every language's module is in the cache: it fetches,
// compiles and links only what is missing (when every module is cached,
// nothing is fetched or compiled), and returns the plans and the missing ones.
func build(o *options, rt grammars.Package, langs []grammars.Language, host *grammars.Module) (plans, missing []*plan, err error) {
	rtKey := hashOf("runtime.o", rt.Spec(), rt.Integrity, rt.Dir, o.chain, strings.Join(cflags, " "))
	hp := &plan{l: grammars.HostLanguage(host), host: true, key: hostLinkKey(o, rtKey)}
	plans = append(plans, hp)
	if !exists(filepath.Join(o.cache, "wasm", hp.key+".wasm")) {
		missing = append(missing, hp)
	}
	for _, l := range langs {
		p := &plan{l: l, cxx: l.CXX}
		plans = append(plans, p)
		if p.key, err = linkKey(o, rtKey, l); err != nil {
			return nil, nil, err
		}
		if !exists(filepath.Join(o.cache, "wasm", p.key+".wasm")) {
			missing = append(missing, p)
		}
	}
	if len(missing) == 0 {
		return plans, missing, nil
	}
	o.logf("building %d of %d modules with %s, %d jobs (cache %s)", len(missing), len(plans), o.clang, o.jobs, o.cache)
	// Fetch the packages the missing modules need (and the runtime).
	pkgs := map[string]grammars.Package{rt.Spec(): rt}
	for _, p := range missing {
		if !p.host {
			pkgs[p.l.Source().Spec()] = p.l.Source()
		}
	}
	dirs, err := fetchAll(o, pkgs)
	if err != nil {
		return nil, nil, err
	}
	jobs, err := objectJobs(o, rt, rtKey, dirs, missing)
	if err != nil {
		return nil, nil, err
	}
	if err := compileAll(o, jobs); err != nil {
		return nil, nil, err
	}
	if err := linkAll(o, missing); err != nil {
		return nil, nil, err
	}
	return plans, missing, nil
}

// objectJobs plans the object files the missing modules need and the cache
// lacks, deduplicated by key, and sets each plan's object keys.
func objectJobs(o *options, rt grammars.Package, rtKey string, dirs map[string]string, missing []*plan) (map[string]*job, error) {
	rtDir := filepath.Join(dirs[rt.Spec()], rt.Dir)
	incRT := []string{"-I", filepath.Join(rtDir, "include"), "-I", filepath.Join(rtDir, "src")}
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
		if p.host {
			k := hostShimKey(o, rt)
			src := filepath.Join(o.cache, "obj", k+".c")
			if err := writeAtomic(src, o.hostSource()); err != nil {
				return nil, err
			}
			add(k, src, "host shim", incRT)
			p.objKeys = []string{rtKey, k}
			continue
		}
		src := filepath.Join(dirs[l.Source().Spec()], l.Dir, "src")
		shimKey := hashOf("shim.o", string(o.shim), l.Function, rt.Integrity, o.chain, strings.Join(cflags, " "))
		shimSrc := filepath.Join(o.cache, "obj", shimKey+".c")
		if err := writeAtomic(shimSrc, o.shim); err != nil {
			return nil, err
		}
		add(shimKey, shimSrc, l.ID+" shim", append([]string{"-DTETHER_LANGUAGE=" + l.Function}, incRT...))
		p.objKeys = []string{rtKey, shimKey}
		hasCC := false
		for _, f := range []string{"parser.c", "scanner.c", "scanner.cc"} {
			path := filepath.Join(src, f)
			if !exists(path) {
				continue
			}
			args := append([]string{"-I", src}, incRT...)
			k := hashOf("obj", l.Package, l.Version, l.Integrity, l.Dir, f, o.chain, strings.Join(cflags, " "), rt.Integrity)
			if f == "scanner.cc" {
				hasCC = true
				if !p.cxx {
					return nil, fmt.Errorf("grammars: %s: %s has a C++ scanner (src/scanner.cc): mark the language \"cxx\": true in grammars/manifest.json", l.ID, l.Source().Spec())
				}
				// libc++'s headers before the C library's: they
				// #include_next the C headers they wrap.
				args = append(append(append([]string{}, cxxflags...), "-isystem", o.cxx.inc), args...)
				k = hashOf("obj", l.Package, l.Version, l.Integrity, l.Dir, f, o.chain, strings.Join(cflags, " "), rt.Integrity,
					o.cxx.id, strings.Join(cxxflags, " "))
			}
			add(k, path, l.ID+" "+f, args)
			p.objKeys = append(p.objKeys, k)
		}
		if p.cxx && !hasCC {
			return nil, fmt.Errorf("grammars: %s: the manifest marks it \"cxx\" but %s has no src/scanner.cc under %q; remove the mark", l.ID, l.Source().Spec(), l.Dir)
		}
		if p.cxx {
			k := cxxShimKey(o)
			src := filepath.Join(o.cache, "obj", k+".cc")
			if err := writeAtomic(src, o.cxxShim); err != nil {
				return nil, err
			}
			add(k, src, l.ID+" C++ shim", append(append([]string{}, cxxflags...), "-isystem", o.cxx.inc))
			p.objKeys = append(p.objKeys, k)
		}
		if len(p.objKeys) < 3 {
			return nil, fmt.Errorf("grammars: %s: no parser.c under %s in %s", l.ID, filepath.Join(l.Dir, "src"), l.Source().Spec())
		}
	}
	return jobs, nil
}

// compileAll compiles the object jobs, biggest sources first, o.jobs at once.
func compileAll(o *options, jobs map[string]*job) error {
	var list []*job
	for _, j := range jobs {
		list = append(list, j)
	}
	sort.Slice(list, func(a, b int) bool { return list[a].size > list[b].size })
	var done atomic.Int32
	return parallel(o.jobs, len(list), func(i int) error {
		j := list[i]
		t0 := time.Now()
		args := append(append(append([]string{}, cflags...), j.args...), "-c", j.src)
		if err := clangTo(o, filepath.Join(o.cache, "obj", j.key+".o"), "compile "+j.what, args); err != nil {
			return err
		}
		o.logf("[%d/%d] compiled %s (%.1fs)", done.Add(1), len(list), j.what, time.Since(t0).Seconds())
		return nil
	})
}

// linkAll links each missing module from its objects, o.jobs at once.
func linkAll(o *options, missing []*plan) error {
	return parallel(o.jobs, len(missing), func(i int) error {
		p := missing[i]
		args := append([]string{}, ldflags...)
		for _, k := range p.objKeys {
			args = append(args, filepath.Join(o.cache, "obj", k+".o"))
		}
		for _, e := range o.export {
			args = append(args, "-Wl,--export="+e)
		}
		if p.host {
			args = append(args, hostLDFlags...)
			for _, e := range o.hostExport {
				args = append(args, "-Wl,--export="+e)
			}
		}
		if p.cxx {
			args = append(args, cxxlibs...)
		}
		if err := clangTo(o, filepath.Join(o.cache, "wasm", p.key+".wasm"), "link "+p.l.ID, args); err != nil {
			return err
		}
		o.logf("linked %s.wasm", p.l.ID)
		return nil
	})
}

// linkKey is the cache key of l's module. Only a C++ module's key names
// libc++, so installing or updating libc++ rebuilds no C module.
func linkKey(o *options, rtKey string, l grammars.Language) (string, error) {
	parts := []string{"link", rtKey, l.ID, l.Function, l.Package, l.Version, l.Integrity, l.Dir, string(o.shim),
		strings.Join(o.export, ","), strings.Join(ldflags, " "), strings.Join(cflags, " "), o.chain}
	if l.CXX {
		if o.cxx.err != nil {
			return "", fmt.Errorf("grammars: %s: its scanner.cc needs %v; run scripts/install-deps.sh build (make grammars does)", l.ID, o.cxx.err)
		}
		parts = append(parts, o.cxx.id, strings.Join(cxxflags, " "), strings.Join(cxxlibs, " "), string(o.cxxShim))
	}
	return hashOf(parts...), nil
}

// hostShimKey is the cache key of the host module's shim object.
func hostShimKey(o *options, rt grammars.Package) string {
	return hashOf("shim.o", string(o.hostSource()), rt.Integrity, o.chain, strings.Join(cflags, " "))
}

// hostLinkKey is the cache key of the host module.
func hostLinkKey(o *options, rtKey string) string {
	return hashOf("link", rtKey, "host", string(o.hostSource()), strings.Join(o.export, ","), strings.Join(o.hostExport, ","),
		strings.Join(ldflags, " "), strings.Join(hostLDFlags, " "), strings.Join(cflags, " "), o.chain)
}

// cxxShimKey is the cache key of shim/cxx.cc's object, one for every C++
// module.
func cxxShimKey(o *options) string {
	return hashOf("cxx.o", string(o.cxxShim), o.chain, strings.Join(cflags, " "), o.cxx.id, strings.Join(cxxflags, " "))
}

// clangTo runs clang with args writing out (through a temporary file renamed
// over it, so a cache entry is whole or absent); what names the step.
func clangTo(o *options, out, what string, args []string) error {
	tmp := out + fmt.Sprintf(".tmp%d", os.Getpid())
	if err := runCmd(o.clang, append(args, "-o", tmp)...); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("grammars: %s: %w", what, err)
	}
	if err := os.Rename(tmp, out); err != nil {
		return fmt.Errorf("grammars: %w", err)
	}
	return nil
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

// cxxLib is the libc++ that C++ scanners are built with, found next to
// clang's wasi-libc; err says what is missing when it is not there.
type cxxLib struct {
	inc     string // libc++'s headers (the c++/v1 directory)
	id      string // for cache keys: the sha256s of libc++.a and libc++abi.a
	display string // for the manifest's toolchain
	err     error
}

// findCXX finds libc++ and libc++abi for wasm32-wasi where clang links them
// (Debian's libc++-16-dev-wasm32 and libc++abi-16-dev-wasm32 install them in
// the wasi sysroot, /usr/lib/wasm32-wasi) and libc++'s headers in that
// sysroot's include/wasm32-wasi/c++/v1 (or include/c++/v1, wasi-sdk's older
// layout), which clang-16 does not search by itself for this target.
func findCXX(clang string) cxxLib {
	var c cxxLib
	var lib string
	for _, name := range []string{"libc++.a", "libc++abi.a"} {
		out, err := exec.Command(clang, "--target=wasm32-wasi", "-print-file-name="+name).Output()
		p := strings.TrimSpace(string(out))
		// clang prints the bare name when it finds no such file.
		if err != nil || !filepath.IsAbs(p) || !exists(p) {
			return cxxLib{err: fmt.Errorf("%s for wasm32-wasi, which %s does not find", name, clang)}
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return cxxLib{err: fmt.Errorf("%s for wasm32-wasi: %v", name, err)}
		}
		if lib == "" {
			lib = p
		} else {
			c.id += " "
			c.display += ", "
		}
		c.id += name + " " + hashOf(string(b))[:16]
		c.display += name + " sha256 " + grammars.SHA256(b)[:16]
	}
	sysroot := filepath.Dir(filepath.Dir(filepath.Dir(lib))) // SYSROOT/lib/wasm32-wasi/libc++.a
	for _, inc := range []string{filepath.Join(sysroot, "include", "wasm32-wasi", "c++", "v1"), filepath.Join(sysroot, "include", "c++", "v1")} {
		if exists(filepath.Join(inc, "vector")) {
			c.inc = inc
			return c
		}
	}
	return cxxLib{err: fmt.Errorf("libc++'s headers for wasm32-wasi (no c++/v1/vector under %s)", filepath.Join(sysroot, "include"))}
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
