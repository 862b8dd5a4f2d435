package tools

import "context"
import "encoding/json"
import "errors"
import "os"
import "path/filepath"
import "reflect"
import "strings"
import "testing"

// fakeResource stands in for a family's backing resource in registry-level
// tests: registration must follow whether it is wired.
type fakeResource struct{ closed int }

func fakeFamily(name string, res **fakeResource, tools ...Tool) family {
	return family{
		name:  name,
		wired: func(*Config) bool { return *res != nil },
		register: func(r *Run) (func() error, error) {
			rr := *res
			return func() error { rr.closed++; return nil }, r.reg.Register(tools...)
		},
		tools: func() []Tool { return tools },
	}
}

func echoTool(name string, tier Tier) Tool {
	return Tool{Name: name, Tier: tier, Description: "echo",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}},"additionalProperties":false}`),
		Handler: func(ctx context.Context, c *Call) (*Result, error) {
			return Text(name + ":" + string(c.Args)), nil
		}}
}

func TestRegistrationFollowsWiredResources(t *testing.T) {
	var lsp, debug *fakeResource
	fams := []family{
		fakeFamily("lsp", &lsp, echoTool("lsp", TierRead), echoTool("lsp_rename", TierWrite)),
		fakeFamily("debug", &debug, echoTool("debug", TierExec)),
	}
	tests := []struct {
		name       string
		lsp, debug bool
		want       []string
	}{
		{"none wired", false, false, nil},
		{"lsp wired", true, false, []string{"lsp", "lsp_rename"}},
		{"debug wired", false, true, []string{"debug"}},
		{"both wired", true, true, []string{"debug", "lsp", "lsp_rename"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lsp, debug = nil, nil
			var l, d fakeResource
			if tt.lsp {
				lsp = &l
			}
			if tt.debug {
				debug = &d
			}
			r, err := newRun(context.Background(), Config{WorkDir: t.TempDir()}, fams)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tool := range r.List() {
				got = append(got, tool.Name)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("tools = %v, want %v", got, tt.want)
			}
			for _, name := range []string{"lsp", "debug"} {
				if _, ok := r.reg.Lookup(name); !ok {
					_, err := r.Call(context.Background(), name, nil, FromModel)
					if !errors.Is(err, ErrUnknownTool) {
						t.Errorf("call of unwired %s: err = %v, want ErrUnknownTool", name, err)
					}
				}
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			r.Close() // idempotent
			if tt.lsp && l.closed != 1 || tt.debug && d.closed != 1 {
				t.Errorf("closers ran lsp=%d debug=%d times, want once each wired", l.closed, d.closed)
			}
			if _, err := r.Call(context.Background(), "lsp", nil, FromModel); err == nil || !strings.Contains(err.Error(), "closed") {
				t.Errorf("call after Close: err = %v, want a closed-run error", err)
			}
		})
	}
}

func TestNewRunClosesOnWiringError(t *testing.T) {
	var a fakeResource
	pa := &a
	fams := []family{
		fakeFamily("a", &pa, echoTool("a", TierRead)),
		{name: "b", register: func(r *Run) (func() error, error) { return nil, errors.New("boom") }},
	}
	_, err := newRun(context.Background(), Config{WorkDir: t.TempDir()}, fams)
	if err == nil || !strings.Contains(err.Error(), "wiring b") {
		t.Fatalf("err = %v", err)
	}
	if a.closed != 1 {
		t.Errorf("family a closed %d times, want 1", a.closed)
	}
}

func TestFileToolsAlwaysRegistered(t *testing.T) {
	r, err := NewRun(context.Background(), Config{WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, n := range []string{"read", "write", "edit", "apply_patch"} {
		if _, ok := r.reg.Lookup(n); !ok {
			t.Errorf("%s is not registered", n)
		}
	}
}

func TestNewRunBadWorkDir(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o644)
	for _, wd := range []string{"", filepath.Join(dir, "missing"), file} {
		if _, err := NewRun(context.Background(), Config{WorkDir: wd}); err == nil || !strings.HasPrefix(err.Error(), "tools: ") {
			t.Errorf("NewRun(%q): err = %v, want a tools: error", wd, err)
		}
	}
}

// TestRegistriesShareCompiledSchemas: two runs registering the same tool
// share its compiled schema, which still refuses bad arguments in both; a
// schema that does not compile is refused every time, never kept.
func TestRegistriesShareCompiledSchemas(t *testing.T) {
	a, b := newRegistry(), newRegistry()
	for _, r := range []*registry{a, b} {
		if err := r.Register(echoTool("echo", TierRead)); err != nil {
			t.Fatal(err)
		}
	}
	sa, sb := a.tools["echo"].schema, b.tools["echo"].schema
	if sa != sb {
		t.Error("two registries compiled the same schema twice")
	}
	for _, s := range []*schema{sa, sb} {
		if _, err := s.validateArgs(json.RawMessage(`{"x": 1}`)); err == nil || !strings.Contains(err.Error(), "x") {
			t.Errorf("x = 1 against a string property: %v", err)
		}
		if _, err := s.validateArgs(json.RawMessage(`{"x": "ok"}`)); err != nil {
			t.Errorf("valid arguments refused: %v", err)
		}
	}
	bad := echoTool("bad", TierRead)
	bad.InputSchema = json.RawMessage(`{"type":"array"}`)
	for i := 0; i < 2; i++ {
		if err := newRegistry().Register(bad); err == nil {
			t.Fatalf("registration %d accepted an array schema", i+1)
		}
	}
	compiledSchemas.Lock()
	_, kept := compiledSchemas.m[`{"type":"array"}`]
	compiledSchemas.Unlock()
	if kept {
		t.Error("a schema that did not compile was kept")
	}
}
