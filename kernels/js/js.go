package js

import "context"
import _ "embed"
import "errors"
import "fmt"
import "reflect"
import "regexp"
import "runtime/debug"
import "strings"
import "sync"
import "time"

import "github.com/dop251/goja"
import "github.com/dop251/goja/ast"
import "github.com/dop251/goja/parser"

import "github.com/tetherhq/tether/kernels"

// DefaultMemoryLimit is the heap cap when Config.MemoryLimit is zero.
const DefaultMemoryLimit = 512 << 20

// prelude is run in each new runtime before its first cell.
//
//go:embed prelude.js
var prelude string

// maxCallStackSize bounds JavaScript call depth.
const maxCallStackSize = 10000

// ErrClosed is returned by Execute after Close.
var ErrClosed = errors.New("kernels: js: kernel is closed; start a new one")

// Kernel is a JavaScript kernel.
type Kernel struct {
	cfg   kernels.Config
	limit int64

	mu       sync.Mutex // serializes Execute, Reset and Close
	sess     *session   // nil: the next cell starts a fresh runtime
	closed   bool
	cellN    int
	lastLoss string
	// heavy: a cell of this runtime was stopped at the memory cap and its
	// state kept, so discarding the runtime frees much: the memory goes back
	// to the operating system then.
	heavy bool
}

// New returns a JavaScript kernel; it satisfies kernels.Constructor.
func New(cfg kernels.Config) (kernels.Kernel, error) {
	cfg = cfg.WithDefaults()
	limit := cfg.MemoryLimit
	if limit <= 0 {
		limit = DefaultMemoryLimit
	}
	return &Kernel{cfg: cfg, limit: limit}, nil
}

// Language returns kernels.JavaScript.
func (k *Kernel) Language() kernels.Language { return kernels.JavaScript }

// Reset discards the runtime; the next cell starts a fresh one.
func (k *Kernel) Reset() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.discard()
	k.lastLoss = ""
	return nil
}

// discard drops the runtime, and when it was heavy returns its memory to the
// operating system. Called with k.mu held, so no cell of it runs.
func (k *Kernel) discard() {
	if k.sess != nil {
		k.sess.drop()
		k.sess = nil
	}
	if k.heavy {
		k.heavy = false
		debug.FreeOSMemory()
	}
}

// Close discards the runtime. Execute after Close fails.
func (k *Kernel) Close() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.discard()
	k.closed = true
	return nil
}

// Execute runs one cell. See kernels.Kernel.
func (k *Kernel) Execute(ctx context.Context, cell kernels.Cell) (*kernels.Result, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed {
		return nil, ErrClosed
	}
	res := &kernels.Result{}
	c, err := k.prepare(ctx, cell, res)
	if err != nil {
		return nil, err
	}
	if c == nil {
		return res, nil // a SyntaxError
	}
	defer close(c.over)
	return k.watch(ctx, c, c.s.run(c), res), nil
}

// cellRun is one compiled cell, set up in its session and ready to run.
type cellRun struct {
	s     *session
	name  string
	prg   *goja.Program
	async bool          // prg is the body of an async function (top-level await)
	over  chan struct{} // closed when Execute stops listening to the cell
	guard *heapGuard    // measured before the cell starts
}

// prepare gets the session (a fresh one when there is none, saying why the
// previous one is gone), compiles the cell and points the session's outputs
// and signals at this cell. A nil cellRun with a nil error means the cell did
// not compile: res holds the SyntaxError.
func (k *Kernel) prepare(ctx context.Context, cell kernels.Cell, res *kernels.Result) (*cellRun, error) {
	if k.sess == nil {
		s, err := k.newSession()
		if err != nil {
			return nil, err
		}
		k.sess = s
		res.StartedFresh("javascript runtime", k.lastLoss, "variables from earlier cells")
		k.lastLoss = ""
	}
	k.cellN++
	c := &cellRun{s: k.sess, name: fmt.Sprintf("cell-%d", k.cellN)}
	prg, src, err := compile(c.name, cell.Code)
	if err != nil {
		p, asrc, ok, asyncErr := compileAwait(c.name, cell.Code)
		if !ok {
			if asyncErr != nil {
				err = asyncErr
			}
			res.Error = syntaxError(err)
			if forAwait().MatchString(cell.Code) && strings.Contains(res.Error.Message, "await") {
				res.Error.Message += ": this kernel is embedded goja, which has no for await...of (nor async generators); " +
					"loop with for...of and await each value inside the loop, or use Python (language: python)"
			}
			return nil, nil
		}
		prg, src, c.async = p, asrc, true
	}
	c.prg = prg
	s := c.s
	s.sources[c.name] = src
	s.ctx = ctx
	s.stdout, s.stderr = kernels.NewStreamBuffer(k.cfg.MaxOutput).KeepAll(k.cfg.MaxSpill), kernels.NewStreamBuffer(k.cfg.MaxOutput).KeepAll(k.cfg.MaxSpill)
	s.order = kernels.NewTranscript(2*k.cfg.MaxOutput, k.cfg.MaxDisplays)
	s.bridge = make(chan int)
	c.over = make(chan struct{})
	s.over = c.over
	s.vm.ClearInterrupt()
	s.pending = nil
	select {
	case <-s.wake: // an interrupt meant for the previous cell
	default:
	}
	select {
	case <-s.alive: // output of the previous cell
	default:
	}
	// Measured before the cell starts: a collection this may need would
	// wait for a running cell's copies while it doubled on.
	c.guard = newHeapGuard(k.limit)
	return c, nil
}

// outcome is what a cell's goroutine ends with.
type outcome struct {
	value *kernels.Display
	err   *kernels.Error
	intr  *interruption
}

// run runs the cell on a goroutine of its own: its script, then its timers,
// then (top-level await) its promise; the echo of its last value is rendered
// there too, since inspecting can run JavaScript.
func (s *session) run(c *cellRun) <-chan outcome {
	done := make(chan outcome, 1)
	go func() {
		var o outcome
		defer func() {
			if p := recover(); p != nil {
				o.err = &kernels.Error{Name: "InternalError", Message: fmt.Sprintf("kernels: js: the runtime panicked: %v", p)}
			}
			done <- o
		}()
		v, err := s.vm.RunProgram(c.prg)
		if err == nil {
			err = s.runTimers()
		}
		var ti *timersInterrupted
		if errors.As(err, &ti) {
			o.err, o.intr = &kernels.Error{Name: ti.i.kind, Message: ti.i.reason}, ti.i
			return
		}
		if err != nil {
			o.err, o.intr = s.runError(err, c.name)
			o.err.Traceback = kernels.TrimTraceback(s.fixStack(cleanStack(o.err.Traceback)), 8<<10)
			if o.err.Name == "ReferenceError" && (o.err.Message == "require is not defined" || o.err.Message == "process is not defined") {
				o.err.Message += ": this JavaScript kernel is an embedded runtime without node's modules or process; " +
					"read and write files with tool('read', {path}) and tool('write', {path, content}), or use Python (language: python) for libraries"
			}
			return
		}
		if c.async {
			// The cell's promise: its value, or the exception it threw.
			if e := s.awaited(v, c.name); e != nil {
				o.err = e
				return
			}
		}
		v = s.settle(v)
		if v != nil && !goja.IsUndefined(v) {
			d := s.bundle(v, true)
			o.value = &d
		}
	}()
	return done
}

// watch is the cell's watchdog: it waits for the cell to end while keeping
// its idle budget (stopped while a bridge call is outstanding, started over by
// output), the caller's context and the heap cap, interrupts the cell when
// one of them says so, and abandons a runtime that does not come back from
// an interrupt within the grace period.
func (k *Kernel) watch(ctx context.Context, c *cellRun, done <-chan outcome, res *kernels.Result) *kernels.Result {
	s, guard := c.s, c.guard
	monitor := time.NewTicker(samplePeriod)
	defer monitor.Stop()
	idle := k.cfg.Clock.NewTimer(k.cfg.IdleTimeout)
	defer idle.Stop()
	outstanding := 0
	var grace <-chan time.Time
	interrupted := false
	interrupt := func(i *interruption) {
		if interrupted {
			return
		}
		interrupted = true
		s.vm.Interrupt(i)
		select { // a cell waiting for a timer is not in JavaScript: wake it
		case s.wake <- i:
		default:
		}
		grace = time.After(k.cfg.InterruptGrace)
	}
	ctxDone := ctx.Done()
	finish := func() *kernels.Result {
		res.Stdout, res.Stderr = s.stdout.Stream(), s.stderr.Stream()
		s.order.Fill(res)
		return res
	}
	for {
		select {
		case o := <-done:
			res.Value = o.value
			res.Error = o.err
			if o.intr != nil && o.intr.kind == kernels.KindMemoryLimit {
				s.clearStack()
				if guard.afterStop() > k.limit/2 {
					res = finish()
					k.sess = nil
					s.drop()
					guard.afterStop() // what the discarded runtime held
					res.StateLost = true
					k.lastLoss = "the previous one was discarded after a cell went over the memory cap"
					res.Error.Message += "; the memory it holds could not be freed, so the runtime was discarded: its state is lost and the next cell starts fresh"
					return res
				}
				res.Error.Message += "; what it allocated was freed and the state is kept"
				k.heavy = true
			}
			return finish()
		case d := <-s.bridge:
			outstanding += d
			if outstanding > 0 {
				idle.Stop()
			} else if !interrupted {
				idle.Reset(k.cfg.IdleTimeout)
			}
		case <-s.alive:
			if outstanding == 0 && !interrupted {
				idle.Reset(k.cfg.IdleTimeout)
			}
		case <-idle.C():
			if outstanding == 0 {
				interrupt(&interruption{kernels.KindInterrupted, fmt.Sprintf("kernels: cell interrupted: its idle budget of %s was spent with no bridge call outstanding; the runtime came back and its state is kept", k.cfg.IdleTimeout)})
			}
		case <-ctxDone:
			ctxDone = nil
			interrupt(&interruption{kernels.KindInterrupted, fmt.Sprintf("kernels: cell interrupted: %s; the runtime came back and its state is kept", kernels.StopReason(ctx))})
		case <-monitor.C:
			if grown, over := guard.over(); over && !interrupted {
				interrupt(&interruption{kernels.KindMemoryLimit, fmt.Sprintf("kernels: cell stopped: the heap grew by %d MiB, over the kernel's memory cap of %d MiB "+
					"(work on the data in smaller pieces, or ask the operator to raise the cap: tether's --eval-js-memory flag)", grown>>20, k.limit>>20)})
			}
		case <-grace:
			// The runtime is stuck in native code and cannot be stopped. Abandon
			// it: its goroutine ends when the native call does.
			k.sess = nil
			k.lastLoss = "the previous one did not come back from an interrupt and was discarded"
			res.StateLost = true
			res.Error = &kernels.Error{
				Name:    kernels.KindKernelRestarted,
				Message: fmt.Sprintf("kernels: cell interrupted, but the runtime did not come back within %s (stuck in a built-in) and was discarded: its state is lost and the next cell starts fresh", k.cfg.InterruptGrace),
			}
			res.Stdout, res.Stderr = kernels.Stream{}, kernels.Stream{} // still owned by the stuck goroutine
			return res
		}
	}
}

// clearStack drops what an interrupted cell left on goja's value stack:
// goja clears the stack above the current frame only when a run nested in a
// Go call returns, so a Go function running an empty script from inside a
// script does exactly that. Called only while no cell runs.
func (s *session) clearStack() {
	s.vm.ClearInterrupt()
	_, _ = s.vm.RunString("__tether_clear()")
}

// drop lets go of the runtime and every JavaScript value the session holds,
// so a discarded session's memory can be collected at once even while
// something still points at the session. Called only while no cell runs.
func (s *session) drop() {
	s.vm, s.pending, s.sources, s.look = nil, nil, nil, inspectState{}
	s.toolError, s.toolResult, s.mapSetEntries, s.inspectKind, s.conv, s.accessor = nil, nil, nil, nil, nil, nil
}

var promiseType = reflect.TypeOf((*goja.Promise)(nil))

// settle unwraps a settled promise left as the last expression.
func (s *session) settle(v goja.Value) goja.Value {
	o, ok := v.(*goja.Object)
	if !ok || o.ExportType() != promiseType {
		return v
	}
	if p, ok := o.Export().(*goja.Promise); ok {
		switch p.State() {
		case goja.PromiseStateFulfilled:
			return p.Result()
		}
	}
	return v
}

// runError turns a RunProgram error into a cell error.
func (s *session) runError(err error, cell string) (*kernels.Error, *interruption) {
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		i, _ := ie.Value().(*interruption)
		if i == nil {
			i = &interruption{kernels.KindInterrupted, fmt.Sprint(ie.Value())}
		}
		return &kernels.Error{Name: i.kind, Message: i.reason, Traceback: ie.String(), Line: cellLine(ie.Stack(), cell)}, i
	}
	var so *goja.StackOverflowError
	if errors.As(err, &so) {
		return &kernels.Error{Name: "RangeError", Message: fmt.Sprintf("Maximum call stack size exceeded (%d frames)", maxCallStackSize), Traceback: so.String(), Line: cellLine(so.Stack(), cell)}, nil
	}
	var ex *goja.Exception
	if errors.As(err, &ex) {
		e := &kernels.Error{Name: "Error", Message: ex.Error(), Traceback: ex.String(), Line: cellLine(ex.Stack(), cell)}
		if obj, ok := ex.Value().(*goja.Object); ok {
			errorFields(e, obj)
			if e.Name == "TypeError" {
				s.nodeError(e)
			}
		} else if v := ex.Value(); v != nil {
			e.Name, e.Message = "Uncaught", s.inspect(v, 0, true, nil)
		}
		return e, nil
	}
	return &kernels.Error{Name: "Error", Message: err.Error()}, nil
}

// errorFields sets e's Name, Message and Traceback from a thrown object's
// name, message and stack, each where the object has it, and reports whether
// it had a stack.
func errorFields(e *kernels.Error, obj *goja.Object) (stack bool) {
	if n := obj.Get("name"); n != nil && !goja.IsUndefined(n) {
		e.Name = n.String()
	}
	if m := obj.Get("message"); m != nil && !goja.IsUndefined(m) {
		e.Message = m.String()
	}
	if st := obj.Get("stack"); st != nil && !goja.IsUndefined(st) {
		e.Traceback = st.String()
		return true
	}
	return false
}

// cleanStack drops the kernel's own frames from a stack text: the prelude
// (ToolError, the memory guards) and Go functions such as tool().
func cleanStack(st string) string {
	if !strings.Contains(st, "tether-prelude:") && !strings.Contains(st, "github.com/tetherhq/tether/") {
		return st
	}
	lines := strings.Split(st, "\n")
	out := lines[:0]
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "at ") && (strings.Contains(t, "tether-prelude:") || strings.Contains(t, "github.com/tetherhq/tether/")) {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

func cellLine(stack []goja.StackFrame, cell string) int {
	for _, f := range stack {
		if f.SrcName() == cell {
			return f.Position().Line
		}
	}
	return 0
}

// compile parses first, so that a syntax error keeps its position. Top-level
// let, const and class declarations are turned into var ones first (see
// replDeclarations), so a cell can be run again.
func compile(name, code string) (*goja.Program, *cellSource, error) {
	prg, err := parser.ParseFile(nil, name, code, 0)
	if err != nil {
		return nil, nil, err
	}
	src := newCellSource(code, code, 0, nil)
	if re, edits := replDeclarations(prg, code); re != code {
		if prg2, err := parser.ParseFile(nil, name, re, 0); err == nil {
			prg = prg2
			src = newCellSource(code, re, 0, edits)
		}
	}
	p, err := goja.CompileAST(prg, false)
	return p, src, err
}

// replDeclarations rewrites a cell's top-level `let x` and `const x` into
// `var x`, and `class X {}` into `var X = class X {};`, as a REPL does: each
// cell is a separate script, and a lexical declaration repeated in a later
// script (the same cell run twice) would otherwise be a SyntaxError. Lines
// stay where they are, so errors still point at the cell line.
func replDeclarations(prg *ast.Program, code string) (string, []edit) {
	var edits []edit
	base := prg.File.Base()
	for _, st := range prg.Body {
		switch d := st.(type) {
		case *ast.LexicalDeclaration:
			at := int(d.Idx) - base
			switch {
			case strings.HasPrefix(code[at:], "let"):
				edits = append(edits, edit{at: at, n: 3, with: "var"})
			case strings.HasPrefix(code[at:], "const"):
				edits = append(edits, edit{at: at, n: 5, with: "var  "})
			}
		case *ast.ClassDeclaration:
			c := d.Class
			at, end := int(c.Class)-base, int(c.RightBrace)-base
			if c.Name == nil || !strings.HasPrefix(code[at:], "class") || end < at || end >= len(code) {
				continue
			}
			edits = append(edits, edit{at: at, with: "var " + c.Name.Name.String() + " = "}, edit{at: end + 1, with: ";"})
		}
	}
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		code = code[:e.at] + e.with + code[e.at+e.n:]
	}
	for i := range edits {
		edits[i].seq = i
	}
	return code, edits
}

// forAwait finds a for await...of loop, which goja cannot parse.
var forAwait = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bfor\s+await\s*\(`) })

func syntaxError(err error) *kernels.Error {
	var list parser.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		p := list[0].Position
		return &kernels.Error{Name: "SyntaxError", Message: list[0].Message, Traceback: fmt.Sprintf("SyntaxError: %s (cell line %d, column %d)", list[0].Message, p.Line, p.Column), Line: p.Line}
	}
	var ce *goja.CompilerSyntaxError
	if errors.As(err, &ce) {
		e := &kernels.Error{Name: "SyntaxError", Message: ce.Message, Traceback: ce.Error()}
		if ce.File != nil {
			e.Line = ce.File.Position(ce.Offset).Line
		}
		return e
	}
	return &kernels.Error{Name: "SyntaxError", Message: err.Error()}
}
