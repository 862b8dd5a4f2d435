package proc

import "bytes"
import "errors"
import "fmt"
import "os"
import "os/exec"
import "os/signal"
import "runtime"
import "slices"
import "strconv"
import "strings"
import "sync"
import "syscall"
import "time"

import "golang.org/x/sys/unix"

// sentinelArg is the argument that makes the binary a sentinel in Main.
const sentinelArg = "__tether-sentinel"

var (
	// enabled is set by Main: children are marked and watched by a sentinel.
	enabled bool
	// owner is this process's name in EnvOwners.
	owner string

	sentinelOnce sync.Once
	sentinelErr  error
	sentinelPipe *os.File // the write end; closes when this process ends

	startOnce sync.Once
	starts    chan startReq

	// startMu is held shared by each Start from before its child exists
	// until the child is in ours, and exclusively by reap while it waits
	// for children, so that reap never takes the exit status of a child
	// being started. Starts do not exclude one another.
	startMu sync.RWMutex

	oursMu sync.Mutex
	ours   = map[int]uint64{} // pid -> start time of the children Start started
)

// starters is how many threads start processes at once. A start holds its
// thread until the child has exec'd: with a new user namespace that is a
// copy of this process's page tables and the child's teardown of it, about
// 14 ms for a JavaScript kernel of a host serving 200 sessions, so one
// thread queued the kernels of a burst of sessions for seconds.
const starters = 8

type startReq struct {
	cmd  *exec.Cmd
	done chan error
}

// Start starts cmd with a parent-death signal (SIGKILL unless cmd sets
// another), from a thread that lives as long as the process. After Main it
// also marks cmd's environment with this process's name and makes sure the
// sentinel runs.
func Start(cmd *exec.Cmd) error {
	prepare(cmd)
	closeInherited()
	startOnce.Do(func() {
		starts = make(chan startReq)
		for range starters {
			go func() {
				// Never unlocked: the thread lives until the process ends,
				// so the parent-death signal fires only then.
				runtime.LockOSThread()
				for r := range starts {
					r.done <- r.cmd.Start()
				}
			}()
		}
	})
	done := make(chan error, 1)
	if enabled {
		startMu.RLock() // the reaper must not take this child's exit status
		defer startMu.RUnlock()
	}
	starts <- startReq{cmd, done}
	err := <-done
	started(cmd)
	if err != nil {
		return err
	}
	if enabled {
		pid := cmd.Process.Pid
		st, _ := startTime(pid)
		oursMu.Lock()
		ours[pid] = st
		oursMu.Unlock()
	}
	return nil
}

// prepare gives cmd what every process tether starts has: a parent-death
// signal, a session of its own (detach) and, after Main, this process's
// mark for the sentinel. Preparing twice changes nothing more.
func prepare(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	if cmd.SysProcAttr.Pdeathsig == 0 {
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	}
	detach(cmd)
	if enabled {
		if err := startSentinel(); err == nil {
			cmd.Env = mark(cmd.Env)
		}
	}
}

// mark adds this process to EnvOwners in env (nil: this process's environment).
func mark(env []string) []string {
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env)+1)
	prev := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, EnvOwners+"="); ok {
			if slices.Contains(strings.Split(v, ","), owner) {
				return env // marked already
			}
			prev = v
			continue
		}
		out = append(out, kv)
	}
	if prev != "" {
		prev += ","
	}
	return append(out, EnvOwners+"="+prev+owner)
}

// Main prepares the process (call it first in main): in a sentinel it runs
// the sentinel and exits; otherwise it makes this process a child subreaper
// where the OS allows, reaps orphans that end, and marks every child Start
// starts for the sentinel.
func Main() {
	if len(os.Args) == 3 && os.Args[1] == sentinelArg {
		os.Exit(sentinel(os.Args[2]))
	}
	owner = strconv.Itoa(os.Getpid()) + "." + strconv.FormatInt(time.Now().UnixNano(), 36)
	enabled = true
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return // not allowed here: the sentinel and parent-death signals still work
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGCHLD)
	go func() {
		for range ch {
			reap()
		}
	}()
}

// Private makes this process's memory and /proc entries unreadable by other
// processes of the same user (PR_SET_DUMPABLE 0), so a worker or kernel
// cannot read a secret (the console's login link) out of it. Children are
// not affected: exec makes them dumpable again.
func Private() { _ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0) }

// startSentinel starts the sentinel once: this binary re-run with
// sentinelArg, reading a pipe whose only write end this process holds. When
// it cannot start, children still get their parent-death signal, and stderr
// says once what is lost.
func startSentinel() error {
	sentinelOnce.Do(func() {
		defer func() {
			if sentinelErr != nil {
				fmt.Fprintf(os.Stderr, "tether: %v; a process tether starts may outlive a crash of tether (its direct children still end with it)\n", sentinelErr)
			}
		}()
		// /proc/self/exe: this very binary, even when its file was replaced.
		const exe = "/proc/self/exe"
		r, w, err := os.Pipe()
		if err != nil {
			sentinelErr = fmt.Errorf("proc: sentinel pipe: %w", err)
			return
		}
		cmd := exec.Command(exe, sentinelArg, owner)
		cmd.Stdin = r
		// Its own session: a terminal's Ctrl-C or a kill of tether's
		// group does not end it before it did its work.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		startMu.RLock()
		err = cmd.Start()
		if err == nil {
			st, _ := startTime(cmd.Process.Pid)
			oursMu.Lock()
			ours[cmd.Process.Pid] = st
			oursMu.Unlock()
		}
		startMu.RUnlock()
		r.Close()
		if err != nil {
			w.Close()
			sentinelErr = fmt.Errorf("proc: cannot start the sentinel that ends tether's children with it: %w", err)
			return
		}
		sentinelPipe = w
		go cmd.Wait()
	})
	return sentinelErr
}

// sentinel waits until the tether process that started it ends, then stops
// and kills every process whose environment names it in EnvOwners.
func sentinel(name string) int {
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
	cgroups := readWatched(os.Stdin) // EOF: tether ended
	killOwned(name)
	for _, dir := range cgroups {
		KillCgroup(dir)
	}
	return 0
}

// killOwned stops, then kills, every process (but this one) whose
// environment names owner in EnvOwners. Stopping first keeps a parent from
// starting more children while its tree is taken down.
func killOwned(name string) {
	self := os.Getpid()
	want := []byte(EnvOwners + "=")
	stopped := map[int]bool{}
	for round := 0; round < 100; round++ {
		found := false
		for _, pid := range pids() {
			if pid == self || stopped[pid] {
				continue
			}
			if !owned(pid, want, name) {
				continue
			}
			found = true
			stopped[pid] = true
			_ = syscall.Kill(pid, syscall.SIGSTOP)
		}
		if !found {
			break
		}
	}
	for pid := range stopped {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// owned reports whether pid's environment lists name in EnvOwners.
func owned(pid int, prefix []byte, name string) bool {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	for _, kv := range bytes.Split(env, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, prefix); ok {
			for _, n := range strings.Split(string(v), ",") {
				if n == name {
					return true
				}
			}
		}
	}
	return false
}

// pids lists the processes in /proc.
func pids() []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := make([]int, 0, len(ents))
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// stat returns a process's state, parent and start time from /proc/PID/stat.
func stat(pid int) (state byte, ppid int, start uint64, err error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, 0, err
	}
	// pid (comm) state ppid ...: comm may hold spaces and parens.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, 0, errors.New("proc: bad stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return 0, 0, 0, errors.New("proc: short stat")
	}
	ppid, _ = strconv.Atoi(f[1])
	start, _ = strconv.ParseUint(f[19], 10, 64)
	return f[0][0], ppid, start, nil
}

func startTime(pid int) (uint64, error) {
	_, _, st, err := stat(pid)
	return st, err
}

// reap waits for the ended children of this process that nobody else waits
// for: orphans re-parented to tether as subreaper. A child Start started (or
// any child this process holds a pidfd for: os/exec's own) is left to its
// exec.Cmd.Wait.
//
// It looks first and locks only to wait: with hundreds of children, reading
// each one's state takes milliseconds, and starts must not queue behind it.
func reap() {
	if !anyEnded() {
		forget()
		return
	}
	self := os.Getpid()
	var ended []int
	for _, pid := range children() {
		state, ppid, start, err := stat(pid)
		if err == nil && ppid == self && state == 'Z' && !isOurs(pid, start) {
			ended = append(ended, pid)
		}
	}
	if len(ended) > 0 {
		startMu.Lock()
		// Again under the lock: a child Start was starting is in ours now.
		held := pidfds()
		for _, pid := range ended {
			state, ppid, start, err := stat(pid)
			if err != nil || ppid != self || state != 'Z' || isOurs(pid, start) || held[pid] {
				continue
			}
			var ws unix.WaitStatus
			_, _ = unix.Wait4(pid, &ws, unix.WNOHANG, nil)
		}
		startMu.Unlock()
	}
	forget()
}

// anyEnded reports whether any child of this process has ended and not been
// waited for, without waiting for it.
func anyEnded() bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
	if err != nil {
		return !errors.Is(err, unix.ECHILD)
	}
	// Linux clears info when no child has ended (WNOHANG).
	return info.Signo != 0
}

// isOurs reports whether pid, started at start, is a child Start started; an
// entry for an earlier process of the same pid is dropped.
func isOurs(pid int, start uint64) bool {
	oursMu.Lock()
	defer oursMu.Unlock()
	st, ok := ours[pid]
	if !ok {
		return false
	}
	if st == 0 || st == start {
		return true
	}
	delete(ours, pid) // that child is gone; its pid was reused
	return false
}

// forget drops the children Start started that are gone (waited for by
// their exec.Cmd). A pid reused since is told apart by its start time in
// isOurs.
func forget() {
	oursMu.Lock()
	defer oursMu.Unlock()
	for pid := range ours {
		if unix.Kill(pid, 0) == unix.ESRCH {
			delete(ours, pid)
		}
	}
}

// children lists this process's children, from /proc/self/task/*/children
// where the kernel has it, else from the whole of /proc.
func children() []int {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return pids()
	}
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		if err != nil {
			return pids()
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				out = append(out, pid)
			}
		}
	}
	return out
}

// pidfds returns the pids this process holds a pidfd for.
func pidfds() map[int]bool {
	out := map[int]bool{}
	ents, err := os.ReadDir("/proc/self/fdinfo")
	if err != nil {
		return out
	}
	for _, e := range ents {
		b, err := os.ReadFile("/proc/self/fdinfo/" + e.Name())
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "Pid:"); ok {
				if pid, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
					out[pid] = true
				}
			}
		}
	}
	return out
}
