package tools_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tetherhq/tether/bridges/lsp"
	"github.com/tetherhq/tether/internal/testenv"
	"github.com/tetherhq/tether/kernels"
	"github.com/tetherhq/tether/kernels/std"
	"github.com/tetherhq/tether/tools"
)

// TestEvalBridgeWriteGetsDiagnostics: a write made from a cell goes through
// the same diagnostics-on-write wrapper as the model's, with real gopls.
func TestEvalBridgeWriteGetsDiagnostics(t *testing.T) {
	testenv.RequireBinary(t, "gopls")
	src := filepath.Join(testenv.RepoRoot(), "testdata", "lsp", "goproj")
	dir := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sup, err := lsp.New(dir, lsp.WithEnv(testenv.WithPeersOnPath()), lsp.WithDiagnosticsTimeout(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	r, err := tools.NewRun(context.Background(), tools.Config{WorkDir: dir, Policy: tools.PolicyOf(tools.Allow), LSP: sup, Kernels: std.NewFactory(kernels.Config{})})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	res := evalCall(t, r, "javascript", "tool('write', {path: 'broken.go', content: 'package shapes\\n\\nfunc Broken() int {\\n\\treturn \"not an int\"\\n}\\n'})")
	out := res.AllText()
	if res.IsError || !strings.Contains(out, "new diagnostics in broken.go") || !strings.Contains(out, "not an int") {
		t.Fatalf("write through the bridge did not get diagnostics:\n%s", out)
	}
}
