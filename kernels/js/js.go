// Package js is tether's JavaScript kernel: an embedded goja runtime per
// kernel, with console.log, display, tool(name, args) (synchronous from the
// script's view), the last expression echoed, an idle budget enforced with
// goja's Interrupt, and a heap cap.
//
// # The heap cap
//
// goja has no heap limit of its own, so the kernel enforces one in two ways
// (a decision recorded here because it is not obvious from the code):
//
//   - While a cell runs, a guard looks at the Go heap (runtime/metrics
//     "/memory/classes/heap/objects:bytes") every millisecond and interrupts
//     the cell as soon as the heap has grown by more than the cap since the
//     cell started, without collecting first: a collection waits for the
//     cell's goroutine to finish the copy it is in, and a string doubling in
//     a loop (s = s + s) doubled again meanwhile. So that garbage is not
//     mistaken for growth, the guard has garbage collected in the background
//     long before it could reach the cap. After the interrupt the kernel
//     collects and returns the freed memory to the operating system: when
//     what the cell allocated is gone (a local string), the state is kept;
//     otherwise the runtime is discarded and the result says state was lost.
//     goja cannot be hooked where `+` allocates, so one allocation can pass
//     the cap: the one in flight when the guard looks (at most twice the
//     largest string, which is under the cap). The heap is the process's, so
//     allocations by other goroutines count too.
//   - goja cannot interrupt a native built-in mid-call, so the built-ins that
//     allocate in one call in proportion to an argument (String.prototype.repeat,
//     padStart, padEnd, Array.prototype.fill, ArrayBuffer and the typed-array
//     constructors) are wrapped to throw a RangeError when the one allocation
//     alone would pass the cap.
//
// Deep recursion is bounded with SetMaxCallStackSize, so it is a RangeError in
// the cell and never a Go stack overflow.
package js

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/parser"

	"github.com/tetherhq/tether/kernels"
)

// DefaultMemoryLimit is the heap cap when Config.MemoryLimit is zero.
const DefaultMemoryLimit = 512 << 20

// MaxCallStackSize bounds JavaScript call depth.
const MaxCallStackSize = 10000

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
	k.sess, k.lastLoss = nil, ""
	return nil
}

// Close discards the runtime. Execute after Close fails.
func (k *Kernel) Close() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.sess, k.closed = nil, true
	return nil
}

// session is one goja runtime and what its Go callbacks write to. Cells of a
// session run one at a time on a goroutine of their own.
type session struct {
	vm  *goja.Runtime
	cfg kernels.Config

	// The current cell's outputs and bridge context. Set by Execute before the
	// cell's goroutine starts and read after it ends.
	ctx    context.Context
	stdout *kernels.StreamBuffer
	stderr *kernels.StreamBuffer
	order  *kernels.Transcript
	// bridge tells Execute when a tool() call starts (+1) and ends (-1);
	// over is closed when Execute stops listening.
	bridge chan int
	over   chan struct{}
	// alive is signalled (without blocking) when the cell prints or
	// displays something: output starts the idle budget over.
	alive chan struct{}

	// setTimeout and friends: timers the cell set, run before it ends.
	pending  []*jsTimer
	timerSeq int64
	wake     chan *interruption

	// console state: count() counters, time() starts, group() indent.
	counts map[string]int
	timers map[string]time.Time
	indent int

	// look is the state of the inspect call in progress.
	look inspectState

	// sources are the cells this runtime ran, by name, for error positions.
	sources map[string]*cellSource

	toolError     goja.Value // the ToolError constructor
	inspectMapSet goja.Callable
	inspectKind   goja.Callable // "Map", "Set", "WeakMap", "WeakSet" or "", by brand check
	conv          goja.Callable // util.format's %d, %i, %f, %j and %s conversions
	accessor      goja.Callable // "[Getter]", "[Setter]", "[Getter/Setter]" or "" for a property
}

// interruption is the value given to vm.Interrupt.
type interruption struct {
	kind   string // kernels.ErrInterrupted or kernels.ErrMemoryLimit
	reason string
}

func (i *interruption) String() string { return i.reason }

// Execute runs one cell. See kernels.Kernel.
func (k *Kernel) Execute(ctx context.Context, cell kernels.Cell) (*kernels.Result, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed {
		return nil, ErrClosed
	}
	res := &kernels.Result{}
	if k.sess == nil {
		s, err := k.newSession()
		if err != nil {
			return nil, err
		}
		k.sess = s
		res.Fresh = true
		if k.lastLoss != "" {
			res.StateLost = true
			res.Notices = append(res.Notices, "started a fresh javascript runtime: "+k.lastLoss+"; variables from earlier cells are gone")
			k.lastLoss = ""
		}
	}
	k.cellN++
	name := fmt.Sprintf("cell-%d", k.cellN)
	prg, src, err := compile(name, cell.Code)
	async := false
	if err != nil {
		p, asrc, ok := compileAwait(name, cell.Code)
		if !ok {
			res.Error = syntaxError(err)
			if forAwait.MatchString(cell.Code) && strings.Contains(res.Error.Message, "await") {
				res.Error.Message += ": this kernel is embedded goja, which has no for await...of (nor async generators); " +
					"loop with for...of and await each value inside the loop, or use Python (language: python)"
			}
			return res, nil
		}
		prg, src, async = p, asrc, true
	}
	s := k.sess
	s.sources[name] = src
	s.ctx = ctx
	s.stdout, s.stderr = kernels.NewStreamBuffer(k.cfg.MaxOutput), kernels.NewStreamBuffer(k.cfg.MaxOutput)
	s.order = kernels.NewTranscript(k.cfg.MaxOutput, k.cfg.MaxDisplays)
	s.bridge = make(chan int)
	over := make(chan struct{})
	s.over = over
	defer close(over)
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

	type outcome struct {
		value *kernels.Display
		err   *kernels.Error
		intr  *interruption
	}
	done := make(chan outcome, 1)
	go func() {
		var o outcome
		defer func() {
			if p := recover(); p != nil {
				o.err = &kernels.Error{Name: "InternalError", Message: fmt.Sprintf("kernels: js: the runtime panicked: %v", p)}
			}
			done <- o
		}()
		v, err := s.vm.RunProgram(prg)
		if err == nil {
			err = s.runTimers()
		}
		var ti *timersInterrupted
		if errors.As(err, &ti) {
			o.err, o.intr = &kernels.Error{Name: ti.i.kind, Message: ti.i.reason}, ti.i
			return
		}
		if err != nil {
			o.err, o.intr = s.runError(err, name)
			o.err.Traceback = kernels.TrimTraceback(s.fixStack(cleanStack(o.err.Traceback)), 8<<10)
			if o.err.Name == "ReferenceError" && (o.err.Message == "require is not defined" || o.err.Message == "process is not defined") {
				o.err.Message += ": this JavaScript kernel is an embedded runtime without node's modules or process; " +
					"read and write files with tool('read', {path}) and tool('write', {path, content}), or use Python (language: python) for libraries"
			}
			return
		}
		if async {
			// The cell's promise: its value, or the exception it threw.
			if e := s.awaited(v, name); e != nil {
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

	guard := newHeapGuard(k.limit)
	monitor := time.NewTicker(samplePeriod)
	defer monitor.Stop()
	idle := time.NewTimer(k.cfg.IdleTimeout)
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
			if o.intr != nil && o.intr.kind == kernels.ErrMemoryLimit {
				s.clearStack()
				if guard.afterStop() > k.limit/2 {
					res = finish()
					k.sess = nil
					s.drop()
					guard.afterStop() // what the discarded runtime held
					res.StateLost = true
					k.lastLoss = "the previous one was discarded after a cell went over the memory cap"
					res.Error.Message += "; the memory it holds could not be freed, so the runtime was discarded: its state is lost and the next cell starts fresh"
					return res, nil
				}
				res.Error.Message += "; what it allocated was freed and the state is kept"
			}
			return finish(), nil
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
		case <-idle.C:
			if outstanding == 0 {
				interrupt(&interruption{kernels.ErrInterrupted, fmt.Sprintf("kernels: cell interrupted: its idle budget of %s was spent with no bridge call outstanding; the runtime came back and its state is kept", k.cfg.IdleTimeout)})
			}
		case <-ctxDone:
			ctxDone = nil
			interrupt(&interruption{kernels.ErrInterrupted, fmt.Sprintf("kernels: cell interrupted: the caller gave up (%v); the runtime came back and its state is kept", ctx.Err())})
		case <-monitor.C:
			if grown, over := guard.over(); over && !interrupted {
				interrupt(&interruption{kernels.ErrMemoryLimit, fmt.Sprintf("kernels: cell stopped: the heap grew by %d MiB, over the kernel's memory cap of %d MiB "+
					"(work on the data in smaller pieces, or ask the operator to raise the cap: tether's --eval-js-memory flag)", grown>>20, k.limit>>20)})
			}
		case <-grace:
			// The runtime is stuck in native code and cannot be stopped. Abandon
			// it: its goroutine ends when the native call does.
			k.sess = nil
			k.lastLoss = "the previous one did not come back from an interrupt and was discarded"
			res.StateLost = true
			res.Error = &kernels.Error{
				Name:    kernels.ErrKernelRestarted,
				Message: fmt.Sprintf("kernels: cell interrupted, but the runtime did not come back within %s (stuck in a built-in) and was discarded: its state is lost and the next cell starts fresh", k.cfg.InterruptGrace),
			}
			res.Stdout, res.Stderr = kernels.Stream{}, kernels.Stream{} // still owned by the stuck goroutine
			return res, nil
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
	s.toolError, s.inspectMapSet, s.inspectKind, s.conv, s.accessor = nil, nil, nil, nil, nil
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
			i = &interruption{kernels.ErrInterrupted, fmt.Sprint(ie.Value())}
		}
		return &kernels.Error{Name: i.kind, Message: i.reason, Traceback: ie.String(), Line: cellLine(ie.Stack(), cell)}, i
	}
	var so *goja.StackOverflowError
	if errors.As(err, &so) {
		return &kernels.Error{Name: "RangeError", Message: fmt.Sprintf("Maximum call stack size exceeded (%d frames)", MaxCallStackSize), Traceback: so.String(), Line: cellLine(so.Stack(), cell)}, nil
	}
	var ex *goja.Exception
	if errors.As(err, &ex) {
		e := &kernels.Error{Name: "Error", Message: ex.Error(), Traceback: ex.String(), Line: cellLine(ex.Stack(), cell)}
		if obj, ok := ex.Value().(*goja.Object); ok {
			if n := obj.Get("name"); n != nil && !goja.IsUndefined(n) {
				e.Name = n.String()
			}
			if m := obj.Get("message"); m != nil && !goja.IsUndefined(m) {
				e.Message = m.String()
			}
			if st := obj.Get("stack"); st != nil && !goja.IsUndefined(st) {
				e.Traceback = st.String()
			}
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
var forAwait = regexp.MustCompile(`\bfor\s+await\s*\(`)

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

// newSession builds a runtime with tether's globals.
func (k *Kernel) newSession() (*session, error) {
	vm := goja.New()
	vm.SetMaxCallStackSize(MaxCallStackSize)
	s := &session{vm: vm, cfg: k.cfg, counts: map[string]int{}, timers: map[string]time.Time{}, wake: make(chan *interruption, 1), alive: make(chan struct{}, 1), sources: map[string]*cellSource{}}
	console := vm.NewObject()
	write := func(err bool, text string) {
		if s.indent > 0 {
			pad := strings.Repeat(" ", s.indent)
			text = pad + strings.ReplaceAll(strings.TrimSuffix(text, "\n"), "\n", "\n"+pad) + "\n"
		}
		s.signalAlive()
		if err {
			s.stderr.WriteString(text)
			s.order.Write("stderr", text)
		} else {
			s.stdout.WriteString(text)
			s.order.Write("stdout", text)
		}
	}
	join := func(args []goja.Value) string { return s.format(args) }
	out := func(err bool) func(goja.FunctionCall) goja.Value {
		return func(c goja.FunctionCall) goja.Value {
			write(err, join(c.Arguments)+"\n")
			return goja.Undefined()
		}
	}
	for _, n := range []string{"log", "info", "debug", "dir"} {
		_ = console.Set(n, out(false))
	}
	for _, n := range []string{"warn", "error"} {
		_ = console.Set(n, out(true))
	}
	// The rest of node's console that notebook code uses.
	label := func(c goja.FunctionCall) string {
		if a := c.Argument(0); !goja.IsUndefined(a) {
			return a.String()
		}
		return "default"
	}
	_ = console.Set("assert", func(c goja.FunctionCall) goja.Value {
		if !c.Argument(0).ToBoolean() {
			msg := "Assertion failed"
			if len(c.Arguments) > 1 {
				msg += ": " + join(c.Arguments[1:])
			}
			write(true, msg+"\n")
		}
		return goja.Undefined()
	})
	_ = console.Set("trace", func(c goja.FunctionCall) goja.Value {
		write(true, strings.TrimSpace("Trace: "+join(c.Arguments))+"\n")
		return goja.Undefined()
	})
	_ = console.Set("count", func(c goja.FunctionCall) goja.Value {
		l := label(c)
		s.counts[l]++
		write(false, fmt.Sprintf("%s: %d\n", l, s.counts[l]))
		return goja.Undefined()
	})
	_ = console.Set("countReset", func(c goja.FunctionCall) goja.Value {
		delete(s.counts, label(c))
		return goja.Undefined()
	})
	_ = console.Set("time", func(c goja.FunctionCall) goja.Value {
		s.timers[label(c)] = time.Now()
		return goja.Undefined()
	})
	timeLog := func(end bool) func(goja.FunctionCall) goja.Value {
		return func(c goja.FunctionCall) goja.Value {
			l := label(c)
			t0, ok := s.timers[l]
			if !ok {
				write(true, fmt.Sprintf("Warning: No such label '%s' for console.time%s()\n", l, map[bool]string{true: "End", false: "Log"}[end]))
				return goja.Undefined()
			}
			if end {
				delete(s.timers, l)
			}
			extra := ""
			if len(c.Arguments) > 1 {
				extra = " " + join(c.Arguments[1:])
			}
			write(false, fmt.Sprintf("%s: %.3fms%s\n", l, float64(time.Since(t0).Microseconds())/1000, extra))
			return goja.Undefined()
		}
	}
	_ = console.Set("timeEnd", timeLog(true))
	_ = console.Set("timeLog", timeLog(false))
	_ = console.Set("group", func(c goja.FunctionCall) goja.Value {
		if len(c.Arguments) > 0 {
			write(false, join(c.Arguments)+"\n")
		}
		s.indent += 2
		return goja.Undefined()
	})
	_ = console.Set("groupEnd", func(goja.FunctionCall) goja.Value {
		if s.indent >= 2 {
			s.indent -= 2
		}
		return goja.Undefined()
	})
	_ = console.Set("table", func(c goja.FunctionCall) goja.Value {
		write(false, s.table(c.Argument(0))+"\n")
		return goja.Undefined()
	})
	if err := vm.Set("console", console); err != nil {
		return nil, fmt.Errorf("kernels: js: %w", err)
	}
	display := vm.ToValue(func(c goja.FunctionCall) goja.Value {
		for _, a := range c.Arguments {
			s.order.Display(s.bundle(a, false))
		}
		s.signalAlive()
		return goja.Undefined()
	}).(*goja.Object)
	_ = display.Set("html", func(c goja.FunctionCall) goja.Value {
		h := c.Argument(0).String()
		d := kernels.Display{Text: "[HTML output]"}
		var note string
		d.HTML, note = kernels.CutText(h, s.cfg.MaxText)
		d.Note = note
		s.order.Display(d)
		s.signalAlive()
		return goja.Undefined()
	})
	if err := vm.Set("display", display); err != nil {
		return nil, fmt.Errorf("kernels: js: %w", err)
	}
	clear := vm.ToValue(func(goja.FunctionCall) goja.Value {
		_, _ = vm.RunString("undefined")
		return goja.Undefined()
	})
	if err := vm.GlobalObject().DefineDataProperty("__tether_clear", clear, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE); err != nil {
		return nil, fmt.Errorf("kernels: js: %w", err)
	}
	if err := s.installTimers(); err != nil {
		return nil, fmt.Errorf("kernels: js: %w", err)
	}
	if err := vm.Set("tool", s.tool); err != nil {
		return nil, fmt.Errorf("kernels: js: %w", err)
	}
	if _, err := vm.RunScript("tether-prelude", prelude); err != nil {
		return nil, fmt.Errorf("kernels: js: prelude: %w", err)
	}
	guard, ok := goja.AssertFunction(vm.Get("__tether_guard"))
	if !ok {
		return nil, errors.New("kernels: js: prelude did not define its guard")
	}
	if _, err := guard(goja.Undefined(), vm.ToValue(k.limit)); err != nil {
		return nil, fmt.Errorf("kernels: js: installing the memory guards: %w", err)
	}
	s.toolError = vm.Get("ToolError")
	s.inspectMapSet, _ = goja.AssertFunction(vm.Get("__tether_entries"))
	s.inspectKind, _ = goja.AssertFunction(vm.Get("__tether_kind"))
	s.conv, _ = goja.AssertFunction(vm.Get("__tether_conv"))
	s.accessor, _ = goja.AssertFunction(vm.Get("__tether_accessor"))
	vm.GlobalObject().Delete("__tether_guard")
	return s, nil
}

// tool is tool(name, args): a synchronous bridge call.
func (s *session) tool(c goja.FunctionCall) goja.Value {
	name := c.Argument(0).String()
	args := "{}"
	if a := c.Argument(1); !goja.IsUndefined(a) && !goja.IsNull(a) {
		obj, ok := a.(*goja.Object)
		if !ok || obj.ClassName() == "Array" {
			panic(s.vm.NewTypeError("tool(name, args): args must be an object"))
		}
		b, err := obj.MarshalJSON()
		if err != nil {
			panic(s.vm.NewTypeError("tool(name, args): args do not convert to JSON: " + err.Error()))
		}
		args = string(b)
	}
	if s.cfg.Tools == nil {
		s.throwTool("kernels: no tools are wired to this kernel: tool() is only available when the kernel runs inside a tether run")
	}
	s.signal(1)
	r, err := s.cfg.Tools(s.ctx, name, []byte(args))
	s.signal(-1)
	if err != nil {
		s.throwTool(err.Error())
	}
	if r.IsError {
		s.throwTool(r.Text)
	}
	return s.vm.ToValue(r.Text)
}

// signalAlive tells Execute the cell produced output.
func (s *session) signalAlive() {
	select {
	case s.alive <- struct{}{}:
	default:
	}
}

func (s *session) signal(d int) {
	select {
	case s.bridge <- d:
	case <-s.over:
	}
}

func (s *session) throwTool(msg string) {
	ctor, ok := s.toolError.(*goja.Object)
	if ok {
		if obj, err := s.vm.New(ctor, s.vm.ToValue(msg)); err == nil {
			panic(obj)
		}
	}
	panic(s.vm.NewGoError(errors.New(msg)))
}

// bundle renders a value for display or echo. A getter that throws while the
// value is shown does not fail the cell: the text says what happened.
func (s *session) bundle(v goja.Value, echo bool) kernels.Display {
	var text string
	if ex := s.vm.Try(func() { text = s.inspect(v, 0, echo, nil) }); ex != nil {
		text = "<value could not be shown: " + s.fixStack(ex.Error()) + ">"
	}
	var d kernels.Display
	d.Text, d.Note = kernels.CutText(text, s.cfg.MaxText)
	return d
}

const maxInspectItems = 100

// inspect formats a value the way a REPL shows it. Top-level strings are raw
// unless quote is set (the echo quotes them, as node's REPL does).
func (s *session) inspect(v goja.Value, depth int, quote bool, seen map[*goja.Object]bool) string {
	if seen == nil {
		s.look = inspectState{} // a new top-level value
	}
	switch {
	case v == nil || goja.IsUndefined(v):
		return "undefined"
	case goja.IsNull(v):
		return "null"
	}
	if sym, ok := v.(*goja.Symbol); ok {
		return "Symbol(" + sym.String() + ")"
	}
	obj, ok := v.(*goja.Object)
	if !ok {
		if _, isBig := v.Export().(*big.Int); isBig {
			return v.String() + "n"
		}
		if _, isStr := v.Export().(string); isStr {
			if quote || depth > 0 {
				return quoteJS(v.String())
			}
			return v.String()
		}
		if f, ok := v.Export().(float64); ok && f == 0 && math.Signbit(f) {
			return "-0"
		}
		return v.String()
	}
	if seen[obj] {
		return "[Circular]"
	}
	if seen == nil {
		seen = map[*goja.Object]bool{}
	}
	seen[obj] = true
	defer delete(seen, obj)
	if _, isFn := goja.AssertFunction(obj); isFn {
		// As node: [Function: f], [class K extends P], [AsyncFunction: g].
		n := ""
		if name := obj.Get("name"); name != nil && !goja.IsUndefined(name) {
			n = name.String()
		}
		src := strings.TrimSpace(obj.String())
		switch {
		case strings.HasPrefix(src, "class") && len(src) > 5 && !isIdentByte(src[5]):
			out := "[class " + n
			if n == "" {
				out = "[class (anonymous)"
			}
			if p := obj.Prototype(); p != nil {
				if pn := p.Get("name"); pn != nil && !goja.IsUndefined(pn) && pn.String() != "" {
					out += " extends " + pn.String()
				}
			}
			return out + "]"
		case strings.HasPrefix(src, "async") && strings.Contains(src[:min(len(src), 20)], "*"):
			return fnLabel("AsyncGeneratorFunction", n)
		case strings.HasPrefix(src, "async"):
			return fnLabel("AsyncFunction", n)
		case strings.HasPrefix(src, "function*") || strings.HasPrefix(src, "function *"):
			return fnLabel("GeneratorFunction", n)
		}
		return fnLabel("Function", n)
	}
	switch obj.ClassName() {
	case "Date":
		if iso, ok := goja.AssertFunction(obj.Get("toISOString")); ok {
			if v, err := iso(obj); err == nil {
				return v.String()
			}
			return "Invalid Date"
		}
		return obj.String()
	case "Error":
		if st := obj.Get("stack"); st != nil && !goja.IsUndefined(st) {
			return s.fixStack(st.String())
		}
		return obj.String()
	case "RegExp":
		return obj.String()
	case "Number", "String", "Boolean":
		// A boxed primitive, as node shows it: [Number: 3], [String: 's'].
		if f, ok := goja.AssertFunction(obj.Get("valueOf")); ok {
			if v, err := f(obj); err == nil {
				return "[" + obj.ClassName() + ": " + s.inspect(v, depth+1, true, seen) + "]"
			}
		}
	}
	if obj.ExportType() == promiseType {
		if p, ok := obj.Export().(*goja.Promise); ok {
			switch p.State() {
			case goja.PromiseStateFulfilled:
				return "Promise { " + s.inspect(p.Result(), depth+1, true, seen) + " }"
			case goja.PromiseStateRejected:
				return "Promise { <rejected> " + s.inspect(p.Result(), depth+1, true, seen) + " }"
			}
		}
		return "Promise { <pending> }"
	}
	kind := ""
	if s.inspectKind != nil {
		if k, err := s.inspectKind(goja.Undefined(), obj); err == nil {
			kind = k.String()
		}
	}
	if kind == "WeakMap" || kind == "WeakSet" {
		return kind + " { <items unknown> }"
	}
	if (kind == "Map" || kind == "Set") && s.inspectMapSet != nil {
		if v, err := s.inspectMapSet(goja.Undefined(), obj); err == nil {
			// As node shows them: Map(1) { 'k' => 1 }, Set(2) { 1, 2 }.
			arr, _ := v.(*goja.Object)
			n := int64(0)
			if arr != nil {
				n = arr.Get("length").ToInteger()
			}
			label := kind // a subclass shows as node does: M(1) [Map] { ... }
			if c := strings.TrimSpace(className(obj)); c != "" && c != kind && !strings.HasPrefix(c, "[") {
				label = c
			}
			brand := ""
			if label != kind {
				brand = " [" + kind + "]"
			}
			if n == 0 {
				return fmt.Sprintf("%s(0)%s {}", label, brand)
			}
			if depth > 2 {
				return "[" + label + "]"
			}
			s.look.cur = depth + 1
			s.look.indent += 2
			var out []string
			for i := int64(0); i < n; i++ {
				if i >= maxInspectItems {
					out = append(out, moreItems(n-i))
					break
				}
				e := arr.Get(strconv.FormatInt(i, 10))
				if kind == "Map" {
					if pair, _ := e.(*goja.Object); pair != nil {
						out = append(out, s.inspect(pair.Get("0"), depth+1, true, seen)+" => "+s.inspect(pair.Get("1"), depth+1, true, seen))
						continue
					}
				}
				out = append(out, s.inspect(e, depth+1, true, seen))
			}
			s.look.indent -= 2
			return s.look.reduce(out, fmt.Sprintf("%s(%d)%s {", label, n, brand), "}", false, false, depth)
		}
	}
	if obj.ClassName() == "Array" {
		// As node shows it: [ 1, 'two' ], [] when empty, more than six
		// short items grouped in columns.
		n := obj.Get("length").ToInteger()
		if n == 0 {
			return "[]"
		}
		if depth > 2 {
			return "[Array]"
		}
		s.look.cur = depth + 1
		var out []string
		numeric := true
		for i := int64(0); i < n; i++ {
			if i >= maxInspectItems {
				out = append(out, moreItems(n-i))
				break
			}
			e := obj.Get(strconv.FormatInt(i, 10))
			if e == nil { // a hole: node counts a run of them as one entry
				j := i + 1
				for j < n && obj.Get(strconv.FormatInt(j, 10)) == nil {
					j++
				}
				if j-i == 1 {
					out = append(out, "<1 empty item>")
				} else {
					out = append(out, fmt.Sprintf("<%d empty items>", j-i))
				}
				numeric = false
				i = j - 1
				continue
			}
			if !isNumber(e) {
				numeric = false
			}
			s.look.indent += 2
			out = append(out, s.inspect(e, depth+1, true, seen))
			s.look.indent -= 2
		}
		return s.look.reduce(out, "[", "]", true, numeric, depth)
	}
	prefix := className(obj)
	if name := strings.TrimSpace(prefix); typedArrays[name] {
		n := obj.Get("length").ToInteger()
		if n == 0 {
			return fmt.Sprintf("%s(0) []", name)
		}
		if depth > 2 {
			return "[" + name + "]"
		}
		s.look.cur = depth + 1
		var out []string
		for i := int64(0); i < n; i++ {
			if i >= maxInspectItems {
				out = append(out, moreItems(n-i))
				break
			}
			out = append(out, s.inspect(obj.Get(strconv.FormatInt(i, 10)), depth+1, true, seen))
		}
		return s.look.reduce(out, fmt.Sprintf("%s(%d) [", name, n), "]", true, true, depth)
	}
	keys := obj.Keys()
	syms := obj.Symbols()
	if len(keys) == 0 && len(syms) == 0 {
		if prefix == "" {
			if str := obj.String(); str != "[object Object]" {
				return str
			}
		}
		return prefix + "{}"
	}
	if depth > 2 {
		if p := strings.TrimSpace(prefix); p != "" && !strings.HasPrefix(p, "[") {
			return "[" + p + "]"
		}
		return "[Object]"
	}
	s.look.cur = depth + 1
	var out []string
	for i, key := range keys {
		if i >= maxInspectItems {
			out = append(out, fmt.Sprintf("... %d more properties", len(keys)-i))
			break
		}
		name := key
		if !isIdent(key) {
			name = quoteJS(key)
		}
		if a := s.accessorOf(obj, key); a != "" { // as node: shown, not called
			out = append(out, name+": "+a)
			continue
		}
		s.look.indent += 2
		out = append(out, name+": "+s.inspect(obj.Get(key), depth+1, true, seen))
		s.look.indent -= 2
	}
	for _, sym := range syms {
		if len(out) > maxInspectItems {
			break
		}
		s.look.indent += 2
		out = append(out, "["+s.inspect(sym, depth+1, true, seen)+"]: "+s.inspect(obj.GetSymbol(sym), depth+1, true, seen))
		s.look.indent -= 2
	}
	return s.look.reduce(out, prefix+"{", "}", false, false, depth)
}

// accessorOf names an accessor property as node shows it, without calling
// it, or returns "" for a data property.
func (s *session) accessorOf(obj *goja.Object, key string) string {
	if s.accessor == nil {
		return ""
	}
	v, err := s.accessor(goja.Undefined(), obj, s.vm.ToValue(key))
	if err != nil {
		return ""
	}
	return v.String()
}

func moreItems(n int64) string {
	if n == 1 {
		return "... 1 more item"
	}
	return fmt.Sprintf("... %d more items", n)
}

func isNumber(v goja.Value) bool {
	if v == nil {
		return false
	}
	switch v.Export().(type) {
	case int64, float64, *big.Int:
		return true
	}
	return false
}

var typedArrays = map[string]bool{
	"Int8Array": true, "Uint8Array": true, "Uint8ClampedArray": true, "Int16Array": true, "Uint16Array": true,
	"Int32Array": true, "Uint32Array": true, "Float32Array": true, "Float64Array": true,
	"BigInt64Array": true, "BigUint64Array": true,
}

// className is "Name " for an instance of a class other than Object, as
// node's REPL shows it ("Point { x: 1 }"), and "" otherwise.
func className(obj *goja.Object) string {
	proto := obj.Prototype()
	if proto == nil {
		return "[Object: null prototype] "
	}
	c, ok := proto.Get("constructor").(*goja.Object)
	if !ok {
		return ""
	}
	if _, isFn := goja.AssertFunction(c); !isFn {
		return ""
	}
	name := c.Get("name")
	if name == nil || goja.IsUndefined(name) {
		return ""
	}
	if n := name.String(); n != "" && n != "Object" {
		return n + " "
	}
	return ""
}

func fnLabel(kind, name string) string {
	if name == "" {
		return "[" + kind + " (anonymous)]"
	}
	return "[" + kind + ": " + name + "]"
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isIdent(s string) bool {
	for i, r := range s {
		if !(r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// quoteJS quotes a string as node's util.inspect does: single quotes, or
// double quotes when it holds a single quote and no double quote, or
// backticks when it holds both (and no backtick or ${); control characters
// escaped (\n, \t, \x1B).
func quoteJS(s string) string {
	q := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 {
		switch {
		case strings.IndexByte(s, '"') < 0:
			q = '"'
		case strings.IndexByte(s, '`') < 0 && !strings.Contains(s, "${"):
			q = '`'
		}
	}
	var b strings.Builder
	b.WriteByte(q)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == q || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\b':
			b.WriteString(`\b`)
		case c == '\f':
			b.WriteString(`\f`)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, `\x%02X`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// prelude defines ToolError, the Map/Set helper and the memory guards.
const prelude = `
// Web platform globals node has and goja does not: atob, btoa, TextEncoder,
// TextDecoder, structuredClone.
(() => {
  const def = (name, value) => Object.defineProperty(globalThis, name, {value, writable: true, configurable: true, enumerable: false});
  const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const domError = (name, message) => { const e = new Error(message); e.name = name; return e; };
  def("btoa", function btoa(data) {
    if (arguments.length === 0) throw new TypeError('The "data" argument must be specified');
    const s = String(data);
    let out = "";
    for (let i = 0; i < s.length; i += 3) {
      const c = [s.charCodeAt(i), s.charCodeAt(i + 1), s.charCodeAt(i + 2)];
      for (const x of c) if (x > 255) throw domError("InvalidCharacterError", "Invalid character");
      const n = (c[0] << 16) | ((c[1] || 0) << 8) | (c[2] || 0);
      out += B64[n >> 18] + B64[(n >> 12) & 63] + (i + 1 < s.length ? B64[(n >> 6) & 63] : "=") + (i + 2 < s.length ? B64[n & 63] : "=");
    }
    return out;
  });
  def("atob", function atob(data) {
    if (arguments.length === 0) throw new TypeError('The "data" argument must be specified');
    let s = String(data).replace(/[\t\n\f\r ]/g, "");
    if (s.length % 4 === 0) s = s.replace(/==?$/, "");
    if (s.length % 4 === 1 || /[^A-Za-z0-9+/]/.test(s)) throw domError("InvalidCharacterError", "The string to be decoded is not correctly encoded.");
    let out = "", bits = 0, acc = 0;
    for (const ch of s) {
      acc = (acc << 6) | B64.indexOf(ch);
      bits += 6;
      if (bits >= 8) { bits -= 8; out += String.fromCharCode((acc >> bits) & 255); }
    }
    return out;
  });
  class TextEncoder {
    get encoding() { return "utf-8"; }
    encode(input = "") {
      const s = String(input), out = [];
      for (let i = 0; i < s.length; i++) {
        let c = s.charCodeAt(i);
        if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
          const d = s.charCodeAt(i + 1);
          if (d >= 0xdc00 && d <= 0xdfff) { c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00); i++; }
          else c = 0xfffd;
        } else if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
        if (c < 0x80) out.push(c);
        else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
        else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
        else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
      }
      return new Uint8Array(out);
    }
  }
  class TextDecoder {
    constructor(label = "utf-8") {
      if (!/^utf-?8$/i.test(String(label))) throw new RangeError('The "' + label + '" encoding is not supported');
    }
    get encoding() { return "utf-8"; }
    decode(input) {
      if (input === undefined) return "";
      const b = input instanceof ArrayBuffer ? new Uint8Array(input) : new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
      let out = "";
      for (let i = 0; i < b.length;) {
        const c = b[i];
        let n = c < 0x80 ? 0 : c >= 0xc2 && c < 0xe0 ? 1 : c >= 0xe0 && c < 0xf0 ? 2 : c >= 0xf0 && c < 0xf5 ? 3 : -1;
        let cp = n === 0 ? c : n === 1 ? c & 31 : n === 2 ? c & 15 : c & 7, ok = n >= 0;
        for (let k = 1; ok && k <= n; k++) {
          const d = b[i + k];
          if (d === undefined || (d & 0xc0) !== 0x80) ok = false; else cp = (cp << 6) | (d & 63);
        }
        if (ok && ((n === 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n === 3 && (cp < 0x10000 || cp > 0x10ffff)))) ok = false;
        if (!ok) { out += "\ufffd"; i++; continue; }
        out += String.fromCodePoint(cp);
        i += n + 1;
      }
      return out;
    }
  }
  // Number and BigInt toLocaleString in node's default locale (en-US):
  // grouping commas, at most 3 fraction digits; other locales as goja has it.
  const group = (digits) => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const enUS = (l) => l === undefined || (typeof l === "string" && /^en(-US)?$/i.test(l)) || (Array.isArray(l) && l.length === 0);
  const numLocale = Number.prototype.toLocaleString;
  Object.defineProperty(Number.prototype, "toLocaleString", {value: function toLocaleString(locales, options) {
    const x = Number(this);
    if (!enUS(locales)) return numLocale.call(this, locales, options);
    const o = options || {};
    if (Number.isNaN(x)) return "NaN";
    if (!Number.isFinite(x)) return x < 0 ? "-∞" : "∞";
    const min = o.minimumFractionDigits === undefined ? 0 : Math.min(Math.max(Number(o.minimumFractionDigits), 0), 100);
    const max = o.maximumFractionDigits === undefined ? Math.max(min, 3) : Math.min(Math.max(Number(o.maximumFractionDigits), min), 100);
    const neg = x < 0 || Object.is(x, -0);
    const a = Math.abs(x);
    let [int, frac = ""] = a >= 1e21 ? [BigInt(a).toString(), ""] : a.toFixed(max).split(".");
    while (frac.length > min && frac.endsWith("0")) frac = frac.slice(0, -1);
    frac = frac.padEnd(min, "0");
    return (neg ? "-" : "") + (o.useGrouping === false ? int : group(int)) + (frac ? "." + frac : "");
  }, writable: true, configurable: true, enumerable: false});
  const bigLocale = BigInt.prototype.toLocaleString;
  Object.defineProperty(BigInt.prototype, "toLocaleString", {value: function toLocaleString(locales, options) {
    if (!enUS(locales)) return bigLocale.call(this, locales, options);
    const s = BigInt(this).toString();
    return s.startsWith("-") ? "-" + group(s.slice(1)) : group(s);
  }, writable: true, configurable: true, enumerable: false});
  def("TextEncoder", TextEncoder);
  def("TextDecoder", TextDecoder);
  def("structuredClone", function structuredClone(value) {
    const seen = new Map();
    const clone = (v) => {
      if (typeof v === "function" || typeof v === "symbol") throw domError("DataCloneError", String(v) + " could not be cloned.");
      if (v === null || typeof v !== "object") return v;
      if (seen.has(v)) return seen.get(v);
      let out;
      if (Array.isArray(v)) { out = []; seen.set(v, out); v.forEach((x, i) => { out[i] = clone(x); }); return out; }
      if (v instanceof Date) out = new Date(v.getTime());
      else if (v instanceof RegExp) out = new RegExp(v.source, v.flags);
      else if (v instanceof Map) { out = new Map(); seen.set(v, out); for (const [k, x] of v) out.set(clone(k), clone(x)); return out; }
      else if (v instanceof Set) { out = new Set(); seen.set(v, out); for (const x of v) out.add(clone(x)); return out; }
      else if (v instanceof ArrayBuffer) out = v.slice(0);
      else if (ArrayBuffer.isView(v)) out = new v.constructor(v);
      else if (v instanceof Error) { out = new v.constructor(v.message); out.stack = v.stack; }
      else if (v instanceof WeakMap || v instanceof WeakSet || v instanceof Promise) throw domError("DataCloneError", Object.prototype.toString.call(v) + " could not be cloned.");
      else { out = {}; seen.set(v, out); for (const k of Object.keys(v)) out[k] = clone(v[k]); return out; }
      seen.set(v, out);
      return out;
    };
    return clone(value);
  });
})();
class ToolError extends Error {
  constructor(message) { super(message); this.name = "ToolError"; }
}
Object.defineProperty(globalThis, "__tether_entries", {value: (x) => Array.from(x), enumerable: false, configurable: true});
Object.defineProperty(globalThis, "__tether_conv", {value: ((N, PI, PF, J, S, own, proto, desc) => {
  const builtins = new Set(["Object", "Error", "Array", "Map", "Set", "WeakMap", "WeakSet", "Date", "RegExp", "Promise", "Function",
    "Number", "String", "Boolean", "Symbol", "BigInt", "ArrayBuffer", "DataView", "Uint8Array", "Int8Array", "Uint16Array", "Int16Array",
    "Uint32Array", "Int32Array", "Float32Array", "Float64Array", "Uint8ClampedArray", "BigInt64Array", "BigUint64Array",
    "TypeError", "RangeError", "SyntaxError", "ReferenceError", "EvalError", "URIError", "AggregateError"]);
  function builtinToString(v) {
    if (typeof v.toString !== "function") return true;
    if (Object.prototype.hasOwnProperty.call(v, "toString")) return false;
    let p = v;
    do { p = proto(p) } while (p !== null && !Object.prototype.hasOwnProperty.call(p, "toString"));
    if (p === null) return true;
    const d = desc(p, "constructor");
    return d !== undefined && typeof d.value === "function" && builtins.has(d.value.name);
  }
  // util.format's conversions: a number (formatted by the kernel), a
  // string, or null for "inspect it".
  return (k, v) => {
    switch (k) {
    case "d": return typeof v === "bigint" ? v : typeof v === "symbol" ? NaN : N(v);
    case "i": return typeof v === "bigint" ? v : typeof v === "symbol" ? NaN : PI(v);
    case "f": return typeof v === "symbol" ? NaN : PF(v);
    case "j": try { const s = J(v); return s === undefined ? "undefined" : s } catch (e) { if (e instanceof TypeError && /circular/i.test(e.message)) return "[Circular]"; throw e }
    case "s": return typeof v === "object" && v !== null && !builtinToString(v) ? S(v) : null;
    }
    return null;
  };
})(Number, parseInt, parseFloat, JSON.stringify, String, Object.getOwnPropertyDescriptor, Object.getPrototypeOf, Object.getOwnPropertyDescriptor), enumerable: false, configurable: true});
Object.defineProperty(globalThis, "__tether_accessor", {value: ((desc) => (o, k) => {
  const d = desc(o, k);
  if (!d || !("get" in d || "set" in d)) return "";
  return d.get && d.set ? "[Getter/Setter]" : d.get ? "[Getter]" : "[Setter]";
})(Object.getOwnPropertyDescriptor), enumerable: false, configurable: true});
Object.defineProperty(globalThis, "__tether_kind", {value: ((probes) => (x) => {
  for (const [kind, has] of probes) { try { has.call(x, {}); return kind } catch (e) {} }
  return "";
})([["Map", Map.prototype.has], ["Set", Set.prototype.has], ["WeakMap", WeakMap.prototype.has], ["WeakSet", WeakSet.prototype.has]]), enumerable: false, configurable: true});
globalThis.__tether_guard = function(limit) {
  function check(bytes, what) {
    if (bytes > limit) {
      throw new RangeError("kernels: " + what + " of about " + Math.round(bytes / 1048576) +
        " MiB would pass the kernel's memory cap of " + Math.round(limit / 1048576) + " MiB");
    }
  }
  function wrap(proto, name, size) {
    const orig = proto[name];
    Object.defineProperty(proto, name, {
      value: {[name](...args) { check(size(this, args), "this " + name + "()"); return orig.apply(this, args); }}[name],
      writable: true, configurable: true, enumerable: false,
    });
  }
  wrap(String.prototype, "repeat", (s, a) => String(s).length * 2 * Number(a[0]));
  wrap(String.prototype, "padStart", (s, a) => 2 * Number(a[0]));
  wrap(String.prototype, "padEnd", (s, a) => 2 * Number(a[0]));
  wrap(Array.prototype, "fill", (s, a) => 16 * Number(s.length));
  // A plain function stands in for each constructor (goja's instanceof does
  // not see through a Proxy): same prototype, same statics, and species
  // lookups land on it too.
  function guardCtor(name, elem) {
    const C = globalThis[name];
    if (typeof C !== "function") return;
    const G = {[name]: function(...args) {
      if (!new.target) throw new TypeError("Constructor " + name + " requires 'new'");
      if (typeof args[0] === "number") check(args[0] * elem, "new " + name + "()");
      return Reflect.construct(C, args, new.target === G ? C : new.target);
    }}[name];
    for (const key of Object.getOwnPropertyNames(C)) {
      if (key === "prototype" || key === "length" || key === "name") continue;
      Object.defineProperty(G, key, Object.getOwnPropertyDescriptor(C, key));
    }
    Object.setPrototypeOf(G, Object.getPrototypeOf(C));
    Object.defineProperty(G, "prototype", {value: C.prototype, writable: false});
    Object.defineProperty(C.prototype, "constructor", {value: G, writable: true, configurable: true, enumerable: false});
    Object.defineProperty(globalThis, name, {value: G, writable: true, configurable: true, enumerable: false});
  }
  guardCtor("ArrayBuffer", 1);
  for (const [n, e] of [["Int8Array", 1], ["Uint8Array", 1], ["Uint8ClampedArray", 1], ["Int16Array", 2],
      ["Uint16Array", 2], ["Int32Array", 4], ["Uint32Array", 4], ["Float32Array", 4], ["Float64Array", 8],
      ["BigInt64Array", 8], ["BigUint64Array", 8]]) guardCtor(n, e);
  const from = Array.from;
  Array.from = function from_(src, ...rest) {
    if (src != null && typeof src.length === "number") check(16 * src.length, "Array.from()");
    return from.call(this, src, ...rest);
  };
};
`
