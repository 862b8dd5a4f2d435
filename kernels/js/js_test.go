package js_test

import "context"
import "encoding/json"
import "errors"
import "fmt"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/kernels"
import "github.com/tetherhq/tether/kernels/js"
import "github.com/tetherhq/tether/kernels/kernelstest"

func newKernel(t *testing.T, cfg kernels.Config) kernels.Kernel {
	t.Helper()
	k, err := constructor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	return k
}

// run executes code as one cell of k.
var run = kernelstest.Run

// wantValue runs code and requires its value to print as want.
func wantValue(t *testing.T, k kernels.Kernel, code, want string) {
	t.Helper()
	if got := value(t, run(t, k, code)); got != want {
		t.Errorf("%s\n= %s, want %s", code, got, want)
	}
}

func value(t *testing.T, r *kernels.Result) string {
	t.Helper()
	if r.Error != nil {
		t.Fatalf("cell failed: %s: %s\n%s", r.Error.Name, r.Error.Message, r.Error.Traceback)
	}
	if r.Value == nil {
		return "<none>"
	}
	return r.Value.Text
}

func TestPersistenceEchoConsoleDisplay(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	r := run(t, k, "var x = 41;\nfunction f(v) { return v + 1 }\nconsole.log('hello', {a: [1, 'b']}, x);\nconsole.error('warn')")
	if value(t, r) != "<none>" || r.Stdout.Text != "hello { a: [ 1, 'b' ] } 41\n" || r.Stderr.Text != "warn\n" || !r.Fresh {
		t.Fatalf("first cell: value %+v stdout %q stderr %q fresh %v", r.Value, r.Stdout.Text, r.Stderr.Text, r.Fresh)
	}
	tests := []struct{ code, want string }{
		{"f(x)", "42"},
		{"'s'.repeat(3)", "'sss'"},
		{"({a: 1, nested: {b: [1, 2, {c: 3}]}})", "{ a: 1, nested: { b: [ 1, 2, [Object] ] } }"},
		{"[1, 'two', null, undefined]", "[ 1, 'two', null, undefined ]"},
		{"new Map([['k', 1]])", "Map(1) { 'k' => 1 }"},
		{"Promise.resolve(7)", "7"},
		{"let o = {}; o.self = o; o", "{ self: [Circular] }"},
		{"f", "[Function: f]"},
		{"undefined", "<none>"},
		{"({get boom() { throw new Error('no') }, set only(v) {}, get both() { return 1 }, set both(v) {}})", "{ boom: [Getter], only: [Setter], both: [Getter/Setter] }"},
		{"new Promise(() => {})", "Promise { <pending> }"},
		{"[Promise.resolve(1)]", "[ Promise { 1 } ]"},
		{"Symbol('s')", "Symbol(s)"},
		{"[1n + 2n]", "[ 3n ]"},
		{"class Point { constructor() { this.x = 1 } }\nnew Point()", "Point { x: 1 }"},
		{"Object.create(null)", "[Object: null prototype] {}"},
		{"new (class Empty {})()", "Empty {}"},
		{"[]", "[]"},
		{"new Set([1, 2])", "Set(2) { 1, 2 }"},
		{"new Map()", "Map(0) {}"},
		{"new Uint8Array([1, 2, 3])", "Uint8Array(3) [ 1, 2, 3 ]"},
		{"[[1, [2, [3, [4]]]]]", "[ [ 1, [ 2, [Array] ] ] ]"},
		{"class K {}; class Q extends K {}; [K, Q]", "[ [class K], [class Q extends K] ]"},
		{"[async function ag() {}, function* gen() {}, () => 1, {m() {}}, Math.max]", "[\n  [AsyncFunction: ag],\n  [GeneratorFunction: gen],\n  [Function (anonymous)],\n  { m: [Function: m] },\n  [Function: max]\n]"},
		{"new Date(0)", "1970-01-01T00:00:00.000Z"},
		{"[new Number(3), new String('s'), new Boolean(false)]", "[ [Number: 3], [String: 's'], [Boolean: false] ]"},
	}
	for _, tt := range tests {
		wantValue(t, k, tt.code, tt.want)
	}
	r = run(t, k, "display(new Proxy({}, {ownKeys() { throw new Error('nope') }})); 'after'")
	if value(t, r) != "'after'" || len(r.Displays) != 1 || !strings.Contains(r.Displays[0].Text, "could not be shown: Error: nope") {
		t.Errorf("display of a throwing getter: %+v", r.Displays)
	}
	r = run(t, k, "display({rows: 2}); display.html('<table><tr><td>1</td></tr></table>')")
	if len(r.Displays) != 2 || r.Displays[0].Text != "{ rows: 2 }" || !strings.Contains(r.Displays[1].HTML, "<table>") {
		t.Errorf("displays: %+v", r.Displays)
	}
}

func TestCellsCanRunAgain(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	cell := "const limit = 3;\nlet total = 0;\nclass Acc { add(v) { total += v } }\nfor (let i = 0; i < limit; i++) new Acc().add(i)\ntotal"
	for i := 0; i < 3; i++ {
		if got := value(t, run(t, k, cell)); got != "3" {
			t.Fatalf("run %d: %s", i+1, got)
		}
	}
	wantValue(t, k, "class P {} class Q extends P {}; [typeof P, new Q() instanceof P]", "[ 'function', true ]")
	r := run(t, k, "const x = 1;\nconst y = ;")
	if r.Error == nil || r.Error.Name != "SyntaxError" || r.Error.Line != 2 {
		t.Errorf("syntax error after a rewrite: %+v", r.Error)
	}
}

func TestErrorsPointAtCellLine(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	kernelstest.RequireErrors(t, k, []kernelstest.CellError{
		{Code: "let a = 1;\nlet b = 2;\nnope + 1", Name: "ReferenceError", Line: 3},
		{Code: "var y = 1;\nlet = = 2;", Name: "SyntaxError", Line: 2},
		{Code: "function h() {\n  null.x;\n}\nh()", Name: "TypeError", Line: 2},
		{Code: "throw new RangeError('custom')", Name: "RangeError", Line: 1},
		{Code: "function r() { return r() }\nr()", Name: "RangeError", Line: 1},
	}, func(_ kernelstest.CellError, e *kernels.Error) error {
		if len(e.Traceback) > 9<<10 {
			return fmt.Errorf("traceback of %d bytes is not bounded", len(e.Traceback))
		}
		return nil
	})
	wantValue(t, k, "a + b", "3")
}

func TestInfiniteLoopIsInterrupted(t *testing.T) {
	clock := kernelstest.NewClock()
	tools, started := startedTools()
	k := newKernel(t, kernels.Config{IdleTimeout: time.Second, InterruptGrace: time.Minute, Clock: clock, Tools: tools})
	value(t, run(t, k, "var kept = 'yes'; var n = 0"))
	r := kernelstest.UntilIdle(t, k, clock, time.Second, started, "n++; tool('started'); while (true) { n++ }")
	if !errors.Is(r.Error, kernels.ErrInterrupted) || r.StateLost || !strings.Contains(r.Error.Message, "state is kept") {
		t.Fatalf("infinite loop: %+v lost %v", r.Error, r.StateLost)
	}
	wantValue(t, k, "[kept, n > 0]", "[ 'yes', true ]")
}

func TestCancelInterrupts(t *testing.T) {
	// The caller gives up once the cell is in its loop: the cell says when
	// it gets there.
	started, tools := kernelstest.SignalTool()
	k := newKernel(t, kernels.Config{InterruptGrace: time.Minute, Tools: tools})
	r := kernelstest.CancelOn(t, k, started, "var z = 3; tool('started'); for (;;) {}")
	if !errors.Is(r.Error, kernels.ErrInterrupted) || !strings.Contains(r.Error.Message, "gave up") {
		t.Fatalf("canceled: %+v", r.Error)
	}
	wantValue(t, k, "z", "3")
}

// TestStuckRuntimeIsDiscarded covers the runtime that does not come back from
// an interrupt: here a bridge call that ignores cancellation (goja cannot
// interrupt Go code). The cell's result says the state is lost, and so does
// the next cell, which runs in a fresh runtime.
func TestStuckRuntimeIsDiscarded(t *testing.T) {
	release, entered := make(chan struct{}), make(chan struct{})
	defer close(release)
	stuck := func(ctx context.Context, name string, args json.RawMessage) (kernels.ToolReply, error) {
		close(entered)
		<-release
		return kernels.ToolReply{Text: "late"}, nil
	}
	k := newKernel(t, kernels.Config{Tools: stuck, InterruptGrace: time.Second})
	value(t, run(t, k, "var lost = 1"))
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-entered // the cell is stuck in the bridge call
		cancel()
	}()
	r, err := k.Execute(ctx, kernels.Cell{Code: "tool('hang')"})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(r.Error, kernels.ErrKernelRestarted) || !r.StateLost || !strings.Contains(r.Error.Message, "state is lost") {
		t.Fatalf("stuck cell: %+v lost %v", r.Error, r.StateLost)
	}
	r = run(t, k, "typeof lost")
	if value(t, r) != "'undefined'" || !r.Fresh || !r.StateLost || len(r.Notices) != 1 || !strings.Contains(r.Notices[0], "did not come back") {
		t.Errorf("next cell: %+v fresh %v notices %q", r.Value, r.Fresh, r.Notices)
	}
}

func TestOutputIsBounded(t *testing.T) {
	k := newKernel(t, kernels.Config{MaxOutput: 1000, MaxText: 300})
	r := run(t, k, "for (let i = 0; i < 10000; i++) console.log('line', i);\n'v'.repeat(1000)")
	if r.Stdout.Cut == 0 || !strings.HasPrefix(r.Stdout.Text, "line 0\n") || !strings.HasSuffix(r.Stdout.Text, "line 9999\n") {
		t.Errorf("stdout not bounded head+tail: cut %d", r.Stdout.Cut)
	}
	if r.Value == nil || len(r.Value.Text) > 300 || r.Value.Note == "" {
		t.Errorf("echo not bounded: %+v", r.Value)
	}
}

func TestReset(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	value(t, run(t, k, "var gone = 1"))
	if err := k.Reset(); err != nil {
		t.Fatal(err)
	}
	r := run(t, k, "typeof gone")
	if value(t, r) != "'undefined'" || !r.Fresh || r.StateLost {
		t.Errorf("after reset: %+v fresh %v", r.Value, r.Fresh)
	}
	k.Close()
	if _, err := k.Execute(context.Background(), kernels.Cell{Code: "1"}); !errors.Is(err, js.ErrClosed) {
		t.Errorf("after close: %v", err)
	}
}

func TestBridge(t *testing.T) {
	var calls []string
	clock := kernelstest.NewClock()
	caller := func(ctx context.Context, name string, args json.RawMessage) (kernels.ToolReply, error) {
		calls = append(calls, name+" "+string(args))
		switch name {
		case "read":
			return kernels.ToolReply{Text: "class Auth {}\n"}, nil
		case "write":
			return kernels.ToolReply{}, errors.New("tools: write refused by the approval policy")
		case "slow":
			// Two and a half idle budgets pass on the kernel's clock: the
			// budget is stopped while a bridge call is outstanding.
			clock.Advance(5 * time.Second)
			return kernels.ToolReply{Text: "slow done"}, nil
		case "fails":
			return kernels.ToolReply{Text: "it failed", IsError: true}, nil
		}
		return kernels.ToolReply{}, errors.New("unknown tool")
	}
	k := newKernel(t, kernels.Config{Tools: caller, IdleTimeout: 2 * time.Second, Clock: clock})
	wantValue(t, k, "const contents = tool('read', {path: 'lib/auth.dart'}); contents", "'class Auth {}\\n'")
	if calls[0] != `read {"path":"lib/auth.dart"}` {
		t.Errorf("bridge saw %q", calls[0])
	}
	r := run(t, k, "tool('write', {path: 'x', content: 'y'})")
	if r.Error == nil || r.Error.Name != "ToolError" || !strings.Contains(r.Error.Message, "refused") {
		t.Errorf("refused write: %+v", r.Error)
	}
	// The traceback shows the cell, not the kernel's own frames.
	if tb := r.Error.Traceback; !strings.Contains(tb, "cell-") || strings.Contains(tb, "tether-prelude") || strings.Contains(tb, "github.com/") {
		t.Errorf("ToolError traceback:\n%s", tb)
	}
	if r := run(t, k, "'ab'.repeat(1e12)"); r.Error == nil || strings.Contains(r.Error.Traceback, "tether-prelude") {
		t.Errorf("guarded built-in: %+v", r.Error)
	}
	wantValue(t, k, "let caught; try { tool('fails') } catch (e) { caught = e instanceof ToolError && e.message }; caught", "'it failed'")
	wantValue(t, k, "tool('slow')", "'slow done'")
	r = run(t, k, "tool('read', [1])")
	if r.Error == nil || r.Error.Name != "TypeError" {
		t.Errorf("array args: %+v", r.Error)
	}
}

func TestConcurrentKernelsAreIndependent(t *testing.T) {
	done := make(chan string, 4)
	for i := 0; i < 4; i++ {
		go func(i int) {
			k, err := constructor(kernels.Config{})
			if err != nil {
				done <- err.Error()
				return
			}
			defer k.Close()
			r, err := k.Execute(context.Background(), kernels.Cell{Code: "let s = 0; for (let j = 0; j < 1e4; j++) s += j; s"})
			if err != nil || r.Error != nil || r.Value == nil {
				done <- "failed"
				return
			}
			done <- r.Value.Text
		}(i)
	}
	for i := 0; i < 4; i++ {
		if got := <-done; got != "49995000" {
			t.Errorf("kernel %d: %s", i, got)
		}
	}
}

// TestHammerOneKernel runs cells on one kernel from many goroutines: Execute
// serializes them and no update is lost.
func TestHammerOneKernel(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	value(t, run(t, k, "var hits = 0"))
	kernelstest.Hammer(t, k, 8, 25, func(int, int) (string, func(*kernels.Result) error) {
		return "hits++; console.log(hits); hits", nil
	})
	wantValue(t, k, "hits", "200")
}

func TestDisplaysAreBoundedAndOrdered(t *testing.T) {
	k := newKernel(t, kernels.Config{MaxDisplays: 3})
	r := run(t, k, "console.log('a'); for (let i = 0; i < 5; i++) display(i); console.error('b')")
	if len(r.Displays) != 3 || len(r.Notices) != 1 || !strings.Contains(r.Notices[0], "3 of 5 shown") {
		t.Errorf("5 displays with a cap of 3: %d kept, notices %q", len(r.Displays), r.Notices)
	}
	var got []string
	for _, o := range r.Outputs {
		if o.Stream == kernels.OutputDisplay {
			got = append(got, "display:"+r.Displays[o.Display].Text)
		} else {
			got = append(got, o.Stream+":"+o.Text)
		}
	}
	if want := "stdout:a\n|display:0|display:1|display:2|stderr:b\n"; strings.Join(got, "|") != want {
		t.Errorf("outputs %q, want %q", strings.Join(got, "|"), want)
	}
}

// TestTopLevelAwait: a cell may await at top level, as in node's REPL; its
// declarations stay visible to later cells and its last expression is echoed.
func TestTopLevelAwait(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	tests := []struct{ code, want string }{
		{"async function g(x) { return 2 * x }\nawait g(21)", "42"},
		{"let v = await g(2)\nv + 1", "5"},
		{"v", "4"},
		{"const [a, b] = await Promise.all([g(1), g(2)])\na + b", "6"},
		{"const {p, q} = {p: await g(3), q: 4}; [p, q]", "[ 6, 4 ]"},
		{"function h() { return 'h' }\nclass K { k() { return 'k' } }\nvar w\nlet u\nawait null;\n[h(), new K().k(), w, u]", "[ 'h', 'k', undefined, undefined ]"},
		{"h() + new K().k()", "'hk'"},
		{"for (const i of [1, 2]) { await g(i) }\n'loop done'", "'loop done'"},
		{"let z = await g(5);", "<none>"},
		{"z", "10"},
	}
	for _, tt := range tests {
		wantValue(t, k, tt.code, tt.want)
	}
	for _, tt := range []struct{ code, name, msg string }{
		{"await Promise.reject(new TypeError('nope'))", "TypeError", "nope"},
		{"async function bad() { throw new RangeError('deep') }\nawait bad()", "RangeError", "deep"},
		{"await new Promise(() => {})", "Error", "never settled"},
	} {
		r := run(t, k, tt.code)
		if r.Error == nil || r.Error.Name != tt.name || !strings.Contains(r.Error.Message, tt.msg) {
			t.Errorf("%q: error %+v, want %s: %s", tt.code, r.Error, tt.name, tt.msg)
		}
	}
	if r := run(t, k, "await g(1"); r.Error == nil || r.Error.Name != "SyntaxError" {
		t.Errorf("a cell that parses neither way is a SyntaxError: %+v", r.Error)
	}
}

// TestConsole: the parts of node's console notebook code uses.
func TestConsole(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	r := run(t, k, "console.table([{a: 1, b: 'x'}, {a: 2}]); console.count(); console.count(); console.count('n');"+
		"console.assert(1 === 2, 'math'); console.group('g'); console.log('inner'); console.groupEnd(); console.log('outer');"+
		"console.time('t'); console.timeEnd('t'); console.dir({d: 1})")
	if r.Error != nil {
		t.Fatalf("%+v", r.Error)
	}
	want := "┌─────────┬───┬─────┐\n│ (index) │ a │ b   │\n├─────────┼───┼─────┤\n│ 0       │ 1 │ 'x' │\n│ 1       │ 2 │     │\n└─────────┴───┴─────┘\n" +
		"default: 1\ndefault: 2\nn: 1\ng\n  inner\nouter\n"
	if !strings.HasPrefix(r.Stdout.Text, want) || !strings.HasSuffix(r.Stdout.Text, "ms\n{ d: 1 }\n") || !strings.Contains(r.Stdout.Text, "\nt: ") {
		t.Errorf("stdout:\n%s\nwant prefix:\n%s", r.Stdout.Text, want)
	}
	if r.Stderr.Text != "Assertion failed: math\n" {
		t.Errorf("stderr %q", r.Stderr.Text)
	}
}

// startedTools is a bridge whose tool('started') tells the test the cell
// got going.
func startedTools() (kernels.ToolCaller, chan struct{}) {
	started := make(chan struct{}, 1)
	return func(context.Context, string, json.RawMessage) (kernels.ToolReply, error) {
		started <- struct{}{}
		return kernels.ToolReply{}, nil
	}, started
}

// TestTimers: setTimeout and friends fire before the cell ends, in order, and
// an awaited timer resolves, as in node.
func TestTimers(t *testing.T) {
	// The idle budget runs on a clock the test moves: machine load cannot
	// cut a cell waiting for its timers.
	clock := kernelstest.NewClock()
	tools, started := startedTools()
	k := newKernel(t, kernels.Config{IdleTimeout: 2 * time.Second, Clock: clock, Tools: tools})
	// Timers set in order of their delays fire in that order whatever the
	// machine's speed; interval ticks may fall anywhere between them.
	r := run(t, k, "const seen = []\nqueueMicrotask(() => seen.push('micro'))\nsetImmediate(() => seen.push('now'))\n"+
		"setTimeout((x) => seen.push(x), 5, 'a')\nsetTimeout(() => seen.push('b'), 20)\n"+
		"let n = 0; const iv = setInterval(() => { seen.push('tick'); if (++n === 2) clearInterval(iv) }, 1)\n"+
		"const gone = setTimeout(() => seen.push('never'), 1); clearTimeout(gone)\n'sync'")
	if got := value(t, r); got != "'sync'" {
		t.Errorf("echo %s", got)
	}
	wantValue(t, k, "[seen.filter(x => x !== 'tick'), seen.filter(x => x === 'tick').length]", "[ [ 'micro', 'now', 'a', 'b' ], 2 ]")
	// A delay past 2^31-1 ms is 1 ms, as in node, not a wrapped-around wait.
	if got := value(t, run(t, k, "let fired = false; setTimeout(() => { fired = true }, 3e9)")); got == "" {
		t.Errorf("huge delay: %s", got)
	}
	wantValue(t, k, "fired", "true")
	wantValue(t, k, "await new Promise(r => setTimeout(() => r('slept'), 10))", "'slept'")
	r = run(t, k, "setTimeout(() => { throw new Error('in a timer') }, 1)")
	if r.Error == nil || r.Error.Message != "in a timer" {
		t.Errorf("a throwing timer: %+v", r.Error)
	}
	// A timer that never ends the cell is cut by the idle budget; state kept.
	r = kernelstest.UntilIdle(t, k, clock, 2*time.Second, started, "var kept = 1; tool('started'); setInterval(() => {}, 50)")
	if !errors.Is(r.Error, kernels.ErrInterrupted) {
		t.Errorf("endless interval: %+v", r.Error)
	}
	wantValue(t, k, "kept", "1")
}

func TestRequireSaysWhatToDo(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	r := run(t, k, "const fs = require('fs')")
	if r.Error == nil || r.Error.Name != "ReferenceError" || !strings.Contains(r.Error.Message, "without node's modules") || !strings.Contains(r.Error.Message, "tool('read'") {
		t.Errorf("require: %+v", r.Error)
	}
}

// TestPrintingCellIsNotIdle: output is a sign of life. A cell printing
// steadily for much longer than its idle budget runs on; once it goes quiet
// the budget runs out and it is interrupted with its state kept. The idle
// budget's time is a clock the test moves, in step with the cell (which waits
// for Date.now, the same clock, to move after each print), so machine load
// cannot decide the outcome: each sign of life moves the clock to 9/10 of the
// budget past it, 45 budgets in all while the cell prints, and once the cell
// says it is quiet, a whole budget.
func TestPrintingCellIsNotIdle(t *testing.T) {
	const budget = 3 * time.Second
	clock := kernelstest.NewClock()
	quiet, tools := kernelstest.SignalTool()
	k := newKernel(t, kernels.Config{IdleTimeout: budget, InterruptGrace: time.Minute, Clock: clock, Tools: tools})
	code := "var ticks = 0\n" +
		"for (let i = 0; i < 50; i++) { const t = Date.now(); console.log('tick'); ticks++; while (Date.now() === t) {} }\n" +
		"console.log('quiet now'); tool('quiet')\nawait new Promise(r => setTimeout(r, 600000))"
	r := kernelstest.UntilQuiet(t, k, clock, budget, quiet, code, clock.AdvanceTo)
	if !errors.Is(r.Error, kernels.ErrInterrupted) || !strings.Contains(r.Error.Message, "state is kept") || !strings.HasSuffix(r.Stdout.Text, "quiet now\n") {
		t.Fatalf("want the quiet wait interrupted, got %+v\nstdout %q", r.Error, r.Stdout.Text)
	}
	if n := strings.Count(r.Stdout.Text, "tick\n"); n != 50 {
		t.Errorf("%d ticks printed, want 50", n)
	}
	wantValue(t, k, "ticks", "50")
}
