package proc

import "encoding/json"
import "errors"
import "fmt"
import "os"
import "os/exec"
import "runtime"
import "sync"
import "syscall"

import "golang.org/x/sys/unix"

// spawnerArg makes this binary a spawner (see init): it starts processes
// for the process that started it, over the socket at descriptor 3.
const spawnerArg = "__tether-spawner"

// A process started in a new user namespace is a full fork of its parent:
// Go's os/exec cannot vfork then, since the parent writes the child's id
// maps while the child waits. In a host serving hundreds of sessions that
// is a copy of a heap of 100 MB or more for every kernel, the child's
// teardown of that copy at exec, and a write-protect fault in the host for
// every page it writes after each fork: about 13 ms of CPU a kernel at 200
// sessions, more than the kernel's own start. Spawn has a spawner, this
// binary re-run and stopped in init before any other package starts, fork
// the process instead: its heap is a few megabytes.

// spawnAttr is the part of syscall.SysProcAttr that Start and Sandbox set.
type spawnAttr struct {
	Setsid       bool                   `json:"setsid,omitempty"`
	Setpgid      bool                   `json:"setpgid,omitempty"`
	Pgid         int                    `json:"pgid,omitempty"`
	Pdeathsig    syscall.Signal         `json:"pdeathsig,omitempty"`
	Cloneflags   uintptr                `json:"cloneflags,omitempty"`
	Unshareflags uintptr                `json:"unshareflags,omitempty"`
	UidMappings  []syscall.SysProcIDMap `json:"uids,omitempty"`
	GidMappings  []syscall.SysProcIDMap `json:"gids,omitempty"`
	Setgroups    bool                   `json:"setgroups,omitempty"`
	AmbientCaps  []uintptr              `json:"ambient,omitempty"`
}

// spawnRequest is one process to start: what exec.Cmd would start, and
// which of the descriptors passed with it are stdin, stdout and stderr
// (-1: none); the rest are its ExtraFiles, in order.
type spawnRequest struct {
	ID   uint64    `json:"id"`
	Path string    `json:"path"`
	Args []string  `json:"args"`
	Env  []string  `json:"env"`
	Dir  string    `json:"dir,omitempty"`
	Std  [3]int    `json:"std"`
	Attr spawnAttr `json:"attr"`
}

// spawnReply answers a request (Pid, with a pidfd alongside, or Err), and
// later says how the process ended (Exited, Status).
type spawnReply struct {
	ID     uint64 `json:"id"`
	Pid    int    `json:"pid,omitempty"`
	Err    string `json:"err,omitempty"`
	Exited bool   `json:"exited,omitempty"`
	Status uint32 `json:"status,omitempty"`
}

// maxSpawnFiles bounds the descriptors one request passes.
const maxSpawnFiles = 64

// spawnMsgMax bounds a message: a request carries the environment, with
// the sandbox's launch spec in it.
const spawnMsgMax = 1 << 20

// Spawn starts cmd, prepared as for Start (Sandbox and all), from the
// spawner, so that this process is not forked; where there is no spawner,
// it starts cmd here. cmd's standard streams must be files or nil, and
// cmd itself is not started: the returned Process is the process.
func Spawn(cmd *exec.Cmd) (*Process, error) {
	if cmd.Err != nil || len(cmd.ExtraFiles) > maxSpawnFiles-3 || cmd.SysProcAttr != nil && !spawnable(cmd.SysProcAttr) {
		return startHere(cmd)
	}
	prepare(cmd)
	std, err := stdFiles(cmd)
	if err != nil {
		return startHere(cmd)
	}
	s := theSpawner()
	if s == nil {
		return startHere(cmd)
	}
	p, err := s.spawn(cmd, std)
	if errors.Is(err, errSpawnerGone) {
		return startHere(cmd)
	}
	started(cmd)
	return p, err
}

// spawnable reports whether a reaches the spawner whole (spawnAttr holds
// every field set).
func spawnable(a *syscall.SysProcAttr) bool {
	b := *a
	b.Setsid, b.Setpgid, b.Pgid, b.Pdeathsig = false, false, 0, 0
	b.Cloneflags, b.Unshareflags, b.UidMappings, b.GidMappings = 0, 0, nil, nil
	b.GidMappingsEnableSetgroups, b.AmbientCaps = false, nil
	return b.Chroot == "" && b.Credential == nil && !b.Ptrace && !b.Setctty && !b.Noctty && !b.Foreground &&
		b.Ctty == 0 && !b.UseCgroupFD && b.PidFD == nil
}

// errSpawnerGone: the spawner ended before it answered; the caller starts
// the process itself.
var errSpawnerGone = errors.New("proc: the process spawner ended")

type spawner struct {
	fd   int // this end of the socket; -1 once closed (changed under wmu)
	wmu  sync.Mutex
	mu   sync.Mutex
	next uint64
	wait map[uint64]chan spawnResult // requests not answered yet
	live map[uint64]*Process         // started, not ended
	gone bool
}

var (
	spawnerMu  sync.Mutex
	theSpawn   *spawner
	spawnFails int
)

// theSpawner returns the running spawner, starting one if there is none
// (nil: it cannot be started; after three failures it is not tried again).
func theSpawner() *spawner {
	spawnerMu.Lock()
	defer spawnerMu.Unlock()
	if theSpawn != nil && !theSpawn.ended() {
		return theSpawn
	}
	if spawnFails >= 3 {
		return nil
	}
	s, err := startSpawner()
	if err != nil {
		spawnFails++
		return nil
	}
	theSpawn = s
	return s
}

func (s *spawner) ended() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gone
}

// startSpawner starts this binary as a spawner, a child started by Start
// (so it has the parent-death signal and the sentinel's mark, and its own
// children end with it).
func startSpawner() (*spawner, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	theirs := os.NewFile(uintptr(fds[1]), "spawner")
	cmd := exec.Command(selfExe, spawnerArg)
	cmd.ExtraFiles = []*os.File{theirs}
	cmd.Stderr = os.Stderr
	err = Start(cmd)
	theirs.Close()
	if err != nil {
		unix.Close(fds[0])
		return nil, err
	}
	s := &spawner{fd: fds[0], wait: map[uint64]chan spawnResult{}, live: map[uint64]*Process{}}
	go s.read()
	go func() {
		_ = cmd.Wait()
		s.end()
	}()
	return s, nil
}

// spawn sends cmd to the spawner and waits for its answer.
func (s *spawner) spawn(cmd *exec.Cmd, std [3]*os.File) (*Process, error) {
	req := spawnRequest{Path: cmd.Path, Args: cmd.Args, Env: cmd.Env, Dir: cmd.Dir, Std: [3]int{-1, -1, -1}}
	if req.Env == nil {
		req.Env = os.Environ()
	}
	if a := cmd.SysProcAttr; a != nil {
		req.Attr = spawnAttr{Setsid: a.Setsid, Setpgid: a.Setpgid, Pgid: a.Pgid, Pdeathsig: a.Pdeathsig,
			Cloneflags: a.Cloneflags, Unshareflags: a.Unshareflags, UidMappings: a.UidMappings, GidMappings: a.GidMappings,
			Setgroups: a.GidMappingsEnableSetgroups, AmbientCaps: a.AmbientCaps}
	}
	var files []int
	for i, f := range std {
		if f != nil {
			req.Std[i] = len(files)
			files = append(files, int(f.Fd()))
		}
	}
	for _, f := range cmd.ExtraFiles {
		if f == nil {
			return startHere(cmd)
		}
		files = append(files, int(f.Fd()))
	}
	ch := make(chan spawnResult, 1)
	s.mu.Lock()
	if s.gone {
		s.mu.Unlock()
		return nil, errSpawnerGone
	}
	s.next++
	req.ID = s.next
	s.wait[req.ID] = ch
	s.mu.Unlock()
	b, err := json.Marshal(req)
	if err == nil && len(b) > spawnMsgMax {
		err = fmt.Errorf("proc: a spawn request of %d bytes", len(b))
	}
	if err == nil {
		s.wmu.Lock()
		if s.fd < 0 {
			err = errSpawnerGone
		} else {
			err = unix.Sendmsg(s.fd, b, unix.UnixRights(files...), nil, 0)
		}
		s.wmu.Unlock()
	}
	runtime.KeepAlive(std)
	runtime.KeepAlive(cmd.ExtraFiles)
	if err != nil {
		s.mu.Lock()
		delete(s.wait, req.ID)
		s.mu.Unlock()
		return nil, errSpawnerGone
	}
	r := <-ch
	return r.p, r.err
}

// spawnResult is what a request comes to: the process, or why not.
type spawnResult struct {
	p   *Process
	err error
}

// read takes the spawner's answers until its socket closes.
func (s *spawner) read() {
	buf := make([]byte, 64<<10)
	oob := make([]byte, unix.CmsgSpace(4))
	for {
		n, oobn, _, _, err := unix.Recvmsg(s.fd, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			s.end()
			// Closed under the writers' lock, so that no request is sent
			// to whatever takes the number next.
			s.wmu.Lock()
			unix.Close(s.fd)
			s.fd = -1
			s.wmu.Unlock()
			return
		}
		pidfd := -1
		if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil {
			for _, m := range msgs {
				if fds, err := unix.ParseUnixRights(&m); err == nil {
					for _, fd := range fds {
						if pidfd < 0 {
							pidfd = fd
						} else {
							unix.Close(fd)
						}
					}
				}
			}
		}
		var r spawnReply
		if json.Unmarshal(buf[:n], &r) != nil {
			if pidfd >= 0 {
				unix.Close(pidfd)
			}
			continue
		}
		s.answer(r, pidfd)
	}
}

// answer hands r to the request or process it is about; pidfd (or -1) came
// with it.
func (s *spawner) answer(r spawnReply, pidfd int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.Exited {
		if p := s.live[r.ID]; p != nil {
			delete(s.live, r.ID)
			go p.finish(syscall.WaitStatus(r.Status), nil)
		}
		return
	}
	ch := s.wait[r.ID]
	delete(s.wait, r.ID)
	if ch == nil {
		if pidfd >= 0 {
			unix.Close(pidfd)
		}
		return
	}
	if r.Err != "" || pidfd < 0 {
		if pidfd >= 0 {
			unix.Close(pidfd)
		}
		msg := r.Err
		if msg == "" {
			msg = "proc: the spawner sent no pidfd"
		}
		ch <- spawnResult{err: errors.New(msg)}
		return
	}
	p := &Process{Pid: r.Pid, pidfd: pidfd, done: make(chan struct{})}
	p.signal = func(sig syscall.Signal) error { return unix.PidfdSendSignal(pidfd, sig, nil, 0) }
	p.after = func() { unix.Close(pidfd) }
	s.live[r.ID] = p
	ch <- spawnResult{p: p}
}

// end marks the spawner gone: requests not answered fail (their callers
// start the process themselves), and the processes it started, which the
// kernel killed with it (their parent-death signal), end with no status.
func (s *spawner) end() {
	s.mu.Lock()
	if s.gone {
		s.mu.Unlock()
		return
	}
	s.gone = true
	wait, live := s.wait, s.live
	s.wait, s.live = map[uint64]chan spawnResult{}, map[uint64]*Process{}
	s.mu.Unlock()
	s.wmu.Lock()
	if s.fd >= 0 {
		unix.Shutdown(s.fd, unix.SHUT_RDWR) // read sees the end and closes it
	}
	s.wmu.Unlock()
	for _, ch := range wait {
		ch <- spawnResult{err: errSpawnerGone}
	}
	for _, p := range live {
		go func() {
			// The kernel kills it with the spawner (its parent-death
			// signal); Done means ended, so wait until it has.
			_ = p.Signal(syscall.SIGKILL)
			fds := []unix.PollFd{{Fd: int32(p.pidfd), Events: unix.POLLIN}}
			for range 100 {
				if n, err := unix.Poll(fds, 100); n > 0 || err != nil && err != unix.EINTR {
					break
				}
			}
			p.finish(0, errSpawnerGone)
			reap() // it was re-parented to this process, which held its pidfd
		}()
	}
}

// spawnerMain serves the requests that arrive on descriptor 3 until the
// process that sent them closes it. Each process is started from a thread
// that lives as long as the spawner (the parent-death signal is the
// thread's), and its exit status is sent back when it ends.
func spawnerMain() int {
	Private()
	const fd = 3
	var wmu sync.Mutex
	send := func(r spawnReply, pidfd int) {
		b, _ := json.Marshal(r)
		var oob []byte
		if pidfd >= 0 {
			oob = unix.UnixRights(pidfd)
		}
		wmu.Lock()
		defer wmu.Unlock()
		_ = unix.Sendmsg(fd, b, oob, nil, 0)
	}
	starts := make(chan func())
	for range starters {
		go func() {
			runtime.LockOSThread() // never unlocked: see Start
			for f := range starts {
				f()
			}
		}()
	}
	buf := make([]byte, spawnMsgMax)
	oob := make([]byte, unix.CmsgSpace(4*maxSpawnFiles))
	for {
		n, oobn, _, _, err := unix.Recvmsg(fd, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			return 0 // the host is gone; what this started ends with it
		}
		var files []*os.File
		if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil {
			for _, m := range msgs {
				if fds, err := unix.ParseUnixRights(&m); err == nil {
					for _, d := range fds {
						files = append(files, os.NewFile(uintptr(d), "spawned"))
					}
				}
			}
		}
		var req spawnRequest
		if err := json.Unmarshal(buf[:n], &req); err != nil {
			closeFiles(files)
			continue
		}
		go spawnOne(req, files, starts, send)
	}
}

// spawnOne starts req on one of the start threads and reports it.
func spawnOne(req spawnRequest, files []*os.File, starts chan<- func(), send func(spawnReply, int)) {
	defer closeFiles(files) // this process's copies
	cmd := &exec.Cmd{Path: req.Path, Args: req.Args, Env: req.Env, Dir: req.Dir}
	used := 0
	for i, idx := range req.Std {
		if idx < 0 {
			continue
		}
		if idx >= len(files) {
			send(spawnReply{ID: req.ID, Err: "proc: a spawn request without its descriptors"}, -1)
			return
		}
		used++
		switch i {
		case 0:
			cmd.Stdin = files[idx]
		case 1:
			cmd.Stdout = files[idx]
		case 2:
			cmd.Stderr = files[idx]
		}
	}
	cmd.ExtraFiles = files[used:]
	a := req.Attr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: a.Setsid, Setpgid: a.Setpgid, Pgid: a.Pgid, Pdeathsig: a.Pdeathsig,
		Cloneflags: a.Cloneflags, Unshareflags: a.Unshareflags, UidMappings: a.UidMappings, GidMappings: a.GidMappings,
		GidMappingsEnableSetgroups: a.Setgroups, AmbientCaps: a.AmbientCaps}
	done := make(chan error, 1)
	starts <- func() { done <- cmd.Start() }
	if err := <-done; err != nil {
		send(spawnReply{ID: req.ID, Err: err.Error()}, -1)
		return
	}
	pidfd, err := unix.PidfdOpen(cmd.Process.Pid, 0)
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		send(spawnReply{ID: req.ID, Err: fmt.Sprintf("proc: a pidfd for the process spawned: %v", err)}, -1)
		return
	}
	send(spawnReply{ID: req.ID, Pid: cmd.Process.Pid}, pidfd)
	unix.Close(pidfd)
	go func() {
		_ = cmd.Wait()
		ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
		send(spawnReply{ID: req.ID, Exited: true, Status: uint32(ws)}, -1)
	}()
}

func closeFiles(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}
