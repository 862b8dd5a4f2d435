package dap

import (
	"net"
	"os/exec"

	"github.com/tetherhq/tether/bridges/dap/internal/nodeadapter"
	"github.com/tetherhq/tether/internal/proc"
)

// Inspector is the transport of an adapter tether implements itself: it
// serves DAP in-process and drives node's own inspector (the Chrome
// DevTools Protocol) in the program it starts. The adapter's command is
// the node binary.
const Inspector Transport = "node-inspector"

// connectInspector serves the session with the in-process node adapter
// (internal/nodeadapter) over a net.Pipe: the session's end is one more
// DAP connection, the same as an external adapter's. What the adapter
// starts (the program, tsc) is sandboxed like an adapter process of the
// session, in its process limits.
func (s *session) connectInspector() {
	ours, theirs := net.Pipe()
	cfg := nodeadapter.Config{
		Node: s.adapter.argv[0], Root: s.root, Scratch: s.scratch,
		Sandbox: func(cmd *exec.Cmd, peer, binary string) error {
			return sandboxIf(cmd, peer, string(proc.Node), binary, "", s.root, s.scratch, "", s.procLimits())
		},
		LookPath: func(name string) string { return lookBinary(name, s.root) },
		Kill:     func(pid int) { killTreeAndGroups([]int{pid}, pid) },
	}
	go nodeadapter.Serve(ours, cfg)
	s.c = newConn(theirs, s.onEvent, nil)
	s.c.timeout = s.requestTimeout
}
