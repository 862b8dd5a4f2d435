package dap

import (
	"os/exec"

	"github.com/tetherhq/tether/internal/proc"
)

// sandbox confines an adapter's command and so the program it debugs:
// read-write on the project (root) and the session's scratch directory
// (its socket, the built program), read-only on the adapter's toolchain
// and the debuggee's interpreter (internal/proc's Table); the network is the
// operator's choice (--sandbox-net debug). Call it after SysProcAttr is set.
func sandbox(cmd *exec.Cmd, peer, toolchain, binary, interpreter, root, scratch string) error {
	return sandboxIf(cmd, peer, toolchain, binary, interpreter, root, scratch, "")
}

// unconfinedAttach says why an adapter attaching to a program tether did not
// start runs outside the sandbox ("" when it need not): lldb-dap reads the
// program's /proc entries, which Landlock keeps from a sandboxed process.
func unconfinedAttach(a *resolved, kind string) string {
	if kind != "attach" || a.AttachDirect || !proc.SandboxStatus().Files() {
		return ""
	}
	return "attached to a program tether did not start, " + a.ID + " reads its /proc entries, which the sandbox keeps from it"
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
// (refused on a strict host).
func sandboxIf(cmd *exec.Cmd, peer, toolchain, binary, interpreter, root, scratch, unconfined string) error {
	tc := proc.Toolchain(toolchain)
	if tc == "" {
		tc = proc.Native
	}
	ro, rw := proc.Table(tc, binary, cmd.Env)
	if interpreter != "" {
		pro, _ := proc.Table(proc.Python, interpreter, cmd.Env)
		ro = append(ro, pro...)
	}
	return proc.Sandbox(cmd, proc.Policy{Peer: peer, Family: proc.Debug, RO: ro, RW: append(rw, root), Scratch: scratch, Unconfined: unconfined})
}
