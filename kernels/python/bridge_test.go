package python_test

import "strings"
import "testing"

import "github.com/tetherhq/tether/kernels"

// TestToolHelp: help(tool) says how a cell reads a result's structured part,
// and .text gives the text as a plain str.
func TestToolHelp(t *testing.T) {
	ft := &fakeTools{files: map[string]string{"a.py": "x = 1\n"}}
	k := newKernel(t, kernels.Config{Tools: ft.call})
	r := run(t, k, "help(tool)")
	if r.Error != nil {
		t.Fatalf("help(tool): %+v", r.Error)
	}
	for _, want := range []string{".structured", "None when the tool has none", "ToolError"} {
		if !strings.Contains(r.Stdout.Text, want) {
			t.Errorf("help(tool) does not say %q:\n%s", want, r.Stdout.Text)
		}
	}
	if got := value(t, run(t, k, "r = tool('read', path='a.py')\ntype(r.text).__name__, r.text, r.structured['lines']")); got != "('str', 'x = 1\\n', 2)" {
		t.Errorf("tool result: %s", got)
	}
}
