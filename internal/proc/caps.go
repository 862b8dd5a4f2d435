package proc

import "fmt"
import "strings"

import "github.com/tetherhq/tether/internal/bytesize"

// Limit resolves a configured cap: zero means def, a negative value none
// (0).
func Limit[T ~int | ~int64](v, def T) T {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// Caps are the limits one group of processes (a debug session, a worker's
// run) starts under: a pids cgroup its first process joins before it
// starts, and an address-space limit for each process.
type Caps struct {
	group *PidsCgroup
	// AS is the address-space limit (RLIMIT_AS) of each process, 0 none.
	AS    uint64
	words string
}

// Describe is what the group's first result says of its caps; "" for nil.
func (c *Caps) Describe() string {
	if c == nil {
		return ""
	}
	return c.words
}

// NewCaps makes the pids cgroup of kind for a group of at most limit tasks
// (none when limit is 0) and records the address-space limit as (none when
// 0). members names what the cgroup holds ("the command and what it
// starts").
func NewCaps(kind string, limit int, as uint64, members string) *Caps {
	c := &Caps{}
	if limit == 0 {
		c.words = "processes: no cap (turned off by the operator)"
	} else if g, err := NewPidsCgroup(kind, limit); err != nil {
		c.words = "processes: no cap (no cgroup: " + err.Error() + ")"
	} else {
		c.group, c.words = g, "processes: "+g.Describe()+", "+members+" together; a fork past it fails (EAGAIN)"
	}
	switch {
	case as == 0:
		c.words += "; address space: no cap (turned off)"
	case !AddressSpaceSet():
		c.words += "; address space: no cap (the sandbox's launcher sets it, and no sandbox runs here)"
	default:
		c.AS = as
		c.words += "; address space: at most " + bytesize.Format(int64(as)) + " (RLIMIT_AS) for each of " + members + "; an allocation past it fails"
	}
	return c
}

// NoAddressSpaceCap drops the address-space limit for a group whose
// program cannot start under one, and Describe says why.
func (c *Caps) NoAddressSpaceCap(why string) {
	if c == nil {
		return
	}
	c.AS = 0
	if i := strings.Index(c.words, "; address space: "); i >= 0 {
		c.words = c.words[:i]
	}
	c.words += "; address space: no cap (" + why + ")"
}

// Dir is the cgroup's directory, "" without one.
func (c *Caps) Dir() string {
	if c == nil || c.group == nil {
		return ""
	}
	return c.group.Dir()
}

// Started moves a process of the group into the cgroup: the sandbox's
// launcher joined it before the program started; without the launcher (the
// sandbox off or unavailable) this is where it joins.
func (c *Caps) Started(pid int) {
	if c == nil || c.group == nil || pid <= 0 {
		return
	}
	if err := c.group.Add(pid); err != nil {
		c.words = fmt.Sprintf("processes: no cap (cannot move process %d into %s: %v)", pid, c.group.Dir(), err)
	}
}

// Stop kills what is left in the cgroup and removes it.
func (c *Caps) Stop() {
	if c != nil && c.group != nil {
		c.group.Stop()
	}
}
