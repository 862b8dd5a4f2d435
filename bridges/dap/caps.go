package dap

import (
	"fmt"

	"github.com/tetherhq/tether/internal/bytesize"
	"github.com/tetherhq/tether/internal/proc"
)

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
	switch {
	case c.AddressSpaceLimit == 0:
		return DefaultAddressSpaceLimit
	case c.AddressSpaceLimit < 0:
		return 0
	}
	return uint64(c.AddressSpaceLimit)
}

// processLimit is the cap to start sessions with, or 0 for none.
func (c Config) processLimit() int {
	switch {
	case c.ProcessLimit == 0:
		return DefaultProcessLimit
	case c.ProcessLimit < 0:
		return 0
	}
	return c.ProcessLimit
}

// capProcesses makes the session's pids cgroup, which its adapter joins
// before it starts (and so the program and everything under it), and
// records what the first result says of it.
func (s *session) capProcesses(limit int) {
	if limit == 0 {
		s.limits = "processes: no cap (turned off by the operator)"
		return
	}
	g, err := proc.NewPidsCgroup("debug", limit)
	if err != nil {
		s.limits = "processes: no cap (no cgroup: " + err.Error() + ")"
		return
	}
	s.procs = g
	s.limits = "processes: " + g.Describe() + ", the adapter, the program and what it starts together; a fork past it fails (EAGAIN)"
}

// capAddressSpace records the address-space limit each process the session
// starts gets, and what the first result says of it.
func (s *session) capAddressSpace(limit uint64) {
	switch {
	case limit == 0:
		s.limits += "; address space: no cap (turned off)"
	case !proc.AddressSpaceSet():
		s.limits += "; address space: no cap (the sandbox's launcher sets it, and no sandbox runs here)"
	default:
		s.as = limit
		s.limits += "; address space: at most " + bytesize.Format(int64(limit)) + " (RLIMIT_AS) for each of the adapter, the program and what it starts; an allocation past it fails"
	}
}

// procLimits are the limits a process the session starts runs under.
type procLimits struct {
	cgroup string // the pids cgroup to join, "" none
	as     uint64 // RLIMIT_AS, 0 none
}

// procLimits returns the session's limits for a process it starts.
func (s *session) procLimits() procLimits {
	if s == nil {
		return procLimits{}
	}
	return procLimits{cgroup: s.cgroupDir(), as: s.as}
}

// cgroupDir is the directory of the session's pids cgroup, "" without one.
func (s *session) cgroupDir() string {
	if s == nil || s.procs == nil {
		return ""
	}
	return s.procs.Dir()
}

// joinCgroup moves a process the session started into its cgroup. The
// sandbox's launcher joins it before the program starts; this covers a
// process started without the launcher (the sandbox off or unavailable),
// which may have forked in the moment before.
func (s *session) joinCgroup(pid int) {
	if s.procs == nil || pid <= 0 {
		return
	}
	if err := s.procs.Add(pid); err != nil {
		s.limits = fmt.Sprintf("processes: no cap (cannot move process %d into %s: %v)", pid, s.procs.Dir(), err)
	}
}

// releaseCgroup kills what is left in the session's cgroup (a process that
// left the adapter's tree and process groups) and removes it.
func (s *session) releaseCgroup() {
	if s.procs != nil {
		s.procs.Stop()
	}
}
