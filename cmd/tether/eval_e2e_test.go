package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/tetherhq/tether/internal/testenv"
)

func TestCallEval(t *testing.T) {
	dir := workdir(t, map[string]string{"data.txt": "forty-two\n"})
	cmd := exec.Command(tetherBin(t), "call", "--workdir", dir, "--approve", "allow", "eval",
		`{"code":"const t = tool('read', {path: 'data.txt'});\nt.includes('forty-two')","description":"read a file through the bridge","language":"javascript"}`)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "out:\ntrue") {
		t.Fatalf("tether call eval: %v\n%s", err, out)
	}
	out, err = exec.Command(tetherBin(t), "call", "--workdir", dir, "--approve", "allow", "--eval=false", "eval", `{"code":"1","description":"one two three four five"}`).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "eval") {
		t.Errorf("--eval=false still offered eval: %s", out)
	}
}

func TestServeEvalImage(t *testing.T) {
	if out, err := exec.Command("/usr/bin/python3", "-c", "import matplotlib").CombinedOutput(); err != nil {
		testenv.Missing(t, "Debian's python3 with matplotlib ("+strings.TrimSpace(string(out))+")")
	}
	dir := workdir(t, nil)
	cs := mcpSession(t, dir, []string{"--approve", "allow", "--python", "/usr/bin/python3"}, nil)
	text, isErr := callText(t, cs, "eval", map[string]any{
		"code":        "import matplotlib.pyplot as plt\nplt.plot([3, 1, 2])\nplt.show()\nx = 5",
		"description": "plot three points as a line",
	})
	if isErr || !strings.Contains(text, "[image image/png ") {
		t.Fatalf("eval over MCP: error %v\n%s", isErr, text)
	}
	text, _ = callText(t, cs, "eval", map[string]any{"code": "x * 2", "description": "check that state persists between calls"})
	if !strings.Contains(text, "out:\n10") {
		t.Errorf("second cell:\n%s", text)
	}
}
