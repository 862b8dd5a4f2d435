package proc

import (
	"os/exec"
)

// EnvOwners names, in every child's environment, the tether processes that
// own it (a comma-separated list: a worker that is tether itself adds its own).
const EnvOwners = "TETHER_OWNERS"

// Run starts cmd with Start and waits for it.
func Run(cmd *exec.Cmd) error {
	if err := Start(cmd); err != nil {
		return err
	}
	return cmd.Wait()
}
