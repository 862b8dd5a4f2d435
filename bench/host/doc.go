// Package host is the load benchmark of tether's host mode
// (bench/README.md, "host"): 50 concurrent MCP sessions (-sessions N for
// more) over loopback Streamable HTTP, each doing reads, an ast_grep over a
// shared corpus, a JavaScript eval and a Python eval, against one `tether
// serve --http` process. It reports calls per second, p50 and p99 call
// latency, failed calls, the process's peak RSS, and the PSS of the host and
// its kernel processes (with their sandbox inits), per session and by kind.
// It fails when opening sessions starts a process (kernels start on a
// session's first cell). BenchmarkHostSharedLSP opens 20 sessions on one
// Go workspace, each asking lsp, and reports the memory of tether and its
// language servers and how many gopls servers ran, shared and with
// --share-lsp=false; TestHostSharedLSP asserts that the sessions of a
// workspace share one gopls. Nothing is asserted about time.
//
// A benchmark: its tests may import whatever they measure, and nothing
// imports it. It holds no code outside its tests.
package host
