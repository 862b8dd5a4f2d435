package lsp

import "os"
import "path/filepath"
import "slices"
import "strings"
import "testing"

// TestTrustedEnvDropsWorkspaceEntriesNotMadeYet: a PATH entry that leads into
// the workspace through a symbolic link is dropped even when it does not
// exist yet (a .venv/bin made later, by a cell or a checkout, would else be
// searched by the servers' own lookups: node for a #! line, go for gopls), as
// it is when it exists or is spelled with the workspace's own path.
func TestTrustedEnvDropsWorkspaceEntriesNotMadeYet(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(base, "ws")
	if err := os.MkdirAll(filepath.Join(ws, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(ws, link); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(base, "tools", "bin")
	inside := []string{
		filepath.Join(ws, ".venv", "bin"),           // the workspace's spelling, not made yet
		filepath.Join(link, "bin"),                  // through the link, existing
		filepath.Join(link, ".venv", "bin"),         // through the link, not made yet
		filepath.Join(link, "node_modules", ".bin"), // same
	}
	path := strings.Join(append(append([]string{}, inside...), outside, "/usr/bin"), string(os.PathListSeparator))
	out, dropped := trustedEnv([]string{"PATH=" + path}, ws)
	for _, d := range inside {
		if !slices.Contains(dropped, d) {
			t.Errorf("PATH entry %s (inside the workspace) kept; dropped %v", d, dropped)
		}
	}
	if slices.Contains(dropped, outside) || !slices.Contains(out, "PATH="+outside+string(os.PathListSeparator)+"/usr/bin") {
		t.Errorf("env %v, dropped %v: want PATH=%s:/usr/bin", out, dropped, outside)
	}
}
