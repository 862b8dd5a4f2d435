package proc

import "bufio"
import "io"
import "os"
import "path/filepath"
import "strconv"
import "strings"
import "sync"
import "syscall"
import "time"

// A process that clears its environment (env -i) is out of the sentinel's
// reach by EnvOwners, but not out of the cgroup its ancestor was put in: a
// cgroup this process watches is emptied and removed by the sentinel should
// this process end first.

var watchMu sync.Mutex

// WatchCgroup has the sentinel kill every process in the cgroup directory
// dir (cgroup.kill where the kernel offers it, else each of cgroup.procs)
// and remove it, should this process end before UnwatchCgroup(dir). It does
// nothing when the binary did not call Main or the sentinel cannot run.
func WatchCgroup(dir string) { tellSentinel("+" + dir) }

// UnwatchCgroup undoes WatchCgroup, once this process has emptied and
// removed dir itself.
func UnwatchCgroup(dir string) { tellSentinel("-" + dir) }

func tellSentinel(line string) {
	if !enabled || strings.ContainsAny(line, "\n\x00") || startSentinel() != nil {
		return
	}
	watchMu.Lock()
	defer watchMu.Unlock()
	_, _ = io.WriteString(sentinelPipe, line+"\n")
}

// readWatched reads the sentinel's stdin until it ends (its tether ended)
// and returns the cgroups still watched then.
func readWatched(r io.Reader) []string {
	watched := map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 64<<10)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "+"):
			watched[line[1:]] = true
		case strings.HasPrefix(line, "-"):
			delete(watched, line[1:])
		}
	}
	io.Copy(io.Discard, r) // a line too long ended the scan: wait for the end
	out := make([]string, 0, len(watched))
	for d := range watched {
		out = append(out, d)
	}
	return out
}

// KillCgroup kills every process in the cgroup directory dir and removes
// it, within a bound of about a second: through cgroup.kill (cgroup v2),
// else by killing each process cgroup.procs lists until it lists none
// (its pids.max bounds how many a fork loop can add meanwhile).
func KillCgroup(dir string) {
	if filepath.Base(dir) == dir || !filepath.IsAbs(dir) {
		return
	}
	kill := filepath.Join(dir, "cgroup.kill")
	for range 50 {
		if os.WriteFile(kill, []byte("1"), 0) != nil {
			b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
			if err != nil {
				return // gone
			}
			for _, f := range strings.Fields(string(b)) {
				if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		}
		if os.Remove(dir) == nil || os.IsNotExist(statErr(dir)) {
			return
		}
		time.Sleep(20 * time.Millisecond) // killed tasks leave as they are reaped
	}
}

func statErr(dir string) error {
	_, err := os.Stat(dir)
	return err
}
