package tools_test

import "encoding/json"
import "os"
import "path/filepath"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/tools"

// Regression tests for a workspace that makes its language server name, or
// read, files outside it: what the lsp tool returns never carries their
// content. These drive the real servers; bridges/lsp's confine tests inject
// every kind of outside answer with a fake.

// siblingDirs makes a workspace and, beside it, another directory that
// plays another tenant's workspace or any file of the host.
func siblingDirs(t *testing.T) (ws, other string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, other = filepath.Join(base, "ws"), filepath.Join(base, "other")
	for _, d := range []string{ws, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return ws, other
}

// requireNoLeak fails when out carries any of secrets.
func requireNoLeak(t *testing.T, what, out string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if s != "" && strings.Contains(out, s) {
			t.Fatalf("%s shows content of a file outside the workspace (%q):\n%s", what, s, out)
		}
	}
}

// requireOutsideOrNone requires a navigation answer naming path to show it
// alone, marked outside the workspace; with the process sandbox the server
// cannot read the file and may find nothing there at all.
func requireOutsideOrNone(t *testing.T, what, out, path string) {
	t.Helper()
	if strings.Contains(out, path+":1:1 "+lsp.OutsideNote) {
		return
	}
	if strings.Contains(out, path) || !strings.Contains(out, "no definition found") {
		t.Fatalf("%s: want %s:1:1 %s, or no definition:\n%s", what, path, lsp.OutsideNote, out)
	}
}

// TestLSPConfineClangdInclude: a compilation database and a C file that
// includes a file outside the workspace by its absolute path; definition on
// the include names the file by its path alone, never its first line
// (tether read whatever path clangd answered with).
func TestLSPConfineClangdInclude(t *testing.T) {
	if testenv.LookPath("clangd") == "" {
		testenv.RequireBinary(t, "clangd-19")
	}
	ws, other := siblingDirs(t)
	const secret = "sk-INCLUDED-4b1d"
	outside := filepath.Join(other, "secret.h")
	testenv.WriteFiles(t, other, map[string]string{"secret.h": secret + "\n"})
	// /etc/passwd is a file the process sandbox lets clangd read: the
	// location names it whether the sandbox is on or off.
	src := "#include \"" + outside + "\"\n#include \"/etc/passwd\"\nint main(void) { return 0; }\n"
	// /etc/shadow too, where this process can read it (as root): the host's
	// own secrets.
	var shadow string
	if b, err := os.ReadFile("/etc/shadow"); err == nil && len(b) > 0 {
		shadow, _, _ = strings.Cut(string(b), "\n")
		src = "#include \"/etc/shadow\"\n" + src
	}
	cc, _ := json.Marshal([]map[string]string{{"directory": ws, "file": filepath.Join(ws, "x.c"), "command": "cc -c x.c"}})
	testenv.WriteFiles(t, ws, map[string]string{"x.c": src, "compile_commands.json": string(cc)})
	r := startRun(t, tools.Config{WorkDir: ws, Policy: tools.PolicyOf(tools.Allow), LSP: lspSupervisor(t, ws, 20*time.Second)})

	line := 1
	if shadow != "" {
		t.Run("etc_shadow", func(t *testing.T) {
			out := lspText(t, r, "lsp", map[string]any{"action": "definition", "file": "x.c", "line": 1, "symbol": "shadow"})
			t.Logf("definition:\n%s", out)
			requireNoLeak(t, "definition of /etc/shadow", out, shadow)
			requireOutsideOrNone(t, "definition of /etc/shadow", out, "/etc/shadow")
		})
		line = 2
	}
	t.Run("sibling", func(t *testing.T) {
		out := lspText(t, r, "lsp", map[string]any{"action": "definition", "file": "x.c", "line": line, "symbol": "secret.h"})
		t.Logf("definition:\n%s", out)
		requireNoLeak(t, "definition of the included file", out, secret)
		requireOutsideOrNone(t, "definition of the included file", out, outside)
	})
	t.Run("readable_by_clangd", func(t *testing.T) {
		passwd, err := os.ReadFile("/etc/passwd")
		if err != nil {
			t.Skipf("no /etc/passwd here: %v", err)
		}
		first, _, _ := strings.Cut(string(passwd), "\n")
		out := lspText(t, r, "lsp", map[string]any{"action": "definition", "file": "x.c", "line": line + 1, "symbol": "passwd"})
		t.Logf("definition:\n%s", out)
		requireNoLeak(t, "definition of /etc/passwd", out, first)
		if !strings.Contains(out, "/etc/passwd:1:1 "+lsp.OutsideNote) {
			t.Fatalf("definition of /etc/passwd: want its path alone, marked:\n%s", out)
		}
	})
}

// secretKey is another tenant's API key: pyrightBesideSecret puts it in
// the sibling workspace's secretmod.py.
const secretKey = "sk-BETA-9a7f3c"

// pyrightBesideSecret starts a run whose workspace holds main.py (mainPy)
// and a pyrightconfig.json putting the sibling workspace, other, on
// pyright's extraPaths; other's secretmod.py sets API_KEY to secretKey.
func pyrightBesideSecret(t *testing.T, mainPy string) (r *tools.Run, other string) {
	t.Helper()
	ws, other := siblingDirs(t)
	testenv.WriteFiles(t, other, map[string]string{"secretmod.py": "API_KEY = \"" + secretKey + "\"\n"})
	testenv.WriteFiles(t, ws, map[string]string{"pyrightconfig.json": `{"extraPaths": ["../other"]}`, "main.py": mainPy})
	return startRun(t, tools.Config{WorkDir: ws, Policy: tools.PolicyOf(tools.Allow), LSP: lspSupervisor(t, ws, 20*time.Second)}), other
}

// TestLSPConfinePyrightExtraPaths: a pyrightconfig.json whose extraPaths
// name another tenant's workspace, and a file importing its API key:
// definition names that file by its path alone (tether read it).
func TestLSPConfinePyrightExtraPaths(t *testing.T) {
	testenv.RequireBinary(t, "pyright-langserver")
	r, other := pyrightBesideSecret(t, "import os\nfrom secretmod import API_KEY\n\nprint(API_KEY, os.getcwd())\n")
	t.Run("other_workspace", func(t *testing.T) {
		out := lspText(t, r, "lsp", map[string]any{"action": "definition", "file": "main.py", "line": 4, "symbol": "API_KEY"})
		t.Logf("definition:\n%s", out)
		requireNoLeak(t, "definition", out, secretKey)
		path := filepath.Join(other, "secretmod.py")
		if strings.Contains(out, path) && !strings.Contains(out, path+":1:1 "+lsp.OutsideNote) {
			t.Fatalf("definition in the other workspace must be its path alone, marked:\n%s", out)
		}
	})
	// pyright's own stub of os, which it reads under the process sandbox
	// too: a file outside the workspace all the same.
	t.Run("readable_by_pyright", func(t *testing.T) {
		out := lspText(t, r, "lsp", map[string]any{"action": "definition", "file": "main.py", "line": 4, "symbol": "getcwd"})
		t.Logf("definition:\n%s", out)
		if !strings.Contains(out, ".pyi:") || !strings.Contains(out, lsp.OutsideNote) || strings.Contains(out, "def getcwd") {
			t.Fatalf("definition in pyright's stub of os: want its path alone, marked:\n%s", out)
		}
	})
}
