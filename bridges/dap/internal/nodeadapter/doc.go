// Package nodeadapter is tether's own debug adapter for node: it serves the
// Debug Adapter Protocol (https://microsoft.github.io/debug-adapter-protocol/)
// over an io.ReadWriteCloser (Serve) and drives node's inspector, the Chrome
// DevTools Protocol (https://chromedevtools.github.io/devtools-protocol/v8/),
// in the program it launches. No standalone node adapter is installable
// from a package registry, and node ships the inspector, so bridges/dap runs
// this one in-process, as one more transport: a session talks to it over a
// net.Pipe exactly as to an external adapter's stdio.
//
// node first runs a small relay (relay.cjs) whose worker thread opens an
// inspector session on the main thread and relays it over fds 3 and 4, so no
// port is opened. A .ts program is compiled with tsc into the session's
// scratch dir; breakpoints on .ts lines and frames in compiled code go
// through source maps (../sourcemap). It attaches to a node tether did not
// start through that node's own inspector: by its port, or by its pid,
// whose inspector SIGUSR1 opens; the inspector's WebSocket is dialled by
// a small client of its own (ws.go), the standard library having none.
//
// ServeBrowser is the same adapter for JavaScript in a page of Chromium
// (browser.go): it starts headless Chromium and speaks the protocol over
// the browser's DevTools pipe, attached to its page, or attaches to a
// running browser's page through its DevTools port; breakpoints, source
// maps, frames, scopes and steps are the node adapter's.
//
// It imports internal/ packages, go-dap (for DAP's messages) and its siblings
// sourcemap and dapserve only: never bridges/dap, which serves it, nor anything above.
// What it needs of the session (sandboxing a command, finding a binary,
// killing a process tree) it is given in Config.
package nodeadapter
