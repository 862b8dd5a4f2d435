//go:build unix

package python

import "os/exec"
import "syscall"

// ownGroup puts the kernel in its own process group, so a terminal's Ctrl-C
// does not reach it and the whole group (children of !cmd included) can be
// signalled and killed together.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

func interruptGroup(pid int) error { return syscall.Kill(-pid, syscall.SIGINT) }

func killGroup(pid int) error { return syscall.Kill(-pid, syscall.SIGKILL) }
