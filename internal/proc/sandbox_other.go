//go:build !linux

package proc

import "fmt"
import "os/exec"
import "syscall"

func sandbox(cmd *exec.Cmd, p Policy) error {
	if o := currentOptions(); !o.Off && o.Strict {
		return fmt.Errorf("proc: %s cannot be sandboxed on this system, which this host does not allow", p.Peer)
	}
	return nil
}

func probe() Status {
	return Status{LandlockErr: "Landlock is Linux's", NamespacesErr: "namespaces are Linux's"}
}

// WaitStatus is how cmd ended, once cmd.Wait has returned.
func WaitStatus(cmd *exec.Cmd) (syscall.WaitStatus, bool) {
	if cmd.ProcessState == nil {
		return 0, false
	}
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	return ws, true
}

// PeerPID is the pid of the program cmd runs.
func PeerPID(cmd *exec.Cmd) int {
	if cmd.Process == nil {
		return 0
	}
	return cmd.Process.Pid
}

// HostPID returns nsPid: there are no PID namespaces here.
func HostPID(cmd *exec.Cmd, nsPid int) (int, bool) { return nsPid, true }
