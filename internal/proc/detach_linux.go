package proc

import "io"
import "os"
import "os/exec"
import "strconv"

import "golang.org/x/sys/unix"

// detach makes cmd lead a session of its own, with no controlling
// terminal: nothing it starts can push input into tether's terminal
// (TIOCSTI), read from it or get its signals. A new session is a new
// process group too, led by cmd, so a caller that asked for its own group
// (Setpgid) to kill the tree with kill(-pid) gets the same group; setsid
// and setpgid together would fail, so Setsid replaces Setpgid. Only a
// caller that joins an existing group or wants the terminal (Setctty,
// Foreground) is left alone.
//
// No terminal reaches it as a descriptor either: a terminal as stdin
// becomes /dev/null, and one as stdout or stderr is written through a pipe
// (a process holding a terminal's descriptor with CAP_SYS_ADMIN, as one
// unsandboxed under root does, could still push input into it).
func detach(cmd *exec.Cmd) {
	a := cmd.SysProcAttr
	if a.Setctty || a.Foreground {
		return
	}
	if !a.Setpgid || a.Pgid == 0 {
		a.Setsid, a.Setpgid = true, false
	}
	if f, ok := cmd.Stdin.(*os.File); ok && isTerminal(f) {
		cmd.Stdin = nil
	}
	if f, ok := cmd.Stdout.(*os.File); ok && isTerminal(f) {
		cmd.Stdout = struct{ io.Writer }{f}
	}
	if f, ok := cmd.Stderr.(*os.File); ok && isTerminal(f) {
		cmd.Stderr = struct{ io.Writer }{f}
	}
}

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// closeInherited marks every descriptor of this process from 3 up
// close-on-exec, so that a descriptor tether got from its parent without
// the flag (a pipe, a socket) never reaches a process it starts. Go opens
// all of its own with the flag, and passes a command's ExtraFiles by
// duplicating them in the child, which clears it there: those still reach
// the child, and only those.
func closeInherited() {
	if unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC) == nil {
		return
	}
	// A kernel before 5.11: one by one.
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range ents {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			unix.CloseOnExec(fd)
		}
	}
}
