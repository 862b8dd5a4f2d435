package workers

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/tetherhq/tether/internal/proc"
)

// sandbox confines a worker's command: read-write on the workers' directory
// and what the operator added (Config.ReadWrite), read-only on the
// command's own install (its first word, found on PATH) and Config.ReadOnly;
// an isolated worker (t) writes its own worktree instead of the workers'
// directory; the network is the operator's choice (--sandbox-net workers). Call it
// after SysProcAttr is set.
func (r *Roster) sandbox(cmd *exec.Cmd, tier string, t *tree) error {
	words := strings.Fields(r.cfg.Commands[tier])
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
	switch {
	case t != nil:
		// Its own worktree (and the worktree's index), not the workdir;
		// the repository's objects to read.
		rw = append(rw, t.path, t.gitdir)
		ro = append(ro, t.common)
	case r.cfg.Dir != "":
		rw = append(rw, r.cfg.Dir)
	}
	return proc.Sandbox(cmd, proc.Policy{Peer: tier + " worker", Family: proc.Workers, RO: ro, RW: rw})
}
