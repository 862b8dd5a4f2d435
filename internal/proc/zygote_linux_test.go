package proc

import (
	"bufio"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// testZygote is testdata/forked_confine.py running under the launcher.
type testZygote struct {
	cmd  *exec.Cmd
	sock int
	r    *bufio.Reader
}

// startTestZygote starts the zygote as a kernel starts today (namespaces, a
// filesystem view of the system's paths, its own init) but without Landlock
// and without any workspace in its view.
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
	cmd := exec.Command("/usr/bin/python3", "-c", string(src))
	cmd.ExtraFiles = []*os.File{theirs}
	cmd.Env = []string{"ZYGOTE_FD=3", "PATH=/usr/bin:/bin"}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := sandbox(cmd, Policy{Peer: "python zygote", Family: Kernels, Scratch: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	for i, e := range cmd.Env {
		if v, ok := strings.CutPrefix(e, specEnv+"="); ok {
			var spec launchSpec
			if err := json.Unmarshal([]byte(v), &spec); err != nil {
				t.Fatal(err)
			}
			spec.Landlock = false
			b, _ := json.Marshal(spec)
			cmd.Env[i] = specEnv + "=" + string(b)
		}
	}
	if err := Start(cmd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		unix.Close(fds[0])
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("zygote's stderr: %s", stderr.String())
		}
	})
	return &testZygote{cmd: cmd, sock: fds[0], r: bufio.NewReader(os.NewFile(uintptr(fds[0]), "zygote"))}
}

// forkedReport is what a forked child saw once confined.
type forkedReport struct {
	Error     string   `json:"error"`
	PID       int      `json:"pid"`
	PPID      int      `json:"ppid"`
	Own       string   `json:"own"`
	WriteOwn  string   `json:"write_own"`
	Other     string   `json:"other"`
	Shadow    string   `json:"shadow"`
	WriteUsr  string   `json:"write_usr"`
	Ungranted string   `json:"ungranted"`
	Proc      []int    `json:"proc"`
	SignalAll string   `json:"signal_all"`
	SignalSib string   `json:"signal_sibling"`
	PtraceSib string   `json:"ptrace_sibling"`
	SignalZyg string   `json:"signal_zygote"`
	PtraceZyg string   `json:"ptrace_zygote"`
	HostTCP   string   `json:"host_tcp"`
	Forked    int      `json:"forked"`
	ForkError string   `json:"fork_error"`
	Sockets   []string `json:"sockets"`
	Landlock  int      `json:"landlock"`
	// hostPID is the forked child as tether sees it, from its credentials:
	// the leader of the kernel's process group.
	hostPID int
	// sock is the child's socket, lines the kernel's and its init's words
	// after the report.
	sock  *os.File
	lines *bufio.Reader
}

// line is the child's next line, within 60 seconds.
func (r *forkedReport) line(t *testing.T) string {
	t.Helper()
	line := make(chan string, 1)
	go func() {
		l, _ := r.lines.ReadString('\n')
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

// forkRequest is what one child is given: its workspace, and what it then
// tries to reach (another session's file, a sibling's and the zygote's
// pids, a TCP listener of tether's), and how many processes to fork.
type forkRequest struct {
	WS      string `json:"ws"`
	Other   string `json:"other"`
	Sibling int    `json:"sibling"`
	Zygote  int    `json:"zygote"`
	Net     bool   `json:"net"`
	Port    int    `json:"port"`
	Forks   int    `json:"forks"`
}

// fork asks the zygote for a child confined to req.WS, given tree, a
// detached tree of it (closed here). The child's first word on its own socket carries its pid
// (SO_PASSCRED translates it into tether's PID namespace); tether puts that
// pid in cg (when not nil) before letting it go on. The child stays alive
// until the test ends.
func (z *testZygote) fork(t *testing.T, req forkRequest, tree int, cg *PidsCgroup) *forkedReport {
	t.Helper()
	defer unix.Close(tree)
	ctl, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	ours := os.NewFile(uintptr(ctl[0]), "the forked child's socket")
	t.Cleanup(func() { ours.Close() })
	if err := unix.SetsockoptInt(ctl[0], unix.SOL_SOCKET, unix.SO_PASSCRED, 1); err != nil {
		t.Fatal(err)
	}
	holdR, holdW, _ := os.Pipe()
	t.Cleanup(func() { holdW.Close() })
	msg, _ := json.Marshal(req)
	err = unix.Sendmsg(z.sock, msg, unix.UnixRights(tree, ctl[1], int(holdR.Fd())), nil, 0)
	unix.Close(ctl[1])
	holdR.Close()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := z.r.ReadString('\n'); err != nil {
		t.Fatalf("the zygote did not answer: %v", err)
	}
	var r forkedReport
	r.hostPID = helloPID(t, ctl[0])
	if cg != nil {
		if err := cg.Add(r.hostPID); err != nil {
			t.Fatalf("moving the forked child %d into its cgroup: %v", r.hostPID, err)
		}
	}
	if _, err := ours.Write([]byte("go\n")); err != nil {
		t.Fatal(err)
	}
	r.sock, r.lines = ours, bufio.NewReader(ours)
	l := r.line(t)
	if err := json.Unmarshal([]byte(l), &r); err != nil {
		t.Fatalf("the child reported %q: %v", l, err)
	}
	if r.Error != "" {
		t.Fatalf("the forked child could not confine itself: %s", r.Error)
	}
	return &r
}

// ownTree is a detached tree of dir made by tether itself, which needs
// CAP_SYS_ADMIN in its mount namespace; ok is false without.
func ownTree(t *testing.T, dir string) (tree int, ok bool) {
	t.Helper()
	tree, err := unix.OpenTree(unix.AT_FDCWD, dir, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
	if errors.Is(err, unix.EPERM) {
		return -1, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return tree, true
}

// helperTree is a detached tree of dir made as an unprivileged tether
// would: by testdata/tree_helper.py in namespaces of its own.
func helperTree(t *testing.T, dir string) int {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[0])
	theirs := os.NewFile(uintptr(fds[1]), "tree socket")
	cmd := exec.Command("/usr/bin/python3", "testdata/tree_helper.py", dir)
	cmd.ExtraFiles = []*os.File{theirs}
	cmd.Env = []string{"TREE_FD=3"}
	out, err := cmd.CombinedOutput()
	theirs.Close()
	if err != nil {
		t.Fatalf("testdata/tree_helper.py: %v: %s", err, out)
	}
	buf, oob := make([]byte, 1), make([]byte, unix.CmsgSpace(4))
	_, oobn, _, _, err := unix.Recvmsg(fds[0], buf, oob, 0)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		t.Fatalf("the helper's tree: %v (%d messages)", err, len(msgs))
	}
	rights, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(rights) != 1 {
		t.Fatalf("the helper's tree: %v (%d descriptors)", err, len(rights))
	}
	return rights[0]
}

// helloPID reads the child's first word on sock and returns the pid its
// credentials carry.
func helloPID(t *testing.T, sock int) int {
	t.Helper()
	buf, oob := make([]byte, 6), make([]byte, unix.CmsgSpace(unix.SizeofUcred))
	n, oobn, _, _, err := unix.Recvmsg(sock, buf, oob, 0)
	if err != nil || string(buf[:n]) != "hello\n" {
		t.Fatalf("the forked child's hello: %q, %v", buf[:n], err)
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		t.Fatalf("the hello's credentials: %v (%d messages)", err, len(msgs))
	}
	cred, err := unix.ParseUnixCredentials(&msgs[0])
	if err != nil {
		t.Fatal(err)
	}
	return int(cred.Pid)
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
	// b first (with the network, the family's default), trying to reach
	// the zygote's init; then a (without), trying b's kernel and the
	// zygote, which by then are there to name.
	// b's tree made as an unprivileged tether would; a's by tether itself
	// where it may.
	rb := z.fork(t, forkRequest{WS: b, Other: filepath.Join(a, "f"), Sibling: z.cmd.Process.Pid, Zygote: z.cmd.Process.Pid, Net: true, Port: port, Forks: forks}, helperTree(t, b), cg)
	zpid := onlyChild(t, z.cmd.Process.Pid)
	// Each kernel as tether sees it: the forked child's init's child.
	bKernel := onlyChild(t, onlyChild(t, rb.hostPID))
	aTree, ok := ownTree(t, a)
	if !ok {
		t.Log("tether may not open_tree here: a's tree comes from the helper too")
		aTree = helperTree(t, a)
	}
	ra := z.fork(t, forkRequest{WS: a, Other: filepath.Join(b, "f"), Sibling: bKernel, Zygote: zpid, Port: port, Forks: forks}, aTree, nil)
	aKernel := onlyChild(t, onlyChild(t, ra.hostPID))
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
	}{{"a", "secret-a", ra}, {"b", "secret-b", rb}} {
		t.Run(c.name, func(t *testing.T) { checkConfined(t, c.r, c.own) })
	}
	// tether interrupts a kernel through its group, by the pid its
	// credentials gave; the kernel's own SIGKILL ends it, and its init
	// tells tether how.
	if err := syscall.Kill(-ra.hostPID, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if l := ra.line(t); l != "interrupted" {
		t.Errorf("after SIGINT to its group, a said %q; want interrupted", l)
	}
	if _, err := ra.sock.Write([]byte("die\n")); err != nil {
		t.Fatal(err)
	}
	if l := ra.line(t); l != "status "+strconv.Itoa(int(syscall.SIGKILL)) {
		t.Errorf("a's init reported %q after the kernel killed itself; want the wait status of SIGKILL", l)
	}
	// The zygote itself stays out of every workspace.
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(zpid) + "/root" + a + "/f"); err == nil {
		t.Errorf("the zygote's root shows a's workspace: %q", b)
	}
}

// checkConfined checks what a forked kernel saw: its own workspace (whose
// file holds own) and nothing else.
func checkConfined(t *testing.T, r *forkedReport, own string) {
	t.Helper()
	if r.Own != own || r.WriteOwn != "ok" {
		t.Errorf("own workspace: read %q, write %q; want %q and ok", r.Own, r.WriteOwn, own)
	}
	if r.Other != "No such file or directory" {
		t.Errorf("the other session's workspace: %q, want it not there at all", r.Other)
	}
	if !slices.Contains([]string{"No such file or directory", "Permission denied"}, r.Shadow) {
		t.Errorf("/etc/shadow: %q", r.Shadow)
	}
	if r.Ungranted != "Permission denied" {
		t.Errorf("a path of the zygote's view that Landlock does not grant: %q, want Permission denied", r.Ungranted)
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
	if len(r.Sockets) != 0 {
		t.Errorf("holds sockets %v: the zygote's must be closed", r.Sockets)
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

// onlyChild is pid's one child, from /proc: the children of each of its
// threads (the test fails without exactly one).
func onlyChild(t *testing.T, pid int) int {
	t.Helper()
	var kids []string
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		kids = append(kids, strings.Fields(string(b))...)
	}
	if len(kids) != 1 {
		t.Fatalf("process %d has not exactly one child: %v", pid, kids)
	}
	n, _ := strconv.Atoi(kids[0])
	return n
}
