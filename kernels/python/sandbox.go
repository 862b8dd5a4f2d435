package python

import (
	"os/exec"
	"path/filepath"

	"github.com/tetherhq/tether/internal/proc"
)

// sandbox confines a kernel's command: read-write on the workspace (dir)
// and the kernel's scratch directory, read-only on the interpreter's
// prefix, its site-packages and what its links point to (internal/proc's
// python table); the network is the operator's choice (--sandbox-net eval).
// launcher is the command's first word (the interpreter, or an enclosure's
// command that runs it). cgroup is the kernel's pids cgroup, if any.
func sandbox(cmd *exec.Cmd, launcher, interp, dir, scratch, cgroup string) error {
	ro, rw := proc.Table(proc.Python, interp, cmd.Env)
	if launcher != interp {
		lro, _ := proc.Table(proc.Native, launcher, cmd.Env)
		ro = append(ro, lro...)
	}
	// matplotlib and fontconfig write their caches under HOME unless told
	// otherwise: into the scratch directory instead.
	cmd.Env = append(cmd.Env, "MPLCONFIGDIR="+filepath.Join(scratch, "matplotlib"), "XDG_CACHE_HOME="+filepath.Join(scratch, "cache"))
	return proc.Sandbox(cmd, proc.Policy{Peer: "python kernel", Family: proc.Kernels, RO: ro, RW: append(rw, dir), Scratch: scratch, Cgroup: cgroup})
}
