package main

import "bytes"
import "errors"
import "flag"
import "fmt"
import "os"
import "path/filepath"
import "runtime"
import "strings"
import "time"

import "github.com/tetherhq/tether/grammars"

// Compiler flags: recorded in every cache key, so changing them rebuilds.
var (
	cflags = []string{"--target=wasm32-wasi", "-O3", "-mbulk-memory", "-msimd128", "-fno-exceptions",
		"-DNDEBUG", "-Wno-unused-but-set-variable", "-Wno-unused-parameter"}
	ldflags = []string{"--target=wasm32-wasi", "-mexec-model=reactor", "-O3",
		"-Wl,--strip-all", "-Wl,-z,stack-size=1048576", "-Wl,--gc-sections"}
	// A C++ scanner (tree-sitter-vue's scanner.cc, which keeps its tag stack in
	// std::vector and std::string) is compiled against libc++ for wasm32-wasi
	// with cflags plus these (no RTTI; cflags already turn exceptions off, so
	// libc++ aborts where it would throw: a trap the engine reports), and its
	// module links libc++ and libc++abi after the objects. The standard is
	// pinned so a newer clang's default cannot change the module.
	cxxflags = []string{"-std=c++17", "-fno-rtti"}
	cxxlibs  = []string{"-lc++", "-lc++abi"}
	// The host module (grammars.HostWasm) exports its function table and
	// lets it grow: a custom grammar's side module places its functions
	// there, at the __table_base the engine gives it.
	hostLDFlags = []string{"-Wl,--export-table", "-Wl,--growable-table"}
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
	table   bool   // -table: write grammars/table.go only
	set     string // -set PACKAGE@VERSION,...
	chain   string // toolchain identity for cache keys
	tool    string // toolchain as the manifest records it
	cxx     cxxLib // libc++ for C++ scanners
	shim    []byte
	cxxShim []byte // shim/cxx.cc, linked into C++ modules
	export  []string
	// hostExport is what the host module exports besides export
	// (shim/host-exports.txt).
	hostExport []string
	hostShim   []byte // shim/host.c, which includes shim.c
}

// hostSource is the host module's one C source: shim/host.c with shim.c's
// text in place of its include.
func (o *options) hostSource() []byte {
	return bytes.Replace(o.hostShim, []byte("#include \"shim.c\"\n"), o.shim, 1)
}

func main() {
	var o options
	var only string
	flag.StringVar(&o.root, "root", ".", "repository root (where grammars/manifest.json is)")
	flag.StringVar(&o.set, "set", "", "with -update: pin PACKAGE@VERSION[,...] first (npm view gives its integrity) for every language, or the runtime, built from PACKAGE")
	flag.StringVar(&o.out, "o", "", "also write the uncompressed modules (ID.wasm) to this directory")
	flag.BoolVar(&o.update, "update", false, "write the rebuilt modules to grammars/wasm and their records to grammars/manifest.json instead of checking them against the committed ones")
	flag.BoolVar(&o.table, "table", false, "only write grammars/table.go, the manifest as Go data, from grammars/manifest.json (after editing it by hand)")
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

// loadShims reads the C shim, the C++ shim and the export list every
// module is built with.
func (o *options) loadShims() error {
	var err error
	if o.shim, err = os.ReadFile(filepath.Join(o.root, "grammars", "shim", "shim.c")); err != nil {
		return fmt.Errorf("grammars: %w", err)
	}
	if o.cxxShim, err = os.ReadFile(filepath.Join(o.root, "grammars", "shim", "cxx.cc")); err != nil {
		return fmt.Errorf("grammars: %w", err)
	}
	if o.hostShim, err = os.ReadFile(filepath.Join(o.root, "grammars", "shim", "host.c")); err != nil {
		return fmt.Errorf("grammars: %w", err)
	}
	if !bytes.Contains(o.hostShim, []byte("#include \"shim.c\"\n")) {
		return errors.New("grammars: shim/host.c must #include \"shim.c\"")
	}
	if o.export, err = readList(filepath.Join(o.root, "grammars", "shim", "exports.txt")); err != nil {
		return err
	}
	o.hostExport, err = readList(filepath.Join(o.root, "grammars", "shim", "host-exports.txt"))
	return err
}

// readList reads a list file: one item a line, '#' comments.
func readList(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("grammars: %w", err)
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out, nil
}

// selectLanguages narrows langs to the ids of -only (comma-separated),
// when given.
func (o *options) selectLanguages(langs []grammars.Language, only string) ([]grammars.Language, error) {
	if only == "" {
		return langs, nil
	}
	o.only = map[string]bool{}
	for _, id := range strings.Split(only, ",") {
		l, ok := grammars.Lookup(id)
		if !ok {
			return nil, fmt.Errorf("grammars: -only: unknown language %q", id)
		}
		o.only[l.ID] = true
	}
	var sel []grammars.Language
	for _, l := range langs {
		if o.only[l.ID] {
			sel = append(sel, l)
		}
	}
	return sel, nil
}

// printSources fetches the pinned packages and prints where each
// language's sources are, building nothing (-src).
func printSources(o *options, rt grammars.Package, langs []grammars.Language) error {
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
	if o.table {
		return writeTable(o, m)
	}
	pinned, err := applySet(o, m)
	if err != nil {
		return err
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
	if err := o.loadShims(); err != nil {
		return err
	}
	langs, err := o.selectLanguages(m.Languages, only)
	if err != nil {
		return err
	}
	if o.chain, o.tool, err = toolchain(o.clang); err != nil {
		return err
	}
	o.cxx = findCXX(o.clang)
	if o.cxx.err == nil {
		o.tool += "; " + o.cxx.display
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
		return printSources(o, rt, langs)
	}

	plans, missing, err := build(o, rt, langs, m.Host)
	if err != nil {
		return err
	}
	diffs, changed, err := install(o, m, plans)
	if err != nil {
		return err
	}
	changed += pinned
	wasmDir := filepath.Join(o.root, "grammars", "wasm")
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
	b := &grammars.Build{Toolchain: o.tool, CFlags: cflags, LDFlags: ldflags, CXXFlags: cxxflags, CXXLibs: cxxlibs, Codec: codecName()}
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
	if err := writeTable(o, m); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "grammars: wrote %d modules to %s and their records to grammars/manifest.json and %s (%d built, %.1fs); commit them\n",
		len(plans), wasmDir, tableFile, len(missing), time.Since(start).Seconds())
	return nil
}

// writeTable writes grammars/table.go for m.
func writeTable(o *options, m *grammars.Manifest) error {
	b, err := formatTable(m)
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(o.root, filepath.FromSlash(tableFile)), b)
}
