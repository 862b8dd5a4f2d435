package engine

import "context"
import "errors"
import "fmt"
import "strings"
import "sync"

import "github.com/tetratelabs/wazero"
import "github.com/tetratelabs/wazero/api"

import "github.com/tetherhq/tether/grammars"

// Errors a parse can wrap; test with errors.Is.
var (
	// ErrUnknownLanguage: the language is not shipped.
	ErrUnknownLanguage = errors.New("unknown language")
	// ErrNotBuilt: the language's module is not embedded in this binary, or
	// does not match the manifest (a defect of the build).
	ErrNotBuilt = grammars.ErrNotBuilt
	// ErrMemoryLimit: the parse needed more memory than the tenant's cap.
	ErrMemoryLimit = errors.New("memory limit exceeded")
	// ErrTooLarge: the source is over the tenant's MaxSource.
	ErrTooLarge = errors.New("source too large")
	// ErrClosed: the engine or parser was closed.
	ErrClosed = errors.New("closed")
	// ErrBadModule: a grammar module lacks what the engine needs.
	ErrBadModule = errors.New("grammar module lacks the expected exports")
)

// Engine owns the wazero runtime and the compiled grammar modules. It is safe
// for concurrent use by many tenants.
type Engine struct {
	cfg     Config
	runtime wazero.Runtime
	cache   wazero.CompilationCache
	hollow  *hollowCache // nil without a compilation cache on disk

	custom customRuntime // for custom languages, made on first use

	mu       sync.Mutex
	modules  map[string]*module // by grammars.Language.Key
	parsers  map[*Parser]struct{}
	closed   bool
	fallback *Parser
}

// New creates an Engine. Grammar modules are compiled lazily, once each, on
// first use.
func New(ctx context.Context, cfg Config) (*Engine, error) {
	if cfg.memoryLimit == 0 {
		cfg.memoryLimit = DefaultMemoryLimit
	}
	rc := wazero.NewRuntimeConfig().
		WithCoreFeatures(api.CoreFeaturesV2).
		WithMemoryLimitPages(pagesOf(cfg.memoryLimit)).
		WithCloseOnContextDone(cfg.hardCancel)
	var cache wazero.CompilationCache
	var hollow *hollowCache
	if dir := cfg.cachePath(); dir != "" {
		c, err := wazero.NewCompilationCacheWithDir(dir)
		if err != nil {
			// A cache that cannot be opened only costs speed.
			c = wazero.NewCompilationCache()
		} else {
			hollow = newHollowCache(dir, cfg.hardCancel)
		}
		cache = c
	} else {
		cache = wazero.NewCompilationCache()
	}
	rc = rc.WithCompilationCache(cache)
	r := wazero.NewRuntimeWithConfig(ctx, rc)
	if err := hostModules(ctx, r); err != nil {
		r.Close(ctx)
		return nil, err
	}
	e := &Engine{cfg: cfg, runtime: r, cache: cache, hollow: hollow, modules: map[string]*module{}, parsers: map[*Parser]struct{}{}}
	e.fallback = e.NewParser(cfg.limits)
	return e, nil
}

// shouldStop is the module's tether.should_stop import, which the parser's
// progress callback asks: stop when the call's context is done.
func shouldStop(ctx context.Context, stack []uint64) {
	select {
	case <-ctx.Done():
		stack[0] = 1
	default:
		stack[0] = 0
	}
}

// Parse parses src as language l with the engine's default tenant limits.
func (e *Engine) Parse(ctx context.Context, l *grammars.Language, src []byte) (*Tree, error) {
	return e.fallback.Parse(ctx, l, src)
}

// Precompile compiles the named languages' modules now (all embedded ones
// when none are named) instead of on first use, filling wazero's compilation
// cache so later processes start warm. It returns the first error.
func (e *Engine) Precompile(ctx context.Context, langs ...string) error {
	if len(langs) == 0 {
		for _, l := range grammars.All() {
			if grammars.Built(l.ID) {
				langs = append(langs, l.ID)
			}
		}
	}
	for _, name := range langs {
		if err := ctx.Err(); err != nil {
			return err
		}
		l, err := resolve(name)
		if err != nil {
			return err
		}
		if _, err := e.module(l); err != nil {
			return err
		}
	}
	return nil
}

// Languages returns every shipped language (each embedded: see
// grammars.Built).
func (e *Engine) Languages() []grammars.Language { return grammars.All() }

// Close closes every parser and the runtime.
func (e *Engine) Close(ctx context.Context) error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	ps := make([]*Parser, 0, len(e.parsers))
	for p := range e.parsers {
		ps = append(ps, p)
	}
	e.mu.Unlock()
	for _, p := range ps {
		p.Close(ctx)
	}
	err := e.runtime.Close(ctx)
	// a custom runtime being made now is finished first, one not made yet
	// never will be
	e.custom.once.Do(func() { e.custom.err = fmt.Errorf("engine: %w", ErrClosed) })
	if e.custom.rt != nil {
		err = errors.Join(err, e.custom.rt.Close(ctx))
	}
	if err != nil {
		return fmt.Errorf("engine: close: %w", err)
	}
	return nil
}

// resolve maps a user's language name (an id, alias or, failing those, a
// file name whose extension names the language) to a shipped language.
func resolve(lang string) (*grammars.Language, error) {
	if l, ok := grammars.Lookup(lang); ok {
		return l, nil
	}
	if l, ok := grammars.ForPath(lang); ok {
		return l, nil
	}
	return nil, fmt.Errorf("engine: %w %q (shipped: %s)", ErrUnknownLanguage, lang, strings.Join(grammars.IDs(), ", "))
}

// errNoLanguage is what a parse given no language returns.
var errNoLanguage = fmt.Errorf("engine: %w: none given", ErrUnknownLanguage)

// module is one grammar's compiled module, compiled once; err is kept.
type module struct {
	id       string
	lang     *grammars.Language
	once     sync.Once
	compiled wazero.CompiledModule
	err      error
	hollow   bool // compiled is the hollow copy of a cached full module

	infoOnce sync.Once
	info     *langInfo
	infoErr  error

	custom *customModule // a custom language's: how to link it
}

// required exports of a grammar module (grammars/shim/exports.txt).
var requiredExports = []string{"tether_init", "tether_names", "tether_input", "tether_parse", "tether_table", "tether_set_limit", "tether_oom"}

// module returns l's module, compiling it on first use.
func (e *Engine) module(l *grammars.Language) (*module, error) {
	id := l.Key()
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil, fmt.Errorf("engine: %w", ErrClosed)
	}
	m := e.modules[id]
	if m == nil {
		m = &module{id: id, lang: l}
		e.modules[id] = m
	}
	e.mu.Unlock()
	m.once.Do(func() {
		if m.lang.Custom != nil {
			m.err = e.compileCustom(m)
			return
		}
		if e.hollow != nil {
			if cm, ok := e.hollow.load(e.runtime, m.lang); ok && checkExports(cm) == nil {
				m.compiled, m.hollow = cm, true
				return
			} else if ok {
				cm.Close(context.Background())
			}
		}
		wasm, err := grammars.Wasm(m.lang)
		if err != nil {
			m.err = fmt.Errorf("engine: %w", err)
			return
		}
		// Compilation is not tied to one caller's context: its result is shared.
		cm, err := e.runtime.CompileModule(context.Background(), wasm)
		if err != nil {
			m.err = fmt.Errorf("engine: compile %s: %w", id, err)
			return
		}
		if err := checkExports(cm); err != nil {
			cm.Close(context.Background())
			m.err = fmt.Errorf("engine: %s: %w (rebuild it with `%s`)", id, err, grammars.UpdateCommand)
			return
		}
		m.compiled = cm
		if e.hollow != nil {
			// Best effort: without it the next process compiles in full.
			_ = e.hollow.save(m.lang, wasm)
		}
	})
	return m, m.err
}

func checkExports(cm wazero.CompiledModule) error {
	fns := cm.ExportedFunctions()
	var missing []string
	for _, name := range requiredExports {
		if _, ok := fns[name]; !ok {
			missing = append(missing, name)
		}
	}
	if _, ok := cm.ExportedMemories()["memory"]; !ok {
		missing = append(missing, "memory")
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: %s", ErrBadModule, strings.Join(missing, ", "))
	}
	for _, imp := range cm.ImportedFunctions() {
		mod, name, _ := imp.Import()
		if !(mod == wasiModule && wasiFuncs[name]) && !(mod == "tether" && name == "should_stop") {
			return fmt.Errorf("%w: unexpected import %s.%s", ErrBadModule, mod, name)
		}
	}
	return nil
}

// sandbox is the module configuration of every instance: no filesystem, no
// arguments, no environment, no stdio, wazero's fake clocks and deterministic
// random source; anonymous so a module can be instantiated many times.
func sandbox() wazero.ModuleConfig {
	return wazero.NewModuleConfig().
		WithName("").
		WithStartFunctions("_initialize")
}
