//go:build !linux

package python

import "github.com/tetherhq/tether/internal/proc"

// fork is the zygote's start of a kernel, which needs Linux's namespaces.
func (p *process) fork(interp string, pol proc.Policy, dir string, base, env, args []string) error {
	return proc.ErrNoFork
}
