//go:build linux

package main

import "bytes"
import "fmt"
import "os"
import "os/exec"
import "path/filepath"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/internal/proc"
import "github.com/tetherhq/tether/internal/testenv"

// hostSecrets are variables of the host's environment no tenant may see,
// with made-up values.
var hostSecrets = map[string]string{
	"TETHER_TEST_SECRET_CANARY": "canary-host-91c2",
	"OPS_DB_PASSWORD":           "hunter2-host-canary",
	"AWS_SECRET_ACCESS_KEY":     "aws-host-canary",
	"SSH_AUTH_SOCK":             "/tmp/ssh-host-canary/agent.7",
	"GITHUB_TOKEN":              "ghp_host_canary",
}

// leakedSecrets returns the secrets whose values appear in text.
func leakedSecrets(text string) []string {
	var out []string
	for k, v := range hostSecrets {
		if strings.Contains(text, v) {
			out = append(out, k)
		}
	}
	return out
}

// TestHostProcessesGetNoHostEnvironment: in host mode, a tenant's cell, the
// language server its hover starts and the program it debugs see none of
// the host's environment variables; the one the operator names with --env
// reaches them, and HOME is not the operator's.
func TestHostProcessesGetNoHostEnvironment(t *testing.T) {
	for k, v := range hostSecrets {
		t.Setenv(k, v)
	}
	t.Setenv("TETHER_TEST_PASSED_BY_NAME", "passed-by-name")
	base := t.TempDir()
	hp := startHostProc(t, base, "--env", "TETHER_TEST_PASSED_BY_NAME")
	cs := openHostSession(t, hp.url, "alpha")
	defer cs.Close()
	ws := filepath.Join(base, "root", "alpha")

	t.Run("cell", func(t *testing.T) {
		text, isErr := evalIn(t, cs, "python", `import os
print("environ", sorted(os.environ.items()))
print("raw", open("/proc/self/environ", "rb").read())
print("home", os.environ.get("HOME"))`)
		if isErr {
			t.Fatalf("cell failed: %s", text)
		}
		if leaked := leakedSecrets(text); len(leaked) > 0 {
			t.Errorf("the cell saw the host's %v:\n%s", leaked, text)
		}
		if !strings.Contains(text, "passed-by-name") {
			t.Errorf("the variable the operator named with --env did not reach the cell:\n%s", text)
		}
		if h := proc.Home(); h != "" && strings.Contains(text, "home "+h+"\n") {
			t.Errorf("the cell's HOME is the operator's %s:\n%s", h, text)
		}
	})

	t.Run("language server", func(t *testing.T) {
		if _, err := exec.LookPath("gopls"); err != nil {
			testenv.Missing(t, "gopls")
		}
		if os.Geteuid() != 0 {
			t.Skip("reading a sandboxed server's /proc/PID/environ from outside needs root")
		}
		os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module alpha\n\ngo 1.21\n"), 0o644)
		if text, isErr := callText(t, cs, "lsp", map[string]any{"action": "hover", "file": "a.go", "line": 3, "symbol": "f"}); isErr {
			t.Fatalf("hover: %s", text)
		}
		pids, _ := descendantPids(hp.cmd.Process.Pid)
		seen := 0
		for _, pid := range pids {
			comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
			if strings.TrimSpace(string(comm)) != "gopls" {
				continue
			}
			env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
			if err != nil {
				continue // ended meanwhile
			}
			seen++
			if leaked := leakedSecrets(string(env)); len(leaked) > 0 {
				t.Errorf("gopls (pid %d) has the host's %v", pid, leaked)
			}
			if !bytes.Contains(env, []byte("passed-by-name")) {
				t.Errorf("gopls (pid %d) lacks the variable named with --env", pid)
			}
		}
		if seen == 0 {
			t.Fatalf("no gopls below tether (pid %d) after a hover: %v", hp.cmd.Process.Pid, pids)
		}
	})

	t.Run("debuggee", func(t *testing.T) {
		if exec.Command("/usr/bin/python3", "-c", "import debugpy").Run() != nil {
			if testenv.RequirePeers() {
				t.Fatal("Debian's python3 with python3-debugpy is not available")
			}
			t.Skip("no python3 with debugpy")
		}
		os.WriteFile(filepath.Join(ws, "requirements.txt"), nil, 0o644)
		out := filepath.Join(ws, "debuggee-env.txt")
		os.WriteFile(filepath.Join(ws, "dumpenv.py"), []byte("import os\nopen('debuggee-env.txt', 'w').write(repr(sorted(os.environ.items())))\n"), 0o644)
		text, _ := callText(t, cs, "debug", map[string]any{"op": "launch", "program": "dumpenv.py"})
		var got []byte
		for end := time.Now().Add(2 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
			if b, err := os.ReadFile(out); err == nil && len(b) > 0 {
				got = b
				break
			}
			if time.Now().After(end) {
				t.Fatalf("the debuggee did not write %s within 2m; launch said:\n%s", out, text)
			}
		}
		if leaked := leakedSecrets(string(got)); len(leaked) > 0 {
			t.Errorf("the debuggee saw the host's %v:\n%s", leaked, got)
		}
		if !bytes.Contains(got, []byte("passed-by-name")) {
			t.Errorf("the variable named with --env did not reach the debuggee:\n%s", got)
		}
	})
}
