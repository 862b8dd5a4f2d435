package dap

import "io"

import "github.com/tetherhq/tether/bridges/dap/internal/nodeadapter"
import "github.com/tetherhq/tether/internal/proc"

// Chromium is the transport of tether's own adapter for JavaScript in a
// page of Chromium: it serves DAP in-process, as Inspector does for node,
// and drives the browser's DevTools protocol. The adapter's command is
// the Chromium binary: a launch starts it headless, sandboxed, over its
// DevTools pipe (no port); an attach reaches a running browser's DevTools
// port.
const Chromium Transport = "chromium-devtools"

// connectChromium serves the session with the in-process Chromium adapter
// (internal/nodeadapter's ServeBrowser) over a net.Pipe.
// Chromium reserves tens of gigabytes of address space as it starts (V8's
// heap cage, its allocator's pools) and dies at once under RLIMIT_AS, so
// its session has no address-space cap; the pids cgroup still holds it.
func (s *session) connectChromium() {
	s.limits.NoAddressSpaceCap("Chromium reserves tens of GiB of address space as it starts and cannot run under a cap")
	s.connectInProcess(func(rw io.ReadWriteCloser) { nodeadapter.ServeBrowser(rw, s.nodeConfig(proc.Native)) })
}

// isPageURL reports whether a launch's program is a page's URL (http,
// https or file), which only an adapter that opens URLs launches.
func isPageURL(program string) bool { return nodeadapter.IsPageURL(program) }
