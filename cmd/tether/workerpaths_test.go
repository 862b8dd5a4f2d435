package main

import "os/exec"
import "path/filepath"
import "strings"
import "testing"

// TestWorkerPathFlagsRefuseMistakes: --worker-read and --worker-write name
// paths that exist, and only in vibe mode; a mistake says what to do and
// the command fails instead of starting workers without the grant. Given
// right (repeated, comma-separated, relative), the run starts.
func TestWorkerPathFlagsRefuseMistakes(t *testing.T) {
	bin := tetherBin(t)
	dir := t.TempDir()
	missing := filepath.Join(dir, "no-such-dir")
	for _, c := range []struct {
		name string
		args []string
		want string // "" : the command succeeds
	}{
		{"without vibe", []string{"--worker-write", dir}, "only used in vibe mode"},
		{"missing write path", []string{"--vibe", "--worker", "fast=cat", "--worker-write", missing}, "create it first"},
		{"missing read path in a list", []string{"--vibe", "--worker", "fast=cat", "--worker-read", dir + "," + missing}, "--worker-read"},
		{"granted", []string{"--vibe", "--worker", "fast=cat", "--worker-read", dir + ",.", "--worker-write", dir, "--worker-write", "."}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"tools", "--workdir", dir, "--json"}, c.args...)
			cmd := exec.Command(bin, args...)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("tether %s: %v\n%s", strings.Join(args, " "), err, out)
			case c.want == "":
				if !strings.Contains(string(out), "vibe_spawn") {
					t.Errorf("tether %s lists no vibe_spawn:\n%s", strings.Join(args, " "), out)
				}
			case err == nil:
				t.Fatalf("tether %s succeeded, want a refusal saying %q:\n%s", strings.Join(args, " "), c.want, out)
			case !strings.Contains(string(out), c.want):
				t.Errorf("tether %s: %s\nwant it to say %q", strings.Join(args, " "), out, c.want)
			}
		})
	}
}
