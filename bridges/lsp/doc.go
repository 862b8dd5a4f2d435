// Package lsp is tether's language-server bridge: a client for the Language
// Server Protocol (https://microsoft.github.io/language-server-protocol/) and a
// Supervisor that starts, watches and restarts one server per language and
// project root.
//
// The client is layered, as gopls's own is: framing and JSON-RPC 2.0 come from
// go.lsp.dev/jsonrpc2; the typed protocol layer (wire.go) is this package's own
// small set of LSP structs (see RATIONALE.md); the facade (Supervisor and its
// query methods) speaks in workspace-relative paths, 1-based lines and a
// `symbol` substring instead of columns. No jsonrpc2 or protocol type appears
// in an exported signature.
//
// Which servers exist is data (Server, DefaultServers) that a user can extend.
// A server starts lazily, at the first call for a root, and only when a root
// marker exists AND its binary is found; Status says which of the two is
// missing otherwise. What the lsp tools do for their caller is in
// docs/tools.md ("lsp").
//
// The language logic around the servers lives here too: which other files
// a write can break (AffectedFiles), the identifiers spelled as a symbol
// that a server did not rename or confirm (ScanSameName), and a C header's
// change that clangd does not see (HiddenHeaderChange). They read
// tree-sitter trees that the layer above parses for them (Syntax, Parser).
//
// lsp imports only internal/ packages, grammars (the grammar table),
// jsonrpc2 and the standard library: never tools, server or cmd, which sit
// above it, nor the engine, search, or another bridge.
package lsp
