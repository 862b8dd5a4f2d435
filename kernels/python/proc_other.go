//go:build !unix

package python

import "errors"
import "os"
import "os/exec"

func ownGroup(cmd *exec.Cmd) {}

func interruptGroup(pid int) error {
	return errors.New("kernels: python: interrupting a kernel needs a unix system")
}

func killGroup(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}
