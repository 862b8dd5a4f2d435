package tools_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tetherhq/tether/bridges/lsp"
	"github.com/tetherhq/tether/internal/testenv"
	"github.com/tetherhq/tether/tools"
)

// TestLSPSignatureBreaksCallersClangd: a parameter added to a prototype in
// a header reports the call and the definition it broke in the .c files
// that include it, files clangd had not opened, and putting it back reports
// both cleared. clangd compiles them against the header as tether shows it
// (--use-dirty-headers), and publishes again for the text it has, not for
// a version that repeats it.
func TestLSPSignatureBreaksCallersClangd(t *testing.T) {
	bin := "clangd-19"
	if _, err := exec.LookPath("clangd"); err == nil {
		bin = "clangd"
	}
	testenv.RequireBinary(t, bin)
	dir := testenv.LSPProject(t, "cproj")
	var cmds []map[string]string
	for _, f := range []string{"main.c", "shapes.c"} {
		cmds = append(cmds, map[string]string{"directory": dir, "file": filepath.Join(dir, f), "command": "cc -c " + f})
	}
	b, _ := json.Marshal(cmds)
	if err := os.WriteFile(filepath.Join(dir, "compile_commands.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	r := startRun(t, tools.Config{WorkDir: dir, Policy: tools.PolicyOf(tools.Allow), LSP: lspSupervisor(t, dir, 30*time.Second), Parser: parseEngine(t)})
	const proto, wide = "double square_area(const struct square *sq);", "double square_area(const struct square *sq, int scale);"
	out, err := lspCall(t, r, "edit", map[string]any{"path": "shapes.h", "old_string": proto, "new_string": wide})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "2 new diagnostic(s) in 2 other file(s):") || !strings.Contains(out, "main.c:7:29: error: Too few arguments to function call, expected 2, have 1") ||
		!strings.Contains(out, "shapes.c:3:8: error: Conflicting types for 'square_area'") {
		t.Fatalf("the call and the definition a changed prototype broke:\n%s", out)
	}
	out, err = lspCall(t, r, "edit", map[string]any{"path": "shapes.h", "old_string": wide, "new_string": proto})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "2 diagnostic(s) in 2 other file(s) cleared: main.c, shapes.c") {
		t.Fatalf("the fix:\n%s", out)
	}
}

// TestLSPSignatureCallersPylsp: pylsp checks each file alone, so a call
// that a changed signature broke in another file is not reported, and the
// result says the other files were checked and found nothing new (what the
// docs say it covers).
func TestLSPSignatureCallersPylsp(t *testing.T) {
	testenv.RequireBinary(t, "pylsp")
	dir := testenv.LSPProject(t, "pybreak")
	pylsp := lsp.Server{Name: "pylsp", Language: "python", Binaries: []string{"pylsp"}, Extensions: []string{".py"},
		RootMarkers: []string{"pyproject.toml"}, PositionEncoding: "utf-32"}
	sup, err := lsp.New(dir, lsp.WithEnv(testenv.WithPeersOnPath()), lsp.WithDiagnosticsTimeout(30*time.Second), lsp.WithServers(pylsp))
	if err != nil {
		t.Fatal(err)
	}
	r := startRun(t, tools.Config{WorkDir: dir, Policy: tools.PolicyOf(tools.Allow), LSP: sup, Parser: parseEngine(t)})
	out, err := lspCall(t, r, "edit", map[string]any{"path": "pkg/util.py", "old_string": "def _flatten(items):", "new_string": "def _flatten(items, depth):"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "pkg/util.py: no errors or warnings") || !strings.Contains(out, "2 other file(s) that mention _flatten checked: no new diagnostics") {
		t.Fatalf("pylsp:\n%s", out)
	}
}
