package workers

import (
	"fmt"

	"github.com/tetherhq/tether/internal/bytesize"
	"github.com/tetherhq/tether/internal/proc"
)

// DefaultProcessLimit is the tasks (processes and threads) one worker's
// run (its command and everything it starts) may have at once when
// Config.ProcessLimit is zero: the eval kernels' cap, above what an agent
// and the tools it runs start, far below what a fork bomb needs.
const DefaultProcessLimit = 256

// DefaultAddressSpaceLimit is the address-space limit (RLIMIT_AS) of each
// process of a worker's run when Config.AddressSpaceLimit is zero: the
// Python kernel's, above what node, Go and Python programs reserve at
// start, below what a runaway allocation takes from the host.
const DefaultAddressSpaceLimit = 8 << 30

// addressSpaceLimit is the address-space limit to start runs with, or 0
// for none.
func (c Config) addressSpaceLimit() uint64 {
	switch {
	case c.AddressSpaceLimit == 0:
		return DefaultAddressSpaceLimit
	case c.AddressSpaceLimit < 0:
		return 0
	}
	return uint64(c.AddressSpaceLimit)
}

// processLimit is the cap to start runs with, or 0 for none.
func (c Config) processLimit() int {
	switch {
	case c.ProcessLimit == 0:
		return DefaultProcessLimit
	case c.ProcessLimit < 0:
		return 0
	}
	return c.ProcessLimit
}

// runCap is one run's pids cgroup (nil without one) and what the worker's
// info says of it.
type runCap struct {
	g     *proc.PidsCgroup
	as    uint64 // RLIMIT_AS of each process, 0 none
	words string
}

// newRunCap makes the pids cgroup a run joins before its command starts,
// and sets the address-space limit its processes get.
func newRunCap(limit int, as uint64) runCap {
	var c runCap
	if limit == 0 {
		c.words = "processes: no cap (turned off by the operator)"
	} else if g, err := proc.NewPidsCgroup("worker", limit); err != nil {
		c.words = "processes: no cap (no cgroup: " + err.Error() + ")"
	} else {
		c.g, c.words = g, "processes: "+g.Describe()+", the command and what it starts together; a fork past it fails (EAGAIN)"
	}
	switch {
	case as == 0:
		c.words += "; address space: no cap (turned off)"
	case !proc.AddressSpaceSet():
		c.words += "; address space: no cap (the sandbox's launcher sets it, and no sandbox runs here)"
	default:
		c.as = as
		c.words += "; address space: at most " + bytesize.Format(int64(as)) + " (RLIMIT_AS) for each of the command and what it starts; an allocation past it fails"
	}
	return c
}

// dir is the cgroup's directory, "" without one.
func (c *runCap) dir() string {
	if c.g == nil {
		return ""
	}
	return c.g.Dir()
}

// started moves the run's process into the cgroup: the sandbox's launcher
// joined it before the command started; without the launcher (the sandbox
// off) this is where it joins.
func (c *runCap) started(pid int) {
	if c.g == nil {
		return
	}
	if err := c.g.Add(pid); err != nil {
		c.words = fmt.Sprintf("processes: no cap (cannot move process %d into %s: %v)", pid, c.g.Dir(), err)
	}
}

// stop kills what is left in the cgroup and removes it.
func (c *runCap) stop() {
	if c.g != nil {
		c.g.Stop()
	}
}
