package grammars

import "errors"
import "fmt"
import "io/fs"
import "path"
import "path/filepath"
import "regexp"
import "slices"
import "sort"
import "strings"
import "sync"
import "unicode/utf8"

// Custom describes a language registered at run time (RegisterCustom)
// rather than shipped: a tree-sitter grammar compiled to a WebAssembly side
// module, as `tree-sitter build --wasm` writes it and web-tree-sitter
// loads it. The engine runs it in the host module (HostWasm), in the same
// sandbox as the shipped grammars.
type Custom struct {
	// Source says where the module came from (a path), for messages.
	Source string
	// Wasm is the side module. It must not be modified.
	Wasm []byte
	// Symbol is the module's exported language function
	// ("tree_sitter_properties").
	Symbol string
	// Expando is the character that stands for '$' in a pattern's
	// metavariables before it is parsed ('$': none).
	Expando rune
}

// CustomSpec is what a project says about a custom language, as
// ast-grep's customLanguages does (sgconfig.yml).
type CustomSpec struct {
	// Source names where Wasm came from, for messages.
	Source string
	// Extensions are file extensions, with or without the dot.
	Extensions []string
	// Expando is the character that replaces '$' in patterns (0: '$').
	Expando rune
	// Symbol is the exported language function (default
	// tree_sitter_NAME, NAME with '-' written '_').
	Symbol string
}

// ErrCustom is wrapped by the errors of NewCustom and RegisterCustom.
var ErrCustom = errors.New("custom language")

var customName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9_\-]*$`) })

// maxCustomWasm bounds a custom module's size (the largest shipped
// grammar's module is under 20 MiB).
const maxCustomWasm = 64 << 20

// NewCustom returns a custom language named name (lower case letters,
// digits, '_' and '-') whose side module is wasm. It checks the name and
// the spec, not the module: the engine does on first use.
func NewCustom(name string, wasm []byte, spec CustomSpec) (*Language, error) {
	if !customName().MatchString(name) {
		return nil, fmt.Errorf("grammars: %w %q: a name is lower case letters, digits, '_' and '-', starting with a letter", ErrCustom, name)
	}
	if _, ok := Lookup(name); ok {
		if _, custom := lookupCustom(name); !custom {
			return nil, fmt.Errorf("grammars: %w %q: that names a shipped language; give the custom one another name", ErrCustom, name)
		}
	}
	if len(wasm) == 0 || len(wasm) > maxCustomWasm {
		return nil, fmt.Errorf("grammars: %w %s: %s is %d bytes: want a WebAssembly module of at most %d", ErrCustom, name, spec.Source, len(wasm), maxCustomWasm)
	}
	exts := make([]string, 0, len(spec.Extensions))
	for _, e := range spec.Extensions {
		e = strings.ToLower(strings.TrimSpace(e))
		if !strings.HasPrefix(e, ".") {
			e = "." + e
		}
		if len(e) < 2 || strings.ContainsAny(e, `/\*?[`) {
			return nil, fmt.Errorf("grammars: %w %s: extension %q: give one like \"props\" or \".props\"", ErrCustom, name, e)
		}
		exts = append(exts, e)
	}
	if len(exts) == 0 {
		return nil, fmt.Errorf("grammars: %w %s: no extensions: list the file extensions it parses", ErrCustom, name)
	}
	expando := spec.Expando
	if expando == 0 {
		expando = '$'
	}
	if !utf8.ValidRune(expando) || expando < ' ' {
		return nil, fmt.Errorf("grammars: %w %s: expandoChar %q is not a printable character", ErrCustom, name, expando)
	}
	sym := spec.Symbol
	if sym == "" {
		sym = "tree_sitter_" + strings.ReplaceAll(name, "-", "_")
	}
	sum := SHA256(wasm)
	return &Language{
		ID: name, Name: name, AstGrep: name, Extensions: exts, Function: sym,
		Module: &Module{SHA256: sum, Size: int64(len(wasm))},
		Custom: &Custom{Source: spec.Source, Wasm: wasm, Symbol: sym, Expando: expando},
	}, nil
}

// Key names the language's grammar for caches: its id for a shipped
// language, its id and module hash for a custom one, so two custom
// modules of one name never share anything keyed by it.
func (l *Language) Key() string {
	if l.Custom == nil || l.Module == nil {
		return l.ID
	}
	return l.ID + "@" + l.Module.SHA256[:16]
}

var customs struct {
	mu    sync.RWMutex
	langs []*Language
}

// RegisterCustom makes l (from NewCustom) a language of this process:
// Lookup and ForPath find it by its name and extensions. A name already
// registered with the same module and spec returns the registered
// language; otherwise l replaces it for later lookups (what holds the old
// one keeps it: caches key languages by Key). An extension that more than
// one custom language claims is the latest registered one's.
func RegisterCustom(l *Language) (*Language, error) {
	if l == nil || l.Custom == nil {
		return nil, fmt.Errorf("grammars: %w: not a custom language (use NewCustom)", ErrCustom)
	}
	customs.mu.Lock()
	defer customs.mu.Unlock()
	for i, c := range customs.langs {
		if c.ID == l.ID {
			if c.Module.SHA256 == l.Module.SHA256 && slices.Equal(c.Extensions, l.Extensions) && c.Custom.Expando == l.Custom.Expando && c.Custom.Symbol == l.Custom.Symbol {
				return c, nil
			}
			customs.langs = slices.Delete(customs.langs, i, i+1)
			break
		}
	}
	customs.langs = append(customs.langs, l)
	return l, nil
}

// Customs returns the registered custom languages, sorted by id.
func Customs() []*Language {
	customs.mu.RLock()
	out := slices.Clone(customs.langs)
	customs.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func lookupCustom(name string) (*Language, bool) {
	customs.mu.RLock()
	defer customs.mu.RUnlock()
	for _, c := range customs.langs {
		if c.ID == name {
			return c, true
		}
	}
	return nil, false
}

func customForPath(p string) (*Language, bool) {
	ext := strings.ToLower(filepath.Ext(p))
	if ext == "" {
		return nil, false
	}
	customs.mu.RLock()
	defer customs.mu.RUnlock()
	for i := len(customs.langs) - 1; i >= 0; i-- {
		if c := customs.langs[i]; slices.Contains(c.Extensions, ext) {
			return c, true
		}
	}
	return nil, false
}

// HostFile is the committed host module, relative to grammars/.
const HostFile = "wasm/host.wasm.zst"

var hostBlob blob

// HostWasm returns the host module that custom languages run in: the
// tree-sitter runtime and the shim without a grammar, built by
// `make grammars` with the shipped modules and checked against the
// manifest's host record as they are.
func HostWasm() ([]byte, error) {
	hostBlob.once.Do(func() {
		m := mustTable()
		if m.Host == nil {
			hostBlob.err = fmt.Errorf("grammars: host module: %w: the manifest records none; run `%s`", ErrNotBuilt, UpdateCommand)
			return
		}
		z, err := fs.ReadFile(wasmFS, path.Join("wasm", "host.wasm.zst"))
		if err != nil {
			hostBlob.err = fmt.Errorf("grammars: host module: %w into this binary (%v); run `%s`", ErrNotBuilt, err, UpdateCommand)
			return
		}
		hostBlob.b, hostBlob.err = decompress(HostLanguage(m.Host), z)
	})
	return hostBlob.b, hostBlob.err
}

// HostLanguage is the pseudo-language the build and Decompress check the
// host module as (id "host", never looked up).
func HostLanguage(mod *Module) Language {
	return Language{ID: "host", Name: "host", Function: "", Module: mod}
}
