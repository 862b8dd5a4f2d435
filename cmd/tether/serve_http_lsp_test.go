//go:build linux

package main

import "fmt"
import "os"
import "path/filepath"
import "strings"
import "testing"
import "time"

import "github.com/modelcontextprotocol/go-sdk/mcp"
import "github.com/tetherhq/tether/internal/testenv"

// hostGopls returns the gopls servers under the host process hp (a gopls's
// own gopls children are part of it).
func hostGopls(t *testing.T, hp hostProc) []int {
	t.Helper()
	pids, ok := descendantPids(hp.cmd.Process.Pid)
	if !ok {
		t.Fatal("/proc cannot be read")
	}
	comm := func(p int) string {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", p))
		return strings.TrimSpace(string(b))
	}
	parent := func(p int) int {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		s := string(b)
		if i := strings.LastIndexByte(s, ')'); i >= 0 {
			var state string
			var ppid int
			fmt.Sscan(s[i+1:], &state, &ppid)
			return ppid
		}
		return 0
	}
	var out []int
	for _, p := range pids {
		if comm(p) == "gopls" && comm(parent(p)) != "gopls" {
			out = append(out, p)
		}
	}
	return out
}

// TestHostSessionsShareGopls: two sessions of `tether serve --http` on one
// workspace get their answers from one gopls process (two with
// --share-lsp=false), and closing one session leaves the other's server
// running and answering.
func TestHostSessionsShareGopls(t *testing.T) {
	testenv.RequireBinary(t, "gopls")
	for _, share := range []bool{true, false} {
		t.Run(fmt.Sprintf("share=%v", share), func(t *testing.T) {
			base := t.TempDir()
			hp := startHostProc(t, base, "--no-cache", fmt.Sprintf("--share-lsp=%v", share))
			os.WriteFile(filepath.Join(base, "root", "alpha", "go.mod"), []byte("module alpha\n\ngo 1.21\n"), 0o644)
			one := openHostSession(t, hp.url, "alpha")
			defer one.Close()
			two := openHostSession(t, hp.url, "alpha")
			defer two.Close()
			for name, cs := range map[string]*mcp.ClientSession{"one": one, "two": two} {
				if text, isErr := callText(t, cs, "lsp", map[string]any{"action": "hover", "file": "a.go", "line": 3, "symbol": "f"}); isErr || !strings.Contains(text, "func f()") {
					t.Fatalf("session %s's hover: error %v\n%s", name, isErr, text)
				}
			}
			servers := hostGopls(t, hp)
			want := 1
			if !share {
				want = 2
			}
			if len(servers) != want {
				t.Fatalf("two sessions on one workspace run %d gopls processes %v, want %d", len(servers), servers, want)
			}
			status, _ := callText(t, two, "lsp", map[string]any{"action": "status"})
			if share != strings.Contains(status, "shared by 2 sessions") {
				t.Errorf("lsp status with share=%v:\n%s", share, status)
			}

			one.Close()
			if share {
				// The host closes the run after the session: wait until the
				// server is no longer counted as shared.
				for end := time.Now().Add(2 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
					status, _ = callText(t, two, "lsp", map[string]any{"action": "status"})
					if !strings.Contains(status, "shared by 2 sessions") {
						break
					}
					if time.Now().After(end) {
						t.Fatalf("session one closed, yet its share is still counted:\n%s", status)
					}
				}
				if !strings.Contains(status, fmt.Sprintf("pid %d", servers[0])) {
					t.Fatalf("after session one closed, gopls (pid %d) is no longer the running server:\n%s", servers[0], status)
				}
			} else {
				// Each session's own server ends with it; the other stays.
				gone := 0
				for end := time.Now().Add(2 * time.Minute); gone == 0; time.Sleep(50 * time.Millisecond) {
					for _, p := range servers {
						if !testenv.Alive(p) {
							gone++
						}
					}
					if time.Now().After(end) {
						t.Fatalf("session one closed, yet both gopls processes %v still run", servers)
					}
				}
				if gone != 1 {
					t.Fatalf("session one closed and %d of the two gopls processes ended, want 1", gone)
				}
			}
			if text, isErr := callText(t, two, "lsp", map[string]any{"action": "hover", "file": "a.go", "line": 3, "symbol": "f"}); isErr || !strings.Contains(text, "func f()") {
				t.Fatalf("session two's hover after session one closed: error %v\n%s", isErr, text)
			}
			if now := hostGopls(t, hp); len(now) != 1 {
				t.Fatalf("session two runs %d gopls processes %v after session one closed, want 1", len(now), now)
			}
		})
	}
}
