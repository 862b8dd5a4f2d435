package proc_test

import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/proc"

// homeCredentials are credential files a home directory may hold, with
// the toolchain directories around them that tables do grant.
var homeCredentials = []string{
	".gitconfig", ".git-credentials", ".config/git/credentials", ".netrc", ".ssh/id_ed25519",
	".docker/config.json", ".npmrc", ".pypirc", ".config/gh/hosts.yml", ".aws/credentials",
	".config/go/env", ".cargo/credentials.toml", ".cargo/credentials", ".cargo/config.toml",
	".m2/settings.xml", ".gradle/gradle.properties", ".gem/credentials", ".pub-cache/credentials.json",
	".nuget/NuGet/NuGet.Config", ".kube/config",
}

var homeToolchainDirs = []string{
	"go/pkg/mod/example.com", "go/bin", ".cache/go-build", ".cache/gopls", ".cargo/bin", ".cargo/registry",
	".cargo/git", ".rustup/toolchains", ".m2/repository", ".gradle/caches", ".gradle/wrapper",
	".pub-cache/hosted", ".dotnet", ".nuget/packages", ".gem/ruby", ".local/lib", ".pyenv/versions",
}

// fakeHome makes a home directory holding every credential file and the
// toolchain directories, and points HOME (and nothing else) at it.
func fakeHome(t *testing.T) string {
	home := t.TempDir()
	for _, f := range homeCredentials {
		p := filepath.Join(home, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("token=CREDENTIAL-CANARY\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range homeToolchainDirs {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	for _, k := range []string{"XDG_CACHE_HOME", "XDG_CONFIG_HOME", "GOPATH", "GOMODCACHE", "GOCACHE", "CARGO_HOME", "RUSTUP_HOME", "GEM_HOME", "PYENV_ROOT"} {
		t.Setenv(k, "")
	}
	return home
}

// TestTablesGrantNoCredentials: no toolchain's table grants a credential
// file of the home directory, or a directory holding one, while each still
// grants its own directories there (a unit check over every Toolchain).
func TestTablesGrantNoCredentials(t *testing.T) {
	home := fakeHome(t)
	all := []proc.Toolchain{proc.Go, proc.Node, proc.Python, proc.Native, proc.Dart, proc.Rust, proc.Shell, proc.Java, proc.Dotnet, proc.Ruby, proc.PHP}
	granted := map[string]bool{}
	for _, tc := range all {
		ro, rw := proc.Table(tc, "/bin/sh", nil)
		for _, p := range append(ro, rw...) {
			granted[p] = true
			for _, c := range homeCredentials {
				c = filepath.Join(home, c)
				if p == c || strings.HasPrefix(c, p+"/") {
					t.Errorf("the %s table grants %s, which holds %s", tc, p, c)
				}
			}
		}
	}
	for _, want := range []string{"go/pkg/mod", ".cargo/bin", ".cargo/registry", ".rustup", ".m2/repository", ".gradle/caches", ".pub-cache/hosted", ".nuget/packages", ".gem/ruby", ".local/lib"} {
		if !granted[filepath.Join(home, want)] {
			t.Errorf("no table grants the toolchain directory ~/%s", want)
		}
	}
}

// TestSandboxedReadOfCredentialRefused: a process sandboxed with the Go and
// Rust tables reads its module cache but gets a permission error for the
// gitconfig, git's credential store and cargo's credentials (or does not
// see them at all, in its filesystem view).
func TestSandboxedReadOfCredentialRefused(t *testing.T) {
	requireSandbox(t)
	home := fakeHome(t)
	if err := os.WriteFile(filepath.Join(home, "go/pkg/mod/example.com/ok.txt"), []byte("module-cache\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ro, rw := proc.Table(proc.Go, "/bin/cat", nil)
	rro, _ := proc.Table(proc.Rust, "/bin/cat", nil)
	ws := t.TempDir()
	p := proc.Policy{Peer: "test", Family: proc.Servers, RO: append(ro, rro...), RW: append(rw, ws)}
	if out, err := runIn(t, p, ws, "/bin/cat", filepath.Join(home, "go/pkg/mod/example.com/ok.txt")); err != nil || !strings.Contains(out, "module-cache") {
		t.Fatalf("the module cache is not readable: %v: %s", err, out)
	}
	for _, f := range []string{".gitconfig", ".config/git/credentials", ".cargo/credentials.toml", ".config/go/env", ".netrc"} {
		out, err := runIn(t, p, ws, "/bin/cat", filepath.Join(home, f))
		// Refused by Landlock, or not in the process's filesystem view.
		if err == nil || strings.Contains(out, "CREDENTIAL-CANARY") || !(strings.Contains(out, "Permission denied") || strings.Contains(out, "No such file")) {
			t.Errorf("~/%s: want it refused or absent, got %v: %s", f, err, out)
		}
	}
}
