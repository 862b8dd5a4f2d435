package proc

import "bufio"
import "errors"
import "fmt"
import "os"
import "path/filepath"
import "regexp"
import "slices"
import "strconv"
import "strings"
import "sync"
import "sync/atomic"
import "syscall"
import "time"

// PidsCgroup is a cgroup of the pids controller made for one process tree
// (a kernel's interpreter, a debug session's adapter and program, a
// worker): its pids.max caps the tasks (processes and threads) the tree
// may have at once, and a fork past it fails with EAGAIN.
type PidsCgroup struct {
	dir  string
	v2   bool
	max  int
	what string // "cgroup v2 pids.max" or "cgroup v1 pids.max"
}

var cgroupSeq atomic.Int64

// NewPidsCgroup makes a child of tether's own cgroup in the pids hierarchy
// (cgroup v2 when tether's cgroup offers the pids controller, else a v1 pids
// hierarchy) named tether-KIND-PID-N, with pids.max set to limit, or says
// why it cannot. The sentinel empties and removes it should tether end
// first. A process joins it through Policy.Cgroup (before its program
// starts) or Add.
func NewPidsCgroup(kind string, limit int) (*PidsCgroup, error) {
	mounts, err := cgroupMounts()
	if err != nil {
		return nil, err
	}
	own, err := ownCgroups()
	if err != nil {
		return nil, err
	}
	var why []string
	name := fmt.Sprintf("tether-%s-%d-%d", kind, os.Getpid(), cgroupSeq.Add(1))
	for _, h := range []struct {
		key, what string
		v2        bool
	}{{"2", "cgroup v2", true}, {"pids", "cgroup v1", false}} {
		m, ok := mounts[h.key]
		p, ok2 := own[h.key]
		if !ok || !ok2 {
			continue
		}
		parent := filepath.Join(m, p)
		removeStale(parent)
		g, err := makePidsCgroup(parent, name, h.v2, limit)
		if err == nil {
			// Should tether die first, its sentinel kills what is left in
			// it: a process that cleared its environment (env -i) is out of
			// reach of the sentinel's other means.
			WatchCgroup(g.dir)
			return g, nil
		}
		why = append(why, h.what+": "+err.Error())
	}
	if len(why) == 0 {
		return nil, errors.New("no cgroup pids controller is mounted")
	}
	return nil, errors.New(strings.Join(why, "; "))
}

func makePidsCgroup(parent, name string, v2 bool, limit int) (*PidsCgroup, error) {
	if v2 {
		ctl, err := os.ReadFile(filepath.Join(parent, "cgroup.controllers"))
		if err != nil {
			return nil, err
		}
		if !slices.Contains(strings.Fields(string(ctl)), "pids") {
			return nil, fmt.Errorf("the pids controller is not available in %s", parent)
		}
	}
	dir := filepath.Join(parent, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create a child cgroup (not delegated to this user?): %w", err)
	}
	g := &PidsCgroup{dir: dir, v2: v2, max: limit, what: "cgroup v1 pids.max"}
	if v2 {
		g.what = "cgroup v2 pids.max"
		if _, err := os.Stat(filepath.Join(dir, "pids.max")); err != nil {
			// The parent does not hand the controller down; enabling it
			// there fails when the parent holds processes itself.
			if err := os.WriteFile(filepath.Join(parent, "cgroup.subtree_control"), []byte("+pids"), 0); err != nil {
				g.Remove()
				return nil, fmt.Errorf("cannot enable the pids controller for child cgroups of %s: %w", parent, err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.Itoa(limit)), 0); err != nil {
		g.Remove()
		return nil, fmt.Errorf("cannot set pids.max: %w", err)
	}
	return g, nil
}

// cgroupMounts maps "2" to the cgroup2 mount point and each v1 controller
// to its hierarchy's mount point, from /proc/self/mountinfo.
func cgroupMounts() (map[string]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		fields, tail := strings.Fields(pre), strings.Fields(post)
		if len(fields) < 5 || len(tail) < 3 || fields[3] != "/" {
			continue // a bind mount of a cgroup below the root: skip
		}
		switch tail[0] {
		case "cgroup2":
			out["2"] = fields[4]
		case "cgroup":
			for _, o := range strings.Split(tail[2], ",") {
				if o == "pids" {
					out["pids"] = fields[4]
				}
			}
		}
	}
	return out, sc.Err()
}

// ownCgroups maps "2" and each v1 controller to tether's own cgroup path,
// from /proc/self/cgroup.
func ownCgroups() (map[string]string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			out["2"] = parts[2]
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			out[c] = parts[2]
		}
	}
	return out, nil
}

// Add moves pid into the cgroup (what it starts afterwards is counted).
func (g *PidsCgroup) Add(pid int) error {
	return os.WriteFile(filepath.Join(g.dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0)
}

// KillAll kills every task in the cgroup, those that left the tree's
// process group included.
func (g *PidsCgroup) KillAll() {
	if g.v2 {
		if os.WriteFile(filepath.Join(g.dir, "cgroup.kill"), []byte("1"), 0) == nil {
			return
		}
	}
	for range 100 {
		b, err := os.ReadFile(filepath.Join(g.dir, "cgroup.procs"))
		if err != nil || len(strings.TrimSpace(string(b))) == 0 {
			return
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
}

// Remove deletes the cgroup once it is empty.
func (g *PidsCgroup) Remove() {
	if err := os.Remove(g.dir); err == nil || errors.Is(err, os.ErrNotExist) {
		UnwatchCgroup(g.dir)
	}
}

// staleName matches the cgroups NewPidsCgroup names: the kind, the
// tether's pid, then a sequence number.
var staleName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^tether-[a-z]+-(\d+)-\d+$`) })

// removeStale removes the cgroups under parent that a tether process no
// longer running made (one killed before it or its sentinel could), killing
// what is left in them first.
func removeStale(parent string) {
	ents, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range ents {
		m := staleName().FindStringSubmatch(e.Name())
		if !e.IsDir() || m == nil {
			continue
		}
		pid, err := strconv.Atoi(m[1])
		if err != nil || pid == os.Getpid() || pid <= 0 {
			continue
		}
		if err := syscall.Kill(pid, 0); err == nil || errors.Is(err, syscall.EPERM) {
			continue // its tether runs
		}
		KillCgroup(filepath.Join(parent, e.Name()))
	}
}

// Describe says the cap: "at most N processes and threads at once (cgroup
// v2 pids.max)".
func (g *PidsCgroup) Describe() string {
	return fmt.Sprintf("at most %d processes and threads at once (%s)", g.max, g.what)
}

// Dir is the cgroup's directory.
func (g *PidsCgroup) Dir() string { return g.dir }

// Max is its pids.max.
func (g *PidsCgroup) Max() int { return g.max }

// Exists reports whether the cgroup is still there.
func (g *PidsCgroup) Exists() bool {
	_, err := os.Stat(g.dir)
	return err == nil
}

// Stop kills everything left in the cgroup and removes it, bounded (about
// a second): killed tasks leave as they are reaped.
func (g *PidsCgroup) Stop() {
	if g == nil {
		return
	}
	g.KillAll()
	for range 50 {
		g.Remove()
		if !g.Exists() {
			return
		}
		time.Sleep(20 * time.Millisecond)
		g.KillAll()
	}
}
