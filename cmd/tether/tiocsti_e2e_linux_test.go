//go:build linux

package main

import "encoding/json"
import "os"
import "os/exec"
import "strings"
import "syscall"
import "testing"

import "github.com/tetherhq/tether/internal/proc"
import "github.com/tetherhq/tether/internal/testenv"

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
	pty := testenv.RawPTY(t)
	slave := pty.Slave
	args, _ := json.Marshal(map[string]any{"code": tiocstiCell, "description": "push input into the terminal"})
	cmd := exec.Command(tetherBin(t), "call", "--workdir", t.TempDir(), "--approve", "allow", "--python", py, "eval", string(args))
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	runErr := proc.Run(cmd)
	got := pty.Input(t)
	shown := pty.Close()
	if runErr != nil || !strings.Contains(shown, "probe:") {
		t.Fatalf("tether call eval: %v\n%s", runErr, shown)
	}
	if strings.Contains(got, "PWNED") || strings.Contains(shown, "PUSHED") {
		t.Fatalf("a cell pushed input into tether's terminal: input %q\n%s", got, shown)
	}
}
