package dap

import "io"
import "net"
import "os/exec"

import "github.com/tetherhq/tether/bridges/dap/internal/nodeadapter"
import "github.com/tetherhq/tether/internal/proc"

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
	s.connectInProcess(func(rw io.ReadWriteCloser) { nodeadapter.Serve(rw, s.nodeConfig(proc.Node)) })
}

// nodeConfig is what the in-process node or Chromium adapter needs of the
// session: the processes it starts run on toolchain, sandboxed in the
// session's limits.
func (s *session) nodeConfig(toolchain proc.Toolchain) nodeadapter.Config {
	return nodeadapter.Config{
		Node: s.adapter.argv[0], Chromium: s.adapter.argv[0], Root: s.root, Scratch: s.scratch,
		Sandbox: func(cmd *exec.Cmd, peer, binary string) error {
			return sandboxIf(cmd, peer, string(toolchain), binary, "", s.root, s.scratch, "", s.procLimits())
		},
		LookPath: func(name string) string { return lookBinary(name, s.root) },
		Kill:     func(pid int) { killTreeAndGroups([]int{pid}, pid) },
	}
}

// connectInProcess serves the session with an adapter of tether's own,
// serve, over a net.Pipe: the session's end is one more DAP connection.
func (s *session) connectInProcess(serve func(rw io.ReadWriteCloser)) {
	ours, theirs := net.Pipe()
	go serve(ours)
	s.c = newConn(theirs, s.onEvent, nil)
	s.c.timeout = s.requestTimeout
}
