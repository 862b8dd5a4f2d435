package main

import "os/exec"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"

// TestDebugAndWorkersProcsFlags: --debug-procs reaches a debug session, whose
// launch result states the cap, and a count that is no count is refused for
// --debug-procs and --workers-procs.
func TestDebugAndWorkersProcsFlags(t *testing.T) {
	if exec.Command("/usr/bin/python3", "-c", "import debugpy").Run() != nil {
		testenv.Missing(t, "a python3 that can import debugpy (python3-debugpy)")
	}
	dir := workdir(t, map[string]string{"requirements.txt": "", "main.py": "print('hi')\n"})
	out, err := exec.Command(tetherBin(t), "call", "--workdir", dir, "--approve", "allow", "--python", "/usr/bin/python3", "--debug-procs", "40",
		"debug", `{"op":"launch","program":"main.py"}`).CombinedOutput()
	text := string(out)
	if err != nil || !strings.Contains(text, "limits: processes: ") {
		t.Fatalf("debug launch under --debug-procs 40: %v\n%s", err, text)
	}
	if !strings.Contains(text, "limits: processes: no cap (no cgroup") && !strings.Contains(text, "at most 40 processes") {
		t.Errorf("the launch result does not state the cap of 40:\n%s", text)
	}
	for _, flag := range []string{"--debug-procs", "--workers-procs"} {
		out, err := exec.Command(tetherBin(t), "call", "--workdir", dir, flag, "0", "read", `{"path":"main.py"}`).CombinedOutput()
		if err == nil || !strings.Contains(string(out), "is not a process count") {
			t.Errorf("%s 0 was taken: %v\n%s", flag, err, out)
		}
	}
}
