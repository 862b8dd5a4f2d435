package lsp

import "os"
import "path/filepath"
import "slices"
import "testing"

// TestArgFiles: only existing regular files named by absolute path in a
// server's or its checker's arguments join its read-only table; a
// directory, a relative path, a missing file and the checker's binary do not.
func TestArgFiles(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "server.py")
	conf := filepath.Join(dir, "check.toml")
	checker := filepath.Join(dir, "checker")
	for _, p := range []string{script, conf, checker} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec := Server{
		Args:    []string{script, dir, "rel.py", filepath.Join(dir, "missing.py"), "--stdio"},
		Checker: []string{checker, "--config", conf},
	}
	if got, want := argFiles(spec), []string{script, conf}; !slices.Equal(got, want) {
		t.Fatalf("argFiles = %q, want %q", got, want)
	}
	if got := argFiles(Server{}); len(got) != 0 {
		t.Fatalf("argFiles of a server without arguments = %q", got)
	}
}
