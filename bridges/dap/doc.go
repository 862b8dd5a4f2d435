// Package dap drives debug adapters over the Debug Adapter Protocol
// (https://microsoft.github.io/debug-adapter-protocol/) for tether's `debug`
// tool. The adapters of DefaultAdapters (the one table that names them) are
// external processes reached over stdio or a unix socket, except node's,
// Chromium's and PHP's: their transports, Inspector, Chromium and Xdebug,
// are tether's own adapters (internal/nodeadapter, internal/phpadapter,
// which share internal/dapserve), which serve DAP in-process over a
// net.Pipe and drive node's inspector or a page in Chromium, or speak DBGp
// to Xdebug, so the session sees one more DAP connection. A user adds or
// replaces entries with LoadAdapters and MergeAdapters, including adapters that serve
// DAP on TCP (started on a free port, or already running). The reverse
// requests runInTerminal and startDebugging are served: a program run as a
// process of the session, and child sessions driven as part of it.
//
// The package is layered: framing and request correlation (go-dap's codec and
// types, internal), a session (one adapter process and its debuggee), and the
// facade, Supervisor, which holds at most one session per conversation with a
// fixed TTL and serializes calls. No go-dap type appears in the exported API.
// What each op does for the tool's caller is in docs/tools.md ("debug").
//
// dap imports only internal/ packages (tether's, and its own
// internal/nodeadapter, internal/phpadapter, internal/dapserve and
// internal/sourcemap), go-dap, golang.org/x/sys and
// the standard library: never tools, server or cmd, which sit above it, nor
// another bridge.
package dap
