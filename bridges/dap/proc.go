package dap

import "os"
import "slices"
import "sort"
import "strconv"
import "strings"
import "syscall"
import "time"

// procEntry is one row of the process table.
type procEntry struct {
	ppid, pgid int
	state      byte
	start      uint64 // start time in clock ticks since boot: tells a reused pid apart
}

// processTable reads /proc: pid -> parent, process group and state. On a
// system without /proc it returns an empty table (then only process groups
// are killed).
func processTable() map[int]procEntry {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	table := make(map[int]procEntry, len(ents))
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pe, ok := readStat(pid); ok {
			table[pid] = pe
		}
	}
	return table
}

func readStat(pid int) (procEntry, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procEntry{}, false
	}
	// pid (comm) state ppid pgrp ...; comm may contain spaces and parens.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procEntry{}, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 3 {
		return procEntry{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	pgid, _ := strconv.Atoi(f[2])
	var start uint64
	if len(f) > 19 {
		start, _ = strconv.ParseUint(f[19], 10, 64)
	}
	return procEntry{ppid: ppid, pgid: pgid, state: f[0][0], start: start}, true
}

// processAlive reports whether pid exists and is not a zombie.
func processAlive(pid int) bool {
	if pe, ok := readStat(pid); ok {
		return pe.state != 'Z' && pe.state != 'X'
	}
	if _, err := os.Stat("/proc"); err == nil {
		return false
	}
	return syscall.Kill(pid, 0) == nil
}

// snapshotTree records the given processes and all their descendants as they
// are now, so that they can still be found after a polite shutdown has
// orphaned some of them (a debuggee's children are reparented to init when
// the debuggee exits).
func snapshotTree(roots ...int) map[int]uint64 {
	table := processTable()
	known := map[int]uint64{}
	for _, p := range roots {
		if pe, ok := table[p]; ok {
			known[p] = pe.start
		}
	}
	for grew := true; grew; {
		grew = false
		for pid, pe := range table {
			if _, ok := known[pid]; ok || pid <= 1 {
				continue
			}
			if _, ok := known[pe.ppid]; ok {
				known[pid] = pe.start
				grew = true
			}
		}
	}
	delete(known, os.Getpid())
	return known
}

// portListening reports whether a TCP socket listens on port (IPv4 or
// IPv6), read from /proc/net without connecting; true when that cannot be
// read, so that the adapter has the last word.
func portListening(port int) bool {
	read := false
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		read = true
		for _, line := range strings.Split(string(data), "\n")[1:] {
			fields := strings.Fields(line)
			if len(fields) < 4 || fields[3] != "0A" { // 0A: LISTEN
				continue
			}
			local := fields[1]
			if i := strings.LastIndexByte(local, ':'); i >= 0 {
				if p, err := strconv.ParseUint(local[i+1:], 16, 16); err == nil && int(p) == port {
					return true
				}
			}
		}
	}
	return !read
}

// groupMembers lists the live processes of process group pgid as
// "pid command".
func groupMembers(pgid int) []string {
	var out []string
	for pid, pe := range processTable() {
		if pe.pgid != pgid || pe.state == 'Z' || pe.state == 'X' {
			continue
		}
		cmd, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		line := strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " "))
		if len(line) > 80 {
			line = line[:80] + "…"
		}
		out = append(out, strconv.Itoa(pid)+" "+line)
	}
	sort.Strings(out)
	return out
}

// stillSame returns the pids of snap that still run the same process.
func stillSame(snap map[int]uint64) []int {
	var out []int
	for pid, start := range snap {
		if pe, ok := readStat(pid); ok && pe.start == start {
			out = append(out, pid)
		}
	}
	return out
}

// killTree kills the given processes, every descendant of them, and every
// member of their process groups, until none is left alive. Descendants are
// collected before anything is killed so that orphans reparented to init are
// still known. Our own process group is never signalled.
func killTree(roots ...int) { killTreeAndGroups(nil, roots...) }

// killTreeAndGroups is killTree that also kills the members of the given
// process groups (a debuggee's group, whose leader may have exited already,
// leaving its children orphaned out of any tree).
//
// The tree is frozen before it is killed: every process found is stopped
// (SIGSTOP) and the table read again until no new descendant appears. A
// process killed while it forks would otherwise leave a child that no parent
// link leads to any more (reparented to init) and, in a session of its own,
// no process group either.
func killTreeAndGroups(groups []int, roots ...int) {
	self := os.Getpid()
	selfPgid, _ := syscall.Getpgid(0)
	known := map[int]bool{}
	pgids := map[int]bool{}
	for _, p := range roots {
		if p > 1 && p != self {
			known[p] = true
		}
	}
	if len(known) == 0 && len(groups) == 0 {
		return
	}
	grow := func(table map[int]procEntry) {
		// Members of the given groups join by their table rows only, never
		// by signalling a group that may no longer exist (its id reused).
		for _, g := range groups {
			if g <= 1 || g == selfPgid {
				continue
			}
			for pid, pe := range table {
				if pe.pgid == g && pid != self {
					known[pid] = true
				}
			}
		}
		// Grow the set: children of known processes, members of known groups.
		for grew := true; grew; {
			grew = false
			for pid, pe := range table {
				if known[pid] || pid == self || pid <= 1 {
					continue
				}
				if known[pe.ppid] || (pgids[pe.pgid] && pe.pgid != selfPgid) {
					known[pid] = true
					grew = true
				}
			}
			for pid := range known {
				if pe, ok := table[pid]; ok && pe.pgid > 1 && pe.pgid != selfPgid && !pgids[pe.pgid] {
					pgids[pe.pgid] = true
					grew = true
				}
			}
		}
	}
	stopped := map[int]bool{}
	for round := 0; round < 20; round++ {
		table := processTable()
		if table == nil {
			break
		}
		grow(table)
		var fresh []int
		for pid := range known {
			if pe, ok := table[pid]; ok && !stopped[pid] && pe.state != 'Z' && pe.state != 'X' {
				_ = syscall.Kill(pid, syscall.SIGSTOP)
				stopped[pid] = true
				fresh = append(fresh, pid)
			}
		}
		if len(fresh) == 0 {
			break
		}
		waitStopped(fresh, 500*time.Millisecond)
	}
	for round := 0; round < 50; round++ {
		table := processTable()
		grow(table)
		alive := 0
		for pid := range known {
			if pe, ok := table[pid]; ok && pe.state != 'Z' && pe.state != 'X' {
				alive++
				_ = syscall.Kill(pid, syscall.SIGKILL)
			} else if table == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		for g := range pgids {
			_ = syscall.Kill(-g, syscall.SIGKILL)
		}
		if alive == 0 && table != nil {
			return
		}
		if table == nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitStopped waits (up to limit) until each pid is stopped, stopped by its
// tracer, a zombie or gone: a stopped process forks no more, so its children
// are all in the next read of the table.
func waitStopped(pids []int, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for _, pid := range pids {
		for {
			pe, ok := readStat(pid)
			if !ok || strings.IndexByte("TtZX", pe.state) >= 0 || time.Now().After(deadline) {
				break
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
}

// procLine describes a live process as "pid command", or "" when it is gone
// or a zombie.
func procLine(pid int) string {
	if !processAlive(pid) {
		return ""
	}
	cmd, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	line := strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " "))
	if len(line) > 80 {
		line = line[:80] + "…"
	}
	return strconv.Itoa(pid) + " " + line
}

// outputPipes returns the pipes (as their /proc link text, "pipe:[N]") a
// process writes its stdout and stderr to.
func outputPipes(pid int) []string {
	var out []string
	for _, fd := range []string{"1", "2"} {
		if l, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/fd/" + fd); err == nil && strings.HasPrefix(l, "pipe:") && !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// pipeWriters returns the live processes that hold a write end of one of
// the pipes, leaving out the processes of the trees under exclude (and
// tether itself, not its other children: an orphan reparented to tether, a
// subreaper, or to the init of a sandbox's PID namespace is one of those
// sought): once a debuggee has exited, these are the processes it left
// running that keep its output open.
func pipeWriters(pipes []string, exclude ...int) []int {
	if len(pipes) == 0 {
		return nil
	}
	skip := map[int]bool{}
	table := processTable()
	for _, r := range exclude {
		skip[r] = true
	}
	for changed := true; changed; {
		changed = false
		for pid, pe := range table {
			if !skip[pid] && skip[pe.ppid] && pe.ppid > 1 {
				skip[pid], changed = true, true
			}
		}
	}
	var out []int
	for pid, pe := range table {
		if skip[pid] || pid == os.Getpid() || pe.state == 'Z' || pe.state == 'X' {
			continue
		}
		dir := "/proc/" + strconv.Itoa(pid)
		fds, err := os.ReadDir(dir + "/fd")
		if err != nil {
			continue
		}
		for _, fd := range fds {
			l, err := os.Readlink(dir + "/fd/" + fd.Name())
			if err != nil || !slices.Contains(pipes, l) {
				continue
			}
			if writable(dir + "/fdinfo/" + fd.Name()) {
				out = append(out, pid)
				break
			}
		}
	}
	sort.Ints(out)
	return out
}

// writable reports whether an fdinfo file says its descriptor was opened
// for writing.
func writable(fdinfo string) bool {
	b, err := os.ReadFile(fdinfo)
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "flags:"); ok {
			flags, err := strconv.ParseUint(strings.TrimSpace(v), 8, 64)
			return err == nil && flags&3 != 0 // O_WRONLY or O_RDWR
		}
	}
	return false
}
