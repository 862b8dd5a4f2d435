package proc

import "fmt"
import "os"
import "path/filepath"
import "slices"
import "strings"

// The environment of every process tether starts is built by allowlist, in
// Sandbox, whether the sandbox is on, off or unavailable: tether's own
// environment (a database password, cloud keys, SSH_AUTH_SOCK, a GitHub
// token) never reaches a cell, a language server, a debuggee or a worker
// unless the operator names the variable (--env NAME).
//
// A process gets:
//   - from tether's environment, only the names of baseEnv and toolchainEnv
//     and those the operator names (Options.Env, Policy.PassEnv);
//   - what its launch site sets itself: every entry of cmd.Env that is not
//     tether's own (PYTHONPATH for the kernel's driver, TETHER_WORKER_* for
//     a worker, GIT_CONFIG_GLOBAL for git);
//   - HOME set to a home of its own (Policy.Home, else its scratch
//     directory, else noHome), unless the operator passes HOME by name, and
//     the toolchains' directories that default to places under the real home
//     set explicitly (homeDirs), so the new HOME does not move them;
//   - git's configuration: tether's global one and no system one, with the
//     settings that run programs fixed (gitconfig.go).

// baseEnv are the names every process gets from tether's environment: how to
// find programs, the locale, the terminal type and the time zone, the user's
// name, and certificate bundles. None is a secret.
var baseEnv = []string{
	"PATH", "LANG", "LANGUAGE", "TERM", "TZ", "TMPDIR", "USER", "LOGNAME",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS",
}

// basePrefixes are prefixes of names every process gets (the locale's).
var basePrefixes = []string{"LC_"}

// toolchainEnv are the names a toolchain reads to find itself, its packages
// and its build settings: the operator's choice of toolchain, passed to
// every process (a Go debuggee may run Python, a worker any of them).
// Variables that commonly carry credentials are left out even where a
// toolchain reads them: GOPROXY (a proxy URL with a password), GRADLE_USER_HOME
// (gradle.properties), NPM_CONFIG_*, PIP_INDEX_URL, the *_PROXY variables;
// an operator who needs one passes it with --env.
var toolchainEnv = map[Toolchain][]string{
	Go: {"GOROOT", "GOPATH", "GOMODCACHE", "GOCACHE", "GOFLAGS", "GOTOOLCHAIN", "GOOS", "GOARCH",
		"GOAMD64", "GOARM64", "GOEXPERIMENT", "GODEBUG", "GOPRIVATE", "GONOSUMDB", "GONOPROXY",
		"GOINSECURE", "GOSUMDB", "GOWORK", "CGO_ENABLED", "CGO_CFLAGS", "CGO_LDFLAGS"},
	Node:   {"NODE_PATH"},
	Python: {"VIRTUAL_ENV", "PYENV_ROOT", "PYENV_VERSION", "CONDA_PREFIX"}, // and PYTHON* (toolchainPrefixes)
	Native: {"CC", "CXX", "LD_LIBRARY_PATH", "PKG_CONFIG_PATH"},
	Dart:   {"PUB_CACHE", "FLUTTER_ROOT", "DART_SDK"},
	Rust:   {"CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN", "RUSTFLAGS"},
	Java:   {"JAVA_HOME", "JDK_HOME", "MAVEN_HOME", "M2_HOME", "GRADLE_HOME"},
	Dotnet: {"DOTNET_ROOT", "NUGET_PACKAGES", "DOTNET_CLI_TELEMETRY_OPTOUT"},
	Ruby:   {"GEM_HOME", "GEM_PATH", "RBENV_ROOT", "RBENV_VERSION"},
	PHP:    {"PHPRC", "PHP_INI_SCAN_DIR"},
}

// toolchainPrefixes are prefixes of toolchain names passed the same way.
var toolchainPrefixes = []string{"PYTHON"}

// noHome is HOME for a process with neither a home nor a scratch directory
// of its own: a path that does not exist, so nothing is read from or written
// to the operator's home through it.
const noHome = "/nonexistent"

// allowedName reports whether tether's variable name passes to a child.
func allowedName(name string, extra ...[]string) bool {
	prefix := func(p string) bool { return strings.HasPrefix(name, p) }
	if slices.Contains(baseEnv, name) || slices.ContainsFunc(basePrefixes, prefix) || slices.ContainsFunc(toolchainPrefixes, prefix) {
		return true
	}
	for _, names := range toolchainEnv {
		if slices.Contains(names, name) {
			return true
		}
	}
	for _, names := range extra {
		if slices.Contains(names, name) {
			return true
		}
	}
	return false
}

// ChildEnv is the environment a process gets under p with the operator's
// options o, from env (cmd.Env; nil for tether's own environment): see the
// package's environment rules above.
func ChildEnv(env []string, p Policy, o Options) []string {
	own := os.Environ()
	if env == nil {
		env = own
	}
	inherited := make(map[string]bool, len(own))
	for _, kv := range own {
		inherited[kv] = true
	}
	var out []string
	set := map[string]int{} // name -> index in out
	put := func(kv string) {
		name, _, _ := strings.Cut(kv, "=")
		if i, ok := set[name]; ok {
			out[i] = kv
			return
		}
		set[name] = len(out)
		out = append(out, kv)
	}
	passHome := slices.Contains(o.Env, "HOME") || slices.Contains(p.PassEnv, "HOME")
	for _, kv := range env {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if inherited[kv] && !allowedName(name, o.Env, p.PassEnv) {
			continue
		}
		if name == "HOME" && inherited[kv] && !passHome {
			continue
		}
		put(kv)
	}
	// The toolchains' directories, where they default to the real home,
	// stay where they are.
	for _, kv := range homeDirs(env) {
		name, _, _ := strings.Cut(kv, "=")
		if i, ok := set[name]; !ok || out[i] == name+"=" {
			put(kv)
		}
	}
	home := ownHome(p)
	if _, ok := set["HOME"]; !ok {
		h := home
		if h == "" {
			h = noHome
		}
		put("HOME=" + h)
	}
	// Git's settings are tether's, whatever tether's environment or the
	// launch site said, but for a global configuration the launch site
	// chose itself.
	for _, kv := range gitEnv(home) {
		name, _, _ := strings.Cut(kv, "=")
		if i, ok := set[name]; ok && name == "GIT_CONFIG_GLOBAL" && !inherited[out[i]] {
			continue
		}
		put(kv)
	}
	return out
}

// ownHome is the home directory tether makes for a process under p: its
// Home, else its Scratch; "" when it has neither.
func ownHome(p Policy) string {
	if p.Home != "" {
		return p.Home
	}
	return p.Scratch
}

// homeDirs are the toolchain directories that default to places under the
// home directory, set explicitly from env (the environment the process was
// given, tether's own included) so that a process with a home of its own
// still finds what its sandbox table grants: Go's GOPATH, module and build
// caches, cargo's and rustup's homes, pub's cache, Python's user base,
// pyenv's and rbenv's roots (their shims find versions there).
func homeDirs(env []string) []string {
	var out []string
	gopath, modcache, gocache := goDirs(env)
	for _, kv := range [][2]string{{"GOPATH", gopath}, {"GOMODCACHE", modcache}, {"GOCACHE", gocache}} {
		if kv[1] != "" {
			out = append(out, kv[0]+"="+kv[1])
		}
	}
	home := Home()
	if home == "" {
		return out
	}
	for _, d := range []struct{ name, dir string }{
		{"CARGO_HOME", ".cargo"}, {"RUSTUP_HOME", ".rustup"}, {"PUB_CACHE", ".pub-cache"}, {"PYTHONUSERBASE", ".local"},
		{"PYENV_ROOT", ".pyenv"}, {"RBENV_ROOT", ".rbenv"},
	} {
		p := filepath.Join(home, d.dir)
		if getenv(env, d.name) == "" && isDir(p) {
			out = append(out, d.name+"="+p)
		}
	}
	return out
}

// goDirs are GOPATH, GOMODCACHE and GOCACHE as the go command finds them
// from env and the home directory.
func goDirs(env []string) (gopath, modcache, gocache string) {
	home := Home()
	gopath = getenv(env, "GOPATH")
	if gopath == "" && home != "" {
		gopath = filepath.Join(home, "go")
	}
	modcache = getenv(env, "GOMODCACHE")
	if modcache == "" && gopath != "" {
		modcache = filepath.Join(filepath.SplitList(gopath)[0], "pkg", "mod")
	}
	gocache = getenv(env, "GOCACHE")
	cacheDir, _ := os.UserCacheDir()
	if x := getenv(env, "XDG_CACHE_HOME"); x != "" {
		cacheDir = x
	}
	if gocache == "" && cacheDir != "" {
		gocache = filepath.Join(cacheDir, "go-build")
	}
	return gopath, modcache, gocache
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// ParseEnvName checks a --env value: a variable's name (its value is
// tether's own), never NAME=VALUE.
func ParseEnvName(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s, "= \t\n\x00") {
		return "", fmt.Errorf("proc: --env %q: give a variable's name (repeat --env for more); its value is taken from tether's environment", s)
	}
	return s, nil
}
