package tools_test

import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/proc"

// TestLSPSaysWhenUnsandboxed: with the sandbox off, the run's first lsp
// answer says so, once; status always names the sandbox's state.
func TestLSPSaysWhenUnsandboxed(t *testing.T) {
	defer proc.Configure(proc.Options{})
	proc.Configure(proc.Options{Off: true})
	r, _ := lspRun(t)
	first := lspText(t, r, "lsp", map[string]any{"action": "symbols", "file": "shapes.go"})
	if !strings.HasPrefix(first, "sandbox off") {
		t.Fatalf("first answer does not say the sandbox is off:\n%s", first)
	}
	second, _ := lspCall(t, r, "lsp", map[string]any{"action": "symbols", "file": "shapes.go"})
	if strings.Contains(second, "sandbox off") {
		t.Fatalf("the note is repeated:\n%s", second)
	}
	status, _ := lspCall(t, r, "lsp", map[string]any{"action": "status"})
	if !strings.Contains(status, "sandbox: off") {
		t.Fatalf("status does not name the sandbox's state:\n%s", status)
	}
}
