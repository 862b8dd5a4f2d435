package proc

import "bufio"
import "bytes"
import "encoding/json"
import "fmt"
import "net"
import "os"
import "os/exec"
import "path/filepath"
import "slices"
import "strconv"
import "strings"
import "syscall"
import "testing"
import "time"

import "golang.org/x/sys/unix"

// testZygote is forkchild.py and testdata/forked_confine.py running under
// the launcher as SandboxZygote starts a zygote.
type testZygote struct {
	cmd  *exec.Cmd
	sock int
	r    *bufio.Reader
}

// startTestZygote starts the zygote as a kernel's would start: namespaces,
// a filesystem view of the system's paths, its own init, no Landlock and
// no workspace in its view.
func startTestZygote(t *testing.T) *testZygote {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	theirs := os.NewFile(uintptr(fds[1]), "zygote socket")
	defer theirs.Close()
	src, err := os.ReadFile("testdata/forked_confine.py")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/usr/bin/python3", "-c", ForkChildSource+string(src))
	cmd.ExtraFiles = []*os.File{theirs}
	cmd.Env = []string{"ZYGOTE_FD=3", "PATH=/usr/bin:/bin"}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := SandboxZygote(cmd, ZygotePolicy(Policy{Peer: "python kernel", Family: Kernels}, t.TempDir())); err != nil {
		t.Fatal(err)
	}
	if err := Start(cmd); err != nil {
		t.Fatal(err)
	}
	// Ours is closed as the File it is wrapped in, once: a close by number
	// here and again by the File's cleanup after a collection would close
	// whatever a later test had opened under that number (a terminal's
	// master, a file the reaper reads).
	ours := os.NewFile(uintptr(fds[0]), "zygote")
	t.Cleanup(func() {
		ours.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("zygote's stderr: %s", stderr.String())
		}
	})
	return &testZygote{cmd: cmd, sock: fds[0], r: bufio.NewReader(ours)}
}

// forkedReport is what a forked child saw once confined.
type forkedReport struct {
	Error     string            `json:"error"`
	PID       int               `json:"pid"`
	PPID      int               `json:"ppid"`
	Cwd       string            `json:"cwd"`
	Caps      map[string]string `json:"caps"`
	Own       string            `json:"own"`
	WriteOwn  string            `json:"write_own"`
	WriteTmp  string            `json:"write_tmp"`
	Other     string            `json:"other"`
	Shadow    string            `json:"shadow"`
	WriteUsr  string            `json:"write_usr"`
	Ungranted string            `json:"ungranted"`
	Proc      []int             `json:"proc"`
	SignalAll string            `json:"signal_all"`
	SignalSib string            `json:"signal_sibling"`
	PtraceSib string            `json:"ptrace_sibling"`
	SignalZyg string            `json:"signal_zygote"`
	PtraceZyg string            `json:"ptrace_zygote"`
	HostTCP   string            `json:"host_tcp"`
	Forked    int               `json:"forked"`
	ForkError string            `json:"fork_error"`
	FDs       []string          `json:"fds"`
	Env       map[string]string `json:"env"`
	Pts       []string          `json:"pts"`
	Landlock  int               `json:"landlock"`
	// hostPID is the forked child as tether sees it, from its credentials:
	// the leader of the kernel's process group (gone once it forked the
	// init); kernelPID the kernel, from the credentials of its word.
	hostPID, kernelPID int
	// rep is the kernel's own socket (the report, then "interrupted");
	// ctl the child's socket to tether (the init's "status N").
	rep, ctl *lineSock
}

// lineSock reads a socket's lines.
type lineSock struct {
	f *os.File
	r *bufio.Reader
}

// line is the socket's next line, within 60 seconds ("" at its end).
func (s *lineSock) line(t *testing.T) string {
	t.Helper()
	line := make(chan string, 1)
	go func() {
		l, _ := s.r.ReadString('\n')
		line <- l
	}()
	select {
	case l := <-line:
		return strings.TrimSuffix(l, "\n")
	case <-time.After(60 * time.Second):
		t.Fatal("the forked child said nothing within 60s")
		return ""
	}
}

// forkRequest is what one child is given: its spec, and what it then
// tries to reach (another session's file, a path of the zygote's own, a
// sibling's and the zygote's pids, a TCP listener of tether's), and how
// many processes to fork.
type forkRequest struct {
	Spec      ForkSpec `json:"spec"`
	WS        string   `json:"ws"`
	Other     string   `json:"other"`
	Ungranted string   `json:"ungranted"`
	Sibling   int      `json:"sibling"`
	Zygote    int      `json:"zygote"`
	Port      int      `json:"port"`
	Forks     int      `json:"forks"`
}

// fork asks the zygote for a child of req.Spec, given trees, detached
// trees of its Trees (closed here). The child's first word on its own
// socket carries its pid (SO_PASSCRED translates it into tether's PID
// namespace); tether puts that pid in cg (when not nil) before letting it
// go on. The child stays alive until the test ends.
func (z *testZygote) fork(t *testing.T, req forkRequest, trees []int, cg *PidsCgroup) *forkedReport {
	t.Helper()
	defer func() {
		for _, fd := range trees {
			unix.Close(fd)
		}
	}()
	pair := func(what string) (ours *lineSock, theirs int) {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		f := os.NewFile(uintptr(fds[0]), what)
		t.Cleanup(func() { f.Close() })
		return &lineSock{f, bufio.NewReader(f)}, fds[1]
	}
	ctl, ctlTheirs := pair("the forked child's socket")
	rep, repTheirs := pair("the kernel's socket")
	if err := unix.SetsockoptInt(int(ctl.f.Fd()), unix.SOL_SOCKET, unix.SO_PASSCRED, 1); err != nil {
		t.Fatal(err)
	}
	msg, _ := json.Marshal(req)
	err := unix.Sendmsg(z.sock, msg, unix.UnixRights(append(slices.Clone(trees), ctlTheirs, repTheirs)...), nil, 0)
	unix.Close(ctlTheirs)
	unix.Close(repTheirs)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := z.r.ReadString('\n'); err != nil {
		t.Fatalf("the zygote did not answer: %v", err)
	}
	r := forkedReport{rep: rep, ctl: ctl}
	var word string
	if word, r.hostPID = credWord(t, int(ctl.f.Fd())); word != "hello\n" {
		t.Fatalf("the forked child said %q, want hello", word)
	}
	if cg != nil {
		if err := cg.Add(r.hostPID); err != nil {
			t.Fatalf("moving the forked child %d into its cgroup: %v", r.hostPID, err)
		}
	}
	if _, err := ctl.f.Write([]byte("go\n")); err != nil {
		t.Fatal(err)
	}
	if word, r.kernelPID = credWord(t, int(ctl.f.Fd())); word != "kernel\n" {
		t.Fatalf("the forked child could not confine itself: %s", word)
	}
	l := rep.line(t)
	if err := json.Unmarshal([]byte(l), &r); err != nil {
		t.Fatalf("the child reported %q: %v", l, err)
	}
	if r.Error != "" {
		t.Fatalf("the forked kernel failed: %s", r.Error)
	}
	return &r
}

// trees opens detached trees of spec's Trees, by tether itself where it
// may unless helper, else by DetachedTree's helper.
func trees(t *testing.T, spec ForkSpec, helper bool) []int {
	t.Helper()
	var out []int
	for _, d := range spec.Trees {
		fd, err := DetachedTree(d)
		if helper {
			if err == nil {
				unix.Close(fd)
			}
			fd, err = helperTree(d)
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fd)
	}
	return out
}

// credWord reads the next word on sock (at most 4 KiB) and returns it with
// the pid its credentials carry.
func credWord(t *testing.T, sock int) (string, int) {
	t.Helper()
	buf, oob := make([]byte, 4096), make([]byte, unix.CmsgSpace(unix.SizeofUcred))
	n, oobn, _, _, err := unix.Recvmsg(sock, buf, oob, 0)
	if err != nil {
		t.Fatalf("the forked child's word: %v", err)
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		t.Fatalf("the credentials of %q: %v (%d messages)", buf[:n], err, len(msgs))
	}
	cred, err := unix.ParseUnixCredentials(&msgs[0])
	if err != nil {
		t.Fatal(err)
	}
	return string(buf[:n]), int(cred.Pid)
}

// TestForkedKernelConfinement checks, under the real launcher, what a
// kernel forked from a shared Python zygote would rest on: a zygote with
// namespaces and a view but no Landlock domain (a domain would deny its
// children every workspace, and every mount), and children that take
// namespaces of their own, move in their workspace from a detached mount
// tree (a plain directory descriptor from another mount namespace cannot
// be bind-mounted: EINVAL) made by tether or, as an unprivileged tether
// would, by a helper in namespaces of its own, pivot and Landlock
// themselves before any cell. Each child must read and write its own
// workspace only, see no other, see and signal no process but itself (not
// its sibling, not the zygote), trace none, and hold no socket to the
// zygote; without the network it has a network namespace of its own and
// cannot reach tether's listener. tether learns each child's pid from its
// socket's credentials and puts it in a pids cgroup before it goes on: the
// cgroup's cap holds for what the child forks.
func TestForkedKernelConfinement(t *testing.T) {
	st := SandboxStatus()
	if !st.View || st.Landlock < 1 {
		t.Skipf("needs Landlock and the filesystem view: %s", st)
	}
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("needs /usr/bin/python3")
	}
	base := t.TempDir()
	for _, n := range []string{"a", "b"} {
		if err := os.Mkdir(filepath.Join(base, n), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(base, n, "f"), []byte("secret-"+n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	const limit, forks = 8, 20
	cg, cgErr := NewPidsCgroup("zygote-test", limit)
	if cgErr == nil {
		defer cg.Stop()
	}
	z := startTestZygote(t)
	zScratch := filepath.Join(base, "zygote-scratch")
	spec := func(ws string, net bool) ForkSpec {
		sp, err := NewForkSpec(Policy{Peer: "python kernel", Family: Kernels, RW: []string{ws}, Scratch: filepath.Join(base, "scratch-"+filepath.Base(ws))}, ws, []string{"PATH=/usr/bin:/bin", "LANG=C.UTF-8"})
		if err != nil {
			t.Fatal(err)
		}
		sp.Net = net
		return sp
	}
	// b first (with the network, the family's default), trying to reach
	// the zygote's init; then a (without), trying b's kernel and the
	// zygote, which by then are there to name. b's trees made as an
	// unprivileged tether would, by the helper; a's by tether itself where
	// it may.
	sb := spec(b, true)
	rb := z.fork(t, forkRequest{Spec: sb, WS: b, Other: filepath.Join(a, "f"), Ungranted: zScratch, Sibling: z.cmd.Process.Pid, Zygote: z.cmd.Process.Pid, Port: port, Forks: forks}, trees(t, sb, true), cg)
	// The zygote: its init's first child (the forked children's inits are
	// its orphans there).
	zpid := childOf(z.cmd.Process.Pid)
	bKernel := rb.kernelPID
	sa := spec(a, false)
	ra := z.fork(t, forkRequest{Spec: sa, WS: a, Other: filepath.Join(b, "f"), Ungranted: zScratch, Sibling: bKernel, Zygote: zpid, Port: port, Forks: forks}, trees(t, sa, false), nil)
	aKernel := ra.kernelPID
	for _, pid := range []int{aKernel, bKernel} {
		st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		f := strings.Fields(string(st[bytes.LastIndexByte(st, ')')+1:]))
		if len(f) < 17 || f[16] != strconv.Itoa(peerNice) {
			t.Errorf("the forked kernel %d runs below tether's priority? stat %s; want nice %d", pid, st, peerNice)
		}
	}
	if ra.HostTCP == "ok" {
		t.Error("a, without the network, reached tether's TCP listener")
	}
	if netNS(t, aKernel) == netNS(t, zpid) {
		t.Error("a, without the network, shares the zygote's network namespace")
	}
	if rb.HostTCP != "ok" || netNS(t, bKernel) != netNS(t, os.Getpid()) {
		t.Errorf("b, with the network: tether's TCP listener %q; want ok, in tether's network namespace", rb.HostTCP)
	}
	if cgErr != nil {
		t.Logf("no pids cgroup here, the process cap is not checked: %v", cgErr)
	} else if rb.Forked >= forks || rb.ForkError != "Resource temporarily unavailable" {
		t.Errorf("b in a pids cgroup of %d: forked %d of %d (%s), want a fork refused with EAGAIN", limit, rb.Forked, forks, rb.ForkError)
	}
	if ra.Forked != forks {
		t.Errorf("a, in no cgroup of its own: forked %d of %d (%s)", ra.Forked, forks, ra.ForkError)
	}
	for _, c := range []struct {
		name, own string
		r         *forkedReport
		spec      ForkSpec
	}{{"a", "secret-a", ra, sa}, {"b", "secret-b", rb, sb}} {
		t.Run(c.name, func(t *testing.T) { checkConfined(t, c.r, c.own, c.spec) })
	}
	// tether interrupts a kernel through its group, by the pid its
	// credentials gave; the kernel's own SIGKILL ends it, and its init
	// tells tether how.
	if err := syscall.Kill(-ra.hostPID, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if l := ra.rep.line(t); l != "interrupted" {
		t.Errorf("after SIGINT to its group, a said %q; want interrupted", l)
	}
	if _, err := ra.rep.f.Write([]byte("die\n")); err != nil {
		t.Fatal(err)
	}
	if l := ra.ctl.line(t); l != "status "+strconv.Itoa(int(syscall.SIGKILL)) {
		t.Errorf("a's init reported %q after the kernel killed itself; want the wait status of SIGKILL", l)
	}
	// The zygote itself stays out of every workspace.
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(zpid) + "/root" + a + "/f"); err == nil {
		t.Errorf("the zygote's root shows a's workspace: %q", b)
	}
}

// checkConfined checks what a forked kernel saw: its own workspace (whose
// file holds own) and nothing else.
func checkConfined(t *testing.T, r *forkedReport, own string, spec ForkSpec) {
	t.Helper()
	if r.Own != own || r.WriteOwn != "ok" || r.WriteTmp != "ok" {
		t.Errorf("own workspace: read %q, write %q; scratch: write %q; want %q, ok and ok", r.Own, r.WriteOwn, r.WriteTmp, own)
	}
	if r.Cwd != spec.Cwd {
		t.Errorf("working directory %q, want %q", r.Cwd, spec.Cwd)
	}
	if r.Other != "No such file or directory" {
		t.Errorf("the other session's workspace: %q, want it not there at all", r.Other)
	}
	if r.Ungranted != "No such file or directory" {
		t.Errorf("the zygote's scratch: %q, want it not there at all", r.Ungranted)
	}
	if !slices.Contains([]string{"No such file or directory", "Permission denied"}, r.Shadow) {
		t.Errorf("/etc/shadow: %q", r.Shadow)
	}
	if r.WriteUsr == "ok" {
		t.Error("wrote into /usr")
	}
	if r.PID != 2 || r.PPID != 1 || !slices.Equal(r.Proc, []int{1, 2}) {
		t.Errorf("pid %d, parent %d, /proc lists %v: want a PID namespace of its own with its init and itself alone", r.PID, r.PPID, r.Proc)
	}
	for what, got := range map[string]string{"kill(-1)": r.SignalAll, "signal the sibling": r.SignalSib, "trace the sibling": r.PtraceSib, "signal the zygote": r.SignalZyg, "trace the zygote": r.PtraceZyg} {
		if got == "ok" {
			t.Errorf("%s: allowed", what)
		}
	}
	for _, c := range []string{"CapInh", "CapPrm", "CapEff", "CapAmb"} {
		if r.Caps[c] != "0000000000000000" {
			t.Errorf("%s %s: want no capability left", c, r.Caps[c])
		}
	}
	// Its kernel's socket and the descriptors listdir opened, nothing else
	// (no socket to the zygote, no tree, no other child's pipe).
	sockets := 0
	for _, f := range r.FDs {
		if strings.HasPrefix(f, "socket:") {
			sockets++
		}
	}
	if sockets != 1 || len(r.FDs) > 4 {
		t.Errorf("holds %v: want stdin, stdout, stderr and its own socket", r.FDs)
	}
	want := map[string]string{"PATH": "/usr/bin:/bin", "TMPDIR": spec.Trees[len(spec.Trees)-1]}
	for k, v := range want {
		if r.Env[k] != v {
			t.Errorf("environment %s=%q, want %q", k, r.Env[k], v)
		}
	}
	if len(r.Pts) != 1 || r.Pts[0] != "ptmx" {
		t.Errorf("/dev/pts holds %v: want a devpts of its own with no terminal", r.Pts)
	}
	if r.Landlock < 1 {
		t.Errorf("Landlock ABI %d in the child", r.Landlock)
	}
}

// netNS names pid's network namespace.
func netNS(t *testing.T, pid int) string {
	t.Helper()
	ns, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	return ns
}
