package lsp_test

import "os"
import "strings"
import "testing"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/internal/testenv"

// Status explains servers that cannot start without starting anything: a
// marker with no binary (dart is not installed here) and no marker at all.
func TestStatusExplainsWhyNot(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir+"/pubspec.yaml", "name: x\n")
	writeFile(t, dir+"/go.mod", "module x\n")
	s := newSupervisor(t, dir)
	rows := map[string]lsp.StatusRow{}
	for _, r := range s.Status() {
		rows[r.Server] = r
		if r.Running {
			t.Errorf("%s running before any call", r.Server)
		}
	}
	if testenv.LookPath("dart") == "" {
		if got := rows["dart"].String(); !strings.HasPrefix(got, "dart (dart): not running: pubspec.yaml found, dart not on PATH; not installed by scripts/install-deps.sh: the Dart SDK") {
			t.Errorf("dart row: %q", got)
		}
	}
	if got := rows["rust-analyzer"].String(); !strings.HasPrefix(got, "rust-analyzer (rust): not running: no root marker for rust (none of Cargo.toml") {
		t.Errorf("rust row: %q", got)
	}
	if testenv.LookPath("gopls") != "" {
		if got := rows["gopls"].Reason; !strings.HasPrefix(got, "not started yet: go.mod found, gopls at ") {
			t.Errorf("gopls row: %q", got)
		}
	}
	// A call for a file with no marker says so, and never starts anything.
	writeFile(t, dir+"/x.rs", "fn main() {}\n")
	_, err := s.Diagnostics(ctxT(t), "x.rs")
	if err == nil || !strings.Contains(err.Error(), "no root marker for rust") {
		t.Fatalf("rust call: %v", err)
	}
	writeFile(t, dir+"/x.dart", "void main() {}\n")
	if testenv.LookPath("dart") == "" {
		_, err = s.Diagnostics(ctxT(t), "x.dart")
		if err == nil || !strings.Contains(err.Error(), "pubspec.yaml found, dart not on PATH") {
			t.Fatalf("dart call: %v", err)
		}
	}
	_, err = s.Diagnostics(ctxT(t), "notes.txt")
	if err == nil || !strings.HasPrefix(err.Error(), "lsp: ") {
		t.Fatalf("unserved file: %v", err)
	}
}

// The table is data: a user's server joins it and status lists it.
func TestServerTableExtends(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir+"/zig.mod", "x\n")
	s := newSupervisor(t, dir, lsp.WithServers(lsp.Server{Name: "zls", Language: "zig", Binaries: []string{"zls-not-installed"}, Extensions: []string{".zig"}, RootMarkers: []string{"zig.mod"}}))
	found := false
	for _, r := range s.Status() {
		if r.Server == "zls" {
			found = true
			if r.Reason != "zig.mod found, zls-not-installed not on PATH" {
				t.Errorf("zls row: %q", r.Reason)
			}
		}
	}
	if !found {
		t.Fatal("user server not in status")
	}
}

// A binary that is on PATH but does not run (a rustup proxy for a component
// that is not installed prints "error: Unknown binary ..." and exits 1) is not
// a usable server: status and a call both say so instead of failing later.
func TestStatusProbesBrokenBinary(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir+"/Cargo.toml", "[package]\nname = \"x\"\n")
	writeFile(t, dir+"/main.rs", "fn main() {}\n")
	bin := t.TempDir()
	writeFile(t, bin+"/rust-analyzer", "#!/bin/sh\necho \"error: Unknown binary 'rust-analyzer' in official toolchain 'stable'.\" >&2\nexit 1\n")
	if err := os.Chmod(bin+"/rust-analyzer", 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	s := newSupervisor(t, dir, lsp.WithEnv(env))
	var row lsp.StatusRow
	for _, r := range s.Status() {
		if r.Server == "rust-analyzer" {
			row = r
		}
	}
	if row.Running || !strings.Contains(row.Reason, "Cargo.toml found, but rust-analyzer at ") ||
		!strings.Contains(row.Reason, "Unknown binary 'rust-analyzer'") {
		t.Errorf("rust row: %q", row.String())
	}
	_, err := s.Diagnostics(ctxT(t), "main.rs")
	if err == nil || !strings.Contains(err.Error(), "does not run") || !strings.Contains(err.Error(), "install a working rust-analyzer") {
		t.Fatalf("rust call: %v", err)
	}
	for _, r := range s.Status() {
		if r.Server == "rust-analyzer" && (strings.Contains(r.Reason, "lsp: ") || !strings.Contains(r.Reason, "does not run")) {
			t.Errorf("rust row after the failed start: %q", r.String())
		}
	}

	// Without the marker too, status names both halves of the intersection:
	// the broken binary is not hidden behind "a subdirectory with one still
	// works".
	bare := newSupervisor(t, t.TempDir(), lsp.WithEnv(env))
	for _, r := range bare.Status() {
		if r.Server != "rust-analyzer" {
			continue
		}
		if !strings.Contains(r.Reason, "no root marker for rust") || !strings.Contains(r.Reason, "Unknown binary 'rust-analyzer'") ||
			strings.Contains(r.Reason, "still works") {
			t.Errorf("rust row without a marker: %q", r.String())
		}
	}
}
