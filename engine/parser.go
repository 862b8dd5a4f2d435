package engine

import "context"
import "encoding/binary"
import "errors"
import "fmt"
import "sync"

import "github.com/tetratelabs/wazero/api"
import "github.com/tetratelabs/wazero/experimental"

import "github.com/tetherhq/tether/grammars"

// Parser is one tenant's view of an Engine: its own instance pools and limits
// over the engine's shared compiled modules. It is safe for concurrent use.
// Create it with Engine.NewParser and close it when the tenant's run ends.
type Parser struct {
	e      *Engine
	limits Limits
	alloc  experimental.MemoryAllocator

	mu     sync.Mutex
	pools  map[string]*pool
	closed bool
}

// NewParser returns a tenant with its own limits (zero fields take defaults).
func (e *Engine) NewParser(l Limits) *Parser {
	p := &Parser{e: e, limits: l.withDefaults(e.cfg.memoryLimit), pools: map[string]*pool{}}
	// Reserve a little over the tenant's cap: the shim stops at the cap itself
	// and reports it, which is clearer than a refused memory.grow.
	p.alloc = newMemoryAllocator(uint64(pagesOf(p.limits.Memory)+16) * 65536)
	e.mu.Lock()
	if e.closed {
		p.closed = true
	} else {
		e.parsers[p] = struct{}{}
	}
	e.mu.Unlock()
	return p
}

// Limits returns the parser's effective limits.
func (p *Parser) Limits() Limits { return p.limits }

// Parse parses src as language l, as grammars.Lookup or grammars.ForPath
// resolve it. src is kept by the returned Tree and must not be modified
// afterwards.
//
// The parse stops when ctx is done (or the tenant's Timeout passes) and then
// returns an error wrapping the context's error. An input that needs more than
// the tenant's memory cap fails with ErrMemoryLimit. Either way the parser
// stays usable.
func (p *Parser) Parse(ctx context.Context, l *grammars.Language, src []byte) (*Tree, error) {
	if l == nil {
		return nil, errNoLanguage
	}
	if len(src) > p.limits.MaxSource {
		return nil, fmt.Errorf("engine: %s: %w: %d bytes, the limit is %d", l.ID, ErrTooLarge, len(src), p.limits.MaxSource)
	}
	if p.limits.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, p.limits.Timeout)
		defer cancel()
	}
	pl, inst, err := p.instance(ctx, l)
	if err != nil {
		return nil, err
	}
	pctx := ctx
	if l.Custom != nil {
		var cancel context.CancelFunc
		pctx, cancel = context.WithTimeout(ctx, p.limits.CustomTimeout)
		defer cancel()
	}
	t, err := inst.parse(pctx, src)
	if err != nil && l.Custom != nil {
		// before the instance is discarded: the failure is read from it
		if ctx.Err() == nil && pctx.Err() != nil {
			err = inst.customFailure(pctx, p.limits, err, "parsing")
		}
		var ce *CustomError
		if !errors.As(err, &ce) {
			err = customErr(l, err)
		}
	}
	if (err != nil && inst.broken) || uint64(inst.mem.Size()) > p.limits.Retain {
		pl.discard(inst)
	} else {
		pl.put(inst)
	}
	if err != nil {
		return nil, fmt.Errorf("engine: parse %s: %w", l.ID, err)
	}
	return t, nil
}

// instance takes an instance of language l's module from the tenant's pool;
// the caller puts it back or discards it.
func (p *Parser) instance(ctx context.Context, l *grammars.Language) (*pool, *instance, error) {
	m, err := p.e.module(l)
	if err != nil {
		return nil, nil, err
	}
	pl, err := p.pool(m)
	if err != nil {
		return nil, nil, err
	}
	inst, err := pl.get(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("engine: %s: %w", l.ID, err)
	}
	return pl, inst, nil
}

// retainMemory is the default of Limits.Retain, the most linear memory an
// idle instance keeps: one grown
// past it by a large source (bundled JavaScript needs about 40 bytes per
// source byte) is closed after its parse, releasing the memory, and the next
// parse starts a fresh instance.
const retainMemory = 64 << 20

// Close drops the tenant's instances. Parses still running finish first.
func (p *Parser) Close(ctx context.Context) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	pools := p.pools
	p.pools = nil
	p.mu.Unlock()
	for _, pl := range pools {
		pl.close(ctx)
	}
	p.e.mu.Lock()
	delete(p.e.parsers, p)
	p.e.mu.Unlock()
	return nil
}

func (p *Parser) pool(m *module) (*pool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, fmt.Errorf("engine: parser %w", ErrClosed)
	}
	pl := p.pools[m.id]
	if pl == nil {
		pl = &pool{p: p, m: m, sem: make(chan struct{}, p.limits.Instances)}
		p.pools[m.id] = pl
	}
	return pl, nil
}

// pool holds up to cap(sem) instances of one module for one tenant. A slot in
// sem is taken for each instance in use; idle instances wait in idle.
type pool struct {
	p   *Parser
	m   *module
	sem chan struct{}

	mu     sync.Mutex
	idle   []*instance
	closed bool
}

func (pl *pool) get(ctx context.Context) (*instance, error) {
	select {
	case pl.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	pl.mu.Lock()
	if pl.closed {
		pl.mu.Unlock()
		<-pl.sem
		return nil, fmt.Errorf("parser %w", ErrClosed)
	}
	if n := len(pl.idle); n > 0 {
		inst := pl.idle[n-1]
		pl.idle = pl.idle[:n-1]
		pl.mu.Unlock()
		return inst, nil
	}
	pl.mu.Unlock()
	inst, err := pl.newInstance(ctx)
	if err != nil {
		<-pl.sem
		return nil, err
	}
	return inst, nil
}

func (pl *pool) put(inst *instance) {
	pl.mu.Lock()
	if pl.closed {
		pl.mu.Unlock()
		inst.close(context.Background())
	} else {
		pl.idle = append(pl.idle, inst)
		pl.mu.Unlock()
	}
	<-pl.sem
}

func (pl *pool) discard(inst *instance) {
	inst.close(context.Background())
	<-pl.sem
}

func (pl *pool) close(ctx context.Context) {
	pl.mu.Lock()
	pl.closed = true
	idle := pl.idle
	pl.idle = nil
	pl.mu.Unlock()
	for _, inst := range idle {
		inst.close(ctx)
	}
}

// instance is one instantiated grammar module with its exports resolved.
type instance struct {
	mod    api.Module
	mem    api.Memory
	info   *langInfo
	broken bool // trapped or closed: never reuse

	fnInput, fnParse, fnTable, fnOOM api.Function
	stack                            [1]uint64

	// a custom language's instance: the language, its limits, and the
	// link and side modules that live with the host (mod)
	custom *grammars.Language
	lim    Limits
	extra  []api.Module
}

func (pl *pool) newInstance(ctx context.Context) (*instance, error) {
	if pl.m.custom != nil {
		return pl.newCustomInstance(ctx)
	}
	// Instantiation runs no grammar code beyond libc's start-up; it must not be
	// cut short by one caller's deadline halfway, so use a detached context.
	ictx := experimental.WithMemoryAllocator(context.WithoutCancel(ctx), pl.p.alloc)
	mod, err := pl.p.e.runtime.InstantiateModule(ictx, pl.m.compiled, sandbox())
	if err != nil {
		return nil, fmt.Errorf("instantiate: %w", err)
	}
	inst := &instance{
		mod:     mod,
		mem:     mod.Memory(),
		fnInput: mod.ExportedFunction("tether_input"),
		fnParse: mod.ExportedFunction("tether_parse"),
		fnTable: mod.ExportedFunction("tether_table"),
		fnOOM:   mod.ExportedFunction("tether_oom"),
	}
	bg := context.Background()
	if r, err := mod.ExportedFunction("tether_init").Call(bg); err != nil || int32(r[0]) != 0 {
		mod.Close(bg)
		if err == nil {
			err = fmt.Errorf("tether_init returned %d (grammar ABI does not fit the runtime; rebuild the grammars with `make grammars-update`)", int32(r[0]))
		}
		return nil, fmt.Errorf("init: %w", err)
	}
	if _, err := mod.ExportedFunction("tether_set_limit").Call(bg, uint64(pagesOf(pl.p.limits.Memory))); err != nil {
		mod.Close(bg)
		return nil, fmt.Errorf("init: %w", err)
	}
	info, err := pl.m.langInfo(inst)
	if err != nil {
		mod.Close(bg)
		return nil, err
	}
	inst.info = info
	return inst, nil
}

func (inst *instance) close(ctx context.Context) {
	inst.broken = true
	for i := len(inst.extra) - 1; i >= 0; i-- {
		inst.extra[i].Close(ctx)
	}
	inst.mod.Close(ctx)
}

// langInfo reads symbol and field names once per language.
func (m *module) langInfo(inst *instance) (*langInfo, error) {
	m.infoOnce.Do(func() {
		r, err := inst.mod.ExportedFunction("tether_names").Call(context.Background())
		if err != nil {
			m.infoErr = fmt.Errorf("names: %w", err)
			return
		}
		ptr := uint32(r[0])
		head, ok := inst.mem.Read(ptr, 12)
		if ptr == 0 || !ok {
			m.infoErr = errors.New("names: no table")
			return
		}
		size := binary.LittleEndian.Uint32(head)
		nsym := binary.LittleEndian.Uint32(head[4:])
		nfield := binary.LittleEndian.Uint32(head[8:])
		b, ok := inst.mem.Read(ptr, size)
		if !ok {
			m.infoErr = errors.New("names: out of range")
			return
		}
		words := splitNUL(b[12:], int(nsym+nfield))
		if len(words) != int(nsym+nfield) {
			m.infoErr = fmt.Errorf("names: want %d names, got %d", nsym+nfield, len(words))
			return
		}
		info := &langInfo{id: m.lang.ID, kinds: words[:nsym], fields: append([]string{""}, words[nsym:]...)}
		m.info = info
	})
	return m.info, m.infoErr
}

func splitNUL(b []byte, n int) []string {
	out := make([]string, 0, n)
	start := 0
	for i, c := range b {
		if c == 0 {
			out = append(out, string(b[start:i]))
			start = i + 1
		}
	}
	return out
}

// recordSize is the size of one row of the shim's node table.
const recordSize = 48

func (inst *instance) call(ctx context.Context, fn api.Function, arg uint64) (uint64, error) {
	inst.stack[0] = arg
	if err := fn.CallWithStack(ctx, inst.stack[:]); err != nil {
		return 0, err
	}
	return inst.stack[0], nil
}

// parse runs one parse in the instance. On a trap or a forced close the
// instance is marked broken and must be discarded.
func (inst *instance) parse(ctx context.Context, src []byte) (*Tree, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ptr, err := inst.call(ctx, inst.fnInput, uint64(len(src)))
	if err != nil {
		return nil, inst.failed(ctx, err)
	}
	if uint32(ptr) == 0 {
		inst.broken = true
		return nil, fmt.Errorf("%w: no room for %d bytes of source", ErrMemoryLimit, len(src))
	}
	if !inst.mem.Write(uint32(ptr), src) {
		inst.broken = true
		return nil, errors.New("input buffer out of range")
	}
	r, err := inst.call(ctx, inst.fnParse, uint64(len(src)))
	if err != nil {
		return nil, inst.failed(ctx, err)
	}
	n := int32(r)
	switch {
	case n == -1:
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return nil, errors.New("parse stopped")
	case n == -2:
		inst.broken = true
		return nil, fmt.Errorf("%w (node table)", ErrMemoryLimit)
	case n <= 0:
		inst.broken = true
		return nil, fmt.Errorf("shim returned %d", n)
	}
	tp, err := inst.call(ctx, inst.fnTable, 0)
	if err != nil {
		return nil, inst.failed(ctx, err)
	}
	raw, ok := inst.mem.Read(uint32(tp), uint32(n)*recordSize)
	if !ok {
		inst.broken = true
		return nil, errors.New("node table out of range")
	}
	if int(n) > MaxNodes {
		return nil, fmt.Errorf("%w: %d nodes, a tree holds at most %d", ErrTooLarge, n, MaxNodes)
	}
	return newTree(inst.info, src, decodeNodes(raw, int(n))), nil
}

// failed classifies an error from a call into the module.
func (inst *instance) failed(ctx context.Context, err error) error {
	inst.broken = true
	if inst.custom != nil {
		return inst.customFailure(ctx, inst.lim, err, "parsing")
	}
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	if r, oerr := inst.fnOOM.Call(context.Background()); oerr == nil && r[0] != 0 {
		return ErrMemoryLimit
	}
	return fmt.Errorf("grammar trapped: %w", err)
}

// decodeNodes turns the shim's 48-byte records into compact nodes. The
// records' parent, sibling, child count and points are not kept (see node);
// when testHookRecord is set (a test), it sees each record's points and the
// node they were decoded into.
func decodeNodes(raw []byte, n int) []node {
	nodes := make([]node, n)
	le := binary.LittleEndian
	flags := make([]uint8, n)
	for i := range nodes {
		b := raw[i*recordSize : (i+1)*recordSize : (i+1)*recordSize]
		flags[i] |= uint8(le.Uint16(b[4:]))
		end := le.Uint32(b[16:])
		if end > uint32(n) || end <= uint32(i) {
			end = uint32(i + 1) // never for the shim's tables; keeps the tree walkable
		}
		nodes[i] = node{
			kind:  le.Uint16(b[0:]),
			field: le.Uint16(b[2:]),
			start: le.Uint32(b[24:]),
			end:   le.Uint32(b[28:]),
			sub:   end,
		}
	}
	// An ERROR or MISSING node below makes every ancestor HasError, even
	// where tree-sitter's error cost says otherwise (an ERROR of cost 0).
	for i := n - 1; i >= 0; i-- {
		b := raw[i*recordSize:]
		if flags[i]&(flagError|flagMissing|flagHasError) != 0 {
			flags[i] |= flagHasError
			if p := int32(le.Uint32(b[8:])); p >= 0 && int(p) < i {
				flags[p] |= flagHasError
			}
		}
		nodes[i].sub |= uint32(flags[i]&0x1F) << subBits
	}
	if testHookRecord != nil {
		for i := range nodes {
			b := raw[i*recordSize:]
			testHookRecord(i, Point{Row: le.Uint32(b[32:]), Column: le.Uint32(b[36:])}, Point{Row: le.Uint32(b[40:]), Column: le.Uint32(b[44:])},
				int32(le.Uint32(b[8:])), int32(le.Uint32(b[12:])), le.Uint32(b[20:]))
		}
	}
	return nodes
}

// testHookRecord, when set by a test, sees what the shim recorded of each node
// that the compact table derives: points, parent, next sibling, child count.
var testHookRecord func(i int, start, end Point, parent, next int32, nchild uint32)
