package tools

import "context"
import "encoding/json"
import "errors"
import "fmt"
import "reflect"
import "strings"
import "sync"
import "sync/atomic"
import "testing"

func testTool(name string, tier Tier) Tool {
	return Tool{Name: name, Tier: tier, Description: "test tool " + name,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"additionalProperties":false}`),
		Handler: func(ctx context.Context, c *Call) (*Result, error) {
			return Text("ran " + name), nil
		}}
}

func testRegistry(t *testing.T) *registry {
	t.Helper()
	r := newRegistry()
	err := r.Register(
		testTool("lsp", TierRead), testTool("ast_grep", TierRead), testTool("ask_user", TierRead),
		testTool("lsp_rename", TierWrite), testTool("ast_edit", TierWrite), testTool("resolve", TierWrite),
		testTool("debug", TierExec), testTool("eval", TierExec),
	)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func toolNames(ts []Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

func TestSurfaces(t *testing.T) {
	all := []string{"ask_user", "ast_edit", "ast_grep", "debug", "eval", "lsp", "lsp_rename", "resolve"}
	tests := []struct {
		surface Surface
		listed  []string
	}{
		{SurfaceDefault, all},
		{SurfacePlan, []string{"ask_user", "ast_grep", "lsp"}},
		{SurfaceReadonly, []string{"ask_user", "ast_grep", "lsp"}},
	}
	r := testRegistry(t)
	for _, tt := range tests {
		t.Run(tt.surface.Name, func(t *testing.T) {
			got := toolNames(r.List(tt.surface))
			if !reflect.DeepEqual(got, tt.listed) {
				t.Fatalf("listed %v, want %v", got, tt.listed)
			}
			listed := map[string]bool{}
			for _, n := range got {
				listed[n] = true
			}
			g := guard{Surface: tt.surface, Policy: PolicyOf(Allow)}
			for _, n := range all {
				res, err := r.Call(context.Background(), g, Call{Name: n})
				if listed[n] {
					if err != nil || res.IsError || res.AllText() != "ran "+n {
						t.Errorf("%s: listed but the call gave %v %q", n, err, res.AllText())
					}
					continue
				}
				if !errors.Is(err, ErrNotOnSurface) || !res.IsError {
					t.Errorf("%s: hidden but the call gave err=%v isError=%v", n, err, res.IsError)
				}
				if msg := res.AllText(); !strings.Contains(msg, n) || !strings.Contains(msg, tt.surface.Name) || !strings.HasPrefix(msg, "tools: ") {
					t.Errorf("%s: refusal %q should name the tool and the surface", n, msg)
				}
			}
		})
	}
}

func TestParseSurface(t *testing.T) {
	for in, want := range map[string]Surface{"": SurfaceDefault, "default": SurfaceDefault, "plan": SurfacePlan, "readonly": SurfaceReadonly} {
		got, err := ParseSurface(in)
		if err != nil || got != want {
			t.Errorf("ParseSurface(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseSurface("admin"); err == nil || !strings.Contains(err.Error(), "default, plan or readonly") {
		t.Errorf("ParseSurface(admin): %v", err)
	}
}

type recorder struct {
	mu     sync.Mutex
	asked  []ApprovalRequest
	answer bool
	err    error
}

func (a *recorder) Approve(ctx context.Context, q ApprovalRequest) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, q)
	return a.answer, a.err
}

func TestApprovals(t *testing.T) {
	r := testRegistry(t)
	tests := []struct {
		name     string
		policy   Policy
		approver *recorder
		tool     string
		wantErr  error // nil: the call runs
		asked    bool
	}{
		{"read never asks", Policy{}, nil, "lsp", nil, false},
		{"read ignores deny", PolicyOf(Deny), nil, "ast_grep", nil, false},
		{"ask without approver fails closed", Policy{}, nil, "lsp_rename", ErrNoApprover, false},
		{"ask exec without approver fails closed", PolicyOf(Ask), nil, "eval", ErrNoApprover, false},
		{"approver cannot reach anyone fails closed", Policy{}, &recorder{err: fmt.Errorf("client lacks elicitation: %w", ErrNoApprover)}, "debug", ErrNoApprover, true},
		{"approver error refuses", Policy{}, &recorder{err: errors.New("broken pipe")}, "debug", errors.New(""), true},
		{"ask approved", Policy{}, &recorder{answer: true}, "resolve", nil, true},
		{"ask declined", Policy{}, &recorder{answer: false}, "resolve", ErrDeclined, true},
		{"allow", PolicyOf(Allow), nil, "eval", nil, false},
		{"deny", PolicyOf(Deny), &recorder{answer: true}, "eval", ErrDenied, false},
		{"tier override", Policy{Default: Deny, Tiers: map[Tier]Decision{TierWrite: Allow}}, nil, "ast_edit", nil, false},
		{"tool override beats tier", Policy{Tiers: map[Tier]Decision{TierExec: Allow}, Tools: map[string]Decision{"debug": Deny}}, nil, "debug", ErrDenied, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := guard{Surface: SurfaceDefault, Policy: tt.policy, ConversationID: "c1"}
			if tt.approver != nil {
				g.Approver = tt.approver
			}
			res, err := r.Call(context.Background(), g, Call{Name: tt.tool, Args: json.RawMessage(`{"n":1}`), Origin: FromBridge})
			switch {
			case tt.wantErr == nil && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.wantErr == nil && res.AllText() != "ran "+tt.tool:
				t.Fatalf("result %q", res.AllText())
			case tt.wantErr != nil && err == nil:
				t.Fatalf("ran, want refusal %v", tt.wantErr)
			case tt.wantErr != nil && tt.wantErr.Error() != "" && !errors.Is(err, tt.wantErr):
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			case tt.wantErr != nil && (!res.IsError || !strings.HasPrefix(res.AllText(), "tools: ") || strings.Contains(res.AllText(), "ran ")):
				t.Fatalf("refusal result %q isError=%v", res.AllText(), res.IsError)
			}
			if tt.approver != nil {
				if got := len(tt.approver.asked) > 0; got != tt.asked {
					t.Fatalf("asked = %v, want %v", got, tt.asked)
				}
				if tt.asked {
					q := tt.approver.asked[0]
					if q.Tool != tt.tool || q.ConversationID != "c1" || q.Origin != FromBridge || string(q.Args) != `{"n":1}` {
						t.Errorf("approval request %+v", q)
					}
					if p := q.Prompt(); !strings.Contains(p, tt.tool) || !strings.Contains(p, `{"n":1}`) {
						t.Errorf("prompt %q", p)
					}
				}
			}
		})
	}
}

func TestParsePolicy(t *testing.T) {
	p, err := ParsePolicy("write=allow,exec=ask,debug=deny")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		tier Tier
		want Decision
	}{{"edit", TierWrite, Allow}, {"eval", TierExec, Ask}, {"debug", TierExec, Deny}, {"lsp", TierRead, Allow}} {
		if got := p.Decide(c.name, c.tier); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	if p, _ := ParsePolicy("deny"); p.Decide("write", TierWrite) != Deny {
		t.Error("deny")
	}
	for _, bad := range []string{"maybe", "write=perhaps", "read=deny", "write"} {
		if _, err := ParsePolicy(bad); err == nil {
			t.Errorf("ParsePolicy(%q) accepted", bad)
		}
	}
}

func TestArgumentValidation(t *testing.T) {
	r := newRegistry()
	err := r.Register(Tool{Name: "t", Tier: TierRead,
		InputSchema: json.RawMessage(`{"type":"object","properties":{
			"path":{"type":"string","minLength":1},
			"line":{"type":"integer","minimum":1},
			"action":{"type":"string","enum":["definition","hover"]},
			"lines":{"type":"array","items":{"type":"integer"}},
			"opts":{"type":"object","properties":{"deep":{"type":"boolean"}},"required":["deep"]}},
			"required":["path"],"additionalProperties":false}`),
		Handler: func(ctx context.Context, c *Call) (*Result, error) { return Text("ok"), nil }})
	if err != nil {
		t.Fatal(err)
	}
	g := guard{Surface: SurfaceReadonly}
	tests := []struct {
		args string
		want string // "" = valid; else substrings of the error
	}{
		{`{"path":"a"}`, ""},
		{`{"path":"a","line":3,"action":"hover","lines":[1,2],"opts":{"deep":true}}`, ""},
		{`{"path":"a","line":3.0}`, ""},
		{`{}`, `missing required argument "path" (a string)`},
		{``, `missing required argument "path"`},
		{`{"path":3}`, `argument "path": expected a string, got number 3`},
		{`{"path":""}`, `argument "path": expected a non-empty string`},
		{`{"path":"a","line":0}`, `argument "line": expected a number >= 1, got 0`},
		{`{"path":"a","line":1.5}`, `argument "line": expected an integer, got number 1.5`},
		{`{"path":"a","action":"jump"}`, `argument "action": expected one of "definition", "hover", got string "jump"`},
		{`{"path":"a","lines":[1,"x"]}`, `argument "lines[1]": expected an integer, got string "x"`},
		{`{"path":"a","opts":{}}`, `missing required argument "opts.deep"`},
		{`{"path":"a","colour":1}`, `unknown argument "colour": expected only action, line, lines, opts, path`},
		{`[1]`, `arguments must be a JSON object, got an array`},
		{`{"path":`, `arguments are not valid JSON`},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			res, err := r.Call(context.Background(), g, Call{Name: "t", Args: json.RawMessage(tt.args)})
			if tt.want == "" {
				if err != nil {
					t.Fatalf("refused valid arguments: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidArgs) {
				t.Fatalf("err = %v, want ErrInvalidArgs", err)
			}
			if !strings.Contains(res.AllText(), tt.want) {
				t.Fatalf("error %q does not say %q", res.AllText(), tt.want)
			}
		})
	}
}

func TestRegisterRefuses(t *testing.T) {
	ok := func(ctx context.Context, c *Call) (*Result, error) { return nil, nil }
	r := newRegistry()
	if err := r.Register(Tool{Name: "a", Tier: TierRead, Handler: ok}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []Tool{
		{Name: "", Tier: TierRead, Handler: ok},
		{Name: "has space", Tier: TierRead, Handler: ok},
		{Name: "a", Tier: TierRead, Handler: ok},
		{Name: "b", Tier: 0, Handler: ok},
		{Name: "c", Tier: TierRead},
		{Name: "d", Tier: TierRead, Handler: ok, InputSchema: json.RawMessage(`{"type":"string"}`)},
		{Name: "e", Tier: TierRead, Handler: ok, InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"$ref":"#/defs/x"}}}`)},
	} {
		if err := r.Register(bad); err == nil || !strings.HasPrefix(err.Error(), "tools: ") {
			t.Errorf("Register(%q) = %v", bad.Name, err)
		}
	}
}

func TestWrap(t *testing.T) {
	r := newRegistry()
	var order []string
	mw := func(tag string) middleware {
		return func(next Handler) Handler {
			return func(ctx context.Context, c *Call) (*Result, error) {
				order = append(order, tag)
				res, err := next(ctx, c)
				if err == nil {
					res.Content = append(res.Content, Content{Type: TextContent, Text: tag})
				}
				return res, err
			}
		}
	}
	r.Wrap("w", mw("before-register"))
	if err := r.Register(testTool("w", TierWrite), testTool("other", TierWrite)); err != nil {
		t.Fatal(err)
	}
	r.Wrap("w", mw("after-register"))
	g := guard{Surface: SurfaceDefault, Policy: PolicyOf(Allow)}
	res, err := r.Call(context.Background(), g, Call{Name: "w"})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.AllText(); got != "ran w\nbefore-register\nafter-register" {
		t.Errorf("result %q", got)
	}
	if !reflect.DeepEqual(order, []string{"after-register", "before-register"}) {
		t.Errorf("order %v", order)
	}
	order = nil
	res, _ = r.Call(context.Background(), g, Call{Name: "other"})
	if res.AllText() != "ran other" || len(order) != 0 {
		t.Errorf("wrapper leaked onto another tool: %q %v", res.AllText(), order)
	}
	// A refused call never reaches the wrappers.
	_, err = r.Call(context.Background(), guard{Surface: SurfacePlan}, Call{Name: "w"})
	if !errors.Is(err, ErrNotOnSurface) || len(order) != 0 {
		t.Errorf("refused call: %v, wrappers ran %v", err, order)
	}
}

func TestResultsAreBounded(t *testing.T) {
	r := newRegistry()
	big := strings.Repeat("x", MaxResultText+100)
	r.Register(Tool{Name: "big", Tier: TierRead, Handler: func(ctx context.Context, c *Call) (*Result, error) {
		return Text(big), nil
	}})
	res, err := r.Call(context.Background(), guard{Surface: SurfaceDefault}, Call{Name: "big"})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("(%d of %d bytes shown)", MaxResultText, len(big))
	if txt := res.AllText(); len(txt) > MaxResultText+100 || !strings.HasSuffix(txt, want) {
		t.Errorf("result of %d bytes ends %q, want the note %q", len(txt), txt[len(txt)-40:], want)
	}
	if got := TruncateText("héllo", 2); got != "h\n... (1 of 6 bytes shown)" {
		t.Errorf("TruncateText cut inside a rune: %q", got)
	}
}

// TestHammer runs many concurrent calls through one registry (run it with
// -race): listing, calling, wrapping and registering at once, with a Serial
// tool that must never run twice at the same time.
func TestHammer(t *testing.T) {
	r := testRegistry(t)
	var inSerial, maxSerial, serialCalls atomic.Int64
	r.Register(Tool{Name: "serial", Tier: TierExec, Serial: true, Handler: func(ctx context.Context, c *Call) (*Result, error) {
		n := inSerial.Add(1)
		defer inSerial.Add(-1)
		for {
			m := maxSerial.Load()
			if n <= m || maxSerial.CompareAndSwap(m, n) {
				break
			}
		}
		serialCalls.Add(1)
		return Text("serial"), nil
	}})
	var approvals atomic.Int64
	g := guard{Surface: SurfaceDefault, Approver: ApproverFunc(func(ctx context.Context, q ApprovalRequest) (bool, error) {
		approvals.Add(1)
		return q.Tool != "eval", nil
	})}
	const workers, perWorker = 16, 200
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < perWorker; i++ {
				switch i % 6 {
				case 0:
					if n := len(r.List(SurfacePlan)); n < 3 {
						errs <- fmt.Errorf("plan lists %d tools", n)
						return
					}
				case 1:
					res, err := r.Call(context.Background(), g, Call{Name: "lsp", Args: json.RawMessage(fmt.Sprintf(`{"n":%d}`, i))})
					if err != nil || res.AllText() != "ran lsp" {
						errs <- fmt.Errorf("lsp: %v %q", err, res.AllText())
						return
					}
				case 2:
					if _, err := r.Call(context.Background(), g, Call{Name: "eval"}); !errors.Is(err, ErrDeclined) {
						errs <- fmt.Errorf("eval: %v", err)
						return
					}
				case 3:
					if _, err := r.Call(context.Background(), g, Call{Name: "serial"}); err != nil {
						errs <- err
						return
					}
				case 4:
					if _, err := r.Call(context.Background(), guard{Surface: SurfaceReadonly}, Call{Name: "debug"}); !errors.Is(err, ErrNotOnSurface) {
						errs <- fmt.Errorf("debug on readonly: %v", err)
						return
					}
				case 5:
					name := fmt.Sprintf("extra_%d_%d", w, i)
					if err := r.Register(testTool(name, TierRead)); err != nil {
						errs <- err
						return
					}
					r.Wrap(name, func(next Handler) Handler { return next })
					if res, err := r.Call(context.Background(), g, Call{Name: name}); err != nil || res.AllText() != "ran "+name {
						errs <- fmt.Errorf("%s: %v", name, err)
						return
					}
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if maxSerial.Load() != 1 {
		t.Errorf("serial tool ran %d calls at once, want 1", maxSerial.Load())
	}
	calls := int64(workers * ((perWorker + 2) / 6))
	if serialCalls.Load() < calls-int64(workers) {
		t.Errorf("serial ran %d times", serialCalls.Load())
	}
	if approvals.Load() == 0 {
		t.Error("the approver was never asked")
	}
}

// BenchmarkCall measures the registry's own cost per call (lookup, tier check,
// schema validation, policy) around a trivial handler.
func BenchmarkCall(b *testing.B) {
	r := newRegistry()
	r.Register(testTool("t", TierWrite))
	g := guard{Surface: SurfaceDefault, Policy: PolicyOf(Allow)}
	ctx := context.Background()
	for _, bc := range []struct{ name, args string }{{"no args", `{}`}, {"one arg", `{"n":42}`}} {
		b.Run(bc.name, func(b *testing.B) {
			call := Call{Name: "t", Args: json.RawMessage(bc.args)}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := r.Call(ctx, g, call); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestHandlerPanicIsAnError(t *testing.T) {
	r := newRegistry()
	r.Register(Tool{Name: "boom", Tier: TierRead, Handler: func(ctx context.Context, c *Call) (*Result, error) {
		var m map[string]int
		m["x"]++
		return nil, nil
	}})
	res, err := r.Call(context.Background(), guard{Surface: SurfaceDefault}, Call{Name: "boom"})
	if err == nil || !res.IsError || !strings.Contains(res.AllText(), "tools: boom failed with an internal error (panic: assignment to entry in nil map)") {
		t.Fatalf("%v %q", err, res.AllText())
	}
}

// TestApproverPanicFailsClosed: an approver that panics refuses the call (and
// does not take the process, and every other tool of the run, down with it).
func TestApproverPanicFailsClosed(t *testing.T) {
	r := newRegistry()
	ran := false
	r.Register(Tool{Name: "w", Tier: TierWrite, Handler: func(ctx context.Context, c *Call) (*Result, error) {
		ran = true
		return Text("ran"), nil
	}})
	g := guard{Surface: SurfaceDefault, Approver: ApproverFunc(func(ctx context.Context, q ApprovalRequest) (bool, error) {
		var m map[string]int
		m["x"]++
		return true, nil
	})}
	res, err := r.Call(context.Background(), g, Call{Name: "w"})
	if err == nil || !res.IsError || ran || !strings.Contains(res.AllText(), "refused") || !strings.Contains(res.AllText(), "panic") {
		t.Fatalf("ran=%v %v %q", ran, err, res.AllText())
	}
}
