package server_test

import "context"
import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/modelcontextprotocol/go-sdk/mcp"

import "github.com/tetherhq/tether/tools"

// TestResultsShowTerminalControlsEscaped reads, over MCP, a file that
// would set the terminal's clipboard (OSC 52) and clear its screen: the
// text content the client prints holds no ESC, and shows the sequences
// escaped.
func TestResultsShowTerminalControlsEscaped(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "evil.txt"), []byte("\x1b]52;c;cm0gLXJmIH4K\x07\x1b[2Jhi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, cs := connect(t, tools.Config{WorkDir: dir}, nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"path": "evil.txt"}})
	if err != nil || res.IsError {
		t.Fatalf("read: %v %+v", err, res)
	}
	if s := textOf(res); strings.ContainsAny(s, "\x1b\x07") || !strings.Contains(s, `\x1b]52;c;cm0gLXJmIH4K\x07\x1b[2Jhi`) {
		t.Errorf("text content %q", s)
	}
}
