package python

import "fmt"
import "strconv"
import "strings"

import "github.com/tetherhq/tether/internal/bytesize"
import "github.com/tetherhq/tether/internal/proc"

// DefaultProcessLimit is the tasks (processes and threads) the interpreter
// and what it starts may have at once when Config.ProcessLimit is zero: far
// above what notebook work starts (a pool of workers, a few subprocesses),
// far below what a fork bomb needs to take the host down.
const DefaultProcessLimit = 256

// processLimit is the process cap to start interpreters with, or 0.
func (k *Kernel) processLimit() int {
	return configuredCap(k.cfg.ProcessLimit, DefaultProcessLimit)
}

// configuredCap is a cap as Config gives it: 0 means def, negative none (0).
func configuredCap[T int | int64](l, def T) T {
	switch {
	case l == 0:
		return def
	case l < 0:
		return 0
	}
	return l
}

// procCap is how one interpreter's process count is capped: a cgroup of its
// own when tether can make one, else RLIMIT_NPROC set by the driver.
type procCap struct {
	limit  int
	cgroup *proc.PidsCgroup
	none   []string // why a cap could not be set, in order of trying
}

// planProcCap decides the cap before the interpreter starts: a pids cgroup
// on the host, RLIMIT_NPROC (the driver's argument, added to argv) otherwise.
// In an enclosure the interpreter is not tether's child, so only the driver's
// RLIMIT_NPROC applies, with the enclosure's own limits.
func (k *Kernel) planProcCap(enclosed bool) (*procCap, []string) {
	c := &procCap{limit: k.processLimit()}
	if c.limit == 0 {
		c.none = append(c.none, "turned off by the operator")
		return c, nil
	}
	if !enclosed {
		g, err := proc.NewPidsCgroup("python", c.limit)
		if err == nil {
			c.cgroup = g
			return c, nil
		}
		c.none = append(c.none, "no cgroup: "+err.Error())
	} else {
		c.none = append(c.none, "no cgroup: the interpreter runs in the enclosure, whose own limits (such as docker's --pids-limit) apply")
	}
	return c, []string{"--tether-rlimit-nproc=" + strconv.Itoa(c.limit)}
}

// dir is the cgroup's directory ("" without one): a sandboxed interpreter
// joins it before it starts.
func (c *procCap) dir() string {
	if c.cgroup == nil {
		return ""
	}
	return c.cgroup.Dir()
}

// started moves the interpreter into the cgroup, before it runs a cell.
func (c *procCap) started(pid int) {
	if c.cgroup == nil {
		return
	}
	if err := c.cgroup.Add(pid); err != nil {
		c.none = append(c.none, "no cgroup: cannot move the interpreter into "+c.cgroup.Dir()+": "+err.Error())
		c.cgroup.Remove()
		c.cgroup = nil
	}
}

// words says which process cap is in force, from the cgroup or the driver's
// ready frame (nproc: the RLIMIT_NPROC applied; note: why it is not
// enforced or could not be set).
func (c *procCap) words(nproc int64, note string) string {
	switch {
	case c.cgroup != nil:
		return "processes: " + c.cgroup.Describe()
	case nproc > 0 && note == "":
		return fmt.Sprintf("processes: RLIMIT_NPROC of %d, %d more processes and threads than the user had when the kernel started (it counts all of the user's; %s)", nproc, c.limit, strings.Join(c.none, "; "))
	}
	why := c.none
	if note != "" {
		why = append(why, "RLIMIT_NPROC: "+note)
	}
	return "processes: no cap (" + strings.Join(why, "; ") + ")"
}

// stop kills whatever is left in the cgroup (a task that left the
// interpreter's process group) and removes it.
func (c *procCap) stop() {
	if c == nil || c.cgroup == nil {
		return
	}
	c.cgroup.Stop()
}

// limitsWords names the caps a fresh interpreter runs under, for its first
// result.
func (p *process) limitsWords() []string {
	out := []string{p.procs.words(p.nproc, p.nprocNote)}
	if p.addressSpace > 0 {
		out = append(out, "address space: at most "+bytesize.Format(p.addressSpace)+" (RLIMIT_AS)")
	}
	if p.sandboxNote != "" {
		out = append(out, p.sandboxNote)
	}
	return out
}
