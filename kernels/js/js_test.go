package js_test

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tetherhq/tether/kernels"
	"github.com/tetherhq/tether/kernels/js"
	"github.com/tetherhq/tether/kernels/kernelstest"
)

func newKernel(t *testing.T, cfg kernels.Config) kernels.Kernel {
	t.Helper()
	k, err := js.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	return k
}

func run(t *testing.T, k kernels.Kernel, code string) *kernels.Result {
	t.Helper()
	r, err := k.Execute(context.Background(), kernels.Cell{Code: code, Label: "test cell"})
	if err != nil {
		t.Fatalf("Execute(%q): %v", code, err)
	}
	return r
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
		if got := value(t, run(t, k, tt.code)); got != tt.want {
			t.Errorf("%q echoed %q, want %q", tt.code, got, tt.want)
		}
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
	if got := value(t, run(t, k, "class P {} class Q extends P {}; [typeof P, new Q() instanceof P]")); got != "[ 'function', true ]" {
		t.Errorf("classes on one line: %s", got)
	}
	r := run(t, k, "const x = 1;\nconst y = ;")
	if r.Error == nil || r.Error.Name != "SyntaxError" || r.Error.Line != 2 {
		t.Errorf("syntax error after a rewrite: %+v", r.Error)
	}
}

func TestErrorsPointAtCellLine(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	tests := []struct {
		code, name string
		line       int
	}{
		{"let a = 1;\nlet b = 2;\nnope + 1", "ReferenceError", 3},
		{"var y = 1;\nlet = = 2;", "SyntaxError", 2},
		{"function h() {\n  null.x;\n}\nh()", "TypeError", 2},
		{"throw new RangeError('custom')", "RangeError", 1},
		{"function r() { return r() }\nr()", "RangeError", 1},
	}
	for _, tt := range tests {
		r := run(t, k, tt.code)
		if r.Error == nil || r.Error.Name != tt.name || r.Error.Line != tt.line {
			t.Errorf("%q: error %+v, want %s at line %d", tt.code, r.Error, tt.name, tt.line)
			continue
		}
		if len(r.Error.Traceback) > 9<<10 {
			t.Errorf("%q: traceback of %d bytes is not bounded", tt.code, len(r.Error.Traceback))
		}
	}
	if got := value(t, run(t, k, "a + b")); got != "3" {
		t.Errorf("state after errors: %s", got)
	}
}

func TestInfiniteLoopIsInterrupted(t *testing.T) {
	clock := kernelstest.NewClock()
	tools, started := startedTools()
	k := newKernel(t, kernels.Config{IdleTimeout: time.Second, InterruptGrace: time.Minute, Clock: clock, Tools: tools})
	value(t, run(t, k, "var kept = 'yes'; var n = 0"))
	r := untilIdle(t, k, clock, time.Second, started, "n++; tool('started'); while (true) { n++ }")
	if r.Error == nil || r.Error.Name != kernels.ErrInterrupted || r.StateLost || !strings.Contains(r.Error.Message, "state is kept") {
		t.Fatalf("infinite loop: %+v lost %v", r.Error, r.StateLost)
	}
	if got := value(t, run(t, k, "[kept, n > 0]")); got != "[ 'yes', true ]" {
		t.Errorf("after interrupt: %s", got)
	}
}

func TestCancelInterrupts(t *testing.T) {
	// The caller gives up once the cell is in its loop: the cell says when
	// it gets there.
	started := make(chan struct{})
	k := newKernel(t, kernels.Config{InterruptGrace: time.Minute, Tools: func(context.Context, string, json.RawMessage) (kernels.ToolReply, error) {
		close(started)
		return kernels.ToolReply{}, nil
	}})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	r, err := k.Execute(ctx, kernels.Cell{Code: "var z = 3; tool('started'); for (;;) {}"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Error == nil || r.Error.Name != kernels.ErrInterrupted || !strings.Contains(r.Error.Message, "gave up") {
		t.Fatalf("canceled: %+v", r.Error)
	}
	if got := value(t, run(t, k, "z")); got != "3" {
		t.Errorf("after cancel: %s", got)
	}
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
	if r.Error == nil || r.Error.Name != kernels.ErrKernelRestarted || !r.StateLost || !strings.Contains(r.Error.Message, "state is lost") {
		t.Fatalf("stuck cell: %+v lost %v", r.Error, r.StateLost)
	}
	r = run(t, k, "typeof lost")
	if value(t, r) != "'undefined'" || !r.Fresh || !r.StateLost || len(r.Notices) != 1 || !strings.Contains(r.Notices[0], "did not come back") {
		t.Errorf("next cell: %+v fresh %v notices %q", r.Value, r.Fresh, r.Notices)
	}
}

func TestMemoryCap(t *testing.T) {
	k := newKernel(t, kernels.Config{MemoryLimit: 48 << 20})
	value(t, run(t, k, "var before = 1"))
	t.Run("single allocations", func(t *testing.T) {
		for _, code := range []string{
			"'x'.repeat(1e9)",
			"'x'.padStart(1e9)",
			"new Uint8Array(1e12)",
			"new ArrayBuffer(1e12)",
			"new Float64Array(1e9)",
			"const big = []; big.length = 1e9; big.fill(0)",
			"Array.from({length: 1e9})",
			// One native call building a result from a length: a sparse
			// array, an empty pattern.
			"new Array(3e8).join('x')",
			"[].concat(new Array(1e8))",
			"JSON.stringify(new Array(1e8))",
			"'abc'.repeat(1000).replaceAll('', 'x'.repeat(100000))",
			"'x'.repeat(4e6).split('')",
		} {
			r := run(t, k, code)
			if r.Error == nil || r.Error.Name != "RangeError" || !strings.Contains(r.Error.Message, "memory cap") {
				t.Errorf("%q: %+v", code, r.Error)
			}
		}
		// The guarded built-ins still behave, and look as node shows them.
		if got := value(t, run(t, k, "[[1, 2].join(), [1, 2].join('-'), [1].concat([2], 3), 'a,b'.split(','), 'a,b,c'.split(',', 2).length, 'aXbX'.replace('X', '-'), 'aXbX'.replaceAll('X', '-'), 'ab'.replace(/b/, 'c'), JSON.stringify([1, {a: 2}]), String([1, [2, 3]]), [].join.name, [].join.length, ''.split.length].join(' | ')")); got != `'1,2 | 1-2 | 1,2,3 | a,b | 2 | a-bX | a-b- | ac | [1,{"a":2}] | 1,2,3 | join | 1 | 2'` {
			t.Errorf("guarded natives: %s", got)
		}
		if r := run(t, k, "[].join.call(null)"); r.Error == nil || r.Error.Name != "TypeError" {
			t.Errorf("an error of a guarded built-in: %+v", r.Error)
		}
		if got := value(t, run(t, k, "const u = new Uint8Array([1, 2, 3]);\n[u instanceof Uint8Array, u.map(v => v * 2) instanceof Uint8Array, u.constructor === Uint8Array, Uint8Array.from([1]).length, 'ab'.repeat(2), [0, 0].fill(7), new ArrayBuffer(8).byteLength, before]")); got != "[ true, true, true, 1, 'abab', [ 7, 7 ], 8, 1 ]" {
			t.Errorf("guarded built-ins: %s", got)
		}
	})
	t.Run("garbage is not growth", func(t *testing.T) {
		// Eight times the cap in short-lived strings and arrays, each under
		// a twentieth of it: collected as the cell goes, never mistaken for
		// growth.
		code := "let n = 0\nfor (let i = 0; i < 192; i++) { const s = 'y'.repeat(1 << 10).repeat(1 << 10) + i; const a = new Array(1 << 12).fill(s); n += a.length + s.length }\nn"
		if got := value(t, run(t, k, code)); got != strconv.Itoa(192*(1<<12+1<<20)+10+2*90+3*92) {
			t.Errorf("churn: %s", got)
		}
	})
	t.Run("local growth is freed and state kept", func(t *testing.T) {
		r := run(t, k, "(function() { const a = []; let s = 'x'; while (true) { s = s + s; a.push(s) } })()")
		if r.Error == nil || r.Error.Name != kernels.ErrMemoryLimit || r.StateLost || !strings.Contains(r.Error.Message, "state is kept") {
			t.Fatalf("local bomb: %+v lost %v", r.Error, r.StateLost)
		}
		if got := value(t, run(t, k, "before")); got != "1" {
			t.Errorf("after local bomb: %s", got)
		}
	})
	t.Run("global growth discards the runtime", func(t *testing.T) {
		r := run(t, k, "var hoard = []; let s = 'x'; while (true) { s = s + s; hoard.push(s) }")
		if r.Error == nil || r.Error.Name != kernels.ErrMemoryLimit || !r.StateLost || !strings.Contains(r.Error.Message, "state is lost") {
			t.Fatalf("global bomb: %+v lost %v", r.Error, r.StateLost)
		}
		r = run(t, k, "typeof before")
		if value(t, r) != "'undefined'" || !r.Fresh || len(r.Notices) != 1 || !strings.Contains(r.Notices[0], "memory cap") {
			t.Errorf("next cell: %+v notices %q", r.Value, r.Notices)
		}
	})
}

// heapMetrics reads runtime/metrics figures of the test process's Go heap.
func heapMetrics(names ...string) []int64 {
	samples := make([]metrics.Sample, len(names))
	for i, n := range names {
		samples[i].Name = n
	}
	metrics.Read(samples)
	out := make([]int64, len(names))
	for i, s := range samples {
		out[i] = int64(s.Value.Uint64())
	}
	return out
}

// allocated is the bytes the process has allocated since it started, all
// freed ones included: what a cell allocated bounds from above the most it can
// have held at once, so the peak is measured without sampling.
func allocated() int64 { return heapMetrics("/gc/heap/allocs:bytes")[0] }

// retained is the heap memory the process holds from the operating system
// (objects, fragmentation and free spans not yet returned).
func retained() int64 {
	m := heapMetrics("/memory/classes/heap/objects:bytes", "/memory/classes/heap/unused:bytes", "/memory/classes/heap/free:bytes")
	return m[0] + m[1] + m[2]
}

// TestMemoryCapCoversStrings: a string that doubles each step (s = s + s, in
// every spelling) is stopped at the cap, not several doublings past it (with
// a 64 MiB cap it reached 512 MiB, with 512 MiB 8 GiB: the guard collected
// first to see what was live, and that collection waited for each copy to
// finish while the next doubling started). The guard looks every
// millisecond and a step copying tens of MiB takes longer, so the cell
// allocates twice the cap in all: the strings up to the cap (as much again as
// the last one) and the one in flight when the guard trips (at most twice the
// largest, itself under the cap). The margin, 6 times the cap, allows one
// doubling more (4 times) for a machine so loaded that the guard's goroutine
// missed the copy in flight, and some slack; the old guard reached 8 to 16. The kernel survives, the next cell
// works, and after a reset the memory is returned to the operating system.
func TestMemoryCapCoversStrings(t *testing.T) {
	const limit = 64 << 20
	for _, tt := range []struct{ name, code string }{
		{"plus", "let s = 'x'; while (true) s = s + s"},
		{"plus assign", "var s = 'x'; for (;;) s += s"},
		{"two-byte", "let s = 'é'; while (true) s = s + s"},
		{"template", "let s = 'x'; while (true) s = `${s}${s}`"},
		{"concat", "let s = 'x'; while (true) s = s.concat(s)"},
		{"join", "let a = ['x']; while (true) a = [a.join('') + a.join('')]"},
		{"local", "(function () { let s = 'x'; while (true) s = s + s })()"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			k := newKernel(t, kernels.Config{MemoryLimit: limit})
			value(t, run(t, k, "var before = 1"))
			runtime.GC()
			held := retained()
			start := allocated()
			r := run(t, k, tt.code)
			grew := allocated() - start
			if r.Error == nil || r.Error.Name != kernels.ErrMemoryLimit || !strings.Contains(r.Error.Message, "memory cap of 64 MiB") || !strings.Contains(r.Error.Message, "--eval-js-memory") {
				t.Fatalf("not stopped at the cap: %+v", r.Error)
			}
			if grew > 6*limit {
				t.Errorf("the cell allocated %d MiB under a cap of %d MiB: over the margin of 6 times the cap", grew>>20, limit>>20)
			}
			// A local string is freed and the state kept; a global one is
			// kept too unless it holds more than half the cap (where the
			// guard's look landed decides which), then the runtime is
			// discarded. The next cell sees what the result said.
			if tt.name == "local" && r.StateLost {
				t.Errorf("a local string's cell lost the state: %s", r.Error.Message)
			}
			if got := value(t, run(t, k, "typeof before")); (got == "'number'") == r.StateLost {
				t.Errorf("the next cell sees before as %s (state lost %v)", got, r.StateLost)
			}
			if err := k.Reset(); err != nil {
				t.Fatal(err)
			}
			if got := value(t, run(t, k, "1 + 1")); got != "2" {
				t.Errorf("after reset: %s", got)
			}
			runtime.GC()
			if now := retained(); now > held+limit/2 {
				t.Errorf("the heap holds %d MiB from the system after the stop and a reset, %d MiB before the cell: the memory did not return", now>>20, held>>20)
			}
		})
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
	if got := value(t, run(t, k, "const contents = tool('read', {path: 'lib/auth.dart'}); contents")); got != "'class Auth {}\\n'" {
		t.Errorf("tool read: %s", got)
	}
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
	if got := value(t, run(t, k, "let caught; try { tool('fails') } catch (e) { caught = e instanceof ToolError && e.message }; caught")); got != "'it failed'" {
		t.Errorf("error reply: %s", got)
	}
	if got := value(t, run(t, k, "tool('slow')")); got != "'slow done'" {
		t.Errorf("slow bridge call was not allowed to finish: %s", got)
	}
	r = run(t, k, "tool('read', [1])")
	if r.Error == nil || r.Error.Name != "TypeError" {
		t.Errorf("array args: %+v", r.Error)
	}
}

func TestConcurrentKernelsAreIndependent(t *testing.T) {
	done := make(chan string, 4)
	for i := 0; i < 4; i++ {
		go func(i int) {
			k, _ := js.New(kernels.Config{})
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
	const workers, cells = 8, 25
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		go func() {
			for i := 0; i < cells; i++ {
				r, err := k.Execute(context.Background(), kernels.Cell{Code: "hits++; console.log(hits); hits"})
				if err == nil && r.Error != nil {
					err = errors.New(r.Error.Message)
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for w := 0; w < workers; w++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if got := value(t, run(t, k, "hits")); got != "200" {
		t.Errorf("hits = %s, want 200", got)
	}
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
		if got := value(t, run(t, k, tt.code)); got != tt.want {
			t.Errorf("%q echoed %q, want %q", tt.code, got, tt.want)
		}
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

// TestTimers: setTimeout and friends fire before the cell ends, in order, and
// an awaited timer resolves, as in node.
// startedTools is a bridge whose tool('started') tells the test the cell
// got going.
func startedTools() (kernels.ToolCaller, chan struct{}) {
	started := make(chan struct{}, 1)
	return func(context.Context, string, json.RawMessage) (kernels.ToolReply, error) {
		started <- struct{}{}
		return kernels.ToolReply{}, nil
	}, started
}

// untilIdle runs a cell that never ends on its own and calls tool('started')
// once it got going. From then on it moves the kernel's clock a whole idle
// budget past each time the kernel arms the budget, so the cell is
// interrupted once it goes quiet, however slow the machine.
func untilIdle(t *testing.T, k kernels.Kernel, clock *kernelstest.Clock, budget time.Duration, started <-chan struct{}, code string) *kernels.Result {
	t.Helper()
	for drained := false; !drained; {
		select {
		case <-clock.Arms():
		default:
			drained = true
		}
	}
	done := make(chan *kernels.Result, 1)
	go func() {
		r, err := k.Execute(context.Background(), kernels.Cell{Code: code})
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	for begun, last := false, clock.Now(); ; {
		select {
		case last = <-clock.Arms():
			if begun {
				clock.AdvanceTo(last.Add(budget))
			}
		case <-started:
			begun = true
			clock.AdvanceTo(last.Add(budget)) // the last arm may have come first
		case r := <-done:
			return r
		}
	}
}

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
	if got := value(t, run(t, k, "[seen.filter(x => x !== 'tick'), seen.filter(x => x === 'tick').length]")); got != "[ [ 'micro', 'now', 'a', 'b' ], 2 ]" {
		t.Errorf("timers fired: %s", got)
	}
	// A delay past 2^31-1 ms is 1 ms, as in node, not a wrapped-around wait.
	if got := value(t, run(t, k, "let fired = false; setTimeout(() => { fired = true }, 3e9)")); got == "" {
		t.Errorf("huge delay: %s", got)
	}
	if got := value(t, run(t, k, "fired")); got != "true" {
		t.Errorf("a timer with a huge delay: fired %s", got)
	}
	if got := value(t, run(t, k, "await new Promise(r => setTimeout(() => r('slept'), 10))")); got != "'slept'" {
		t.Errorf("awaited timer: %s", got)
	}
	r = run(t, k, "setTimeout(() => { throw new Error('in a timer') }, 1)")
	if r.Error == nil || r.Error.Message != "in a timer" {
		t.Errorf("a throwing timer: %+v", r.Error)
	}
	// A timer that never ends the cell is cut by the idle budget; state kept.
	r = untilIdle(t, k, clock, 2*time.Second, started, "var kept = 1; tool('started'); setInterval(() => {}, 50)")
	if r.Error == nil || r.Error.Name != kernels.ErrInterrupted {
		t.Errorf("endless interval: %+v", r.Error)
	}
	if got := value(t, run(t, k, "kept")); got != "1" {
		t.Errorf("after the interrupt: %s", got)
	}
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
	quiet := make(chan struct{})
	tools := func(ctx context.Context, name string, args json.RawMessage) (kernels.ToolReply, error) {
		close(quiet)
		return kernels.ToolReply{}, nil
	}
	k := newKernel(t, kernels.Config{IdleTimeout: budget, InterruptGrace: time.Minute, Clock: clock, Tools: tools})
	done := make(chan *kernels.Result, 1)
	go func() {
		r, err := k.Execute(context.Background(), kernels.Cell{Code: "var ticks = 0\n" +
			"for (let i = 0; i < 50; i++) { const t = Date.now(); console.log('tick'); ticks++; while (Date.now() === t) {} }\n" +
			"console.log('quiet now'); tool('quiet')\nawait new Promise(r => setTimeout(r, 600000))"})
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	start, step := clock.Now(), budget*9/10
	var r *kernels.Result
	for isQuiet, last := false, start; r == nil; {
		select {
		case last = <-clock.Arms():
			if isQuiet {
				clock.AdvanceTo(last.Add(budget))
			} else {
				clock.AdvanceTo(last.Add(step))
			}
		case <-quiet:
			quiet, isQuiet = nil, true
			if printing := clock.Now().Sub(start); printing < 10*budget {
				t.Errorf("the clock moved %s while the cell printed, want at least 10 budgets", printing)
			}
			clock.AdvanceTo(last.Add(budget)) // the last arm may have come first
		case r = <-done:
		}
	}
	if r.Error == nil || r.Error.Name != kernels.ErrInterrupted || !strings.Contains(r.Error.Message, "state is kept") || !strings.HasSuffix(r.Stdout.Text, "quiet now\n") {
		t.Fatalf("want the quiet wait interrupted, got %+v\nstdout %q", r.Error, r.Stdout.Text)
	}
	if n := strings.Count(r.Stdout.Text, "tick\n"); n != 50 {
		t.Errorf("%d ticks printed, want 50", n)
	}
	if got := value(t, run(t, k, "ticks")); got != "50" {
		t.Errorf("ticks after the interrupt: %s", got)
	}
}

// TestErrorsAsNode: uncaught TypeErrors read as node 20 words them (goja says
// "Cannot read property 'x' of undefined", "Value is not an object:
// undefined", ...), and stack positions are the cell's as written, without
// goja's program counters, also when top-level await wrapped the cell.
func TestErrorsAsNode(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	for _, tt := range []struct{ code, message, at string }{
		// Expected messages as node 20 prints them for the same code.
		{"let o; o.x", "Cannot read properties of undefined (reading 'x')", "cell-1:1:10"},
		{"null.foo", "Cannot read properties of null (reading 'foo')", ""},
		{"let v = null; v.x", "Cannot read properties of null (reading 'x')", ""},
		{"let m = 'abc'.match(/z/); m[1]", "Cannot read properties of null (reading '1')", ""},
		{"const c = {}; c.d.e", "Cannot read properties of undefined (reading 'e')", ""},
		{"let u; u.x = 1", "Cannot set properties of undefined (setting 'x')", ""},
		{"let u2 = null; u2.x = 1", "Cannot set properties of null (setting 'x')", ""},
		{"let w; w['p'] = 1", "Cannot set properties of undefined (setting 'p')", ""},
		{"let f; f()", "f is not a function", ""},
		{"const q = {}; q.m()", "q.m is not a function", ""},
		{"const a = []; a[0]()", "a[0] is not a function", ""},
		{"let n; new n()", "n is not a constructor", ""},
		{"let ee; for (const x of ee) {}", "ee is not iterable", ""},
		{"Object.keys(null)", "Cannot convert undefined or null to object", ""},
		// Top-level await: the column is the cell's, not the wrapper's.
		{"await 0; let q2; q2.x", "Cannot read properties of undefined (reading 'x')", ":1:21"},
		{"const r = await Promise.resolve(null); r.k", "Cannot read properties of null (reading 'k')", ":1:42"},
		{"await 0\nlet g; g()", "g is not a function", ":2:9"},
	} {
		code := strings.ReplaceAll(tt.code, `\n`, "\n")
		r := run(t, k, code)
		if r.Error == nil || r.Error.Name != "TypeError" || r.Error.Message != tt.message {
			t.Errorf("%s: got %+v, want TypeError %q", tt.code, r.Error, tt.message)
			continue
		}
		if !strings.HasPrefix(r.Error.Traceback, "TypeError: "+tt.message+"\n") || strings.Contains(r.Error.Traceback, ")(") {
			t.Errorf("%s: traceback %q", tt.code, r.Error.Traceback)
		}
		if tt.at != "" && !strings.Contains(r.Error.Traceback, tt.at+"\n") && !strings.HasSuffix(r.Error.Traceback, tt.at) {
			t.Errorf("%s: traceback %q lacks the position %s", tt.code, r.Error.Traceback, tt.at)
		}
	}
}

// TestInspectBreaksLinesAsNode: console.log shows containers as node 20's
// util.inspect does with its defaults: one line when it fits in 80 columns
// and nests at most three levels, else one entry a line; more than six short
// array items grouped in columns (numbers aligned right). Each want is node
// 20's output for the same expression.
func TestInspectBreaksLinesAsNode(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	for _, tt := range []struct{ expr, want string }{
		{"[1,2,3,4,5,6]",
			"[ 1, 2, 3, 4, 5, 6 ]"},
		{"[1,2,3,4,5,6,7]",
			"[\n  1, 2, 3, 4,\n  5, 6, 7\n]"},
		{"Array.from({length:30},(_, i)=>i*7)",
			"[\n    0,   7,  14,  21,  28,  35,  42,  49,\n   56,  63,  70,  77,  84,  91,  98, 105,\n  112, 119, 126, 133, 140, 147, 154, 161,\n  168, 175, 182, 189, 196, 203\n]"},
		{"Array.from({length:120},(_, i)=>i)",
			"[\n   0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11,\n  12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,\n  24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35,\n  36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47,\n  48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59,\n  60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71,\n  72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83,\n  84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95,\n  96, 97, 98, 99,\n  ... 20 more items\n]"},
		{"Array.from({length:101},(_, i)=>i%3)",
			"[\n  0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n  0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n  0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n  0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n  0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n  0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n  0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n  0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n  0, 1, 2, 0,\n  ... 1 more item\n]"},
		{"['apple','banana','cherry','date','elderberry','fig','grape']",
			"[ 'apple', 'banana', 'cherry', 'date', 'elderberry', 'fig', 'grape' ]"},
		{"({users:[{name:'alice',age:30},{name:'bob',age:25}], total: 2})",
			"{\n  users: [ { name: 'alice', age: 30 }, { name: 'bob', age: 25 } ],\n  total: 2\n}"},
		{"[{a:1},{b:2},{c:3},{d:4},{e:5},{f:6},{g:7}]",
			"[\n  { a: 1 }, { b: 2 },\n  { c: 3 }, { d: 4 },\n  { e: 5 }, { f: 6 },\n  { g: 7 }\n]"},
		{"new Map([['a',{x:1,y:[1,2,3]}],['b',{x:2, y:[4,5,6]}], ['c', 'a long string value here to break']])",
			"Map(3) {\n  'a' => { x: 1, y: [ 1, 2, 3 ] },\n  'b' => { x: 2, y: [ 4, 5, 6 ] },\n  'c' => 'a long string value here to break'\n}"},
		{"({a: 1, b: [1, 2, {c: 3}], s: 'x', n: null, u: undefined, d: new Date(0)})",
			"{\n  a: 1,\n  b: [ 1, 2, { c: 3 } ],\n  s: 'x',\n  n: null,\n  u: undefined,\n  d: 1970-01-01T00:00:00.000Z\n}"},
		{"({a:{b:{c:{d:1}}},e:1})",
			"{ a: { b: { c: [Object] } }, e: 1 }"},
		{"({a:{b:{c:{}}}})",
			"{ a: { b: { c: {} } } }"},
		{"({level1: {level2: {level3: 'deep'}}, other: [1, [2, [3, [4]]]]})",
			"{\n  level1: { level2: { level3: 'deep' } },\n  other: [ 1, [ 2, [Array] ] ]\n}"},
		{"new Set(['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota'])",
			"Set(9) {\n  'alpha',\n  'beta',\n  'gamma',\n  'delta',\n  'epsilon',\n  'zeta',\n  'eta',\n  'theta',\n  'iota'\n}"},
		{"new Uint8Array(10)",
			"Uint8Array(10) [\n  0, 0, 0, 0, 0,\n  0, 0, 0, 0, 0\n]"},
		{"[['a', 1], ['b', 2], ['c', 3], ['d', 4], ['e', 5], ['f', 6], ['g', 7], ['h', 8]]",
			"[\n  [ 'a', 1 ],\n  [ 'b', 2 ],\n  [ 'c', 3 ],\n  [ 'd', 4 ],\n  [ 'e', 5 ],\n  [ 'f', 6 ],\n  [ 'g', 7 ],\n  [ 'h', 8 ]\n]"},
		{"[1.5, -2, 300, 4e21, 5, 6, 7]",
			"[\n    1.5, -2, 300,\n  4e+21,  5,   6,\n      7\n]"},
		{"[true, false, null, undefined, 1, 'x', 2]",
			"[ true, false, null, undefined, 1, 'x', 2 ]"},
	} {
		r := run(t, k, "console.log("+tt.expr+")")
		if r.Error != nil {
			t.Errorf("%s: %s: %s", tt.expr, r.Error.Name, r.Error.Message)
			continue
		}
		if r.Stdout.Text != tt.want+"\n" {
			t.Errorf("console.log(%s):\n got %s\nwant %s", tt.expr, r.Stdout.Text, tt.want)
		}
	}
}

// TestConsoleAsNode: console.log formats as node 20's util.format: format
// strings (%s, %d, %i, %f, %j, %O, %c, %%), quotes chosen as node chooses
// them, -0, symbols (values and keys), holes in arrays, null-prototype
// objects, weak collections and subclassed Maps. Each want is node 20's
// output for the same statement.
func TestConsoleAsNode(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	for _, tt := range []struct{ code, want string }{
		{"console.log('%s is %d years and %i, %f, %j %O %%', 'Bob', 42.5, 42.5, 1.5, {a:1}, {b:2})",
			"Bob is 42.5 years and 42, 1.5, {\"a\":1} { b: 2 } %"},
		{"console.log('%s and %s', {toString() { return 'custom' }}, {a: {b: 1}})",
			"custom and { a: [Object] }"},
		{"console.log('%d%%', 50, 'extra', {x: 1})",
			"50% extra { x: 1 }"},
		{"console.log('%s', -0, '%d')",
			"-0 %d"},
		{"console.log('100%')",
			"100%"},
		{"console.log('%c styled', 'color: red')",
			" styled"},
		{"const cyc = {}; cyc.me = cyc; console.log('%j', cyc)",
			"[Circular]"},
		{"console.log(['it\\'s', \"q\\\"d\", `b${1}`, 'both \\' and \"', 'tab\\there', '\\x1b[0m'])",
			"[ \"it's\", 'q\"d', 'b1', `both ' and \"`, 'tab\\there', '\\x1B[0m' ]"},
		{"console.log(-0, [-0], 1e21, 0.1+0.2, 2n**64n, NaN, [undefined, null])",
			"-0 [ -0 ] 1e+21 0.30000000000000004 18446744073709551616n NaN [ undefined, null ]"},
		{"console.log(Symbol('s'), [Symbol.iterator])",
			"Symbol(s) [ Symbol(Symbol.iterator) ]"},
		{"console.log({ 'a-b': 1, 2: 3, [Symbol('k')]: 4 })",
			"{ '2': 3, 'a-b': 1, [Symbol(k)]: 4 }"},
		{"console.log([ , 1, , ], [1, , , , 5])",
			"[ <1 empty item>, 1, <1 empty item> ] [ 1, <3 empty items>, 5 ]"},
		{"console.log(Object.create(null))",
			"[Object: null prototype] {}"},
		{"console.log(new Map(), new Set([1]), new WeakMap(), new WeakSet())",
			"Map(0) {} Set(1) { 1 } WeakMap { <items unknown> } WeakSet { <items unknown> }"},
		{"console.log(new (class M extends Map {})([[1, 2]]))",
			"M(1) [Map] { 1 => 2 }"},
	} {
		r := run(t, k, tt.code)
		if r.Error != nil {
			t.Errorf("%s: %s: %s", tt.code, r.Error.Name, r.Error.Message)
			continue
		}
		if r.Stdout.Text != tt.want+"\n" {
			t.Errorf("%s:\n got %s\nwant %s", tt.code, r.Stdout.Text, tt.want)
		}
	}
	r := run(t, k, "console.log('%j', 1n)")
	if r.Error == nil || r.Error.Name != "TypeError" || r.Error.Message != "Do not know how to serialize a BigInt" {
		t.Errorf("%%j of a BigInt: %+v", r.Error)
	}
}

// TestWebGlobals: atob, btoa, TextEncoder, TextDecoder and structuredClone,
// which node has and goja lacks, behave as node 20's (the want is node's
// output for the same cell).
func TestWebGlobals(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	r := run(t, k, "console.log(btoa('hi there'), atob('aGkgdGhlcmU='), atob(' aGk= '), btoa(''), atob(''))\ntry { btoa('€') } catch (e) { console.log(e.name, e.message) }\ntry { atob('a') } catch (e) { console.log(e.name, e.message) }\nconsole.log(new TextEncoder().encode('héllo €😀'), new TextEncoder().encoding)\nconsole.log(new TextDecoder().decode(new TextEncoder().encode('héllo €😀')), new TextDecoder().decode(new Uint8Array([0xff, 0x41])))\nconst o = {a: [1, {b: new Date(0)}], m: new Map([[1, new Set([2])]])}; o.self = o\nconst c = structuredClone(o); console.log(c.a[1].b instanceof Date, c !== o, c.self === c, c.m.get(1).has(2), c.a !== o.a)\ntry { structuredClone({f() {}}) } catch (e) { console.log(e.name, e.message) }\n")
	if r.Error != nil {
		t.Fatalf("%s: %s", r.Error.Name, r.Error.Message)
	}
	if want := "aGkgdGhlcmU= hi there hi  \nInvalidCharacterError Invalid character\nInvalidCharacterError The string to be decoded is not correctly encoded.\nUint8Array(14) [\n  104, 195, 169, 108,\n  108, 111,  32, 226,\n  130, 172, 240, 159,\n  152, 128\n] utf-8\nhéllo €😀 �A\ntrue true true true true\nDataCloneError f() {} could not be cloned.\n"; r.Stdout.Text != want {
		t.Errorf("got:\n%s\nwant (node 20):\n%s", r.Stdout.Text, want)
	}
}

// TestForAwaitSaysWhatToDo: goja cannot parse for await...of; the error says
// so and what to write instead.
func TestForAwaitSaysWhatToDo(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	r := run(t, k, "const out = []\nfor await (const x of [Promise.resolve(1)]) out.push(x)")
	if r.Error == nil || r.Error.Name != "SyntaxError" || !strings.Contains(r.Error.Message, "no for await...of") || !strings.Contains(r.Error.Message, "await each value inside the loop") {
		t.Errorf("for await: %+v", r.Error)
	}
	if got := value(t, run(t, k, "const out = []\nfor (const p of [Promise.resolve(1), 2]) out.push(await p)\nout")); got != "[ 1, 2 ]" {
		t.Errorf("the suggested loop: %s", got)
	}
}

// TestToLocaleString: numbers and BigInts format in node's default locale
// (en-US) as node 20 does; goja has no Intl and printed 1234.5 for 1,234.5.
func TestToLocaleString(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	r := run(t, k, "for (const v of [1234.5, 1234.5678, 0.1+0.2, -1234567, 1e21, NaN, Infinity, -0, 0.0005, 123456789.987654, 5, -0.0001]) console.log(JSON.stringify([v, v.toLocaleString(), v.toLocaleString('en-US', {maximumFractionDigits: 1}), v.toLocaleString(undefined, {minimumFractionDigits: 2})]))\nconsole.log(1234n.toLocaleString(), (-1234567n).toLocaleString(), (1234.5).toLocaleString('en-US', {useGrouping: false}))\n")
	if r.Error != nil {
		t.Fatalf("%s: %s", r.Error.Name, r.Error.Message)
	}
	if want := "[1234.5,\"1,234.5\",\"1,234.5\",\"1,234.50\"]\n[1234.5678,\"1,234.568\",\"1,234.6\",\"1,234.568\"]\n[0.30000000000000004,\"0.3\",\"0.3\",\"0.30\"]\n[-1234567,\"-1,234,567\",\"-1,234,567\",\"-1,234,567.00\"]\n[1e+21,\"1,000,000,000,000,000,000,000\",\"1,000,000,000,000,000,000,000\",\"1,000,000,000,000,000,000,000.00\"]\n[null,\"NaN\",\"NaN\",\"NaN\"]\n[null,\"∞\",\"∞\",\"∞\"]\n[0,\"-0\",\"-0\",\"-0.00\"]\n[0.0005,\"0.001\",\"0\",\"0.001\"]\n[123456789.987654,\"123,456,789.988\",\"123,456,790\",\"123,456,789.988\"]\n[5,\"5\",\"5\",\"5.00\"]\n[-0.0001,\"-0\",\"-0\",\"-0.00\"]\n1,234 -1,234,567 1234.5\n"; r.Stdout.Text != want {
		t.Errorf("got:\n%s\nwant (node 20):\n%s", r.Stdout.Text, want)
	}
}
