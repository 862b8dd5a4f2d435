package search

import "errors"
import "fmt"
import "os"
import "path/filepath"
import "slices"
import "sort"
import "strings"
import "unicode/utf8"

import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/matcher/rule"

// A project's customLanguages (sgconfig.yml), as ast-grep reads them:
// a name per language with libraryPath, extensions, expandoChar and
// languageSymbol. ast-grep loads libraryPath as a native library into its
// process; tether takes the grammar's WebAssembly module there (the .wasm
// that `tree-sitter build --wasm` writes and grammar packages ship for
// web-tree-sitter) and runs it in the engine's sandbox (engine.CustomError
// for a module that fails).

// customLanguageKeys are the keys of a customLanguages entry; outlineRules
// is for ast-grep outline, which tether has not, and is accepted unread.
var customLanguageKeys = []string{"libraryPath", "extensions", "expandoChar", "languageSymbol", "outlineRules"}

// ReadModule reads a custom language's module at a path relative to the
// project's directory.
type ReadModule func(rel string) ([]byte, error)

// ParseCustomLanguages registers the customLanguages of an sgconfig.yml's
// text data (config names it in errors) with grammars.RegisterCustom, each
// module read by read, and returns them; none when it has none.
func ParseCustomLanguages(data []byte, config string, read ReadModule) ([]*grammars.Language, error) {
	docs, err := ParseRuleDocs(data, config)
	if err != nil {
		return nil, err
	}
	if len(docs) != 1 {
		return nil, fmt.Errorf("%w: %s: want one document", rule.ErrInvalid, config)
	}
	return registerCustomLanguages(docs[0]["customLanguages"], config, read)
}

// LoadCustomLanguages registers the customLanguages of the sgconfig.yml
// file config (ParseCustomLanguages), reading the modules from the
// project's directory: a path that is absolute, or leads outside it
// (through "..", or a link), is refused.
func LoadCustomLanguages(config string) ([]*grammars.Language, error) {
	data, err := os.ReadFile(config)
	if err != nil {
		return nil, fmt.Errorf("search: project config: %w", err)
	}
	return ParseCustomLanguages(data, config, projectReader(config))
}

// projectReader reads files of the project whose config is config, inside
// its resolved directory only.
func projectReader(config string) ReadModule {
	return func(rel string) ([]byte, error) {
		root, err := filepath.EvalSymlinks(filepath.Dir(config))
		if err != nil {
			return nil, err
		}
		p, err := filepath.EvalSymlinks(filepath.Join(filepath.Dir(config), rel))
		if err != nil {
			return nil, err
		}
		if !within(root, p) {
			return nil, errors.New("leads outside the project through a link: give a file inside it")
		}
		return os.ReadFile(p)
	}
}

// registerCustomLanguages compiles and registers a customLanguages value
// (v, nil for none) read from config.
func registerCustomLanguages(v any, config string, read ReadModule) ([]*grammars.Language, error) {
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: %s: customLanguages must map each language's name to {libraryPath, extensions, expandoChar}", rule.ErrInvalid, config)
	}
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []*grammars.Language
	for _, name := range names {
		at := fmt.Sprintf("%s: customLanguages.%s", config, name)
		spec, lib, err := customSpec(m[name], at)
		if err != nil {
			return nil, err
		}
		wasm, err := read(lib)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: libraryPath %q: %v", rule.ErrInvalid, at, lib, err)
		}
		spec.Source = lib
		l, err := grammars.NewCustom(name, wasm, spec)
		if err == nil {
			l, err = grammars.RegisterCustom(l)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", rule.ErrInvalid, at, err)
		}
		out = append(out, l)
	}
	return out, nil
}

// customSpec reads one customLanguages entry (at names it): its spec and
// its module's path, relative to the project's directory.
func customSpec(v any, at string) (grammars.CustomSpec, string, error) {
	var spec grammars.CustomSpec
	e, ok := v.(map[string]any)
	if !ok {
		return spec, "", fmt.Errorf("%w: %s: want an object with libraryPath and extensions", rule.ErrInvalid, at)
	}
	for k := range e {
		if !slices.Contains(customLanguageKeys, k) {
			return spec, "", fmt.Errorf("%w: %s: %s: unknown key (%s)", rule.ErrInvalid, at, k, strings.Join(customLanguageKeys, ", "))
		}
	}
	lib, err := libraryPath(e["libraryPath"], at)
	if err != nil {
		return spec, "", err
	}
	exts, _ := e["extensions"].([]any)
	for _, x := range exts {
		s, ok := x.(string)
		if !ok {
			return spec, "", fmt.Errorf("%w: %s: extensions must be a list of strings", rule.ErrInvalid, at)
		}
		spec.Extensions = append(spec.Extensions, s)
	}
	if len(spec.Extensions) == 0 {
		return spec, "", fmt.Errorf("%w: %s: extensions is missing: list the file extensions the language parses", rule.ErrInvalid, at)
	}
	if x, ok := e["expandoChar"]; ok {
		s, _ := x.(string)
		if utf8.RuneCountInString(s) != 1 {
			return spec, "", fmt.Errorf("%w: %s: expandoChar must be one character", rule.ErrInvalid, at)
		}
		spec.Expando, _ = utf8.DecodeRuneInString(s)
	}
	if x, ok := e["languageSymbol"]; ok {
		if spec.Symbol, _ = x.(string); spec.Symbol == "" {
			return spec, "", fmt.Errorf("%w: %s: languageSymbol must name the module's exported function (tree_sitter_NAME)", rule.ErrInvalid, at)
		}
	}
	return spec, lib, nil
}

// libraryPath reads libraryPath: a path, or ast-grep's map of target
// triples to paths, of which tether takes the one WebAssembly module.
func libraryPath(v any, at string) (string, error) {
	var lib string
	switch x := v.(type) {
	case string:
		lib = x
	case map[string]any:
		for _, p := range x {
			if s, ok := p.(string); ok && strings.HasSuffix(s, ".wasm") {
				if lib != "" {
					return "", fmt.Errorf("%w: %s: libraryPath names two .wasm modules: name one", rule.ErrInvalid, at)
				}
				lib = s
			}
		}
	case nil:
		return "", fmt.Errorf("%w: %s: libraryPath is missing: give the grammar's .wasm module (tree-sitter build --wasm), relative to sgconfig.yml", rule.ErrInvalid, at)
	}
	if !strings.HasSuffix(lib, ".wasm") {
		return "", fmt.Errorf("%w: %s: libraryPath %v is not a .wasm module: tether runs grammars as WebAssembly, in a sandbox, not native libraries; give the .wasm the grammar's package ships, or build one with `tree-sitter build --wasm`", rule.ErrInvalid, at, v)
	}
	if err := insideProject(lib); err != nil {
		return "", fmt.Errorf("%w: %s: libraryPath %q %v", rule.ErrInvalid, at, lib, strings.Replace(err.Error(), "directory", "file", 1))
	}
	return filepath.FromSlash(lib), nil
}
