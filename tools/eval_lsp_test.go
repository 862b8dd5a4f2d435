package tools_test

import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/kernels"
import "github.com/tetherhq/tether/kernels/std"
import "github.com/tetherhq/tether/tools"

// TestEvalBridgeWriteGetsDiagnostics: a write made from a cell goes through
// the same diagnostics-on-write wrapper as the model's, with real gopls.
func TestEvalBridgeWriteGetsDiagnostics(t *testing.T) {
	testenv.RequireBinary(t, "gopls")
	dir := testenv.LSPProject(t, "goproj")
	r := startRun(t, tools.Config{WorkDir: dir, Policy: tools.PolicyOf(tools.Allow), LSP: lspSupervisor(t, dir, 30*time.Second), Eval: tools.EvalConfig{Kernels: std.NewFactory(kernels.Config{}, nil)}})
	res := evalCall(t, r, "javascript", "tool('write', {path: 'broken.go', content: 'package shapes\\n\\nfunc Broken() int {\\n\\treturn \"not an int\"\\n}\\n'})")
	out := res.AllText()
	if res.IsError || !strings.Contains(out, "new diagnostics in broken.go") || !strings.Contains(out, "not an int") {
		t.Fatalf("write through the bridge did not get diagnostics:\n%s", out)
	}
}
