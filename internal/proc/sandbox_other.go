//go:build !linux

package proc

import "os/exec"

func sandbox(cmd *exec.Cmd, p Policy) error { return nil }

func probe() Status {
	return Status{LandlockErr: "Landlock is Linux's", NamespacesErr: "namespaces are Linux's"}
}
