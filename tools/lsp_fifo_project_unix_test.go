//go:build unix

package tools_test

import "os"
import "path/filepath"
import "strings"
import "syscall"
import "testing"
import "time"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/tools"

// TestLSPNamedPipeInProjectNeverBlocks: a named pipe with a source file's
// name anywhere in a Go project made gopls (its go list) and go vet wait for
// a writer for good, so every lsp call on the project, diagnostics "*", the
// diagnostics after a write and lsp_rename hung until the caller gave up
// ("still indexing", "context deadline exceeded"). Each now says at once
// which file is a named pipe and what to do, whether the pipe was there
// before the server started or appeared after; with it removed, the server
// answers again.
func TestLSPNamedPipeInProjectNeverBlocks(t *testing.T) {
	r, dir := lspRun(t)
	refs := map[string]any{"action": "references", "file": "shapes.go", "line": 9, "symbol": "Square"}
	if out, err := lspCall(t, r, "lsp", refs); err != nil {
		t.Fatalf("references before the pipe: %v\n%s", err, out)
	}
	pipe := filepath.Join(dir, "a_pipe.go")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	const want = "a_pipe.go is a named pipe"
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"lsp", map[string]any{"action": "diagnostics", "file": "use.go"}},
		{"lsp", refs},
		{"lsp", map[string]any{"action": "symbols", "query": "Square"}},
		{"lsp", map[string]any{"action": "hover", "file": "use.go", "line": 11, "symbol": "Total"}},
		{"lsp", map[string]any{"action": "diagnostics", "file": "*"}},
		{"lsp_rename", map[string]any{"file": "shapes.go", "line": 9, "symbol": "Square", "new_name": "Sq"}},
	}
	for _, c := range calls {
		testenv.Bounded(t, c.tool+" with a named pipe in the project", func() {
			out, err := lspCall(t, r, c.tool, c.args)
			if err == nil || !strings.Contains(out, want) || !strings.Contains(out, "remove it") {
				t.Errorf("%s %v: %v\n%s\nwant an error saying %q and what to do", c.tool, c.args, err, out, want)
			}
		})
	}
	testenv.Bounded(t, "write with a named pipe in the project", func() {
		out, err := lspCall(t, r, "write", map[string]any{"path": "use.go", "content": "package shapes\n\nfunc Big() Square { return Square{Side: 10} }\n"})
		if err != nil || !strings.Contains(out, "wrote") || !strings.Contains(out, want) {
			t.Errorf("write: %v\n%s\nwant the write done and its diagnostics not checked, saying %q", err, out, want)
		}
	})
	// A server not started yet is not started with the pipe there.
	fresh := startRun(t, tools.Config{WorkDir: dir, Policy: tools.PolicyOf(tools.Allow), LSP: lspSupervisor(t, dir, 20*time.Second)})
	testenv.Bounded(t, "a new server with a named pipe in the project", func() {
		if out, err := lspCall(t, fresh, "lsp", refs); err == nil || !strings.Contains(out, want) {
			t.Errorf("references from a new server: %v\n%s", err, out)
		}
	})
	if err := os.Remove(pipe); err != nil {
		t.Fatal(err)
	}
	if out, err := lspCall(t, fresh, "lsp", refs); err != nil || !strings.Contains(out, "shapes.go") {
		t.Errorf("references once the pipe is gone: %v\n%s", err, out)
	}
}

// TestLSPNamedPipeOtherLanguages: the same for the Python and TypeScript
// projects: a named pipe named test_x.py or src/x.ts is named in the error of
// diagnostics "*", which never waits on it (tsc waited on src/x.ts for good;
// pyright skips a pipe, but whether a server or checker reads one is its own
// choice, so the rule is the same for every language).
func TestLSPNamedPipeOtherLanguages(t *testing.T) {
	for _, c := range []struct{ server, project, pipe string }{
		{"pyright-langserver", "pyproj", "test_x.py"},
		{"typescript-language-server", "tsproj", "src/x.ts"},
	} {
		t.Run(c.project, func(t *testing.T) {
			testenv.RequireBinary(t, c.server)
			dir := testenv.LSPProject(t, c.project)
			if err := syscall.Mkfifo(filepath.Join(dir, filepath.FromSlash(c.pipe)), 0o644); err != nil {
				t.Skipf("no named pipes here: %v", err)
			}
			r := startRun(t, tools.Config{WorkDir: dir, Policy: tools.PolicyOf(tools.Allow), LSP: lspSupervisor(t, dir, 20*time.Second)})
			testenv.Bounded(t, "diagnostics with a named pipe in the project", func() {
				out, err := lspCall(t, r, "lsp", map[string]any{"action": "diagnostics", "file": "*"})
				if err == nil || !strings.Contains(out, c.pipe+" is a named pipe") {
					t.Errorf("diagnostics \"*\" in %s: %v\n%s", c.project, err, out)
				}
			})
		})
	}
}
