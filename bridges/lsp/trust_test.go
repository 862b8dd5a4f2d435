package lsp_test

import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/internal/testenv"

// plant writes an executable script at dir/rel that appends its name to
// marker, creating the directories on the way.
func plant(t *testing.T, dir, rel, body string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestServersNeverRunWorkspaceCode: a language server is started from the
// trusted PATH only, never from a PATH entry inside the workspace (there,
// a gopls that writes a marker), and typescript-language-server is pointed
// at a trusted tsserver instead of the workspace's own
// node_modules/typescript, which it preferred before (there, a tsserver.js
// that writes a marker). The servers still answer.
func TestServersNeverRunWorkspaceCode(t *testing.T) {
	t.Run("gopls", func(t *testing.T) {
		t.Parallel()
		marker := filepath.Join(t.TempDir(), "ran")
		testenv.RequireBinary(t, "gopls")
		dir := testenv.LSPProject(t, "goproj")
		plant(t, dir, "bin/gopls", "#!/bin/sh\necho gopls >> "+marker+"\nexit 1\n")
		env := testenv.WithPeersOnPath()
		for i, kv := range env {
			if strings.HasPrefix(kv, "PATH=") {
				env[i] = "PATH=" + filepath.Join(dir, "bin") + string(os.PathListSeparator) + kv[len("PATH="):]
			}
		}
		s := newSupervisor(t, dir, lsp.WithEnv(env))
		syms, err := s.DocumentSymbols(ctxT(t), "shapes.go")
		if err != nil {
			t.Fatal(err)
		}
		if len(syms.Items) == 0 {
			t.Fatal("gopls found no symbols in shapes.go")
		}
		if b, err := os.ReadFile(marker); err == nil {
			t.Fatalf("a server binary from the workspace ran: %s", b)
		}
	})
	t.Run("typescript", func(t *testing.T) {
		t.Parallel()
		marker := filepath.Join(t.TempDir(), "ran")
		testenv.RequireBinary(t, "typescript-language-server")
		dir := testenv.LSPProject(t, "tsproj")
		plant(t, dir, "node_modules/typescript/package.json", `{"name":"typescript","version":"5.9.2"}`)
		plant(t, dir, "node_modules/typescript/lib/tsserver.js",
			"require('fs').appendFileSync("+strings.ReplaceAll(`"`+marker+`"`, `\`, `\\`)+", 'tsserver.js\\n');\nprocess.exit(1);\n")
		s := newSupervisor(t, dir)
		syms, err := s.DocumentSymbols(ctxT(t), "src/shapes.ts")
		if b, rerr := os.ReadFile(marker); rerr == nil {
			t.Fatalf("the workspace's tsserver.js ran: %s (answer: %v)", b, err)
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(syms.Items) == 0 {
			t.Fatal("no symbols in src/shapes.ts")
		}
	})
}
