package main

import "encoding/json"
import "os/exec"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"

// TestEvalPythonProcsFlag: --eval-python-procs reaches the Python kernel: the
// first result says which process cap is in force, a cell forking without
// bound gets BlockingIOError past it, and a count that is no count is
// refused.
func TestEvalPythonProcsFlag(t *testing.T) {
	if out, err := exec.Command("/usr/bin/python3", "-c", "import resource").CombinedOutput(); err != nil {
		testenv.Missing(t, "Debian's python3 ("+strings.TrimSpace(string(out))+")")
	}
	dir := workdir(t, nil)
	// Children started as subprocesses until one cannot be, then ended.
	cell := `import subprocess
started, failed = [], None
while len(started) < 200 and failed is None:
    try:
        started.append(subprocess.Popen(["sleep", "600"]))
    except OSError as e:
        failed = e
for c in started:
    c.kill()
    c.wait()
print("stopped by", type(failed).__name__, "after", len(started))`
	args, _ := json.Marshal(map[string]string{"code": cell, "description": "fork until the process cap stops it"})
	out, err := exec.Command(tetherBin(t), "call", "--workdir", dir, "--approve", "allow", "--python", "/usr/bin/python3", "--eval-python-procs", "24", "eval", string(args)).CombinedOutput()
	text := string(out)
	if err != nil || !strings.Contains(text, "limit: processes: ") {
		t.Fatalf("eval under --eval-python-procs 24: %v\n%s", err, text)
	}
	if strings.Contains(text, "limit: processes: no cap") {
		t.Skipf("no process cap can be set on this machine:\n%s", text)
	}
	if !strings.Contains(text, "at most 24 processes") || !strings.Contains(text, "stopped by BlockingIOError") {
		t.Errorf("fork bomb under --eval-python-procs 24:\n%s", text)
	}
	out, err = exec.Command(tetherBin(t), "call", "--workdir", dir, "--eval-python-procs", "0", "eval", `{"code":"1","description":"one two three four five"}`).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "is not a process count") {
		t.Errorf("--eval-python-procs 0 was taken: %v\n%s", err, out)
	}
}
