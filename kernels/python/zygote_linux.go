package python

import "bufio"
import "encoding/binary"
import "encoding/json"
import "errors"
import "fmt"
import "io"
import "os"
import "os/exec"
import "strconv"
import "strings"
import "sync"
import "syscall"
import "time"

import "golang.org/x/sys/unix"

import "github.com/tetherhq/tether/internal/proc"
import "github.com/tetherhq/tether/kernels"

// A zygote is an interpreter that compiled the driver and imported its
// modules once, confined as a kernel is but with no Landlock domain and no
// workspace (proc.SandboxZygote), and forks a kernel per request (the
// driver's _zygote); each child confines itself (proc.ForkChildSource)
// before it runs a cell. One runs per interpreter and environment that
// decides what an interpreter imports (kernels/RATIONALE.md).
type zygote struct {
	mu     sync.Mutex // one request at a time
	sock   int        // tether's end of the request socket
	dead   chan struct{}
	stderr *lockedBuffer
}

// maxZygoteStarts bounds the zygotes started in a row for one key without
// a kernel forked in between: past it, kernels start on their own.
const maxZygoteStarts = 3

// zygoteAnswer bounds the wait for a zygote's answer to a request (the
// first one waits for it to compile the driver).
var zygoteAnswer = startTimeout

var zygotes struct {
	sync.Mutex
	running map[string]*zygote
	starts  map[string]int // zygotes started since the last fork that worked
}

// zygoteKey names the zygote a kernel can come from: its interpreter, the
// sandbox's read-only paths, and the environment the zygote starts with
// (env, the kernel's before its own scratch paths): a kernel is forked
// only from an interpreter that started as it would have, and a zygote
// holds nothing one of its kernels would not.
func zygoteKey(interp string, pol proc.Policy, env []string) string {
	var b strings.Builder
	b.WriteString(interp)
	for _, p := range pol.RO {
		b.WriteString("\x00ro:" + p)
	}
	for _, kv := range env {
		b.WriteString("\x00env:" + kv)
	}
	return b.String()
}

// zygoteFor returns the running zygote for key, starting one when there is
// none (or it died).
func zygoteFor(key, interp string, pol proc.Policy, env []string) (*zygote, error) {
	zygotes.Lock()
	defer zygotes.Unlock()
	if zygotes.running == nil {
		zygotes.running, zygotes.starts = map[string]*zygote{}, map[string]int{}
	}
	if z := zygotes.running[key]; z != nil {
		select {
		case <-z.dead:
		default:
			return z, nil
		}
		delete(zygotes.running, key)
	}
	if zygotes.starts[key] >= maxZygoteStarts {
		return nil, fmt.Errorf("the shared interpreter failed %d times in a row before it forked a kernel", maxZygoteStarts)
	}
	zygotes.starts[key]++
	z, err := startZygote(interp, pol, env)
	if err != nil {
		return nil, err
	}
	zygotes.running[key] = z
	return z, nil
}

// retire takes z out of service for key after a request it did not
// answer as it should: later kernels get a new zygote. The socket stays
// open, so that z (if it still runs) and the kernels forked from it, which
// live in its PID namespace, live on; a late answer is never read.
func retire(key string, z *zygote) {
	zygotes.Lock()
	if zygotes.running[key] == z {
		delete(zygotes.running, key)
	}
	zygotes.Unlock()
}

// forked says a fork from key's zygote worked: its restarts count anew.
func forked(key string) {
	zygotes.Lock()
	zygotes.starts[key] = 0
	zygotes.Unlock()
}

// zygoteFrame is the driver's boot frame for a zygote: the child's
// confinement, then the driver.
var zygoteFrame = sync.OnceValue(func() []byte {
	body := strings.Join(append([]string{"1:" + proc.ForkChildSource}, driverChunks()...), "\x00")
	b := make([]byte, 4, 4+len(body))
	binary.BigEndian.PutUint32(b, uint32(len(body)))
	return append(b, body...)
})

func startZygote(interp string, pol proc.Policy, env []string) (*zygote, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	theirs := os.NewFile(uintptr(fds[1]), "zygote socket")
	defer theirs.Close()
	// A zygote that stops reading fills its socket: a request then fails
	// within this, not never.
	if err := unix.SetsockoptTimeval(fds[0], unix.SOL_SOCKET, unix.SO_SNDTIMEO, &unix.Timeval{Sec: 10}); err != nil {
		unix.Close(fds[0])
		return nil, err
	}
	scratch, err := os.MkdirTemp("", "tether-python-zygote-")
	if err != nil {
		unix.Close(fds[0])
		return nil, err
	}
	cmd := exec.Command(interp, "-c", driverBoot, "--tether-zygote")
	cmd.Env = env
	cmd.ExtraFiles = []*os.File{theirs}
	z := &zygote{sock: fds[0], dead: make(chan struct{}), stderr: &lockedBuffer{b: kernels.NewStreamBuffer(8 << 10)}}
	cmd.Stderr = z.stderr
	fail := func(err error) (*zygote, error) {
		unix.Close(fds[0])
		os.RemoveAll(scratch)
		return nil, err
	}
	if err := proc.SandboxZygote(cmd, proc.ZygotePolicy(pol, scratch)); err != nil {
		return fail(err)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return fail(err)
	}
	if err := proc.Start(cmd); err != nil {
		return fail(err)
	}
	go func() {
		// The driver and the child's code, then nothing more: a zygote
		// reads its requests on its socket.
		_, _ = stdin.Write(zygoteFrame())
		stdin.Close()
	}()
	go func() {
		_ = cmd.Wait()
		os.RemoveAll(scratch)
		close(z.dead)
	}()
	return z, nil
}

// request sends one fork request with its descriptors and returns the
// forked child's pid.
func (z *zygote) request(msg []byte, fds []int) (int, error) {
	z.mu.Lock()
	defer z.mu.Unlock()
	if err := unix.Sendmsg(z.sock, msg, unix.UnixRights(fds...), nil, 0); err != nil {
		if errors.Is(err, unix.EPIPE) || errors.Is(err, unix.ECONNRESET) {
			err = fmt.Errorf("%w (%v)", errZygoteEnded, err)
			z.awaitEnd()
		}
		return 0, fmt.Errorf("the shared interpreter: %w: %s", err, strings.TrimSpace(z.stderr.String()))
	}
	// The first request waits for the zygote to compile the driver.
	if err := waitReadable(z.sock, zygoteAnswer); err != nil {
		return 0, fmt.Errorf("the shared interpreter did not answer: %w: %s", err, strings.TrimSpace(z.stderr.String()))
	}
	buf := make([]byte, 32)
	n, err := unix.Read(z.sock, buf)
	if err != nil || n == 0 {
		z.awaitEnd()
		return 0, fmt.Errorf("the shared interpreter: %w (%v): %s", errZygoteEnded, err, strings.TrimSpace(z.stderr.String()))
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("the shared interpreter could not fork a kernel (%q): %s", buf[:n], strings.TrimSpace(z.stderr.String()))
	}
	return pid, nil
}

// awaitEnd waits, at most two seconds, until tether has seen the ended
// zygote's process end (and so read all of its stderr, which the error
// then quotes).
func (z *zygote) awaitEnd() {
	select {
	case <-z.dead:
	case <-time.After(2 * time.Second):
	}
}

// waitReadable waits until fd has something to read, at most d.
func waitReadable(fd int, d time.Duration) error {
	deadline := time.Now().Add(d)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return fmt.Errorf("nothing within %s", d)
		}
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, int(left.Milliseconds())+1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return err
		}
		if n > 0 {
			return nil
		}
	}
}

// fork starts p as a kernel forked from the zygote of its interpreter and
// environment (base, the kernel's environment env before its own paths).
// proc.ErrNoFork (wrapped or not) says this kernel cannot be forked
// confined here; another error, that a fork was tried and failed. Either
// way nothing of it runs, and the caller starts an interpreter.
func (p *process) fork(interp string, pol proc.Policy, dir string, base, env, args []string) (err error) {
	spec, err := proc.NewForkSpec(pol, dir, env)
	if err != nil {
		return err
	}
	key := zygoteKey(interp, pol, base)
	z, err := zygoteFor(key, interp, pol, base)
	if err != nil {
		return err
	}
	var closers []int
	defer func() {
		for _, fd := range closers {
			unix.Close(fd)
		}
	}()
	var send []int
	for _, d := range spec.Trees {
		fd, err := proc.DetachedTree(d)
		if err != nil {
			return err
		}
		closers = append(closers, fd)
		send = append(send, fd)
	}
	ctl, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	closers = append(closers, ctl[1])
	// Non-blocking, so that reading the init's status can have a deadline.
	if err := unix.SetNonblock(ctl[0], true); err != nil {
		unix.Close(ctl[0])
		return err
	}
	ctlFile := os.NewFile(uintptr(ctl[0]), "kernel control")
	// The kernel's frame input (tether writes), frame output and stderr
	// (tether reads): the child's ends travel with the request and close
	// here once it is sent.
	var ours, theirs []*os.File
	defer func() {
		for _, f := range theirs {
			f.Close()
		}
	}()
	fail := func(err error) error {
		ctlFile.Close()
		for _, f := range ours {
			f.Close()
		}
		return err
	}
	if err := unix.SetsockoptInt(ctl[0], unix.SOL_SOCKET, unix.SO_PASSCRED, 1); err != nil {
		return fail(err)
	}
	if ours, theirs, err = kernelPipes(); err != nil {
		return fail(err)
	}
	in, out, errR := ours[0], ours[1], ours[2]
	send = append(send, ctl[1])
	for _, f := range theirs {
		send = append(send, int(f.Fd()))
	}
	msg, err := json.Marshal(struct {
		Spec proc.ForkSpec `json:"spec"`
		Args []string      `json:"args"`
	}{spec, args})
	if err != nil {
		return fail(err)
	}
	pid, err := z.request(msg, send)
	if err != nil {
		retire(key, z)
		return fail(err)
	}
	word, leader, err := credWord(ctl[0])
	if err == nil && word != "hello" {
		err = fmt.Errorf("it said %q", word)
	}
	if err != nil {
		return fail(fmt.Errorf("the forked kernel (pid %d) did not say hello: %w", pid, err))
	}
	p.procs.started(leader)
	if _, err := ctlFile.Write([]byte("go\n")); err != nil {
		return fail(err)
	}
	// The kernel says so once it is confined, or why it could not be.
	word, kernelPID, err := credWord(ctl[0])
	if err == nil && word != "kernel" {
		err = errors.New(strings.TrimPrefix(word, "error "))
	}
	if err != nil {
		_ = killGroup(leader)
		return fail(fmt.Errorf("the forked kernel could not confine itself: %w", err))
	}
	forked(key)
	p.group = leader
	p.peer = func() int { return kernelPID }
	ctlLines := bufio.NewReader(ctlFile)
	p.reap = func() (syscall.WaitStatus, bool, string) {
		defer ctlFile.Close()
		return readStatus(ctlFile, ctlLines, p.stderr)
	}
	p.stdin = in
	close(p.booted) // the zygote compiled the driver
	go func() {
		_, _ = io.Copy(p.stderr, errR)
		errR.Close()
	}()
	go p.readLoop(out)
	return nil
}

// readStatus reads the forked kernel's control socket until its init
// says how the kernel ended ("status N"), the socket ends, or 10 seconds
// pass; a line "error ..." (it could not confine itself) goes to stderr.
func readStatus(f *os.File, r *bufio.Reader, stderr *lockedBuffer) (syscall.WaitStatus, bool, string) {
	_ = f.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		l, err := r.ReadString('\n')
		if s, ok := strings.CutPrefix(strings.TrimSpace(l), "status "); ok {
			n, err := strconv.Atoi(s)
			if err == nil {
				return syscall.WaitStatus(n), true, ""
			}
		} else if e, ok := strings.CutPrefix(l, "error "); ok {
			_, _ = stderr.Write([]byte("could not confine the kernel: " + e))
		}
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return 0, false, "its exit status did not come within 10s"
			}
			return 0, false, "its exit status was not reported (its init ended first: the kernel's process group was killed)"
		}
	}
}

// kernelPipes are a forked kernel's frame input, frame output and stderr:
// ours the ends tether writes (input) and reads, theirs the kernel's.
func kernelPipes() (ours, theirs []*os.File, err error) {
	for i := 0; i < 3; i++ {
		r, w, err := os.Pipe()
		if err != nil {
			for _, f := range append(ours, theirs...) {
				f.Close()
			}
			return nil, nil, err
		}
		if i == 0 {
			ours, theirs = append(ours, w), append(theirs, r)
		} else {
			ours, theirs = append(ours, r), append(theirs, w)
		}
	}
	return ours, theirs, nil
}

// credWord reads the next word the forked child or its kernel says on
// sock, and the pid its credentials carry (SO_PASSCRED: as tether sees it).
func credWord(sock int) (string, int, error) {
	if err := waitReadable(sock, startTimeout); err != nil {
		return "", 0, err
	}
	buf, oob := make([]byte, 4096), make([]byte, unix.CmsgSpace(unix.SizeofUcred))
	n, oobn, _, _, err := unix.Recvmsg(sock, buf, oob, 0)
	if err != nil {
		return "", 0, err
	}
	if n == 0 {
		return "", 0, errors.New("it ended first")
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return "", 0, fmt.Errorf("no credentials came with %q (%v)", buf[:n], err)
	}
	cred, err := unix.ParseUnixCredentials(&msgs[0])
	if err != nil {
		return "", 0, err
	}
	if cred.Pid <= 1 {
		return "", 0, fmt.Errorf("the credentials of %q name pid %d", buf[:n], cred.Pid)
	}
	return strings.TrimSpace(string(buf[:n])), int(cred.Pid), nil
}
