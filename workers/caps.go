package workers

import (
	"fmt"

	"github.com/tetherhq/tether/internal/proc"
)

// DefaultProcessLimit is the tasks (processes and threads) one worker's
// run (its command and everything it starts) may have at once when
// Config.ProcessLimit is zero: the eval kernels' cap, above what an agent
// and the tools it runs start, far below what a fork bomb needs.
const DefaultProcessLimit = 256

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
	words string
}

// newRunCap makes the pids cgroup a run joins before its command starts.
func newRunCap(limit int) runCap {
	if limit == 0 {
		return runCap{words: "processes: no cap (turned off: --workers-procs off)"}
	}
	g, err := proc.NewPidsCgroup("worker", limit)
	if err != nil {
		return runCap{words: "processes: no cap (no cgroup: " + err.Error() + ")"}
	}
	return runCap{g: g, words: "processes: " + g.Describe() + ", the command and what it starts together; a fork past it fails (EAGAIN)"}
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
