//go:build unix

package tools_test

import "context"
import "encoding/json"
import "path/filepath"
import "syscall"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/tools"

// TestLSPNamedPipeNeverBlocks: a named pipe the workspace made with a source
// file's name is refused by lsp (read tier) and lsp_rename
// instead of blocking the call for good on opening it (each read it with a
// plain os.ReadFile, which waits for a writer and ignores cancellation).
func TestLSPNamedPipeNeverBlocks(t *testing.T) {
	r, dir := lspRun(t)
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.go"), 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	for _, c := range []struct{ tool, args string }{
		{"lsp", `{"action":"symbols","file":"pipe.go"}`},
		{"lsp", `{"action":"hover","file":"pipe.go","line":1,"symbol":"p"}`},
		{"lsp", `{"action":"diagnostics","file":"pipe.go"}`},
		{"lsp_rename", `{"file":"pipe.go","line":1,"symbol":"p","new_name":"q"}`},
	} {
		testenv.Bounded(t, c.tool+" "+c.args, func() {
			res, err := r.Call(context.Background(), c.tool, json.RawMessage(c.args), tools.FromModel)
			if err == nil && !res.IsError {
				t.Errorf("%s %s on a named pipe: no error:\n%s", c.tool, c.args, res.AllText())
			}
		})
	}
}
