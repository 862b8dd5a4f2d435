package main

import "os/exec"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"

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

// TestServeEvalMemoryCaps: the eval memory flags reach the kernels. A
// JavaScript string doubling in a loop is stopped at --eval-js-memory and the
// server keeps serving (the next cells run); the Python kernel runs under
// --eval-python-memory as RLIMIT_AS and an allocation past it is a
// MemoryError naming that cap. A JavaScript cap cannot be turned off.
func TestServeEvalMemoryCaps(t *testing.T) {
	if out, err := exec.Command("/usr/bin/python3", "-c", "import resource").CombinedOutput(); err != nil {
		testenv.Missing(t, "Debian's python3 ("+strings.TrimSpace(string(out))+")")
	}
	dir := workdir(t, nil)
	cs := mcpSession(t, dir, []string{"--approve", "allow", "--python", "/usr/bin/python3", "--eval-js-memory", "32MiB", "--eval-python-memory", "1GiB"}, nil)
	js := func(code string) (string, bool) {
		return callText(t, cs, "eval", map[string]any{"code": code, "description": "run a javascript cell for the test", "language": "javascript"})
	}
	py := func(code string) (string, bool) {
		return callText(t, cs, "eval", map[string]any{"code": code, "description": "run a python cell for the test"})
	}
	if text, _ := js("let s = 'x'; while (true) s = s + s"); !strings.Contains(text, "memory cap of 32 MiB") {
		t.Errorf("string bomb under a 32MiB cap:\n%s", text)
	}
	if text, isErr := js("1 + 1"); isErr || !strings.Contains(text, "out:\n2") {
		t.Errorf("the next javascript cell: error %v\n%s", isErr, text)
	}
	if text, isErr := py("import resource\nresource.getrlimit(resource.RLIMIT_AS)[0]"); isErr || !strings.Contains(text, "out:\n1073741824") {
		t.Errorf("python's RLIMIT_AS: error %v\n%s", isErr, text)
	}
	if text, _ := py("hog = bytearray(2 << 30)"); !strings.Contains(text, "MemoryError") || !strings.Contains(text, "address-space cap of 1GiB") {
		t.Errorf("python over its cap:\n%s", text)
	}
	out, err := exec.Command(tetherBin(t), "call", "--workdir", dir, "--eval-js-memory", "off", "eval", `{"code":"1","description":"one two three four five","language":"javascript"}`).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "cannot be off") {
		t.Errorf("--eval-js-memory off was taken: %v\n%s", err, out)
	}
}

// TestCallEvalMaxTimeout: --eval-max-timeout bounds an eval call's timeout:
// a larger request is clamped, the result says so, and the JavaScript cell
// (in its kernel process) is stopped by that timeout with its state kept.
func TestCallEvalMaxTimeout(t *testing.T) {
	dir := workdir(t, nil)
	out, _ := exec.Command(tetherBin(t), "call", "--workdir", dir, "--approve", "allow", "--eval-max-timeout", "1s", "eval",
		`{"cells":[{"code":"globalThis.kept = 3"},{"code":"while (true) {}"}],"timeout":600,"description":"spin until the timeout stops it","language":"javascript"}`).CombinedOutput()
	for _, want := range []string{"clamped to the operator's maximum of 1s", "its per-call timeout of 1s passed; the runtime came back and its state is kept", "--- cell 2 of 2 [javascript]"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, err := exec.Command(tetherBin(t), "call", "--workdir", dir, "--eval-max-timeout", "0s", "eval", `{"code":"1","description":"one two three four five"}`).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--eval-max-timeout must be a positive duration") {
		t.Errorf("--eval-max-timeout 0s was taken: %v\n%s", err, out)
	}
}
