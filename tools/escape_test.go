package tools_test

import "context"
import "encoding/json"
import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/tools"

// TestResultsEscapeTerminalControls reads a file holding terminal control
// sequences (OSC 52 setting the clipboard, CSI clearing the screen, a C1
// CSI, a bell, a lone carriage return) and checks that the text the model
// and the CLI see shows each escaped while \n, \t and \r\n stay, that a
// cell's tool() call gets the exact text, and that an edit can still name
// the exact bytes.
func TestResultsEscapeTerminalControls(t *testing.T) {
	dir := t.TempDir()
	hostile := "a\tb\r\n\x1b]52;c;cm0gLXJmIH4K\x07clip\n\x1b[2J\x1b[Hcls\n\u009b31mred\x7f\rover\n"
	if err := os.WriteFile(filepath.Join(dir, "evil.txt"), []byte(hostile), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := tools.NewRun(context.Background(), tools.Config{WorkDir: dir, Policy: tools.PolicyOf(tools.Allow)})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, origin := range []tools.Origin{tools.FromModel, tools.FromCLI} {
		res, err := r.Call(context.Background(), "read", json.RawMessage(`{"path":"evil.txt"}`), origin)
		if err != nil || res.IsError {
			t.Fatalf("read: %v %s", err, res.AllText())
		}
		text := res.AllText()
		for _, raw := range []string{"\x1b", "\x07", "\u009b", "\x7f", "\rover"} {
			if strings.Contains(text, raw) {
				t.Errorf("origin %v: text holds raw %q:\n%q", origin, raw, text)
			}
		}
		for _, shown := range []string{`\x1b]52;c;cm0gLXJmIH4K\x07clip`, `\x1b[2J\x1b[Hcls`, `\u009b31mred\x7f\x0dover`, "a\tb", "(7 terminal control characters are shown escaped"} {
			if !strings.Contains(text, shown) {
				t.Errorf("origin %v: text lacks %q:\n%s", origin, shown, text)
			}
		}
	}
	res, err := r.Call(context.Background(), "read", json.RawMessage(`{"path":"evil.txt"}`), tools.FromBridge)
	if err != nil || !strings.Contains(res.AllText(), "\x1b]52;c;") {
		t.Errorf("a cell's read lost the exact text: %v %q", err, res.AllText())
	}
	mustCall(t, r, "edit", map[string]any{"path": "evil.txt", "old_string": "\x1b]52;c;cm0gLXJmIH4K\x07", "new_string": ""})
	if got := testenv.ReadText(t, filepath.Join(dir, "evil.txt")); strings.Contains(got, "\x1b]52") || !strings.Contains(got, "clip\n") {
		t.Errorf("edit by the exact bytes: %q", got)
	}
}

// TestUnknownToolNameCut calls a tool whose name is a megabyte long: the
// error names its first bytes and its length, not the whole name.
func TestUnknownToolNameCut(t *testing.T) {
	r, err := tools.NewRun(context.Background(), tools.Config{WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	name := strings.Repeat("n", 1<<20)
	res, err := r.Call(context.Background(), name, nil, tools.FromModel)
	text := res.AllText()
	if err == nil || !res.IsError {
		t.Fatalf("unknown tool succeeded: %s", text)
	}
	if len(text) > 4096 {
		t.Errorf("error is %d bytes, want the name cut", len(text))
	}
	if !strings.Contains(text, "(the first 64 of 1048576 bytes)") || !strings.Contains(text, "available tools are") {
		t.Errorf("error %q", text[:min(len(text), 400)])
	}
	res, _ = r.Call(context.Background(), "raed", nil, tools.FromModel)
	if !strings.Contains(res.AllText(), `unknown tool "raed": available tools are`) {
		t.Errorf("short name: %q", res.AllText())
	}
}
