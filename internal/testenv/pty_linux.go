package testenv

import "bytes"
import "errors"
import "os"
import "strconv"
import "sync"
import "testing"

import "golang.org/x/sys/unix"

// PTY is a pseudo-terminal for a test to run a process on: Slave is the
// terminal the process gets as stdio and controlling terminal, and what it
// writes there is drained meanwhile from the master side.
type PTY struct {
	Slave   *os.File
	master  *os.File
	mu      sync.Mutex
	shown   bytes.Buffer
	drained chan struct{}
}

// RawPTY opens a pseudo-terminal in raw mode, so that what is pushed into
// its input is readable at once and not echoed. It skips the test where
// the machine has no pseudo-terminals; the terminal is closed when the
// test ends.
func RawPTY(t testing.TB) *PTY {
	t.Helper()
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	p := &PTY{master: os.NewFile(uintptr(fd), "ptmx"), drained: make(chan struct{})}
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		p.master.Close()
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err == nil {
		p.Slave, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	}
	if err != nil {
		p.master.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	tio, err := unix.IoctlGetTermios(int(p.Slave.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	tio.Lflag &^= unix.ICANON | unix.ECHO | unix.ISIG
	tio.Cc[unix.VMIN], tio.Cc[unix.VTIME] = 0, 0
	if err := unix.IoctlSetTermios(int(p.Slave.Fd()), unix.TCSETS, tio); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(p.drained)
		buf := make([]byte, 4096)
		for {
			n, err := p.master.Read(buf)
			p.mu.Lock()
			p.shown.Write(buf[:n])
			p.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return p
}

// Input returns what has arrived in the terminal's input (what a shell on
// it would read next), without waiting for more.
func (p *PTY) Input(t testing.TB) string {
	t.Helper()
	if err := unix.SetNonblock(int(p.Slave.Fd()), true); err != nil {
		t.Fatal(err)
	}
	in := make([]byte, 4096)
	k, err := unix.Read(int(p.Slave.Fd()), in)
	if err != nil && !errors.Is(err, unix.EAGAIN) {
		t.Fatal(err)
	}
	return string(in[:max(k, 0)])
}

// Close closes the terminal and returns everything written to it.
func (p *PTY) Close() string {
	p.Slave.Close()
	p.master.Close()
	<-p.drained
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.shown.String()
}
