package proc

import "os"
import "path/filepath"
import "slices"
import "strings"

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
	PHP    Toolchain = "php"    // php and Xdebug under the debugger
)

// Table is the one table of what a peer reads beyond the system (every
// sandboxed process gets systemRO) and writes beyond its workspace and
// scratch directory: its own install, found from binary (a link's target
// too: an npm .bin entry, a pyenv shim), and its toolchain's directories,
// found from env (the environment it runs with) the way the toolchain
// itself finds them. Nothing of the home directory is in it but the
// toolchain's own directories: not ~/.ssh, not tether's cache or tokens.
//
//	go      GOROOT, GOMODCACHE (read); GOCACHE, gopls' cache (TableCaches)
//	node    node's install, the node_modules tree the binary is in,
//	        NODE_PATH (read)
//	python  the interpreter's prefix and the one its link points to, a
//	        virtualenv, ~/.local/lib (user site-packages) (read)
//	native  the binary's install prefix (read)
//	dart    the SDK, ~/.pub-cache's packages (read); ~/.dartServer,
//	        ~/.dart-tool (TableCaches)
//	rust    CARGO_HOME's bin, registry and git, RUSTUP_HOME (read); the
//	        project's target/ is in the workspace
//	shell   the binary's install prefix (read)
//	java    the JVM (JAVA_HOME, or java's install), ~/.m2/repository,
//	        ~/.gradle's caches and wrapper (read)
//	dotnet  DOTNET_ROOT or dotnet's install, ~/.dotnet, ~/.nuget/packages (read)
//	ruby    ruby's install, GEM_HOME, GEM_PATH, ~/.gem's gems,
//	        ~/.local/share/gem (read)
//	php     php's install, its configuration (/etc/php, PHPRC,
//	        PHP_INI_SCAN_DIR: php.ini loads Xdebug) (read)
//
// No table grants a credential file (credentialFiles: ~/.gitconfig,
// ~/.netrc, ~/.cargo/credentials.toml, ~/.m2/settings.xml...) or a
// directory holding one, whatever the environment points at.
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
		gopath, modcache, _ := goDirs(env)
		// Not go's env file nor git's user configuration (its credential
		// store): the processes get a git configuration of tether's
		// (GIT_CONFIG_GLOBAL), and go env -w settings pass as variables.
		ro = append(ro, goroot, modcache)
		for _, p := range filepath.SplitList(gopath) {
			ro = append(ro, filepath.Join(p, "bin"))
		}
	case Node:
		ro = append(ro, installDirs("node", env)...)
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
		ro = append(ro, envDir(env, "VIRTUAL_ENV")...)
		if home != "" {
			ro = append(ro, filepath.Join(home, ".local", "lib"))
		}
		ro = append(ro, envDir(env, "PYENV_ROOT")...)
	case Dart:
		if home != "" {
			// pub's packages, not its credentials.json.
			for _, d := range []string{"hosted", "git", "bin", "global_packages"} {
				ro = append(ro, filepath.Join(home, ".pub-cache", d))
			}
		}
		ro = append(ro, installDirs("dart", env)...)
	case Java:
		ro = append(ro, envDir(env, "JAVA_HOME")...)
		ro = append(ro, installDirs("java", env)...)
		if home != "" {
			// Maven's repository, not settings.xml; gradle's caches and
			// wrappers, not gradle.properties: both hold credentials.
			ro = append(ro, filepath.Join(home, ".m2", "repository"),
				filepath.Join(home, ".gradle", "caches"), filepath.Join(home, ".gradle", "wrapper"))
		}
	case Dotnet:
		ro = append(ro, envDir(env, "DOTNET_ROOT")...)
		ro = append(ro, installDirs("dotnet", env)...)
		if home != "" {
			// NuGet's packages, not its NuGet.Config (feed credentials).
			ro = append(ro, filepath.Join(home, ".dotnet"), filepath.Join(home, ".nuget", "packages"))
		}
	case Ruby:
		ro = append(ro, installDirs("ruby", env)...)
		ro = append(ro, getenv(env, "GEM_HOME"))
		ro = append(ro, filepath.SplitList(getenv(env, "GEM_PATH"))...)
		if home != "" {
			// Installed gems, not ~/.gem/credentials (the rubygems key).
			ro = append(ro, filepath.Join(home, ".gem", "ruby"), filepath.Join(home, ".gem", "specs"), filepath.Join(home, ".local", "share", "gem"))
		}
	case PHP:
		ro = append(ro, installDirs("php", env)...)
		ro = append(ro, "/etc/php", getenv(env, "PHPRC"))
		ro = append(ro, filepath.SplitList(getenv(env, "PHP_INI_SCAN_DIR"))...)
	case Rust:
		// cargo's binaries and downloaded sources, never its
		// credentials.toml or config.toml (which may hold a token).
		cargo := getenv(env, "CARGO_HOME")
		if cargo == "" && home != "" {
			cargo = filepath.Join(home, ".cargo")
		}
		if cargo != "" {
			for _, d := range []string{"bin", "registry", "git"} {
				ro = append(ro, filepath.Join(cargo, d))
			}
		}
		rustup := getenv(env, "RUSTUP_HOME")
		if rustup == "" && home != "" {
			rustup = filepath.Join(home, ".rustup")
		}
		ro = append(ro, rustup)
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

// credentialFiles are the files and directories under the home directory
// that hold credentials: no table grants one, or a directory holding one.
var credentialFiles = []string{
	".netrc", ".git-credentials", ".gitconfig", ".config/git", ".ssh", ".gnupg", ".aws", ".azure",
	".config/gcloud", ".kube", ".docker", ".npmrc", ".yarnrc", ".yarnrc.yml", ".pypirc", ".config/pip",
	".config/gh", ".config/hub", ".config/go", ".cargo/credentials", ".cargo/credentials.toml",
	".cargo/config", ".cargo/config.toml", ".m2/settings.xml", ".m2/settings-security.xml",
	".gradle/gradle.properties", ".gem/credentials", ".pub-cache/credentials.json", ".config/dart",
	".nuget/NuGet", ".config/NuGet", ".terraform.d", ".vault-token", ".password-store",
}

// holdsCredentials reports whether granting p would grant one of the
// credential files under home (p is one, or a directory above one).
func holdsCredentials(p, home string) bool {
	if home == "" {
		return false
	}
	for _, c := range credentialFiles {
		c = filepath.Join(home, c)
		if c == p || strings.HasPrefix(c, p+string(filepath.Separator)) || strings.HasPrefix(p, c+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// clean drops empty and duplicate entries, and any that would open the
// whole home directory, the filesystem, or a credential file.
func clean(paths []string, home string) []string {
	var out []string
	for _, p := range paths {
		if p == "" || !filepath.IsAbs(p) {
			continue
		}
		p = filepath.Clean(p)
		if p == "/" || p == home || slices.Contains(out, p) || holdsCredentials(p, home) {
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

// installDirs are the directories of name's install (Paths of the binary,
// two levels) when env's PATH has it; none when it does not.
func installDirs(name string, env []string) []string {
	if bin := lookPathIn(name, env); bin != "" {
		return Paths(bin, 2)
	}
	return nil
}

// envDir is the directory env's variable key names; none when it is unset
// or empty.
func envDir(env []string, key string) []string {
	if v := getenv(env, key); v != "" {
		return []string{v}
	}
	return nil
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
