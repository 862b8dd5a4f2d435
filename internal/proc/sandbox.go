package proc

import "crypto/sha256"
import "encoding/hex"
import "errors"
import "fmt"
import "os"
import "os/exec"
import "path/filepath"
import "slices"
import "strings"
import "sync"

// Family is a kind of process tether starts; the network default and the
// operator's network flag are per family.
type Family string

// The families of processes tether starts.
const (
	// Servers are language servers and the project checkers they run
	// (lsp diagnostics "*"): no network unless the operator allows it.
	Servers Family = "lsp"
	// Kernels are the Python kernel and the JavaScript kernel's process.
	Kernels Family = "eval"
	// Debug is debug adapters and the programs they debug.
	Debug Family = "debug"
	// Workers are background workers (vibe_spawn).
	Workers Family = "workers"
)

// Families lists every Family, in the order flags and messages name them.
var Families = []Family{Servers, Kernels, Debug, Workers}

// Policy is what one sandboxed process (and everything it starts) may reach.
// Paths that do not exist are skipped; a path is a directory (and
// everything beneath it) or a single file.
type Policy struct {
	// Peer names the process in messages ("gopls", "python kernel").
	Peer string
	// Family decides whether the process may use the network.
	Family Family
	// RW are read-write paths: the workspace, caches the peer must write.
	RW []string
	// RO are read-only (and executable) paths: the peer's install and
	// toolchain, beyond the system's directories every process gets.
	RO []string
	// Scratch is the process's own read-write directory, made when missing;
	// TMPDIR points at it.
	Scratch string
	// Unconfined, when set, says why this process cannot work sandboxed
	// (lldb-dap attached to a program tether did not start reads that
	// program's /proc entries, which Landlock keeps from it). It then runs
	// unsandboxed, unless Options.Strict, when Sandbox refuses it.
	Unconfined string
	// Caches are shared caches the peer writes, each seen through a
	// private layer (Cache); TableCaches lists a toolchain's.
	Caches []Cache
	// Cgroup, when set, is a cgroup directory the process joins before the
	// program starts (a kernel's pids cgroup), so nothing it starts escapes
	// being counted.
	Cgroup string
	// AddressSpace, when not 0, is the address-space limit (RLIMIT_AS, in
	// bytes) the launcher sets just before the program starts; everything
	// the program starts inherits it. Only a launched process gets it:
	// with the sandbox off or unavailable there is no launcher (AddressSpaceSet).
	// A limit below the launcher's own address space (about a gigabyte)
	// is set with an exec that allocates nothing after it, which leaves
	// the soft open-files limit at the hard one instead of restoring it.
	AddressSpace uint64
	// Home is the process's HOME; "" for its Scratch directory (and, with
	// neither, a path that does not exist). Never the operator's home,
	// unless the operator passes HOME by name (Options.Env, PassEnv).
	Home string
	// PassEnv names more of tether's environment variables this process
	// gets, beyond the allowlist and Options.Env (a worker's agent's API
	// key the operator named for workers).
	PassEnv []string
	// NoInit runs a kernel, debug adapter or worker as the process 1 of its
	// PID namespace, as a language server runs, instead of under an init:
	// for a process that starts none (orphans would not be reaped) and is
	// not signalled from within its namespace (process 1 takes only the
	// signals it handles), whose status tether gets as a child's. It saves
	// an init's process (a start of tether's binary, about 1.5 MiB).
	NoInit bool
	// InPlace, for a process of NoInit whose program is tether's own
	// binary, has it confine itself (every thread) before its main runs,
	// instead of a launcher that confines itself and execs the program: one
	// start of the binary instead of two. The process also holds no
	// capability at all, even in its own namespaces. Where the binary
	// cannot confine every thread (a cgo build) or the program is another
	// file, the launcher starts it as usual.
	InPlace bool
	// zygote, set by SandboxZygote, leaves out the Landlock domain: the
	// process's children confine themselves (ForkChildSource).
	zygote bool
}

// ErrNoFork says a process of this policy cannot be forked from a zygote
// as confined as the launcher would start it; the caller starts it as
// usual.
var ErrNoFork = errors.New("proc: this process cannot be forked confined from a zygote here")

// Options is how the operator set up the sandbox (tether's flags).
type Options struct {
	// Off runs every process with tether's full rights: the operator's
	// explicit choice (--sandbox=off), never a default.
	Off bool
	// Net lists the families allowed to use the network.
	Net map[Family]bool
	// Strict refuses to start a process that cannot be sandboxed (a
	// Policy's Unconfined): serve --http sets it.
	Strict bool
	// Env names tether's environment variables every process gets beyond
	// the allowlist (--env NAME); the rest of tether's environment never
	// reaches them, with the sandbox on or off.
	Env []string
}

// DefaultNet is the network each family gets unless the operator says
// otherwise: language servers and checkers none; kernels, debuggees and
// workers the network (pip, a program under debug, a worker's own calls).
func DefaultNet() map[Family]bool {
	return map[Family]bool{Kernels: true, Debug: true, Workers: true}
}

var (
	optMu sync.Mutex
	opts  = Options{Net: DefaultNet()}
)

// Configure sets how processes started from now on are sandboxed.
func Configure(o Options) {
	optMu.Lock()
	defer optMu.Unlock()
	if o.Net == nil {
		o.Net = DefaultNet()
	}
	opts = o
}

func currentOptions() Options {
	optMu.Lock()
	defer optMu.Unlock()
	return opts
}

// ParseNet parses the --sandbox-net flag: "none", "all", or a comma-separated
// list of families (lsp, eval, debug, workers) allowed the network.
func ParseNet(s string) (map[Family]bool, error) {
	out := map[Family]bool{}
	switch strings.TrimSpace(s) {
	case "none", "":
		return out, nil
	case "all":
		for _, f := range Families {
			out[f] = true
		}
		return out, nil
	}
	for _, w := range strings.Split(s, ",") {
		f := Family(strings.TrimSpace(w))
		if !slices.Contains(Families, f) {
			return nil, fmt.Errorf("proc: sandbox network: unknown family %q; use none, all, or a list of %s", w, familyList())
		}
		out[f] = true
	}
	return out, nil
}

// FormatNet is the inverse of ParseNet.
func FormatNet(net map[Family]bool) string {
	var on []string
	for _, f := range Families {
		if net[f] {
			on = append(on, string(f))
		}
	}
	switch len(on) {
	case 0:
		return "none"
	case len(Families):
		return "all"
	}
	return strings.Join(on, ",")
}

func familyList() string {
	s := make([]string, len(Families))
	for i, f := range Families {
		s[i] = string(f)
	}
	return strings.Join(s, ", ")
}

// Status is what the sandbox can do on this machine, and what the operator
// chose.
type Status struct {
	// Off: the operator turned the sandbox off.
	Off bool
	// Landlock is the kernel's Landlock ABI version, 0 when it has none.
	Landlock int
	// LandlockErr says why Landlock is unavailable.
	LandlockErr string
	// Namespaces: each process gets its own user, PID (with its own /proc),
	// mount, IPC and, without network, network namespace.
	Namespaces bool
	// NamespacesErr says why it does not.
	NamespacesErr string
	// View: in its mount namespace each process sees only what its policy
	// grants (a new root of its paths, a private /tmp, a /dev without
	// terminals), so nothing else is even named.
	View bool
	// ViewErr says why it does not.
	ViewErr string
	// Net is the network each family is allowed.
	Net map[Family]bool

	strict bool
	env    []string
}

// Options returns the operator's options the status was read with.
func (s Status) Options() Options {
	return Options{Off: s.Off, Net: s.Net, Strict: s.strict, Env: s.env}
}

// Files reports whether file access is confined.
func (s Status) Files() bool { return !s.Off && s.Landlock >= 1 }

// Available reports whether any sandbox layer is in force.
func (s Status) Available() bool { return !s.Off && (s.Landlock >= 1 || s.Namespaces) }

// NetConfined reports whether a family without network is really cut off:
// by a network namespace, or by Landlock's TCP rules (ABI 4).
func (s Status) NetConfined() bool { return !s.Off && (s.Namespaces || s.Landlock >= 4) }

// String is the sandbox's state in one paragraph, for `tether version` and
// the logs.
func (s Status) String() string {
	if s.Off {
		return "sandbox: off (turned off by the operator): every process tether starts runs with tether's full rights and reads whatever tether can read"
	}
	var b strings.Builder
	b.WriteString("sandbox: ")
	if s.Landlock >= 1 {
		fmt.Fprintf(&b, "Landlock ABI %d (files", s.Landlock)
		if s.Landlock >= 4 {
			b.WriteString(", TCP")
		}
		if s.Landlock >= 6 {
			b.WriteString(", signals")
		}
		b.WriteString(")")
	} else {
		fmt.Fprintf(&b, "no Landlock (%s): processes tether starts can read every file tether can", s.LandlockErr)
	}
	if s.Namespaces {
		b.WriteString("; user and IPC namespaces, a network namespace without network, PID and mount namespaces with their own /proc (no other process seen or signalled)")
		if s.View {
			b.WriteString("; a filesystem view of only the granted paths (a private /tmp, no terminal, no unix socket outside them)")
		} else {
			fmt.Fprintf(&b, "; no filesystem view (%s): paths outside the grants are named and their unix sockets reachable", s.ViewErr)
		}
	} else {
		fmt.Fprintf(&b, "; no namespaces (%s): /proc of other processes is visible", s.NamespacesErr)
		if s.Landlock < 4 {
			b.WriteString(" and the network is not confined")
		}
	}
	fmt.Fprintf(&b, "; network for %s (the operator's choice)", FormatNet(s.Net))
	return b.String()
}

// Note is the sentence a family's first result carries: the network choice
// for the families where it is the operator's, and any layer that is
// missing. It is empty when a server family is fully sandboxed.
func (s Status) Note(f Family) string {
	if s.Off {
		return "sandbox off (turned off by the operator): this process runs with tether's full rights"
	}
	var gaps []string
	if s.Landlock < 1 {
		gaps = append(gaps, "files are not confined (no Landlock: "+s.LandlockErr+")")
	}
	if !s.Namespaces {
		gaps = append(gaps, "/proc of other processes is visible (no namespaces: "+s.NamespacesErr+")")
	} else if !s.View {
		gaps = append(gaps, "paths outside the grants are named and their unix sockets reachable (no filesystem view: "+s.ViewErr+")")
	}
	net := s.Net[f]
	if !net && !s.NetConfined() {
		gaps = append(gaps, "the network is not confined")
	}
	if f == Servers && len(gaps) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("sandbox: ")
	if s.Landlock >= 1 {
		b.WriteString("workspace and scratch read-write, toolchain read-only, no other file")
		if len(gaps) > 0 {
			b.WriteString("; ")
		}
	}
	b.WriteString(strings.Join(gaps, "; "))
	if net {
		b.WriteString("; network allowed")
	} else {
		b.WriteString("; no network")
	}
	b.WriteString(" (the operator's choice)")
	return b.String()
}

var (
	statusOnce sync.Once
	statusVal  Status
)

// SandboxStatus probes the machine once (Landlock's ABI, whether a child
// can get its own namespaces) and returns the result with the operator's
// current options.
func SandboxStatus() Status {
	statusOnce.Do(func() { statusVal = probe() })
	s := statusVal
	o := currentOptions()
	s.Off, s.Net, s.strict, s.env = o.Off, o.Net, o.Strict, o.Env
	return s
}

// systemRO are the system paths every sandboxed process reads: libraries,
// binaries, the few files of /etc a program needs (never /etc as a whole:
// /etc/shadow, keys), and the parts of /sys runtimes read for CPU and memory
// limits.
var systemRO = []string{
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
	"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/timezone",
	"/etc/nsswitch.conf", "/etc/passwd", "/etc/group", "/etc/hosts", "/etc/host.conf", "/etc/resolv.conf",
	"/etc/gai.conf", "/etc/protocols", "/etc/services", "/etc/ssl", "/etc/ca-certificates", "/etc/pki",
	"/etc/mime.types", "/etc/os-release", "/etc/lsb-release", "/etc/debian_version", "/etc/alternatives",
	"/etc/fonts", "/etc/locale.alias", "/etc/inputrc", "/etc/terminfo",
	"/proc", "/sys/devices/system/cpu", "/sys/fs/cgroup", "/sys/kernel/mm/transparent_hugepage",
	"/dev/urandom", "/dev/random",
}

// systemRW are the devices every sandboxed process writes. No terminal:
// not /dev/tty, /dev/pts or /dev/ptmx.
var systemRW = []string{"/dev/null", "/dev/zero", "/dev/full"}

// Sandbox rewrites cmd (before Start) so that it runs under p: this binary
// is started in its place as a launcher (in namespaces of its own where the
// machine allows), confines itself with Landlock and execs cmd; with
// Policy.InPlace, a cmd that runs this very binary confines itself instead
// (inPlaceFor). cmd.Path must be absolute or found on PATH. With the sandbox off it leaves cmd as
// it is. In every case it sets cmd.Env to ChildEnv's allowlist: tether's
// own environment does not reach the process.
func Sandbox(cmd *exec.Cmd, p Policy) error {
	if home := ownHome(p); home != "" {
		if err := writeGitConfig(home); err != nil {
			return fmt.Errorf("proc: the home directory of %s: %w", p.Peer, err)
		}
	}
	cmd.Env = ChildEnv(cmd.Env, p, currentOptions())
	return sandbox(cmd, p)
}

// Paths returns the read-only paths a peer needs around binary: the binary
// itself and, when it is a link (an npm .bin entry, a pyenv shim, an
// alternatives link), what it points to; and the directory up levels above
// each (a bin directory's parent is the install's prefix), unless that is
// the filesystem's root or /usr (every process has the system's paths).
func Paths(binary string, up int) []string {
	var out []string
	add := func(p string) {
		for i := 0; i < up && filepath.Dir(p) != p; i++ {
			p = filepath.Dir(p)
		}
		if p == "/" || p == "/usr" || slices.Contains(out, p) {
			return
		}
		out = append(out, p)
	}
	if binary == "" {
		return nil
	}
	if !filepath.IsAbs(binary) {
		if lp, err := exec.LookPath(binary); err == nil {
			binary = lp
		}
	}
	if abs, err := filepath.Abs(binary); err == nil {
		binary = abs
	}
	// The file itself, whatever the levels above give.
	out = append(out, binary)
	add(binary)
	if real, err := filepath.EvalSymlinks(binary); err == nil && real != binary {
		out = append(out, real)
		add(real)
	}
	return out
}

// Home joins elems under the user's home directory ("" without one).
func Home(elems ...string) string {
	h, err := os.UserHomeDir()
	if err != nil || h == "" {
		return ""
	}
	return filepath.Join(append([]string{h}, elems...)...)
}

// Cache is a shared cache a sandboxed process writes (a build cache),
// seen through a private writable layer: at Path, the shared cache
// read-only beneath Upper (an overlay), so what the process writes lands in
// Upper alone and reaches neither another workspace's processes nor the
// operator's own builds.
type Cache struct {
	// Path is the shared cache, as the peer finds it (GOCACHE).
	Path string
	// Upper is the private layer: a directory of tether's own, one per
	// workspace (CacheFor), granted to no other workspace.
	Upper string
	// Env is the variable that names the cache's place ("" when the peer
	// finds it by itself): the peer runs with it set, so that it finds the
	// cache where the overlay is whatever its home directory; without a
	// filesystem view to lay the overlay in, it points the peer at Upper
	// alone instead (a cold cache, but its own), and a cache without Env is
	// left out then.
	Env string
	// Sub, when set, is the cache's directory under what Env names
	// (gopls' cache is $GOPLSCACHE/gopls).
	Sub string
}

// CacheFor is the shared cache at path as the processes of workspace see
// it: its private layer is in tether's cache directory, under a key of
// the workspace's root, so every process of that workspace (its language
// server, its checks, its debug builds) shares one warm layer.
func CacheFor(path, env, workspace string) Cache {
	c := Cache{Path: path, Env: env}
	base, err := os.UserCacheDir()
	if err != nil || path == "" || workspace == "" {
		return c
	}
	if abs, err := filepath.Abs(workspace); err == nil {
		workspace = abs
	}
	ws := sha256.Sum256([]byte(filepath.Clean(workspace)))
	ck := sha256.Sum256([]byte(filepath.Clean(path)))
	c.Upper = filepath.Join(base, "tether", "sandbox-caches", hex.EncodeToString(ws[:8]), filepath.Base(path)+"-"+hex.EncodeToString(ck[:4]))
	return c
}

// AddressSpaceSet reports whether a Policy's AddressSpace takes effect:
// the launcher that sets it runs only while some sandbox layer is in force.
func AddressSpaceSet() bool {
	o := currentOptions()
	return !o.Off && SandboxStatus().Available()
}
