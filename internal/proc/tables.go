package proc

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Toolchain names a peer's runtime, for Table.
type Toolchain string

// The toolchains the peers tether starts run on.
const (
	Go     Toolchain = "go"     // gopls, go vet, dlv and the programs it builds
	Node   Toolchain = "node"   // pyright, typescript-language-server, tsc
	Python Toolchain = "python" // the Python kernel, pylsp, debugpy and its debuggees
	Native Toolchain = "native" // clangd, lldb-dap, the JavaScript kernel (tether itself)
	Dart   Toolchain = "dart"   // dart language-server, dart analyze
	Rust   Toolchain = "rust"   // rust-analyzer, cargo
	Shell  Toolchain = "shell"  // workers' commands
	Java   Toolchain = "java"   // jdtls, kotlin-language-server, metals
	Dotnet Toolchain = "dotnet" // csharp-ls
	Ruby   Toolchain = "ruby"   // ruby-lsp
)

// Table is the one table of what a peer reads beyond the system (every
// sandboxed process gets systemRO) and writes beyond its workspace and
// scratch directory: its own install, found from binary (a link's target
// too: an npm .bin entry, a pyenv shim), and its toolchain's directories,
// found from env (the environment it runs with) the way the toolchain
// itself finds them. Nothing of the home directory is in it but the
// toolchain's own directories: not ~/.ssh, not tether's cache or tokens.
//
//	go      GOROOT, GOMODCACHE, go env's config file, ~/.gitconfig (read);
//	        GOCACHE, gopls' cache (TableCaches)
//	node    node's install, the node_modules tree the binary is in,
//	        NODE_PATH (read)
//	python  the interpreter's prefix and the one its link points to, a
//	        virtualenv, ~/.local/lib (user site-packages) (read)
//	native  the binary's install prefix (read)
//	dart    the SDK, ~/.pub-cache (read); ~/.dartServer, ~/.dart-tool
//	        (TableCaches)
//	rust    ~/.cargo, ~/.rustup (read); the project's target/ is in the
//	        workspace
//	shell   the binary's install prefix (read)
//	java    the JVM (JAVA_HOME, or java's install), ~/.m2, ~/.gradle (read)
//	dotnet  DOTNET_ROOT or dotnet's install, ~/.dotnet, ~/.nuget (read)
//	ruby    ruby's install, GEM_HOME, GEM_PATH, ~/.gem,
//	        ~/.local/share/gem (read)
func Table(tc Toolchain, binary string, env []string) (ro, rw []string) {
	ro = Paths(binary, 2)
	home := Home()
	switch tc {
	case Go:
		goroot := getenv(env, "GOROOT")
		if goroot == "" {
			if gobin := lookPathIn("go", env); gobin != "" {
				if real, err := filepath.EvalSymlinks(gobin); err == nil {
					goroot = filepath.Dir(filepath.Dir(real))
				}
			}
		}
		gopath := getenv(env, "GOPATH")
		if gopath == "" && home != "" {
			gopath = filepath.Join(home, "go")
		}
		modcache := getenv(env, "GOMODCACHE")
		if modcache == "" && gopath != "" {
			modcache = filepath.Join(filepath.SplitList(gopath)[0], "pkg", "mod")
		}
		cfg, _ := os.UserConfigDir()
		ro = append(ro, goroot, modcache, filepath.Join(cfg, "go"), filepath.Join(home, ".gitconfig"), filepath.Join(cfg, "git"))
		for _, p := range filepath.SplitList(gopath) {
			ro = append(ro, filepath.Join(p, "bin"))
		}
	case Node:
		if node := lookPathIn("node", env); node != "" {
			ro = append(ro, Paths(node, 2)...)
		}
		if real, err := filepath.EvalSymlinks(binary); err == nil {
			if nm := nodeModules(real); nm != "" {
				ro = append(ro, nm)
			}
		}
		if nm := nodeModules(binary); nm != "" {
			ro = append(ro, nm)
		}
		ro = append(ro, filepath.SplitList(getenv(env, "NODE_PATH"))...)
	case Python:
		ro = append(ro, "/etc/matplotlibrc", "/etc/python3", "/etc/pythonstart")
		if v := getenv(env, "VIRTUAL_ENV"); v != "" {
			ro = append(ro, v)
		}
		if home != "" {
			ro = append(ro, filepath.Join(home, ".local", "lib"))
		}
		if pyenv := getenv(env, "PYENV_ROOT"); pyenv != "" {
			ro = append(ro, pyenv)
		}
	case Dart:
		if home != "" {
			ro = append(ro, filepath.Join(home, ".pub-cache"))
		}
		if dart := lookPathIn("dart", env); dart != "" {
			ro = append(ro, Paths(dart, 2)...)
		}
	case Java:
		if v := getenv(env, "JAVA_HOME"); v != "" {
			ro = append(ro, v)
		}
		if java := lookPathIn("java", env); java != "" {
			ro = append(ro, Paths(java, 2)...)
		}
		if home != "" {
			ro = append(ro, filepath.Join(home, ".m2"), filepath.Join(home, ".gradle"))
		}
	case Dotnet:
		if v := getenv(env, "DOTNET_ROOT"); v != "" {
			ro = append(ro, v)
		}
		if dotnet := lookPathIn("dotnet", env); dotnet != "" {
			ro = append(ro, Paths(dotnet, 2)...)
		}
		if home != "" {
			ro = append(ro, filepath.Join(home, ".dotnet"), filepath.Join(home, ".nuget"))
		}
	case Ruby:
		if ruby := lookPathIn("ruby", env); ruby != "" {
			ro = append(ro, Paths(ruby, 2)...)
		}
		ro = append(ro, getenv(env, "GEM_HOME"))
		ro = append(ro, filepath.SplitList(getenv(env, "GEM_PATH"))...)
		if home != "" {
			ro = append(ro, filepath.Join(home, ".gem"), filepath.Join(home, ".local", "share", "gem"))
		}
	case Rust:
		if home != "" {
			ro = append(ro, filepath.Join(home, ".cargo"), filepath.Join(home, ".rustup"))
		}
		for _, k := range []string{"CARGO_HOME", "RUSTUP_HOME"} {
			if v := getenv(env, k); v != "" {
				ro = append(ro, v)
			}
		}
	}
	return clean(ro, home), clean(rw, home)
}

// TableCaches are the shared caches tc's peers write, as the processes of
// workspace see them (CacheFor): never the operator's own caches writable,
// but each workspace's own layer over them.
//
//	go      GOCACHE (default: the user's cache directory's go-build) and
//	        gopls' cache (the user's cache directory's gopls)
//	dart    ~/.dartServer, ~/.dart-tool
func TableCaches(tc Toolchain, env []string, workspace string) []Cache {
	home := Home()
	var out []Cache
	switch tc {
	case Go:
		gocache := getenv(env, "GOCACHE")
		cacheDir, _ := os.UserCacheDir()
		if x := getenv(env, "XDG_CACHE_HOME"); x != "" {
			cacheDir = x
		}
		if gocache == "" && cacheDir != "" {
			gocache = filepath.Join(cacheDir, "go-build")
		}
		if gocache != "" && gocache != "off" {
			out = append(out, CacheFor(gocache, "GOCACHE", workspace))
		}
		// gopls keeps its cache in $GOPLSCACHE/gopls.
		parent := getenv(env, "GOPLSCACHE")
		if parent == "" {
			parent = cacheDir
		}
		if parent != "" {
			c := CacheFor(filepath.Join(parent, "gopls"), "GOPLSCACHE", workspace)
			c.Sub = "gopls"
			out = append(out, c)
		}
	case Dart:
		if home != "" {
			out = append(out, CacheFor(filepath.Join(home, ".dartServer"), "", workspace), CacheFor(filepath.Join(home, ".dart-tool"), "", workspace))
		}
	}
	var kept []Cache
	for _, c := range out {
		if !filepath.IsAbs(c.Path) || filepath.Clean(c.Path) == home {
			continue
		}
		kept = append(kept, c)
	}
	return kept
}

// clean drops empty and duplicate entries, and any that would open the
// whole home directory or filesystem.
func clean(paths []string, home string) []string {
	var out []string
	for _, p := range paths {
		if p == "" || !filepath.IsAbs(p) {
			continue
		}
		p = filepath.Clean(p)
		if p == "/" || p == home || slices.Contains(out, p) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// nodeModules is the outermost node_modules directory above path, "" when
// there is none.
func nodeModules(path string) string {
	i := strings.Index(path, string(filepath.Separator)+"node_modules"+string(filepath.Separator))
	if i < 0 {
		return ""
	}
	return path[:i+len("/node_modules")]
}

// getenv looks key up in env (the last entry wins, as in exec).
func getenv(env []string, key string) string {
	if env == nil {
		return os.Getenv(key)
	}
	v := ""
	for _, kv := range env {
		if val, ok := strings.CutPrefix(kv, key+"="); ok {
			v = val
		}
	}
	return v
}

// lookPathIn finds name on env's PATH.
func lookPathIn(name string, env []string) string {
	for _, dir := range filepath.SplitList(getenv(env, "PATH")) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}
