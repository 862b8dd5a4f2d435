// Package dap drives debug adapters over the Debug Adapter Protocol
// (https://microsoft.github.io/debug-adapter-protocol/) for tether's `debug`
// tool: delve, debugpy, lldb-dap and the Dart SDK's adapter stay external
// processes reached over stdio or a unix socket.
//
// The package is layered: framing and request correlation (go-dap's codec and
// types, internal), a session (one adapter process and its debuggee), and the
// facade, Supervisor, which holds at most one session per conversation with a
// fixed TTL and serializes calls. No go-dap type appears in the exported API.
//
// See SPEC.md, "debug: drive a debugger".
package dap
