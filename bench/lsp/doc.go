// Package lsp measures tether's language-server bridge against the bare
// server: the same request sent over a minimal JSON-RPC client with no
// supervisor, position resolution, re-sync or formatting. Results are ratios
// measured in the same run (bench/README.md); nothing is asserted about time.
//
// A benchmark: its tests may import whatever they measure, and nothing
// imports it. It holds no code outside its tests.
package lsp
