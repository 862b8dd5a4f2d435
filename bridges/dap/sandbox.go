package dap

import "fmt"
import "os/exec"

import "github.com/tetherhq/tether/internal/proc"

// sandbox confines an adapter's command and so the program it debugs:
// read-write on the project (root) and the session's scratch directory
// (its socket, the built program), read-only on the adapter's toolchain
// and the debuggee's interpreter (internal/proc's Table); the network is the
// operator's choice (--sandbox-net debug). Call it after SysProcAttr is set.
func sandbox(cmd *exec.Cmd, peer, toolchain, binary, interpreter, root, scratch string) error {
	return sandboxIf(cmd, peer, toolchain, binary, interpreter, root, scratch, "", procLimits{})
}

// unconfinedAttach says why an adapter attaching to a program tether did not
// start runs outside the sandbox ("" when it need not). By pid (pid != 0),
// every adapter traces the process with ptrace, which Landlock refuses for a
// process outside the sandbox's domain; by port, lldb-dap still reads the
// program's /proc entries, which Landlock keeps from a sandboxed process.
func unconfinedAttach(a *resolved, kind string, pid int) string {
	if kind != "attach" || !proc.SandboxStatus().Files() {
		return ""
	}
	if pid != 0 {
		return fmt.Sprintf("attached by pid to process %d, which tether did not start: %s traces it with ptrace, which the sandbox refuses for a process outside it", pid, a.ID)
	}
	if a.AttachDirect {
		return ""
	}
	return "attached to a program tether did not start, " + a.ID + " reads its /proc entries, which the sandbox keeps from it"
}

// checkAttachSandbox refuses an attach by pid where the sandbox is strict
// (a host: serve --http) and confines files: the adapter would have to run
// outside the sandbox to trace the process, which such a host never allows.
// It runs before any adapter starts, so the refusal costs nothing.
func checkAttachSandbox(at AttachArgs) error {
	st := proc.SandboxStatus()
	if at.PID == 0 || !st.Files() || !st.Options().Strict {
		return nil
	}
	return fmt.Errorf("debug: attach by pid is refused on this host: tracing process %d, which tether did not start, needs the debug adapter outside the sandbox (Landlock refuses ptrace of a process outside it), and this host runs every process sandboxed; start the program under a debug server instead (dlv exec --headless --listen 127.0.0.1:PORT, python -m debugpy --listen PORT, lldb-server gdbserver, node --inspect=127.0.0.1:PORT) and attach with port (and host), or use launch", at.PID)
}

// sandboxNote is the sentence a session's first result carries about what
// confines its adapter and program.
func sandboxNote(unconfined string) string {
	if unconfined != "" {
		return "sandbox: none for this session: " + unconfined
	}
	return proc.SandboxStatus().Note(proc.Debug)
}

// sandboxIf is sandbox, leaving cmd unsandboxed with unconfined's reason
// (refused on a strict host), the process joining lim's pids cgroup (when
// not "") before its program starts and running under lim's address-space
// limit.
func sandboxIf(cmd *exec.Cmd, peer, toolchain, binary, interpreter, root, scratch, unconfined string, lim procLimits) error {
	tc := proc.Toolchain(toolchain)
	if tc == "" {
		tc = proc.Native
	}
	ro, rw := proc.Table(tc, binary, cmd.Env)
	if interpreter != "" {
		pro, _ := proc.Table(proc.Python, interpreter, cmd.Env)
		ro = append(ro, pro...)
	}
	return proc.Sandbox(cmd, proc.Policy{Peer: peer, Family: proc.Debug, RO: ro, RW: append(rw, root), Scratch: scratch, Caches: proc.TableCaches(tc, cmd.Env, root), Unconfined: unconfined, Cgroup: lim.cgroup, AddressSpace: lim.as})
}
