//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/tetherhq/tether/internal/proc"
	"github.com/tetherhq/tether/internal/testenv"
)

// tiocstiCell pushes a command into whatever terminal it can reach: its
// own descriptors, /dev/tty, and every /dev/pts entry it can open.
const tiocstiCell = `import fcntl, os, termios
out = []
def push(fd, name):
    try:
        for c in b"echo PWNED\n":
            fcntl.ioctl(fd, termios.TIOCSTI, bytes([c]))
        out.append(name + " PUSHED")
    except OSError as e:
        out.append("%s refused-%d" % (name, e.errno))
for fd in (0, 1, 2):
    push(fd, "fd%d" % fd)
paths = ["/dev/tty"]
try:
    paths += ["/dev/pts/" + n for n in os.listdir("/dev/pts") if n.isdigit()]
except OSError:
    pass
for p in paths:
    try:
        fd = os.open(p, os.O_RDWR | os.O_NOCTTY)
    except OSError as e:
        out.append("%s unopened-%d" % (p, e.errno))
        continue
    push(fd, p)
    os.close(fd)
print("probe:", " ".join(out))
`

// TestEvalCannotTypeIntoTerminal reproduces a cell typing a command into
// the terminal tether runs on: ` + "`tether call eval`" + ` runs on a
// pseudo-terminal (its controlling terminal and stdio), the cell tries
// TIOCSTI everywhere it can, and nothing arrives in the terminal's input,
// which a shell would read (and run) once tether exits.
func TestEvalCannotTypeIntoTerminal(t *testing.T) {
	if b, err := os.ReadFile("/proc/sys/dev/tty/legacy_tiocsti"); err == nil && strings.TrimSpace(string(b)) == "0" {
		t.Skip("TIOCSTI is disabled on this machine (dev.tty.legacy_tiocsti=0): nothing to reproduce")
	}
	py := testenv.RequireBinary(t, "python3")
	master, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	mf := os.NewFile(uintptr(master), "ptmx")
	defer mf.Close()
	if err := unix.IoctlSetPointerInt(master, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(master, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	slave, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer slave.Close()
	// Raw and silent: what is pushed is readable at once and not echoed.
	tio, err := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	tio.Lflag &^= unix.ICANON | unix.ECHO | unix.ISIG
	tio.Cc[unix.VMIN], tio.Cc[unix.VTIME] = 0, 0
	if err := unix.IoctlSetTermios(int(slave.Fd()), unix.TCSETS, tio); err != nil {
		t.Fatal(err)
	}
	var shown bytes.Buffer
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		buf := make([]byte, 4096)
		for {
			n, err := mf.Read(buf)
			shown.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	args, _ := json.Marshal(map[string]any{"code": tiocstiCell, "description": "push input into the terminal"})
	cmd := exec.Command(tetherBin(t), "call", "--workdir", t.TempDir(), "--approve", "allow", "--python", py, "eval", string(args))
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	runErr := proc.Run(cmd)
	// What arrived in the terminal's input.
	if err := unix.SetNonblock(int(slave.Fd()), true); err != nil {
		t.Fatal(err)
	}
	in := make([]byte, 4096)
	k, err := unix.Read(int(slave.Fd()), in)
	if err != nil && !errors.Is(err, unix.EAGAIN) {
		t.Fatal(err)
	}
	slave.Close()
	mf.Close()
	<-drained
	got := string(in[:max(k, 0)])
	if runErr != nil || !strings.Contains(shown.String(), "probe:") {
		t.Fatalf("tether call eval: %v\n%s", runErr, shown.String())
	}
	if strings.Contains(got, "PWNED") || strings.Contains(shown.String(), "PUSHED") {
		t.Fatalf("a cell pushed input into tether's terminal: input %q\n%s", got, shown.String())
	}
}
