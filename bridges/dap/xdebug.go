package dap

import "io"
import "os/exec"

import "github.com/tetherhq/tether/bridges/dap/internal/phpadapter"
import "github.com/tetherhq/tether/internal/proc"

// Xdebug is the transport of tether's own PHP adapter: it serves DAP
// in-process and speaks DBGp to Xdebug in the php it starts, which
// connects back to it. The adapter's command is the php binary.
const Xdebug Transport = "xdebug"

// connectXdebug serves the session with the in-process PHP adapter
// (internal/phpadapter) over a net.Pipe, as connectInspector serves node's:
// php is sandboxed like an adapter process of the session, in its
// process limits.
func (s *session) connectXdebug() {
	cfg := phpadapter.Config{
		PHP: s.adapter.argv[0], Root: s.root, Scratch: s.scratch,
		Sandbox: func(cmd *exec.Cmd, peer, binary string) error {
			return sandboxIf(cmd, peer, string(proc.PHP), binary, "", s.root, s.scratch, "", s.procLimits())
		},
		Kill: func(pid int) { killTreeAndGroups([]int{pid}, pid) },
	}
	s.connectInProcess(func(rw io.ReadWriteCloser) { phpadapter.Serve(rw, cfg) })
}
