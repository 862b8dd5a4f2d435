package dap

import "github.com/tetherhq/tether/internal/proc"

// DefaultProcessLimit is the tasks (processes and threads) a debug
// session's adapter, its program and what that starts may have at once
// when Config.ProcessLimit is zero: the eval kernels' cap, far above what a
// debugged program and its adapter start (delve and node run a few dozen
// threads), far below what a fork bomb needs to take the host down.
const DefaultProcessLimit = 256

// DefaultAddressSpaceLimit is the address-space limit (RLIMIT_AS) of each
// process of a debug session when Config.AddressSpaceLimit is zero: the
// Python kernel's, above what delve, node, debugpy and lldb-dap reserve
// at start, below what a runaway allocation takes from the host.
const DefaultAddressSpaceLimit = 8 << 30

// addressSpaceLimit is the address-space limit to start sessions with, or
// 0 for none.
func (c Config) addressSpaceLimit() uint64 {
	return uint64(proc.Limit(c.AddressSpaceLimit, DefaultAddressSpaceLimit))
}

// processLimit is the cap to start sessions with, or 0 for none.
func (c Config) processLimit() int { return proc.Limit(c.ProcessLimit, DefaultProcessLimit) }

// procLimits are the limits a process the session starts runs under.
type procLimits struct {
	cgroup string // the pids cgroup to join, "" none
	as     uint64 // RLIMIT_AS, 0 none
}

// procLimits returns the session's limits for a process it starts.
func (s *session) procLimits() procLimits {
	if s == nil || s.limits == nil {
		return procLimits{}
	}
	return procLimits{cgroup: s.limits.Dir(), as: s.limits.AS}
}

// joinCgroup moves a process the session started into its cgroup. The
// sandbox's launcher joins it before the program starts; this covers a
// process started without the launcher (the sandbox off or unavailable),
// which may have forked in the moment before.
func (s *session) joinCgroup(pid int) { s.limits.Started(pid) }

// releaseCgroup kills what is left in the session's cgroup (a process that
// left the adapter's tree and process groups) and removes it.
func (s *session) releaseCgroup() { s.limits.Stop() }
