//go:build !linux

package proc

import (
	"fmt"
	"os/exec"
)

func sandbox(cmd *exec.Cmd, p Policy) error {
	if o := currentOptions(); !o.Off && o.Strict {
		return fmt.Errorf("proc: %s cannot be sandboxed on this system, which this host does not allow", p.Peer)
	}
	return nil
}

func probe() Status {
	return Status{LandlockErr: "Landlock is Linux's", NamespacesErr: "namespaces are Linux's"}
}
