package tools_test

import "context"
import "encoding/json"
import "errors"
import "fmt"
import "os"
import "path/filepath"
import "strings"
import "sync"
import "testing"

import "github.com/tetherhq/tether/tools"

// TestRunHammer runs many concurrent file-tool calls through one Run (run it
// with -race): each worker writes, edits, patches and reads its own file while
// all of them read a shared one, and a bridge-origin call on a plan-surface run
// is refused every time.
func TestRunHammer(t *testing.T) {
	r, dir := newRun(t, map[string]string{"shared.txt": "shared\n"})
	plan, err := tools.NewRun(context.Background(), tools.Config{WorkDir: dir, Surface: tools.SurfacePlan, Policy: tools.PolicyOf(tools.Allow)})
	if err != nil {
		t.Fatal(err)
	}
	defer plan.Close()
	ctx := context.Background()
	const workers, rounds = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, workers*rounds)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			name := fmt.Sprintf("w%d/f.txt", w)
			do := func(tool, args string) string {
				res, err := r.Call(ctx, tool, json.RawMessage(args), tools.FromModel)
				if err != nil {
					errs <- fmt.Errorf("worker %d %s: %v", w, tool, err)
				}
				return res.AllText()
			}
			for i := 0; i < rounds; i++ {
				do("write", fmt.Sprintf(`{"path":%q,"content":"round %d\n"}`, name, i))
				do("edit", fmt.Sprintf(`{"path":%q,"old_string":"round %d","new_string":"edited %d"}`, name, i, i))
				do("apply_patch", fmt.Sprintf(`{"patch":"*** Begin Patch\n*** Update File: %s\n-edited %d\n+patched %d\n*** End Patch"}`, name, i, i))
				if got := do("read", fmt.Sprintf(`{"path":%q}`, name)); got != fmt.Sprintf("     1\tpatched %d", i) {
					errs <- fmt.Errorf("worker %d round %d read %q", w, i, got)
				}
				if got := do("read", `{"path":"shared.txt"}`); got != "     1\tshared" {
					errs <- fmt.Errorf("shared read %q", got)
				}
				if _, err := plan.Call(ctx, "write", json.RawMessage(`{"path":"shared.txt","content":"x"}`), tools.FromBridge); !errors.Is(err, tools.ErrNotOnSurface) {
					errs <- fmt.Errorf("plan write from the bridge: %v", err)
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	n := 0
	for err := range errs {
		if n++; n <= 10 {
			t.Error(err)
		}
	}
	ents, _ := os.ReadDir(filepath.Join(dir, "w0"))
	if len(ents) != 1 {
		t.Errorf("temporary files left behind: %v", ents)
	}
}

// TestRunCloseCancelsCalls: Close cancels a call in flight and refuses later ones.
func TestRunCloseCancelsCalls(t *testing.T) {
	r, _ := newRun(t, nil)
	started := make(chan struct{})
	err := r.Register(tools.Tool{Name: "block", Tier: tools.TierRead, Handler: func(ctx context.Context, c *tools.Call) (*tools.Result, error) {
		close(started)
		<-ctx.Done()
		return nil, fmt.Errorf("tools: block: %w", ctx.Err())
	}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() {
		_, err := r.Call(context.Background(), "block", nil, tools.FromModel)
		done <- err
	}()
	<-started
	var closed int
	r.OnClose("counter", func() error { closed++; return nil })
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); r.Close() }()
	}
	wg.Wait()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("in-flight call ended with %v, want cancellation", err)
	}
	if closed != 1 {
		t.Errorf("closer ran %d times", closed)
	}
	if _, err := r.Call(context.Background(), "read", json.RawMessage(`{"path":"."}`), tools.FromModel); err == nil || !strings.Contains(err.Error(), "run is closed") {
		t.Errorf("call after Close: %v", err)
	}
}

// TestRunRefusesPolicyThatDoesNothing: a policy entry that cannot apply (a
// misspelt tool, or a read-tier tool, which is never asked about) is refused
// when the run starts instead of silently leaving the tool to the default:
// "*=allow,degub=deny" must not allow debug.
func TestRunRefusesPolicyThatDoesNothing(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		policy string
		want   string // "" = accepted
	}{
		{"*=allow,write=deny,edit=ask", ""},
		{"*=allow,wirte=deny", `"wirte", which is not a tool of this run`},
		// tether's own tools this run does not wire (no debug supervisor, no
		// kernels here): the same policy serves runs wired differently.
		{"write=allow,exec=ask,debug=deny,eval=allow,lsp_rename=ask", ""},
		{"lsp=deny", "read-tier tools never need approval"},
		{"read=allow", "read-tier tools never need approval"},
		{"*=deny,read=allow", "read-tier tools never need approval"},
		// A key given twice is refused, not resolved by "last wins".
		{"write=deny,write=allow", `the policy sets write twice ("write=deny" and "write=allow")`},
		{"debug=deny,exec=allow,debug=deny", "the policy sets debug twice"},
		{"*=deny,default=allow", "the policy sets default twice"},
		{"write=deny, write =deny", "the policy sets write twice"},
	}
	for _, tt := range tests {
		t.Run(tt.policy, func(t *testing.T) {
			p, err := tools.ParsePolicy(tt.policy)
			if err == nil {
				var r *tools.Run
				r, err = tools.NewRun(context.Background(), tools.Config{WorkDir: dir, Policy: p})
				if err == nil {
					r.Close()
				}
			}
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
	r, err := tools.NewRun(context.Background(), tools.Config{WorkDir: dir, Policy: tools.Policy{Tools: map[string]tools.Decision{"read": tools.Deny}}})
	if err == nil {
		r.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "read, a read-tier tool: read-tier tools never need approval") {
		t.Errorf("read=deny through the Go API: %v", err)
	}
	r, err = tools.NewRun(context.Background(), tools.Config{WorkDir: dir, Policy: tools.Policy{Tiers: map[tools.Tier]tools.Decision{tools.TierRead: tools.Deny}}})
	if err == nil {
		r.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "read-tier tools never need approval") {
		t.Errorf("a read-tier entry through the Go API: %v", err)
	}
}
