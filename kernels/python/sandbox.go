package python

import "path/filepath"

import "github.com/tetherhq/tether/internal/proc"

// policy is a kernel's sandbox: read-write on the workspace (dir) and the
// kernel's scratch directory, read-only on the interpreter's prefix, its
// site-packages and what its links point to (internal/proc's python table);
// the network is the operator's choice (--sandbox-net eval). launcher is
// the command's first word (the interpreter, or an enclosure's command that
// runs it). cgroup is the kernel's pids cgroup, if any. It returns env with
// what the kernel's environment needs for it.
func policy(launcher, interp, dir, scratch, cgroup string, env []string) (proc.Policy, []string) {
	ro, rw := proc.Table(proc.Python, interp, env)
	if launcher != interp {
		lro, _ := proc.Table(proc.Native, launcher, env)
		ro = append(ro, lro...)
	}
	// matplotlib and fontconfig write their caches under HOME unless told
	// otherwise: into the scratch directory instead.
	env = append(env[:len(env):len(env)], "MPLCONFIGDIR="+filepath.Join(scratch, "matplotlib"), "XDG_CACHE_HOME="+filepath.Join(scratch, "cache"))
	return proc.Policy{Peer: "python kernel", Family: proc.Kernels, RO: ro, RW: append(rw, dir), Scratch: scratch, Cgroup: cgroup}, env
}
