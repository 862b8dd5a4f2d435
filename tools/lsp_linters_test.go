package tools_test

import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"

// TestLintersOnWrite: a write reports the new findings of the linters the
// project uses besides its language server's, each marked with its source
// (eslint and biome on a JavaScript file next to typescript-language-server,
// shellcheck through bash-language-server), from trusted binaries only: the
// workspace's own node_modules/eslint and its eslint.config.js (JavaScript)
// never run, and a planted one that would leave a mark leaves none.
func TestLintersOnWrite(t *testing.T) {
	for _, bin := range []string{"typescript-language-server", "vscode-eslint-language-server", "biome", "bash-language-server", "shellcheck"} {
		testenv.RequireBinary(t, bin)
	}
	planted := "require('fs').writeFileSync(require('path').join(__dirname, '..', '..', 'RAN'), 'x'); throw new Error('workspace code ran');\n"
	r, dir := projectRun(t, "typescript-language-server", map[string]string{
		"package.json":                     "{\"name\": \"p\", \"private\": true}\n",
		"eslint.config.js":                 planted,
		"biome.json":                       "{}\n",
		"node_modules/eslint/package.json": "{\"name\": \"eslint\", \"version\": \"9.0.0\", \"main\": \"index.js\"}\n",
		"node_modules/eslint/index.js":     planted,
		"ok.js":                            "export const one = 1;\n",
		"ok.sh":                            "#!/bin/bash\necho ok\n",
	})
	cases := []struct {
		file, text string
		want       []string
	}{
		{"ok.js", "export const one = 1;\nlet unused = 2;\ndebugger;\n", []string{
			"ok.js:3:1: error: Unexpected 'debugger' statement. [eslint no-debugger]",
			"ok.js:2:5: warning: 'unused' is assigned a value but never used. [eslint no-unused-vars]",
			"[biome lint/suspicious/noDebugger]",
		}},
		{"ok.sh", "#!/bin/bash\necho ok\necho \"$never_set\"\n", []string{
			"ok.sh:3:7: warning: never_set is referenced but not assigned. [shellcheck SC2154]",
		}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			// The file's diagnostics before the write are its baseline.
			if out, err := lspCall(t, r, "lsp", map[string]any{"action": "diagnostics", "file": c.file}); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			out, err := lspCall(t, r, "write", map[string]any{"path": c.file, "content": c.text})
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("the write's result lacks %q:\n%s", w, out)
				}
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "RAN")); err == nil {
		t.Fatal("the workspace's eslint or eslint.config.js ran")
	}
}
