package proc_test

import "bytes"
import "net"
import "os"
import "os/exec"
import "os/signal"
import "path/filepath"
import "strconv"
import "strings"
import "sync/atomic"
import "syscall"
import "testing"
import "time"

import "github.com/tetherhq/tether/internal/proc"
import "github.com/tetherhq/tether/internal/testenv"
import "golang.org/x/sys/unix"

// The probe suite: what a process tether starts tries against the host,
// each as the peer itself would (a real shell or python3 in the sandbox).

// modes are the ways a process is started: sandboxed in each family, and
// with the sandbox off (the operator's choice), which must still keep the
// terminal and tether's descriptors from it.
func modes(t *testing.T) []string {
	out := []string{"off"}
	if proc.SandboxStatus().Available() {
		for _, f := range proc.Families {
			out = append(out, string(f))
		}
	}
	return out
}

// inMode configures the sandbox for mode until the test ends and returns
// the policy to run with.
func inMode(t *testing.T, mode, ws string) proc.Policy {
	t.Helper()
	t.Cleanup(func() { proc.Configure(proc.Options{}) })
	if mode == "off" {
		proc.Configure(proc.Options{Off: true})
		return proc.Policy{Peer: "probe", Family: proc.Servers, RW: []string{ws}}
	}
	proc.Configure(proc.Options{})
	return proc.Policy{Peer: "probe", Family: proc.Family(mode), RW: []string{ws}}
}

// statFields is /proc/PID/stat's fields after the command name: [0] is the
// state, [2] the process group, [3] the session, [4] the terminal.
func statFields(t *testing.T, pid int) []string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.LastIndexByte(b, ')')
	return strings.Fields(string(b[i+1:]))
}

// TestProbeNewSession: every process tether starts leads a session of its
// own without a terminal, also when its launch site asked for a process
// group of its own (as kernels, debug adapters and workers do), and
// killing that group still ends it.
func TestProbeNewSession(t *testing.T) {
	for _, mode := range modes(t) {
		t.Run(mode, func(t *testing.T) {
			ws := t.TempDir()
			p := inMode(t, mode, ws)
			cmd := exec.Command("/bin/sh", "-c", "read x")
			cmd.Dir = ws
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := proc.Sandbox(cmd, p); err != nil {
				t.Fatal(err)
			}
			if err := proc.Start(cmd); err != nil {
				t.Fatal(err)
			}
			pid := cmd.Process.Pid
			f := statFields(t, pid)
			if f[2] != strconv.Itoa(pid) || f[3] != strconv.Itoa(pid) || f[4] != "0" {
				t.Errorf("process group %s, session %s, terminal %s; want group and session %d, no terminal", f[2], f[3], f[4], pid)
			}
			if own := statFields(t, os.Getpid()); own[3] == f[3] {
				t.Errorf("the process is in the test's session %s", own[3])
			}
			if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil {
				t.Fatalf("killing the process group: %v", err)
			}
			if err := cmd.Wait(); err == nil {
				t.Fatal("the process outlived a kill of its group")
			}
		})
	}
}

// TestProbeNoTerminalDevices: no terminal of the host is open to a
// sandboxed process: not /dev/tty, not a pseudo-terminal of the host's
// /dev/pts (with a filesystem view it has a devpts of its own).
func TestProbeNoTerminalDevices(t *testing.T) {
	st := requireSandbox(t)
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer master.Close()
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	pts := "/dev/pts/" + strconv.Itoa(n)
	for _, f := range proc.Families {
		t.Run(string(f), func(t *testing.T) {
			ws := t.TempDir()
			p := inMode(t, string(f), ws)
			scripts := []string{": < /dev/tty", ": > /dev/tty", ": > " + pts, ": < " + pts}
			if !st.View {
				scripts = append(scripts, "ls /dev/pts/", ": < /dev/ptmx")
			}
			for _, script := range scripts {
				if out, err := runIn(t, p, ws, "/bin/sh", "-c", script); err == nil {
					t.Errorf("%s: succeeded: %s", script, out)
				}
			}
		})
	}
}

// ptyHelperEnv runs TestProbeTIOCSTI as the helper: a process whose
// controlling terminal is a pseudo-terminal, as tether's is when it runs
// on one.
const ptyHelperEnv = "TETHER_PROBE_PTY_HELPER"

// tiocstiScript pushes "pwned" into every descriptor and /dev/tty it can
// (TIOCSTI), and says what happened.
const tiocstiScript = `
import fcntl, os, termios
def push(fd, what):
    try:
        for c in b"pwned\n":
            fcntl.ioctl(fd, termios.TIOCSTI, bytes([c]))
        print(what, "PUSHED")
    except OSError as e:
        print(what, "refused:", e)
for fd in range(0, 256):
    try:
        os.fstat(fd)
    except OSError:
        continue
    push(fd, "fd %d" % fd)
try:
    fd = os.open("/dev/tty", os.O_RDWR)
except OSError as e:
    print("/dev/tty refused:", e)
else:
    push(fd, "/dev/tty")
`

// TestProbeTIOCSTI reproduces a tenant typing into the operator's
// terminal: tether runs on a pseudo-terminal (its controlling terminal and
// stdio), starts a python3 that tries TIOCSTI on each of its descriptors
// and on /dev/tty, and nothing it pushed arrives in the terminal's input.
func TestProbeTIOCSTI(t *testing.T) {
	if os.Getenv(ptyHelperEnv) != "" {
		ptyHelper(t)
		return
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 to probe with")
	}
	if real, err := filepath.EvalSymlinks("/usr/bin/python3"); err == nil {
		py = real // not a shim that needs the home directory
	}
	for _, mode := range modes(t) {
		t.Run(mode, func(t *testing.T) {
			pty := testenv.RawPTY(t)
			slave := pty.Slave
			report := filepath.Join(t.TempDir(), "report")
			exe, err := os.Executable()
			if err != nil {
				t.Fatal(err)
			}
			helper := exec.Command(exe, "-test.run=^TestProbeTIOCSTI$", "-test.count=1")
			helper.Env = append(os.Environ(), ptyHelperEnv+"="+mode, "TETHER_PROBE_REPORT="+report, "TETHER_PROBE_PYTHON="+py)
			helper.Stdin, helper.Stdout, helper.Stderr = slave, slave, slave
			helper.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
			if err := proc.Run(helper); err != nil {
				b, _ := os.ReadFile(report)
				t.Fatalf("helper: %v\nreport:\n%s", err, b)
			}
			rep, err := os.ReadFile(report)
			if err != nil {
				t.Fatal(err)
			}
			got := pty.Input(t)
			t.Logf("report:\n%s", rep)
			if strings.Contains(got, "pwned") || strings.Contains(string(rep), "PUSHED") {
				t.Fatalf("a started process pushed input into tether's terminal: input %q\n%s", got, rep)
			}
			if !strings.Contains(got, "ctl") {
				t.Skipf("TIOCSTI does not work here even for the terminal's own session (input %q): nothing to refuse", got)
			}
		})
	}
}

// ptyHelper is tether on a terminal: it checks that it can push input
// into its own terminal (the control), then starts the probe as tether
// would and writes what it reported.
func ptyHelper(t *testing.T) {
	// A hangup of the terminal says nothing about what was pushed into
	// it, which the report and the terminal's input do: it does not end
	// the helper, and the report says it came.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	mode := os.Getenv(ptyHelperEnv)
	report := os.Getenv("TETHER_PROBE_REPORT")
	var rep bytes.Buffer
	defer func() {
		select {
		case <-hup:
			rep.WriteString("the helper got SIGHUP\n")
		default:
		}
		os.WriteFile(report, rep.Bytes(), 0o600)
	}()
	for _, c := range []byte("ctl") {
		if err := unix.IoctlSetPointerInt(0, unix.TIOCSTI, int(c)); err != nil {
			// IoctlSetPointerInt passes a pointer to an int: the low byte
			// is the character on a little-endian machine; say so if not.
			rep.WriteString("control push: " + err.Error() + "\n")
			break
		}
	}
	ws := t.TempDir()
	p := inMode(t, mode, ws)
	cmd := exec.Command(os.Getenv("TETHER_PROBE_PYTHON"), "-c", tiocstiScript)
	cmd.Dir = ws
	cmd.Stdin, cmd.Stderr = os.Stdin, os.Stderr // the terminal, as tether's own
	cmd.Stdout = &rep
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := proc.Sandbox(cmd, p); err != nil {
		t.Fatal(err)
	}
	if err := proc.Run(cmd); err != nil {
		rep.WriteString("probe: " + err.Error() + "\n")
		t.Fatal(err)
	}
}

// TestProbeInheritedFD: a descriptor tether got from its parent without
// close-on-exec is not open in a process tether starts.
func TestProbeInheritedFD(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	// Far from the numbers ls opens itself.
	fd, err := unix.FcntlInt(r.Fd(), unix.F_DUPFD, 100)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	for _, mode := range modes(t) {
		t.Run(mode, func(t *testing.T) {
			// As it would be, inherited: no close-on-exec.
			if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, 0); err != nil {
				t.Fatal(err)
			}
			ws := t.TempDir()
			p := inMode(t, mode, ws)
			out, err := runIn(t, p, ws, "/bin/ls", "/proc/self/fd")
			if err != nil {
				t.Fatalf("ls /proc/self/fd: %v: %s", err, out)
			}
			for _, f := range strings.Fields(out) {
				if f == strconv.Itoa(fd) {
					t.Fatalf("the inherited descriptor %d is open in the started process: %s", fd, out)
				}
			}
		})
	}
}

// probePython is the host's python3 itself, not a shim (a pyenv shim
// needs the home directory, which no sandbox grants).
func probePython(t *testing.T) string {
	t.Helper()
	py, err := filepath.EvalSymlinks("/usr/bin/python3")
	if err != nil {
		t.Skip("no /usr/bin/python3 to probe with")
	}
	return py
}

// TestProbeUnixSockets: a unix socket outside a process's grants, in a
// directory next to its workspace or in /tmp, can be neither connected to
// nor even found (Landlock before ABI 9 does not cover connecting to one;
// the filesystem view leaves it out).
func TestProbeUnixSockets(t *testing.T) {
	requireView(t)
	py := probePython(t)
	inDir := filepath.Join(t.TempDir(), "agent.sock")
	tmp, err := os.MkdirTemp("/tmp", "probe-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	inTmp := filepath.Join(tmp, "bus.sock")
	var accepted atomic.Int32
	for _, path := range []string{inDir, inTmp} {
		ln, err := net.Listen("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go acceptAndClose(ln, &accepted)
	}
	const script = `
import os, socket, sys
for p in sys.argv[1:]:
    try:
        os.stat(p)
        print(p, "STAT")
    except OSError as e:
        print(p, "stat refused:", e)
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(p)
        print(p, "CONNECTED")
    except OSError as e:
        print(p, "connect refused:", e)
`
	for _, f := range proc.Families {
		t.Run(string(f), func(t *testing.T) {
			ws := t.TempDir()
			p := inMode(t, string(f), ws)
			out, err := runIn(t, p, ws, py, "-c", script, inDir, inTmp)
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if strings.Contains(out, "STAT") || strings.Contains(out, "CONNECTED") || accepted.Load() != 0 {
				t.Fatalf("a socket outside the grants was reached:\n%s", out)
			}
		})
	}
}

// newCgroup makes a cgroup in the pids hierarchy, or skips.
func newCgroup(t *testing.T, name string) string {
	t.Helper()
	for _, h := range []string{"/sys/fs/cgroup/pids", "/sys/fs/cgroup/unified", "/sys/fs/cgroup"} {
		if _, err := os.Stat(filepath.Join(h, "cgroup.procs")); err != nil {
			continue
		}
		dir := filepath.Join(h, name+"-"+strconv.Itoa(os.Getpid()))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Skipf("cannot make a cgroup here: %v", err)
		}
		t.Cleanup(func() { proc.KillCgroup(dir) })
		return dir
	}
	t.Skip("no cgroup hierarchy to make a cgroup in")
	return ""
}

// TestProbeCgroups: /sys/fs/cgroup shows a sandboxed process no other
// cgroup (another tether's kernel): only its own, when it has one.
func TestProbeCgroups(t *testing.T) {
	requireView(t)
	sibling := newCgroup(t, "tether-probe-sibling")
	own := newCgroup(t, "tether-probe-own")
	for _, f := range proc.Families {
		t.Run(string(f), func(t *testing.T) {
			ws := t.TempDir()
			p := inMode(t, string(f), ws)
			if f != proc.Servers {
				p.Cgroup = own // as a kernel's pids cgroup
			}
			out, _ := runIn(t, p, ws, "/bin/sh", "-c", "ls -R /sys/fs/cgroup; cat /proc/self/cgroup")
			if strings.Contains(out, filepath.Base(sibling)) {
				t.Fatalf("another cgroup is listed:\n%s", out)
			}
			if p.Cgroup != "" && !strings.Contains(out, "cgroup.procs") {
				t.Fatalf("the process's own cgroup is not shown:\n%s", out)
			}
		})
	}
}

// TestProbeOutsideNotNamed: paths outside the grants are not in the view:
// stat of a file next to the workspace, of /root, of /run fails.
func TestProbeOutsideNotNamed(t *testing.T) {
	requireView(t)
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	secret := filepath.Join(base, "other", "secret.txt")
	os.MkdirAll(filepath.Dir(secret), 0o755)
	os.Mkdir(ws, 0o755)
	if err := os.WriteFile(secret, []byte("12345"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, f := range proc.Families {
		t.Run(string(f), func(t *testing.T) {
			p := inMode(t, string(f), ws)
			for _, path := range []string{secret, filepath.Dir(secret), "/run", "/var/run", "/root", "/home", "/etc/shadow"} {
				if out, err := runIn(t, p, ws, "/usr/bin/stat", path); err == nil {
					t.Errorf("stat %s: %s", path, out)
				}
			}
		})
	}
}

// TestProbeSharedCache reproduces one tenant poisoning another's builds:
// a process of workspace A rewrites an entry of the shared build cache it
// sees at GOCACHE and adds one; workspace B's processes and the host's
// cache see neither, and A's next process still sees both (its layer is
// kept, so its builds stay warm).
func TestProbeSharedCache(t *testing.T) {
	requireView(t)
	base := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(base, "xdg")) // tether's own cache directory
	shared := filepath.Join(base, "go-build")
	if err := os.MkdirAll(shared, 0o755); err != nil {
		t.Fatal(err)
	}
	entry := filepath.Join(shared, "entry")
	if err := os.WriteFile(entry, []byte("original\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wsA, wsB := filepath.Join(base, "a"), filepath.Join(base, "b")
	os.Mkdir(wsA, 0o755)
	os.Mkdir(wsB, 0o755)
	// A layer of a workspace not worked on for long is removed.
	stale := filepath.Join(base, "xdg", "tether", "sandbox-caches", "0123456789abcdef")
	if err := os.MkdirAll(filepath.Join(stale, "go-build-1", "upper"), 0o700); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-400 * 24 * time.Hour)
	os.Chtimes(stale, old, old)
	defer func() {
		if _, err := os.Stat(stale); err == nil {
			t.Error("a stale workspace's cache layer was kept")
		}
	}()
	for _, f := range []proc.Family{proc.Debug, proc.Servers} {
		t.Run(string(f), func(t *testing.T) {
			run := func(ws, script string) (string, error) {
				p := inMode(t, string(f), ws)
				p.Caches = []proc.Cache{proc.CacheFor(shared, "GOCACHE", ws)}
				return runIn(t, p, ws, "/bin/sh", "-c", script)
			}
			out, err := run(wsA, `echo poisoned > "$GOCACHE/entry" && echo new-`+string(f)+` > "$GOCACHE/added" && cat "$GOCACHE/entry"`)
			if err != nil || strings.TrimSpace(out) != "poisoned" {
				t.Fatalf("A writing its cache: %v: %q", err, out)
			}
			if b, _ := os.ReadFile(entry); string(b) != "original\n" {
				t.Fatalf("the host's cache entry now reads %q", b)
			}
			if _, err := os.Stat(filepath.Join(shared, "added")); err == nil {
				t.Fatal("A's new entry is in the host's cache")
			}
			out, err = run(wsB, `cat "$GOCACHE/entry"; ls "$GOCACHE"`)
			if err != nil || strings.Contains(out, "poisoned") || strings.Contains(out, "added") || !strings.Contains(out, "original") {
				t.Fatalf("B sees A's writes (or not the shared cache): %v: %q", err, out)
			}
			out, err = run(wsA, `cat "$GOCACHE/added"`)
			if err != nil || strings.TrimSpace(out) != "new-"+string(f) {
				t.Fatalf("A's next process lost its cache layer: %v: %q", err, out)
			}
		})
	}
}

// TestTableCachesNotGranted: no table grants a shared cache (the
// operator's GOCACHE, gopls' cache, the Dart analyzer's) read-write: each
// comes as a Cache of the workspace instead.
func TestTableCachesNotGranted(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
	env := []string{"HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(home, ".cache"), "PATH=" + os.Getenv("PATH")}
	for _, tc := range []proc.Toolchain{proc.Go, proc.Dart} {
		_, rw := proc.Table(tc, "/bin/true", env)
		if len(rw) != 0 {
			t.Errorf("%s: Table grants %v read-write", tc, rw)
		}
		cs := proc.TableCaches(tc, env, filepath.Join(home, "ws"))
		if len(cs) == 0 {
			t.Errorf("%s: no caches", tc)
		}
		other := proc.TableCaches(tc, env, filepath.Join(home, "other"))
		for i, c := range cs {
			if c.Upper == "" || !strings.HasPrefix(c.Upper, filepath.Join(home, ".cache", "tether")) || c.Upper == other[i].Upper {
				t.Errorf("%s: cache %s has the private layer %q (another workspace's: %q)", tc, c.Path, c.Upper, other[i].Upper)
			}
		}
	}
}

// TestStatusWithoutView: where the filesystem view cannot be built, the
// status and each family's first result say so and why.
func TestStatusWithoutView(t *testing.T) {
	st := proc.Status{Landlock: 7, Namespaces: true, ViewErr: "open_tree: operation not permitted", Net: proc.DefaultNet()}
	for _, s := range []string{st.String(), st.Note(proc.Servers), st.Note(proc.Kernels)} {
		if !strings.Contains(s, "no filesystem view (open_tree: operation not permitted)") && !strings.Contains(s, "no filesystem view: open_tree: operation not permitted") {
			t.Errorf("the status does not say the view is missing: %q", s)
		}
	}
	st.View, st.ViewErr = true, ""
	if n := st.Note(proc.Servers); n != "" {
		t.Errorf("a fully sandboxed server's note: %q", n)
	}
	if s := st.String(); !strings.Contains(s, "a filesystem view of only the granted paths") {
		t.Errorf("the status does not name the view: %q", s)
	}
}

// TestProbeConcurrentCacheLayers: two processes of one workspace running
// at once never share an overlay's upper layer (the kernel leaves that
// undefined: ten gopls on one workspace lost definitions), so the second
// does not see what the first wrote while it runs; the layer the first
// kept is the next process's once the first has ended.
func TestProbeConcurrentCacheLayers(t *testing.T) {
	requireView(t)
	base := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(base, "xdg"))
	shared := filepath.Join(base, "go-build")
	ws := filepath.Join(base, "ws")
	for _, d := range []string{shared, ws} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	policy := func() proc.Policy {
		p := inMode(t, string(proc.Servers), ws)
		p.Caches = []proc.Cache{proc.CacheFor(shared, "GOCACHE", ws)}
		return p
	}
	// The first writes its entry and stays until told to go.
	release := filepath.Join(ws, "release")
	first := exec.Command("/bin/sh", "-c", `echo first > "$GOCACHE/entry" && touch wrote && while [ ! -e release ]; do sleep 0.05; done`)
	first.Dir = ws
	if err := proc.Sandbox(first, policy()); err != nil {
		t.Fatal(err)
	}
	if err := proc.Start(first); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- first.Wait() }()
	defer func() {
		os.WriteFile(release, nil, 0o644)
		<-done
	}()
	for end := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(ws, "wrote")); err == nil {
			break
		}
		if time.Now().After(end) {
			t.Fatal("the first process did not write its cache entry within 2m")
		}
	}
	out, err := runIn(t, policy(), ws, "/bin/sh", "-c", `cat "$GOCACHE/entry" 2>/dev/null || echo none`)
	if err != nil || strings.TrimSpace(out) != "none" {
		t.Fatalf("a process beside the first shares its layer: %v: %q", err, out)
	}
	os.WriteFile(release, nil, 0o644)
	if err := <-done; err != nil {
		t.Fatalf("the first process: %v", err)
	}
	done <- nil
	out, err = runIn(t, policy(), ws, "/bin/sh", "-c", `cat "$GOCACHE/entry"`)
	if err != nil || strings.TrimSpace(out) != "first" {
		t.Fatalf("the next process lost the first's layer: %v: %q", err, out)
	}
}
