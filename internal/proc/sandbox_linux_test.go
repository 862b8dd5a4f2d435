package proc_test

import "bufio"
import "bytes"
import "net"
import "os"
import "os/exec"
import "path/filepath"
import "regexp"
import "strconv"
import "strings"
import "sync/atomic"
import "syscall"
import "testing"
import "time"

import "github.com/tetherhq/tether/internal/proc"
import "github.com/tetherhq/tether/internal/testenv"

// requireSandbox skips where the machine offers no Landlock (the status
// says why), and fails where TETHER_REQUIRE_SANDBOX=1 says it must.
func requireSandbox(t *testing.T) proc.Status {
	t.Helper()
	st := proc.SandboxStatus()
	if !st.Files() {
		if os.Getenv("TETHER_REQUIRE_SANDBOX") == "1" {
			t.Fatalf("no sandbox here: %s", st)
		}
		t.Skipf("no sandbox here: %s", st)
	}
	return st
}

// requireView is requireSandbox for a test that needs the filesystem view
// too: it skips where there is none.
func requireView(t *testing.T) proc.Status {
	t.Helper()
	st := requireSandbox(t)
	if !st.View {
		t.Skipf("no filesystem view here: %s", st)
	}
	return st
}

// acceptAndClose accepts connections on ln and closes each at once,
// counting them in accepted (when not nil), until ln is closed.
func acceptAndClose(ln net.Listener, accepted *atomic.Int32) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		if accepted != nil {
			accepted.Add(1)
		}
		c.Close()
	}
}

// runIn runs argv under p and returns its combined output and error.
func runIn(t *testing.T, p proc.Policy, dir string, argv ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := proc.Sandbox(cmd, p); err != nil {
		t.Fatal(err)
	}
	err := proc.Run(cmd)
	return out.String(), err
}

// denied is how a path outside the grants fails: not in the process's
// view at all, or refused by Landlock where there is no view.
var denied = regexp.MustCompile(`Permission denied|No such file|nonexistent|cannot access`)

// TestSandboxFiles: a sandboxed process reads and writes its workspace and
// scratch, reads the system, and gets a permission error for everything
// else: a file next to the workspace, /etc/shadow, the home directory.
func TestSandboxFiles(t *testing.T) {
	requireSandbox(t)
	dirs := testenv.Siblings(t, "ws", "other")
	ws, other := dirs[0], dirs[1]
	if err := os.WriteFile(filepath.Join(ws, "mine.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(other, "secret.txt")
	if err := os.WriteFile(secret, []byte("API_KEY=s3cret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := proc.Policy{Peer: "test", Family: proc.Servers, RW: []string{ws}, Scratch: filepath.Join(filepath.Dir(ws), "scratch")}

	cases := []struct {
		name   string
		argv   []string
		ok     bool
		output string // a substring of the output; for a denial, denied's
	}{
		{"read workspace", []string{"/bin/cat", "mine.txt"}, true, "mine"},
		{"write workspace", []string{"/bin/sh", "-c", "echo new > new.txt && cat new.txt"}, true, "new"},
		{"write scratch", []string{"/bin/sh", "-c", `echo tmp > "$TMPDIR/t" && cat "$TMPDIR/t"`}, true, "tmp"},
		{"read system", []string{"/bin/cat", "/etc/passwd"}, true, "root:"},
		{"read outside", []string{"/bin/cat", secret}, false, "Permission denied"},
		{"list outside", []string{"/bin/ls", other}, false, "Permission denied"},
		{"write outside", []string{"/bin/sh", "-c", "echo x > " + filepath.Join(other, "w")}, false, "Permission denied"},
		{"read shadow", []string{"/bin/cat", "/etc/shadow"}, false, "Permission denied"},
	}
	if home, err := os.UserHomeDir(); err == nil {
		cases = append(cases, struct {
			name   string
			argv   []string
			ok     bool
			output string
		}{"list home", []string{"/bin/ls", home}, false, "Permission denied"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := runIn(t, p, ws, c.argv...)
			if (err == nil) != c.ok {
				t.Fatalf("%v: err %v, want ok=%v; output:\n%s", c.argv, err, c.ok, out)
			}
			if c.ok && !strings.Contains(out, c.output) || !c.ok && !denied.MatchString(out) {
				t.Fatalf("%v: output %q does not contain %q", c.argv, out, c.output)
			}
			if strings.Contains(out, "s3cret") {
				t.Fatalf("%v: the secret leaked: %q", c.argv, out)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(other, "w")); err == nil {
		t.Fatal("a file was written outside the workspace")
	}
}

// TestSandboxProc: a sandboxed process sees only its own PID namespace in
// /proc, and cannot read or signal the process that started it.
// Every family: a kernel's, a debuggee's and a worker's too (those under
// the sandbox's init).
func TestSandboxProc(t *testing.T) {
	for _, f := range proc.Families {
		t.Run(string(f), func(t *testing.T) { testSandboxProc(t, f) })
	}
}

func testSandboxProc(t *testing.T, family proc.Family) {
	st := requireSandbox(t)
	ws := t.TempDir()
	p := proc.Policy{Peer: "test", Family: family, RW: []string{ws}}
	self := strconv.Itoa(os.Getpid())

	out, err := runIn(t, p, ws, "/bin/cat", "/proc/"+self+"/environ")
	if err == nil {
		t.Fatalf("read the test's environ through /proc: %q", out)
	}
	out, err = runIn(t, p, ws, "/bin/cat", "/proc/"+self+"/cmdline")
	if st.Namespaces && err == nil {
		t.Fatalf("read the test's command line through /proc: %q", out)
	}
	out, err = runIn(t, p, ws, "/bin/sh", "-c", "kill -0 "+self)
	if err == nil {
		t.Fatalf("signalled the test process: %q", out)
	}
	if !st.Namespaces {
		t.Skipf("no namespaces here (%s): /proc lists every process", st.NamespacesErr)
	}
	out, err = runIn(t, p, ws, "/bin/ls", "/proc")
	if err != nil {
		t.Fatalf("ls /proc: %v: %s", err, out)
	}
	var pids []string
	for _, f := range strings.Fields(out) {
		if _, err := strconv.Atoi(f); err == nil {
			pids = append(pids, f)
		}
	}
	if len(pids) == 0 || len(pids) > 3 {
		t.Fatalf("/proc in the sandbox lists pids %v; want only the sandbox's own", pids)
	}
	// Not even tether's command line (the parent's, or any other process's).
	out, err = runIn(t, p, ws, "/bin/sh", "-c", "cat /proc/*/cmdline | tr '\\0' ' '")
	if strings.Contains(out, "-test.") || strings.Contains(out, filepath.Base(os.Args[0])) {
		t.Fatalf("a sandboxed process read the test binary's command line: %q (%v)", out, err)
	}
}

// TestSandboxInit: a kernel, a debuggee or a worker runs under the
// sandbox's init as an ordinary process of its PID namespace: it can kill
// itself, its status (exit code or signal) reaches tether as its own, the
// peer's pid is found, and what it leaves running ends with it.
func TestSandboxInit(t *testing.T) {
	st := requireSandbox(t)
	if !st.Namespaces {
		t.Skipf("no namespaces here: %s", st.NamespacesErr)
	}
	ws := t.TempDir()
	p := proc.Policy{Peer: "test", Family: proc.Kernels, RW: []string{ws}}
	start := func(script string) (*exec.Cmd, *bytes.Buffer) {
		t.Helper()
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.Dir = ws
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := proc.Sandbox(cmd, p); err != nil {
			t.Fatal(err)
		}
		if err := proc.Start(cmd); err != nil {
			t.Fatal(err)
		}
		return cmd, &out
	}

	cmd, out := start("echo $$; exit 3")
	_ = cmd.Wait()
	if got := strings.TrimSpace(out.String()); got == "1" {
		t.Errorf("the peer is its namespace's process 1")
	}
	if ws, ok := proc.WaitStatus(cmd); !ok || !ws.Exited() || ws.ExitStatus() != 3 {
		t.Errorf("exit 3 reads as %v (ok %v)", ws, ok)
	}

	cmd, out = start("kill -KILL $$")
	_ = cmd.Wait()
	if ws, ok := proc.WaitStatus(cmd); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("a peer that killed itself reads as %v (ok %v): %s", ws, ok, out)
	}

	// A process left running in the background ends with the peer.
	cmd = exec.Command("/bin/sh", "-c", "sleep 600 & echo $!; read x")
	cmd.Dir = ws
	stdin, _ := cmd.StdinPipe()
	defer stdin.Close()
	stdout, _ := cmd.StdoutPipe()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // as a kernel's
	if err := proc.Sandbox(cmd, p); err != nil {
		t.Fatal(err)
	}
	if err := proc.Start(cmd); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	peer := proc.PeerPID(cmd)
	if peer == 0 || peer == cmd.Process.Pid {
		t.Fatalf("PeerPID %d (init %d)", peer, cmd.Process.Pid)
	}
	nsSleep, _ := strconv.Atoi(strings.TrimSpace(line))
	sleeper, ok := proc.HostPID(cmd, nsSleep)
	if !ok {
		t.Fatalf("HostPID(%d) found nothing", nsSleep)
	}
	// $! names the child sh forked for sleep, which may not have exec'd
	// sleep yet: until it does, its command line is still sh's, and
	// while it execs the command line reads empty
	for wait := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(sleeper) + "/cmdline")
		if err == nil && strings.HasPrefix(string(b), "sleep") {
			break
		}
		if err != nil || (len(b) > 0 && !strings.HasPrefix(string(b), "/bin/sh")) || time.Now().After(wait) {
			t.Fatalf("host pid %d of the sleeper is %q (%v)", sleeper, b, err)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	// An interrupt of the group (as a kernel's interrupt is sent) reaches
	// the peer, not the init: sh dies of it, and the init reports that.
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if ws, ok := proc.WaitStatus(cmd); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Errorf("a peer ended by SIGTERM reads as %v (ok %v)", ws, ok)
	}
	for time.Now().Before(deadline) {
		if err := syscall.Kill(sleeper, 0); err != nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the background sleep %d outlived the peer", sleeper)
}

// TestSandboxNetwork: a server family process cannot connect to a port on
// this machine; with the family's network allowed it can.
func TestSandboxNetwork(t *testing.T) {
	st := requireSandbox(t)
	if !st.NetConfined() {
		t.Skip("the network cannot be confined here: " + st.String())
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash for /dev/tcp")
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go acceptAndClose(ln, nil)
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ws := t.TempDir()
	dial := []string{"bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/" + port}
	if out, err := runIn(t, proc.Policy{Peer: "test", Family: proc.Servers, RW: []string{ws}}, ws, dial...); err == nil {
		t.Fatalf("a server-family process connected to 127.0.0.1:%s: %s", port, out)
	}
	defer proc.Configure(proc.Options{})
	proc.Configure(proc.Options{Net: map[proc.Family]bool{proc.Servers: true}})
	if out, err := runIn(t, proc.Policy{Peer: "test", Family: proc.Servers, RW: []string{ws}}, ws, dial...); err != nil {
		t.Fatalf("with the network allowed, connecting failed: %v: %s", err, out)
	}
}

// TestSandboxOff: with the sandbox off by the operator, a process reads
// what tether reads, and the status says so.
func TestSandboxOff(t *testing.T) {
	defer proc.Configure(proc.Options{})
	proc.Configure(proc.Options{Off: true})
	st := proc.SandboxStatus()
	if !strings.Contains(st.String(), "off") || !strings.Contains(st.Note(proc.Servers), "off") {
		t.Fatalf("status with the sandbox off: %q / %q", st, st.Note(proc.Servers))
	}
	dir := t.TempDir()
	f := filepath.Join(dir, "f")
	os.WriteFile(f, []byte("plain"), 0o644)
	out, err := runIn(t, proc.Policy{Peer: "test", Family: proc.Servers, RW: []string{t.TempDir()}}, dir, "/bin/cat", f)
	if err != nil || out != "plain" {
		t.Fatalf("cat with the sandbox off: %v %q", err, out)
	}
}

// TestSandboxMissingProgram: a program that is not there fails to start as
// it would unsandboxed, not as a sandbox failure.
func TestSandboxMissingProgram(t *testing.T) {
	requireSandbox(t)
	ws := t.TempDir()
	out, err := runIn(t, proc.Policy{Peer: "test", Family: proc.Servers, RW: []string{ws}}, ws, filepath.Join(ws, "nope"))
	if err == nil || !strings.Contains(err.Error(), "no such file") || strings.Contains(out, "sandbox") {
		t.Fatalf("missing program: %v %q", err, out)
	}
}

func TestParseNet(t *testing.T) {
	for _, c := range []struct {
		in, out string
		bad     bool
	}{
		{"none", "none", false},
		{"all", "all", false},
		{"eval,debug", "eval,debug", false},
		{"lsp", "lsp", false},
		{"eval,bogus", "", true},
	} {
		n, err := proc.ParseNet(c.in)
		if (err != nil) != c.bad {
			t.Fatalf("ParseNet(%q): %v", c.in, err)
		}
		if err == nil && proc.FormatNet(n) != c.out {
			t.Fatalf("ParseNet(%q) = %q, want %q", c.in, proc.FormatNet(n), c.out)
		}
	}
}

// TestSandboxAsAnotherUser: run by root, it runs the namespace tests again
// as an unprivileged user (nobody), where the launcher's capabilities must
// be ambient to set its namespaces up and must not reach the peer.
func TestSandboxAsAnotherUser(t *testing.T) {
	if os.Getenv("TETHER_TEST_AS_USER") == "1" {
		st := requireSandbox(t)
		if !st.Namespaces {
			t.Fatalf("no namespaces for an unprivileged user: %s", st.NamespacesErr)
		}
		ws := t.TempDir()
		out, err := runIn(t, proc.Policy{Peer: "test", Family: proc.Servers, RW: []string{ws}}, ws, "/bin/grep", "^Cap", "/proc/self/status")
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if f := strings.Fields(l); len(f) == 2 && f[0] != "CapBnd:" && strings.Trim(f[1], "0") != "" {
				t.Errorf("the peer holds capabilities: %s", out)
			}
		}
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("runs the others as an unprivileged user; needs to start as root")
	}
	requireSandbox(t)
	// Not t.TempDir: its parent is private to root.
	dir, err := os.MkdirTemp("", "tether-as-user-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "proc.test")
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run", "^(TestSandboxAsAnotherUser|TestSandboxInit|TestSandboxProc|TestProbeSharedCache|TestProbeUnixSockets|TestProbeNewSession)$", "-test.count=1", "-test.v")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TETHER_TEST_AS_USER=1", "TMPDIR="+dir, "HOME="+dir, "TETHER_REQUIRE_SANDBOX=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
	for _, name := range []string{"TestSandboxInit", "TestSandboxProc", "TestProbeSharedCache", "TestProbeUnixSockets", "TestProbeNewSession"} {
		if !strings.Contains(string(out), "--- PASS: "+name) {
			t.Fatalf("as nobody, %s did not pass:\n%s", name, out)
		}
	}
}

// TestSandboxPseudoFilePath: a table naming a file Landlock takes no rule
// for (a namespace link, as a worker's command line may) still launches.
func TestSandboxPseudoFilePath(t *testing.T) {
	requireSandbox(t)
	ws := t.TempDir()
	out, err := runIn(t, proc.Policy{Peer: "test", Family: proc.Workers, RW: []string{ws}, RO: []string{"/proc/self/ns/pid"}}, ws, "/bin/echo", "ran")
	if err != nil || strings.TrimSpace(out) != "ran" {
		t.Fatalf("%v: %s", err, out)
	}
}

// TestSandboxAddressSpace: a Policy's AddressSpace is the program's
// RLIMIT_AS, soft and hard, and what it starts inherits it; an allocation
// past it fails in the program.
func TestSandboxAddressSpace(t *testing.T) {
	requireSandbox(t)
	const limit = 512 << 20
	for _, f := range proc.Families {
		t.Run(string(f), func(t *testing.T) {
			ws := t.TempDir()
			p := proc.Policy{Peer: "test", Family: f, RW: []string{ws}, AddressSpace: limit}
			out, err := runIn(t, p, ws, "/bin/sh", "-c", "ulimit -S -v; ulimit -H -v; sh -c 'ulimit -v'")
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			want := strconv.Itoa(limit >> 10)
			if got := strings.Fields(out); len(got) != 3 || got[0] != want || got[1] != want || got[2] != want {
				t.Fatalf("ulimit -v (KiB) soft, hard, a child's: %q, want %s each", out, want)
			}
		})
	}
	if !proc.AddressSpaceSet() {
		t.Fatal("AddressSpaceSet is false with the sandbox in force")
	}
}

// niceOf returns the nice value in a /proc/PID/stat text (or -100).
func niceOf(stat string) int {
	f := strings.Fields(stat[strings.LastIndexByte(stat, ')')+1:])
	if len(f) < 17 {
		return -100
	}
	n, _ := strconv.Atoi(f[16])
	return n
}

// TestSandboxPriority: every sandboxed process runs below tether's
// priority, and what it starts inherits it.
func TestSandboxPriority(t *testing.T) {
	requireSandbox(t)
	for _, f := range proc.Families {
		t.Run(string(f), func(t *testing.T) {
			ws := t.TempDir()
			out, err := runIn(t, proc.Policy{Peer: "test", Family: f, RW: []string{ws}}, ws, "/bin/sh", "-c",
				"cat /proc/self/stat; sh -c 'cat /proc/self/stat'")
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if len(lines) != 2 {
				t.Fatalf("output: %q", out)
			}
			if own, child := niceOf(lines[0]), niceOf(lines[1]); own != 10 || child != 10 {
				t.Errorf("nice of the process %d, of its child %d; want 10 both", own, child)
			}
		})
	}
}

// TestSandboxAddressSpaceBelowLauncher: a limit below the launcher's own
// address space (its Go runtime reserves most of a gigabyte) is set and
// the program run every time, though the launcher may map nothing after
// setting it; a limit above it keeps the soft open-files limit of a child
// started without a sandbox.
func TestSandboxAddressSpaceBelowLauncher(t *testing.T) {
	requireSandbox(t)
	ws := t.TempDir()
	const low = 128 << 20
	for i := range 30 {
		out, err := runIn(t, proc.Policy{Peer: "test", Family: proc.Debug, RW: []string{ws}, AddressSpace: low}, ws, "/bin/sh", "-c", "ulimit -v")
		if err != nil || strings.TrimSpace(out) != strconv.Itoa(low>>10) {
			t.Fatalf("launch %d under %d KiB: %v: %q", i, low>>10, err, out)
		}
	}
	plain, err := exec.Command("/bin/sh", "-c", "ulimit -Sn").Output()
	if err != nil {
		t.Fatal(err)
	}
	out, err := runIn(t, proc.Policy{Peer: "test", Family: proc.Debug, RW: []string{ws}, AddressSpace: 8 << 30}, ws, "/bin/sh", "-c", "ulimit -Sn")
	if err != nil || strings.TrimSpace(out) != strings.TrimSpace(string(plain)) {
		t.Fatalf("soft open-files limit under an 8 GiB address space: %q (%v), want %q as without a sandbox", out, err, plain)
	}
}
