package workers

import "os"
import "os/exec"
import "path/filepath"
import "strings"

import "github.com/tetherhq/tether/internal/proc"

// sandbox confines a run of w's command (its tier's, or the resume one):
// read-write on the workers' directory, w's state directory and what the
// operator added (Config.ReadWrite), read-only on the command's own install
// (its first word, found on PATH) and Config.ReadOnly. An isolated worker
// writes its own worktree instead of the workers' directory. The network is
// the operator's choice (--sandbox-net workers). The run joins the pids
// cgroup dir (when not "") before its command starts. Call it after
// SysProcAttr is set.
func (r *Roster) sandbox(cmd *exec.Cmd, command string, w *worker, caps *proc.Caps) error {
	t, tier := w.tree, w.tier
	words := strings.Fields(command)
	first := ""
	if len(words) > 0 {
		first = words[0]
	}
	ro, rw := proc.Table(proc.Shell, first, cmd.Env)
	// A script or configuration file the command line names by its
	// absolute path ("sh /opt/agents/run.sh") is the command's own.
	for _, w := range words[min(1, len(words)):] {
		if filepath.IsAbs(w) {
			if _, err := os.Stat(w); err == nil {
				ro = append(ro, w)
			}
		}
	}
	ro = append(ro, r.cfg.ReadOnly...)
	rw = append(rw, r.cfg.ReadWrite...)
	if w.state != "" {
		rw = append(rw, w.state)
	}
	switch {
	case t != nil:
		// Its own worktree (and the worktree's index), not the workdir;
		// the repository's objects to read.
		rw = append(rw, t.path, t.gitdir)
		ro = append(ro, t.common)
	case r.cfg.Dir != "":
		rw = append(rw, r.cfg.Dir)
	}
	// Its state directory is its home: an agent's own configuration and
	// history stay with the worker, never in the operator's home.
	return proc.Sandbox(cmd, proc.Policy{Peer: tier + " worker", Family: proc.Workers, RO: ro, RW: rw, Home: w.state, PassEnv: r.cfg.PassEnv, Cgroup: caps.Dir(), AddressSpace: caps.AS})
}
