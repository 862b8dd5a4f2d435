package engine

import "context"
import "errors"
import "fmt"
import "strings"
import "sync"
import "time"

import "github.com/tetratelabs/wazero"
import "github.com/tetratelabs/wazero/api"
import "github.com/tetratelabs/wazero/experimental"

import "github.com/tetherhq/tether/grammars"

// Custom languages (grammars.NewCustom): a grammar's side module, as
// `tree-sitter build --wasm` writes it for web-tree-sitter, run in the
// host module (grammars.HostWasm: the tree-sitter runtime and the shim
// with no grammar). Each instance is three modules: the host; a link
// module the engine writes for the grammar, which re-exports the host's
// memory, function table, stack pointer and C library functions as the
// side module's "env", with its __memory_base and __table_base; and the
// side module. They run in a runtime of their own that closes an instance
// when its parse's context is done, because a grammar tether did not build
// may loop where the shim never asks whether to stop; every parse of one
// has a deadline (Limits.CustomTimeout).

// DefaultCustomTimeout is the default of Limits.CustomTimeout.
const DefaultCustomTimeout = 30 * time.Second

// CustomError is a custom language's grammar failing: it trapped, ran past
// its deadline or its memory cap, or cannot be loaded. It names the
// language and its module.
type CustomError struct {
	Lang   string // the language's name
	Source string // where its module came from
	SHA256 string // the module's sha256
	Err    error
}

func (e *CustomError) Error() string {
	mod := e.Source
	if mod == "" {
		mod = "module"
	}
	return fmt.Sprintf("custom language %s (%s, sha256 %.12s): %v", e.Lang, mod, e.SHA256, e.Err)
}

func (e *CustomError) Unwrap() error { return e.Err }

func customErr(l *grammars.Language, err error) error {
	return &CustomError{Lang: l.ID, Source: l.Custom.Source, SHA256: l.Module.SHA256, Err: err}
}

// customRuntime is the runtime custom languages run in, made on first use.
type customRuntime struct {
	once     sync.Once
	rt       wazero.Runtime
	host     wazero.CompiledModule
	tableMin uint32          // the host's function table size when instantiated
	provided map[string]bool // C library functions the host exports
	err      error
}

// hostFuncs are the host module's exports that are the engine's, not a side
// module's to import.
var hostFuncs = map[string]bool{"tether_init_language": true, "tether_reserve": true, "tether_abi": true, "_initialize": true}

func (e *Engine) customRuntime() (*customRuntime, error) {
	c := &e.custom
	c.once.Do(func() {
		ctx := context.Background()
		rc := wazero.NewRuntimeConfig().
			WithCoreFeatures(api.CoreFeaturesV2).
			WithMemoryLimitPages(pagesOf(e.cfg.memoryLimit)).
			WithCloseOnContextDone(true).
			WithCompilationCache(e.cache)
		r := wazero.NewRuntimeWithConfig(ctx, rc)
		if err := hostModules(ctx, r); err != nil {
			r.Close(ctx)
			c.err = err
			return
		}
		c.rt = r
		wasm, err := grammars.HostWasm()
		if err != nil {
			c.err = fmt.Errorf("engine: %w", err)
			return
		}
		if c.tableMin, err = tableMin(wasm); err != nil {
			c.err = fmt.Errorf("engine: host module: table: %w", err)
			return
		}
		cm, err := r.CompileModule(ctx, wasm)
		if err != nil {
			c.err = fmt.Errorf("engine: compile host module: %w", err)
			return
		}
		if err := checkExports(cm); err != nil {
			c.err = fmt.Errorf("engine: host module: %w (rebuild it with `%s`)", err, grammars.UpdateCommand)
			return
		}
		c.host = cm
		c.provided = map[string]bool{}
		for name := range cm.ExportedFunctions() {
			if !hostFuncs[name] && !strings.HasPrefix(name, "tether_") {
				c.provided[name] = true
			}
		}
	})
	return c, c.err
}

// hostModules instantiates what every grammar module imports: the WASI
// subset (instantiateWASI: stdio that drops writes and a fake clock) and
// tether.should_stop.
func hostModules(ctx context.Context, r wazero.Runtime) error {
	if err := instantiateWASI(ctx, r); err != nil {
		return fmt.Errorf("engine: wasi: %w", err)
	}
	if _, err := r.NewHostModuleBuilder("tether").
		NewFunctionBuilder().
		WithGoFunction(api.GoFunc(shouldStop), nil, []api.ValueType{api.ValueTypeI32}).
		Export("should_stop").
		Instantiate(ctx); err != nil {
		return fmt.Errorf("engine: host module: %w", err)
	}
	return nil
}

// customModule is what a module of a custom language holds besides the
// compiled side module: how to link it.
type customModule struct {
	rt   *customRuntime
	side *sideInfo

	mu        sync.Mutex
	link      wazero.CompiledModule
	memBase   uint32
	tableBase uint32
}

// compileCustom reads, checks and compiles l's side module.
func (e *Engine) compileCustom(m *module) error {
	l := m.lang
	c, err := e.customRuntime()
	if err != nil {
		return err
	}
	side, err := readSide(l.Custom.Wasm)
	if err == nil {
		err = side.checkImports(c.provided)
	}
	if err == nil {
		if k, ok := side.exports[l.Custom.Symbol]; !ok || k != kindFunc {
			err = fmt.Errorf("it exports no function %s: name the grammar as its module does (languageSymbol), or give its tree_sitter_NAME", l.Custom.Symbol)
		}
	}
	if err != nil {
		return customErr(l, fmt.Errorf("%w: %w", ErrBadModule, err))
	}
	cm, err := c.rt.CompileModule(context.Background(), l.Custom.Wasm)
	if err != nil {
		return customErr(l, fmt.Errorf("%w: compile: %w", ErrBadModule, err))
	}
	m.compiled = cm
	m.custom = &customModule{rt: c, side: side}
	return nil
}

// linkFor returns the link module for a side module whose data the host
// placed at memBase. A fresh host instance places it at the same address
// every time (its allocator starts from the same state), so the module is
// written and compiled once; another address is an error.
func (cm *customModule) linkFor(memBase uint32) (wazero.CompiledModule, error) {
	cm.mu.Lock()
	defer cm.mu.Unlock()
	if cm.link != nil {
		if memBase != cm.memBase {
			return nil, fmt.Errorf("the host placed the grammar's data at %#x, not %#x as before", memBase, cm.memBase)
		}
		return cm.link, nil
	}
	b := cm.side.linkModule(memBase, cm.rt.tableMin)
	link, err := cm.rt.rt.CompileModule(context.Background(), b)
	if err != nil {
		return nil, fmt.Errorf("link module: %w", err)
	}
	cm.link, cm.memBase, cm.tableBase = link, memBase, cm.rt.tableMin
	return link, nil
}

// newCustomInstance instantiates the host, the link module and the side
// module, runs the side module's relocations and constructors, and gives
// its language to the host. All of it is bounded by the tenant's
// CustomTimeout: a grammar's constructor may loop too.
func (pl *pool) newCustomInstance(ctx context.Context) (*instance, error) {
	m := pl.m
	cm := m.custom
	ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), pl.p.limits.CustomTimeout)
	defer cancel()
	ictx = experimental.WithMemoryAllocator(ictx, pl.p.alloc)
	host, err := cm.rt.rt.InstantiateModule(ictx, cm.rt.host, sandbox())
	if err != nil {
		return nil, fmt.Errorf("instantiate host: %w", err)
	}
	inst := &instance{
		mod:     host,
		mem:     host.Memory(),
		fnInput: host.ExportedFunction("tether_input"),
		fnParse: host.ExportedFunction("tether_parse"),
		fnTable: host.ExportedFunction("tether_table"),
		fnOOM:   host.ExportedFunction("tether_oom"),
		custom:  m.lang,
		lim:     pl.p.limits,
	}
	if err := pl.linkCustom(ictx, inst); err != nil {
		// read the failure from the instance before closing it
		if !errors.Is(err, ErrMemoryLimit) && !errors.Is(err, ErrBadModule) {
			err = inst.customFailure(ictx, pl.p.limits, err, "loading")
		}
		inst.close(context.Background())
		return nil, customErr(m.lang, err)
	}
	info, err := m.langInfo(inst)
	if err != nil {
		inst.close(context.Background())
		return nil, customErr(m.lang, err)
	}
	inst.info = info
	return inst, nil
}

// linkCustom does newCustomInstance's linking in inst's host.
func (pl *pool) linkCustom(ctx context.Context, inst *instance) error {
	cm := pl.m.custom
	host := inst.mod
	call := func(mod api.Module, name string, args ...uint64) (uint64, error) {
		fn := mod.ExportedFunction(name)
		if fn == nil {
			return 0, fmt.Errorf("%w: no export %s", ErrBadModule, name)
		}
		r, err := fn.Call(ctx, args...)
		if err != nil || len(r) == 0 {
			return 0, err
		}
		return r[0], nil
	}
	if _, err := call(host, "tether_set_limit", uint64(pagesOf(pl.p.limits.Memory))); err != nil {
		return err
	}
	align := uint32(1) << min(cm.side.memAlign, 16)
	base, err := call(host, "tether_reserve", uint64(cm.side.memSize), uint64(align))
	if err != nil {
		return err
	}
	if uint32(base) == 0 {
		return fmt.Errorf("%w: no room for the grammar's %d bytes of data", ErrMemoryLimit, cm.side.memSize)
	}
	link, err := cm.linkFor(uint32(base))
	if err != nil {
		return err
	}
	lctx := experimental.WithImportResolver(ctx, func(name string) api.Module {
		if name == "host" {
			return host
		}
		return nil
	})
	linkInst, err := cm.rt.rt.InstantiateModule(lctx, link, wazero.NewModuleConfig().WithName(""))
	if err != nil {
		return fmt.Errorf("%w: link: %w", ErrBadModule, err)
	}
	inst.extra = append(inst.extra, linkInst)
	old, err := call(linkInst, "grow", uint64(cm.side.tableSize))
	if err != nil {
		return err
	}
	if uint32(old) != cm.tableBase {
		return fmt.Errorf("the host's function table had %d slots, not %d", uint32(old), cm.tableBase)
	}
	sctx := experimental.WithImportResolver(ctx, func(name string) api.Module {
		if name == "env" {
			return linkInst
		}
		return nil
	})
	side, err := cm.rt.rt.InstantiateModule(sctx, pl.m.compiled, wazero.NewModuleConfig().WithName("").WithStartFunctions())
	if err != nil {
		return err
	}
	inst.extra = append(inst.extra, side)
	for _, name := range []string{"__wasm_apply_data_relocs", "__wasm_call_ctors", "_initialize"} {
		if side.ExportedFunction(name) != nil {
			if _, err := call(side, name); err != nil {
				return err
			}
		}
	}
	lang, err := call(side, pl.m.lang.Custom.Symbol)
	if err != nil {
		return err
	}
	rc, err := call(host, "tether_init_language", lang)
	if err != nil {
		return err
	}
	switch int32(rc) {
	case 0:
		return nil
	case -2:
		return fmt.Errorf("%w: creating the parser", ErrMemoryLimit)
	}
	abi, _ := call(host, "tether_abi", lang)
	return fmt.Errorf("%w: its language (at %#x) has ABI version %d; this tree-sitter runtime (%s) reads versions 13 to 15: rebuild it with a tree-sitter CLI of 0.20 or later", ErrBadModule, uint32(lang), uint32(abi), grammars.Runtime().Spec())
}

// customFailure says why a call into a custom language's instance failed,
// during what ("loading", "parsing").
//
// The instance must still be open: its memory is read.
func (inst *instance) customFailure(ctx context.Context, lim Limits, err error, during string) error {
	inst.broken = true
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		why := "it loops"
		if during == "parsing" {
			why = "it loops, or the file is too large for it"
		}
		return fmt.Errorf("%w: it ran past %s while %s and was stopped (%s): fix the grammar, or remove it from the project's custom languages", ErrCustomTimeout, lim.CustomTimeout, during, why)
	}
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	if inst.oom(lim) {
		return fmt.Errorf("%w: its grammar grew its memory past the cap of %d MiB while %s: fix the grammar, remove it, or raise the memory limit", ErrMemoryLimit, lim.Memory>>20, during)
	}
	msg, _, _ := strings.Cut(err.Error(), "\n") // wazero's stack trace follows
	return fmt.Errorf("%w while %s (%s): the module is broken, or built for another runtime; rebuild it with `tree-sitter build --wasm`, or remove it from the project's custom languages", ErrGrammarTrapped, during, msg)
}

// oom reports whether the instance ran out of memory: the shim's cap hit,
// or its memory grown to the tenant's cap by the grammar itself.
func (inst *instance) oom(lim Limits) bool {
	if r, err := inst.fnOOM.Call(context.Background()); err == nil && r[0] != 0 {
		return true
	}
	return inst.mem != nil && uint64(inst.mem.Size()) >= uint64(pagesOf(lim.Memory))*65536
}

// Errors of a custom language's grammar; test with errors.Is.
var (
	// ErrCustomTimeout: the grammar ran past Limits.CustomTimeout.
	ErrCustomTimeout = errors.New("grammar timed out")
	// ErrGrammarTrapped: the grammar's code trapped.
	ErrGrammarTrapped = errors.New("grammar trapped")
)
