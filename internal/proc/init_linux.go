package proc

import "bytes"
import "encoding/binary"
import "encoding/json"
import "errors"
import "os"
import "os/exec"
import "os/signal"
import "runtime"
import "strconv"
import "sync"
import "syscall"
import "weak"

import "golang.org/x/sys/unix"

// A kernel, a debug adapter with its debuggee, and a worker run in a PID
// namespace of their own under a small init: the launcher itself, which
// stays as the namespace's process 1, starts a second launcher that
// confines itself with Landlock and execs the peer, reaps what is
// reparented to it, and exits when the peer does (which ends everything
// left in the namespace). The peer is then an ordinary process (pid 2):
// os.getpid() and os.kill(os.getpid(), ...) behave, and it cannot see or
// signal anything outside its namespace, tether included. The init holds
// no Landlock domain of its own, so the peer's (Landlock's ptrace scoping)
// cannot trace or read it.

// runInit is the namespace's init. argv is the peer's command line.
func runInit(spec launchSpec, argv []string, fail func(string, ...any) int) int {
	if spec.StatusFD > 0 {
		syscall.CloseOnExec(spec.StatusFD)
	}
	// Every signal tether sends to the peer's process group reaches this
	// process too; taken here and dropped (without a handler Go's runtime
	// would exit on SIGINT or SIGTERM, and end the namespace). SIGKILL still
	// ends it, and with it the namespace.
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs)
	go func() {
		for range sigs {
		}
	}()
	stage := spec
	stage.Init, stage.NS, stage.View, stage.NetNS, stage.StatusFD, stage.Cgroup = false, false, false, false, 0, ""
	b, err := json.Marshal(stage)
	if err != nil {
		return fail("%v", err)
	}
	child := exec.Command(selfExe)
	child.Args = append([]string{selfExe, launcherArg}, argv...)
	child.Env = append(os.Environ(), specEnv+"="+string(b))
	child.Stdin, child.Stdout, child.Stderr = os.Stdin, os.Stdout, os.Stderr
	for fd := 3; fd < spec.StatusFD; fd++ {
		child.ExtraFiles = append(child.ExtraFiles, os.NewFile(uintptr(fd), "fd"+strconv.Itoa(fd)))
	}
	child.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := child.Start(); err != nil {
		return fail("starting the confined launcher: %v", err)
	}
	peer := child.Process.Pid
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return fail("waiting for the peer: %v", err)
		}
		if pid != peer {
			continue // an orphan reparented here
		}
		if spec.StatusFD > 0 {
			var buf [4]byte
			binary.LittleEndian.PutUint32(buf[:], uint32(ws))
			_, _ = syscall.Write(spec.StatusFD, buf[:])
		}
		switch {
		case ws.Exited():
			return ws.ExitStatus()
		case ws.Signaled():
			return 128 + int(ws.Signal())
		}
	}
}

// initState is what tether keeps about a command started under an init:
// the pipe the init writes the peer's wait status to, and the peer's pid.
type initState struct {
	r, w   *os.File
	mu     sync.Mutex
	peer   int
	status *syscall.WaitStatus // the peer's, once read
}

// inits holds the state of each command started under an init, keyed
// weakly: an entry goes (its pipe closed) when its command is collected.
var inits sync.Map // weak.Pointer[exec.Cmd] -> *initState

func lookupInit(cmd *exec.Cmd) (*initState, bool) {
	v, ok := inits.Load(weak.Make(cmd))
	if !ok {
		return nil, false
	}
	return v.(*initState), true
}

// withInit sets cmd up for runInit: a status pipe as its last extra file
// (returned as the fd number the init sees).
func withInit(cmd *exec.Cmd) (int, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	if err := unix.SetNonblock(int(r.Fd()), true); err != nil {
		r.Close()
		w.Close()
		return 0, err
	}
	cmd.ExtraFiles = append(cmd.ExtraFiles, w)
	st := &initState{r: r, w: w}
	key := weak.Make(cmd)
	inits.Store(key, st)
	// The pipe lives as long as the command: closed when it is collected.
	runtime.AddCleanup(cmd, func(key weak.Pointer[exec.Cmd]) {
		if v, ok := inits.LoadAndDelete(key); ok {
			v.(*initState).close()
		}
	}, key)
	return 2 + len(cmd.ExtraFiles), nil
}

func (st *initState) close() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.r != nil {
		st.r.Close()
		st.r = nil
	}
	st.closeWrite()
}

// closeWrite drops tether's copy of the write end (after the start).
func (st *initState) closeWrite() {
	if st.w != nil {
		st.w.Close()
		st.w = nil
	}
}

// afterStart holds, per command, files tether passes it and closes its
// own copies of once it started (the locks on its cache layers).
var afterStart sync.Map // weak.Pointer[exec.Cmd] -> []*os.File

// closeAfterStart closes fs when cmd has started (or failed to), or when
// cmd is collected without starting.
func closeAfterStart(cmd *exec.Cmd, fs []*os.File) {
	if len(fs) == 0 {
		return
	}
	key := weak.Make(cmd)
	afterStart.Store(key, fs)
	runtime.AddCleanup(cmd, func(key weak.Pointer[exec.Cmd]) {
		if v, ok := afterStart.LoadAndDelete(key); ok {
			for _, f := range v.([]*os.File) {
				f.Close()
			}
		}
	}, key)
}

// started is called once cmd has started (or failed to).
func started(cmd *exec.Cmd) {
	if v, ok := afterStart.LoadAndDelete(weak.Make(cmd)); ok {
		for _, f := range v.([]*os.File) {
			f.Close()
		}
	}
	if st, ok := lookupInit(cmd); ok {
		st.mu.Lock()
		st.closeWrite()
		st.mu.Unlock()
	}
}

// WaitStatus is how the peer cmd runs ended, once cmd.Wait has returned:
// under an init, the peer's own status (the init exits with 128+n for a
// peer killed by signal n, which would read as an exit); otherwise cmd's.
// ok is false before the end.
func WaitStatus(cmd *exec.Cmd) (ws syscall.WaitStatus, ok bool) {
	if cmd.ProcessState == nil {
		return 0, false
	}
	own, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	st, found := lookupInit(cmd)
	if !found {
		return own, true
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.status == nil && st.r != nil {
		var buf [4]byte
		ws := own // no status: the init itself was killed (SIGKILL), and so was the peer
		if n, _ := st.r.Read(buf[:]); n == 4 {
			ws = syscall.WaitStatus(binary.LittleEndian.Uint32(buf[:]))
		}
		st.status = &ws
		st.r.Close()
		st.r = nil
	}
	if st.status == nil {
		return own, true
	}
	return *st.status, true
}

// PeerPID is the pid of the program cmd runs, as tether sees it: under an
// init, the init's child (0 while it is not started yet); otherwise cmd's
// own pid.
func PeerPID(cmd *exec.Cmd) int {
	if cmd.Process == nil {
		return 0
	}
	st, ok := lookupInit(cmd)
	if !ok {
		return cmd.Process.Pid
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.peer == 0 {
		st.peer = childOf(cmd.Process.Pid)
	}
	return st.peer
}

// childOf finds the first child of pid in the process table (0: none):
// the one started first, as orphans reparented to an init are its
// children too (and pids wrap, so the lowest need not be the oldest).
func childOf(pid int) int {
	first, at := 0, uint64(0)
	for _, p := range pids() {
		if ParentPID(p) != pid {
			continue
		}
		st, err := startTime(p)
		if err != nil {
			continue
		}
		if first == 0 || st < at {
			first, at = p, st
		}
	}
	return first
}

// HostPID translates nsPid, a pid in the PID namespace cmd's process runs
// in (a debug adapter's "process" event), to the pid tether sees. ok is
// false when no such process is found there; when cmd is not in a PID
// namespace of its own, nsPid is returned as it is.
func HostPID(cmd *exec.Cmd, nsPid int) (int, bool) {
	if cmd.Process == nil {
		return 0, false
	}
	root := cmd.Process.Pid
	ns, err := os.Readlink("/proc/" + strconv.Itoa(root) + "/ns/pid")
	if err != nil {
		return 0, false
	}
	self, _ := os.Readlink("/proc/self/ns/pid")
	if ns == self {
		return nsPid, true
	}
	want := strconv.Itoa(nsPid)
	for _, p := range pids() {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/status")
		if err != nil {
			continue
		}
		_, rest, found := bytes.Cut(b, []byte("\nNSpid:"))
		if !found {
			continue
		}
		line, _, _ := bytes.Cut(rest, []byte("\n"))
		f := bytes.Fields(line)
		if len(f) < 2 || string(f[len(f)-1]) != want {
			continue
		}
		if l, err := os.Readlink("/proc/" + strconv.Itoa(p) + "/ns/pid"); err == nil && l == ns {
			return p, true
		}
	}
	return 0, false
}
