// Package grammars is tether's language table: which tree-sitter grammars ship,
// the pinned npm packages they are built from (manifest.json), and the
// WebAssembly module of each, embedded into the binary by `make grammars`.
//
// The modules are built by `go run ./grammars/build` (what `make grammars`
// runs) from the packages and integrity hashes in manifest.json, with the C
// shim in grammars/shim, and written to grammars/wasm (git-ignored). A binary
// built before that still compiles and runs; asking it for a module returns an
// error that wraps ErrNotBuilt and names the command.
//
// This package never imports wazero: it only describes and carries the bytes.
package grammars

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// ManifestJSON is the manifest of pinned inputs (manifest.json) as shipped.
//
//go:embed manifest.json
var ManifestJSON []byte

//go:embed wasm
var wasmFS embed.FS

// ErrNotBuilt is wrapped by the error Wasm returns for a language whose module
// was not built into this binary.
var ErrNotBuilt = errors.New("grammar module not built")

// BuildCommand is what builds the grammar modules.
const BuildCommand = "make grammars"

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
	// Aliases are other accepted names ("py", "csharp").
	Aliases []string `json:"aliases"`
	// Extensions are the file extensions, with the dot, lower case.
	Extensions []string `json:"extensions"`
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
}

// Source returns the pinned package the grammar is built from.
func (l Language) Source() Package {
	return Package{Package: l.Package, Version: l.Version, Integrity: l.Integrity, Dir: l.Dir}
}

// Manifest is the decoded manifest.json.
type Manifest struct {
	Comment []string `json:"comment,omitempty"`
	// Runtime is the tree-sitter library package; Dir holds include/ and src/.
	Runtime   Package    `json:"runtime"`
	Languages []Language `json:"languages"`
}

// ParseManifest decodes and checks a manifest.
func ParseManifest(b []byte) (*Manifest, error) {
	var m Manifest
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("grammars: manifest: %w", err)
	}
	if m.Runtime.Package == "" || m.Runtime.Version == "" || m.Runtime.Integrity == "" {
		return nil, errors.New("grammars: manifest: runtime needs package, version and integrity")
	}
	seen := map[string]string{}
	for _, l := range m.Languages {
		if l.ID == "" || l.Package == "" || l.Version == "" || l.Integrity == "" || l.Function == "" {
			return nil, fmt.Errorf("grammars: manifest: language %q needs id, package, version, integrity and function", l.ID)
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
	}
	return &m, nil
}

var table = sync.OnceValues(func() (*Manifest, error) { return ParseManifest(ManifestJSON) })

func mustTable() *Manifest {
	m, err := table()
	if err != nil {
		// The manifest is embedded and checked by tests: a bad one is a build defect.
		panic(err)
	}
	return m
}

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
// "TypeScript", "csharp").
func Lookup(idOrAlias string) (Language, bool) {
	name := strings.ToLower(strings.TrimSpace(idOrAlias))
	for _, l := range mustTable().Languages {
		if l.ID == name {
			return l, true
		}
		for _, a := range l.Aliases {
			if a == name {
				return l, true
			}
		}
	}
	return Language{}, false
}

// ForPath finds a language by the file's extension (case-insensitive).
func ForPath(p string) (Language, bool) {
	ext := strings.ToLower(filepath.Ext(p))
	if ext == "" {
		return Language{}, false
	}
	for _, l := range mustTable().Languages {
		for _, e := range l.Extensions {
			if e == ext {
				return l, true
			}
		}
	}
	return Language{}, false
}

// WasmFile is the name of a language's module in grammars/wasm.
func WasmFile(id string) string { return id + ".wasm" }

// Wasm returns the embedded WebAssembly module of the language id. When it was
// not built into this binary the error wraps ErrNotBuilt and says to run
// `make grammars` and rebuild.
func Wasm(id string) ([]byte, error) {
	if _, ok := Lookup(id); !ok {
		return nil, fmt.Errorf("grammars: unknown language %q (known: %s)", id, strings.Join(IDs(), ", "))
	}
	b, err := fs.ReadFile(wasmFS, path.Join("wasm", WasmFile(id)))
	if err != nil || len(b) == 0 {
		return nil, fmt.Errorf("grammars: %s: %w into this binary; run `%s` and rebuild tether", id, ErrNotBuilt, BuildCommand)
	}
	return b, nil
}

// Built reports whether the language's module is embedded in this binary.
func Built(id string) bool {
	fi, err := fs.Stat(wasmFS, path.Join("wasm", WasmFile(id)))
	return err == nil && fi.Size() > 0
}
