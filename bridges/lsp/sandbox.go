package lsp

import (
	"os"
	"os/exec"

	"github.com/tetherhq/tether/internal/proc"
)

// sandboxed confines cmd (a server, its probe or a checker of spec) to the
// workspace, a scratch directory of its own and what its toolchain needs
// (internal/proc's Table), with no network unless the operator allowed the
// lsp family. The returned func removes the scratch directory; call it once
// the process has ended.
func sandboxed(cmd *exec.Cmd, spec Server, binary, workdir string) (func(), error) {
	tc := proc.Toolchain(spec.Toolchain)
	if tc == "" {
		tc = proc.Native
	}
	ro, rw := proc.Table(tc, binary, cmd.Env)
	scratch, err := os.MkdirTemp("", "tether-lsp-")
	if err != nil {
		return func() {}, err
	}
	done := func() { _ = os.RemoveAll(scratch) }
	p := proc.Policy{Peer: spec.Name, Family: proc.Servers, RO: ro, RW: append(rw, workdir), Scratch: scratch}
	if err := proc.Sandbox(cmd, p); err != nil {
		done()
		return func() {}, err
	}
	return done, nil
}
