package js

import "context"
import "errors"
import "fmt"
import "strings"
import "time"

import "github.com/dop251/goja"

import "github.com/tetherhq/tether/kernels"

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
	toolResult    goja.Value // the ToolResult constructor
	mapSetEntries goja.Callable
	inspectKind   goja.Callable // "Map", "Set", "WeakMap", "WeakSet" or "", by brand check
	conv          goja.Callable // util.format's %d, %i, %f, %j and %s conversions
	accessor      goja.Callable // "[Getter]", "[Setter]", "[Getter/Setter]" or "" for a property
}

// interruption is the value given to vm.Interrupt.
type interruption struct {
	kind   string // kernels.KindInterrupted or kernels.KindMemoryLimit
	reason string
}

func (i *interruption) String() string { return i.reason }

// newSession builds a runtime with tether's globals.
func (k *Kernel) newSession() (*session, error) {
	vm := goja.New()
	vm.SetMaxCallStackSize(maxCallStackSize)
	vm.SetTimeSource(k.cfg.Clock.Now)
	s := &session{vm: vm, cfg: k.cfg, counts: map[string]int{}, timers: map[string]time.Time{}, wake: make(chan *interruption, 1), alive: make(chan struct{}, 1), sources: map[string]*cellSource{}}
	if err := vm.Set("console", s.console()); err != nil {
		return nil, fmt.Errorf("kernels: js: %w", err)
	}
	if err := vm.Set("display", s.display()); err != nil {
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
	if _, err := guard(goja.Undefined(), vm.ToValue(k.limit), countFunc(vm)); err != nil {
		return nil, fmt.Errorf("kernels: js: installing the memory guards: %w", err)
	}
	s.toolError = vm.Get("ToolError")
	s.toolResult = vm.Get("ToolResult")
	s.mapSetEntries, _ = goja.AssertFunction(vm.Get("__tether_entries"))
	s.inspectKind, _ = goja.AssertFunction(vm.Get("__tether_kind"))
	s.conv, _ = goja.AssertFunction(vm.Get("__tether_conv"))
	s.accessor, _ = goja.AssertFunction(vm.Get("__tether_accessor"))
	vm.GlobalObject().Delete("__tether_guard")
	if err := s.installGuards(k.limit); err != nil {
		return nil, err
	}
	return s, nil
}

// write prints text to the cell's stdout or (err) stderr, indented by
// the open console.group levels; output is a sign of life.
func (s *session) write(err bool, text string) {
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

// console is node's console as notebook code uses it.
func (s *session) console() *goja.Object {
	console := s.vm.NewObject()
	write := s.write
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
	return console
}

// display is display(value...) and display.html(text): rich output of
// the cell, in order with its streams.
func (s *session) display() *goja.Object {
	display := s.vm.ToValue(func(c goja.FunctionCall) goja.Value {
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
	return display
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
	return s.toolValue(r)
}

// toolValue is a successful reply as the cell sees it: a ToolResult, the
// text with .structured parsed by JSON.parse (the tool's key order kept).
func (s *session) toolValue(r kernels.ToolReply) goja.Value {
	structured := goja.Null()
	if len(r.Structured) > 0 {
		parse, ok := goja.AssertFunction(s.vm.Get("JSON").ToObject(s.vm).Get("parse"))
		if !ok {
			panic(s.vm.NewTypeError("JSON.parse is not a function"))
		}
		v, err := parse(goja.Undefined(), s.vm.ToValue(string(r.Structured)))
		if err != nil {
			s.throwTool("kernels: js: the tool's structured output does not parse: " + err.Error())
		}
		structured = v
	}
	ctor, ok := s.toolResult.(*goja.Object)
	if !ok {
		return s.vm.ToValue(r.Text)
	}
	obj, err := s.vm.New(ctor, s.vm.ToValue(r.Text), structured)
	if err != nil {
		panic(err)
	}
	return obj
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
