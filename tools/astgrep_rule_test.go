package tools_test

import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/tools"

const lockSrc = `package p

import "sync"

func good(mu *sync.Mutex) {
	mu.Lock()
	defer mu.Unlock()
	work()
}

func bad(mu *sync.Mutex) {
	mu.Lock()
	work()
	mu.Unlock()
	println("done")
}
`

// TestAstGrepRule asks what a pattern cannot say: calls to Lock() not
// followed by a deferred Unlock(), with an ast-grep rule.
func TestAstGrepRule(t *testing.T) {
	r, _ := structuralRun(t, tools.SurfaceDefault, map[string]string{"a.go": lockSrc})
	res := callResult(t, r, "ast_grep", `{"language":"go","rule":{"kind":"expression_statement","has":{"pattern":"$M.Lock()"},"not":{"precedes":{"pattern":"defer $M.Unlock()"}}}}`)
	text := res.AllText()
	if !strings.Contains(text, "a.go:12:2") || strings.Contains(text, "a.go:6:") || !strings.Contains(text, "$M") {
		t.Errorf("want the Lock in bad only, with $M:\n%s", text)
	}
	if !strings.Contains(text, "go rule") {
		t.Errorf("the summary should say a go rule was run:\n%s", text)
	}
	for _, c := range []struct{ args, want string }{
		{`{"language":"go"}`, "give pattern (code with metavariables) or rule"},
		{`{"language":"go","pattern":"f()","rule":{"kind":"identifier"}}`, "not both"},
		{`{"language":"go","rule":{"kind":"identifier","hass":{}}}`, "rule.hass: unknown key"},
		{`{"language":"go","rule":{"regex":"x"}}`, "can match a node of any kind"},
		{`{"rule":{"kind":"identifier"}}`, "a rule needs a language"},
	} {
		_, err := call(t, r, "ast_grep", c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.args, err, c.want)
		}
	}
}

// TestAstEditRule stages the fix of a rule (with a transform) and applies
// it with resolve; a rule without a fix takes the rewrite template.
func TestAstEditRule(t *testing.T) {
	r, dir := structuralRun(t, tools.SurfaceDefault, map[string]string{"a.go": lockSrc})
	res := callResult(t, r, "ast_edit", `{"path":"a.go","rule":{"rule":{"pattern":"println($A)","has":{"field":"function","regex":"^println$"}},"transform":{"UP":{"convert":{"source":"$A","toCase":"upperCase"}}},"fix":"log.Print($UP)"}}`)
	if text := res.AllText(); !strings.Contains(text, "(proposed) 1 replacement in 1 file") || !strings.Contains(text, "+\tlog.Print(\"DONE\")") {
		t.Fatalf("ast_edit with a rule's fix:\n%s", text)
	}
	if _, err := call(t, r, "resolve", `{"edit_id":"edit_1","action":"accept"}`); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "a.go"))
	if !strings.Contains(string(got), "\tlog.Print(\"DONE\")\n") || strings.Contains(string(got), "println") {
		t.Fatalf("after accept:\n%s", got)
	}
	res = callResult(t, r, "ast_edit", `{"path":"a.go","rule":{"pattern":"$M.Unlock()","not":{"inside":{"kind":"defer_statement"}}},"rewrite":"$M.Release()"}`)
	if text := res.AllText(); !strings.Contains(text, "+\tmu.Release()") || strings.Contains(text, "defer mu.Release()") {
		t.Errorf("ast_edit with a rule and rewrite:\n%s", text)
	}
	if _, err := call(t, r, "ast_edit", `{"path":"a.go","rule":{"kind":"identifier"}}`); err == nil || !strings.Contains(err.Error(), "needs the rule's fix or a rewrite") {
		t.Errorf("a rule without fix nor rewrite: %v", err)
	}
	if _, err := call(t, r, "ast_edit", `{"path":"a.go","pattern":"work()"}`); err == nil || !strings.Contains(err.Error(), "rewrite is required with pattern") {
		t.Errorf("a pattern without rewrite: %v", err)
	}
}
