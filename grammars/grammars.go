package grammars

import "bytes"
import "crypto/sha256"
import "embed"
import "encoding/hex"
import "encoding/json"
import "errors"
import "fmt"
import "io/fs"
import "path"
import "path/filepath"
import "slices"
import "sort"
import "strings"
import "sync"

import "github.com/klauspost/compress/zstd"

// ManifestJSON is the manifest of pinned inputs (manifest.json) as shipped.
//
//go:embed manifest.json
var ManifestJSON []byte

//go:embed wasm/*.wasm.zst
var wasmFS embed.FS

// ErrNotBuilt is wrapped by the error Wasm returns for a language whose module
// is not embedded in this binary, or whose embedded file does not match the
// manifest (a defect of the commit that changed one without the other).
var ErrNotBuilt = errors.New("grammar module not built")

// BuildCommand is what rebuilds the grammar modules from the pinned packages
// and checks them against the committed ones.
const BuildCommand = "make grammars"

// UpdateCommand is what rebuilds the grammar modules and rewrites the
// committed files and the manifest's module records.
const UpdateCommand = "make grammars-update"

// Package is one pinned npm package: name, exact version and the npm integrity
// string (sha512) of its tarball.
type Package struct {
	Package   string `json:"package"`
	Version   string `json:"version"`
	Integrity string `json:"integrity"`
	// Dir is where the sources lie inside the package ("" for its root).
	Dir string `json:"dir"`
}

// Spec returns "name@version", as npm spells it.
func (p Package) Spec() string { return p.Package + "@" + p.Version }

// Language is one shipped grammar.
type Language struct {
	// ID is the canonical name ("go", "c_sharp", "tsx").
	ID string `json:"id"`
	// Name is the language's name as people write it ("Go", "C#", "TSX"):
	// the one place tether spells it, for messages and docs.
	Name string `json:"name"`
	// AstGrep is ast-grep's spelling of the language in its JSON output
	// ("Go", "CSharp", "Tsx"), which tether's ast-grep JSON reproduces.
	AstGrep string `json:"ast_grep"`
	// Aliases are other accepted names ("py", "csharp").
	Aliases []string `json:"aliases"`
	// Extensions are the file extensions, with the dot, lower case.
	Extensions []string `json:"extensions"`
	// Filenames are whole file names that are the language whatever their
	// extension ("Makefile", "GNUmakefile"), matched exactly.
	Filenames []string `json:"filenames,omitempty"`
	// Package (npm name), Version (exact) and Integrity (npm's sha512 of the
	// tarball) pin what the grammar is built from.
	Package   string `json:"package"`
	Version   string `json:"version"`
	Integrity string `json:"integrity"`
	// Dir is where the grammar lies inside the package ("" for its root); its
	// parser.c is in Dir/src.
	Dir string `json:"dir"`
	// Function is the grammar's C entry point (tree_sitter_go).
	Function string `json:"function"`
	// CXX says the grammar's external scanner is C++ (src/scanner.cc),
	// compiled against libc++ and linked with it (Build.CXXFlags, CXXLibs).
	CXX bool `json:"cxx,omitempty"`
	// Module describes the committed module built from the above; written by
	// `go run ./grammars/build -update`, nil before the first build. A
	// custom language's records its module's sha256 and size.
	Module *Module `json:"module,omitempty"`
	// Custom is set on a language registered at run time (NewCustom,
	// RegisterCustom) instead of shipped.
	Custom *Custom `json:"-"`
}

// Module is the record of one committed grammar module.
type Module struct {
	// SHA256 (hex) and Size are those of the WebAssembly module.
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	// File is the committed, compressed module, relative to grammars/
	// ("wasm/go.wasm.zst"), and FileSHA256 the sha256 (hex) of its bytes.
	File       string `json:"file"`
	FileSHA256 string `json:"file_sha256"`
}

// Build records how the committed modules were built: every module is
// compiled and linked by the same toolchain with the same flags (plus its
// own -DTETHER_LANGUAGE and include dirs), then compressed with Codec.
type Build struct {
	// Toolchain is clang's version line, the sha256 of the wasi-libc it
	// links, the sha256s of the libc++ and libc++abi that C++ scanners
	// link, and wasm-opt's version when clang ran one.
	Toolchain string   `json:"toolchain"`
	CFlags    []string `json:"cflags"`
	LDFlags   []string `json:"ldflags"`
	// CXXFlags are added to CFlags for a C++ scanner (scanner.cc), and
	// CXXLibs to LDFlags for a module that has one.
	CXXFlags []string `json:"cxxflags,omitempty"`
	CXXLibs  []string `json:"cxxlibs,omitempty"`
	Codec    string   `json:"codec"`
}

// Source returns the pinned package the grammar is built from.
func (l Language) Source() Package {
	return Package{Package: l.Package, Version: l.Version, Integrity: l.Integrity, Dir: l.Dir}
}

// Manifest is the decoded manifest.json.
type Manifest struct {
	Comment []string `json:"comment,omitempty"`
	// Runtime is the tree-sitter library package; Dir holds include/ and src/.
	Runtime Package `json:"runtime"`
	// Build is how the committed modules were built (nil before the first).
	Build *Build `json:"build,omitempty"`
	// Host is the record of the host module custom languages run in
	// (HostWasm), written by the build as the languages' modules are.
	Host      *Module    `json:"host,omitempty"`
	Languages []Language `json:"languages"`
}

// ParseManifest decodes and checks a manifest.
func ParseManifest(b []byte) (*Manifest, error) {
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(b)) // no copy of the manifest
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("grammars: manifest: %w", err)
	}
	if m.Runtime.Package == "" || m.Runtime.Version == "" || m.Runtime.Integrity == "" {
		return nil, errors.New("grammars: manifest: runtime needs package, version and integrity")
	}
	seen := map[string]string{}
	for _, l := range m.Languages {
		if l.ID == "" || l.Name == "" || l.AstGrep == "" || l.Package == "" || l.Version == "" || l.Integrity == "" || l.Function == "" {
			return nil, fmt.Errorf("grammars: manifest: language %q needs id, name, ast_grep, package, version, integrity and function", l.ID)
		}
		if !strings.HasPrefix(l.Integrity, "sha512-") {
			return nil, fmt.Errorf("grammars: manifest: language %q: integrity must be sha512-...", l.ID)
		}
		for _, name := range append([]string{l.ID}, l.Aliases...) {
			if other, dup := seen[name]; dup {
				return nil, fmt.Errorf("grammars: manifest: name %q used by %s and %s", name, other, l.ID)
			}
			seen[name] = l.ID
		}
		for _, ext := range l.Extensions {
			if !strings.HasPrefix(ext, ".") || ext != strings.ToLower(ext) {
				return nil, fmt.Errorf("grammars: manifest: language %q: extension %q must be lower case and start with a dot", l.ID, ext)
			}
			key := "ext" + ext
			if other, dup := seen[key]; dup {
				return nil, fmt.Errorf("grammars: manifest: extension %q used by %s and %s", ext, other, l.ID)
			}
			seen[key] = l.ID
		}
		for _, name := range l.Filenames {
			if name == "" || strings.ContainsAny(name, `/\`) {
				return nil, fmt.Errorf("grammars: manifest: language %q: file name %q must be a base name", l.ID, name)
			}
			key := "file:" + name
			if other, dup := seen[key]; dup {
				return nil, fmt.Errorf("grammars: manifest: file name %q used by %s and %s", name, other, l.ID)
			}
			seen[key] = l.ID
		}
		if mod := l.Module; mod != nil {
			if len(mod.SHA256) != 64 || len(mod.FileSHA256) != 64 || mod.Size <= 0 || mod.File != "wasm/"+CompressedFile(l.ID) {
				return nil, fmt.Errorf("grammars: manifest: language %q: module needs sha256, size, file %q and file_sha256", l.ID, "wasm/"+CompressedFile(l.ID))
			}
		}
	}
	if h := m.Host; h != nil && (len(h.SHA256) != 64 || len(h.FileSHA256) != 64 || h.Size <= 0 || h.File != HostFile) {
		return nil, fmt.Errorf("grammars: manifest: host needs sha256, size, file %q and file_sha256", HostFile)
	}
	return &m, nil
}

// mustTable is the shipped manifest: manifest.json as Go data (table.go,
// which TestTable proves equal to ParseManifest's reading of it).
func mustTable() *Manifest { return &shipped }

// All returns every shipped language, in manifest order. The slice is a copy.
func All() []Language {
	return append([]Language(nil), mustTable().Languages...)
}

// IDs returns every shipped language id, sorted.
func IDs() []string {
	var ids []string
	for _, l := range mustTable().Languages {
		ids = append(ids, l.ID)
	}
	sort.Strings(ids)
	return ids
}

// Runtime returns the pinned tree-sitter runtime package.
func Runtime() Package { return mustTable().Runtime }

// Lookup finds a language by id or alias, case-insensitively ("go", "py",
// "TypeScript", "csharp"). The language is the table's own, shared by every
// caller: it must not be modified. Resolve a name once, where it enters
// (a flag, a query, a rule's language key), and pass the language on.
//
// A custom language (RegisterCustom) is found by its name after the
// shipped ones.
func Lookup(idOrAlias string) (*Language, bool) {
	name := strings.ToLower(strings.TrimSpace(idOrAlias))
	langs := mustTable().Languages
	for i := range langs {
		if langs[i].ID == name || slices.Contains(langs[i].Aliases, name) {
			return &langs[i], true
		}
	}
	return lookupCustom(name)
}

// ForPath finds a language by the file's name ("Makefile") or, failing
// that, its extension (case-insensitive). The language is shared, as
// Lookup's is. A custom language's extensions (RegisterCustom) come
// first: a project that names one for an extension means it.
func ForPath(p string) (*Language, bool) {
	if l, ok := customForPath(p); ok {
		return l, true
	}
	langs := mustTable().Languages
	base := filepath.Base(p)
	for i := range langs {
		if slices.Contains(langs[i].Filenames, base) {
			return &langs[i], true
		}
	}
	ext := strings.ToLower(filepath.Ext(p))
	if ext == "" {
		return nil, false
	}
	for i := range langs {
		if slices.Contains(langs[i].Extensions, ext) {
			return &langs[i], true
		}
	}
	return nil, false
}

// WasmFile is the name of a language's uncompressed module ("go.wasm").
func WasmFile(id string) string { return id + ".wasm" }

// CompressedFile is the name of a language's committed module in
// grammars/wasm ("go.wasm.zst").
func CompressedFile(id string) string { return id + ".wasm.zst" }

// BuildInfo returns how the embedded modules were built (nil if never).
func BuildInfo() *Build { return mustTable().Build }

// Codec is the compression of the committed modules, as the manifest's
// build.codec names it.
const Codec = "zstd"

// blob is one module, decompressed once.
type blob struct {
	once sync.Once
	b    []byte
	err  error
}

var (
	blobs = sync.OnceValue(func() map[string]*blob {
		m := map[string]*blob{}
		for _, l := range mustTable().Languages {
			m[l.ID] = &blob{}
		}
		return m
	})
	decoder = sync.OnceValues(func() (*zstd.Decoder, error) {
		// DecodeAll only: no goroutines are started, and it is safe for
		// concurrent use. The largest module (verilog) is under 20 MiB.
		return zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(64<<20))
	})
)

// Wasm returns the WebAssembly module of l, decompressed from the embedded
// file on first use (once per process; later calls return the same bytes,
// which callers must not modify). A module that is not embedded, or does
// not decompress to the manifest's size, is an error wrapping ErrNotBuilt.
//
// The embedded file and the manifest are embedded together and cannot
// change after the build; TestWasm proves they match (both sha256s), so
// Wasm hashes neither on every start: zstd's frame checksum covers the
// decompression. Decompress, for a file from disk, checks both.
//
// A custom language's module is its Custom.Wasm.
func Wasm(l *Language) ([]byte, error) {
	if l.Custom != nil {
		return l.Custom.Wasm, nil
	}
	bl := blobs()[l.ID]
	if bl == nil {
		return nil, fmt.Errorf("grammars: unknown language %q (known: %s)", l.ID, strings.Join(IDs(), ", "))
	}
	bl.once.Do(func() {
		bl.b, bl.err = load(l)
	})
	return bl.b, bl.err
}

func load(l *Language) ([]byte, error) {
	if l.Module == nil {
		return nil, fmt.Errorf("grammars: %s: %w: the manifest records no module for it; run `%s` and rebuild tether", l.ID, ErrNotBuilt, UpdateCommand)
	}
	z, err := fs.ReadFile(wasmFS, path.Join("wasm", CompressedFile(l.ID)))
	if err != nil {
		return nil, fmt.Errorf("grammars: %s: %w into this binary (%v); run `%s` and rebuild tether", l.ID, ErrNotBuilt, err, UpdateCommand)
	}
	return decompress(*l, z)
}

// Decompress decompresses a committed module file of language l and checks
// both the file and the module against the manifest's record of l.
func Decompress(l Language, z []byte) ([]byte, error) {
	if l.Module == nil {
		return nil, fmt.Errorf("grammars: %s: %w: the manifest records no module for it", l.ID, ErrNotBuilt)
	}
	if got := SHA256(z); got != l.Module.FileSHA256 {
		return nil, fmt.Errorf("grammars: %s: %w: %s has sha256 %s, the manifest records %s; run `%s`", l.ID, ErrNotBuilt, l.Module.File, got, l.Module.FileSHA256, UpdateCommand)
	}
	b, err := decompress(l, z)
	if err != nil {
		return nil, err
	}
	if got := SHA256(b); got != l.Module.SHA256 {
		return nil, fmt.Errorf("grammars: %s: %w: module has sha256 %s (%d bytes), the manifest records %s (%d bytes); run `%s`", l.ID, ErrNotBuilt, got, len(b), l.Module.SHA256, l.Module.Size, UpdateCommand)
	}
	return b, nil
}

// decompress decompresses z, l's committed module file, and checks the
// module's size against the manifest's record; zstd checks the frame's
// checksum (every committed frame has one: TestWasm).
func decompress(l Language, z []byte) ([]byte, error) {
	if l.Module == nil {
		return nil, fmt.Errorf("grammars: %s: %w: the manifest records no module for it", l.ID, ErrNotBuilt)
	}
	dec, err := decoder()
	if err != nil {
		return nil, fmt.Errorf("grammars: zstd: %w", err)
	}
	b, err := dec.DecodeAll(z, make([]byte, 0, l.Module.Size))
	if err != nil {
		return nil, fmt.Errorf("grammars: %s: %w: decompress %s: %v", l.ID, ErrNotBuilt, l.Module.File, err)
	}
	if int64(len(b)) != l.Module.Size {
		return nil, fmt.Errorf("grammars: %s: %w: module has %d bytes, the manifest records %d; run `%s`", l.ID, ErrNotBuilt, len(b), l.Module.Size, UpdateCommand)
	}
	return b, nil
}

// SHA256 returns the hex sha256 of b, as the manifest records it.
func SHA256(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Built reports whether the language's module is embedded in this binary
// (with the manifest's record of it). It does not decompress it.
func Built(id string) bool {
	l, ok := Lookup(id)
	if !ok || l.Module == nil {
		return false
	}
	fi, err := fs.Stat(wasmFS, path.Join("wasm", CompressedFile(l.ID)))
	return err == nil && fi.Size() > 0
}
