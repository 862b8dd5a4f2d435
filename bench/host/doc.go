// Package host is the load benchmark of tether's host mode
// (bench/README.md, "host"): 50 concurrent MCP sessions over loopback
// Streamable HTTP, each doing reads, an ast_grep over a shared corpus and a
// JavaScript eval, against one `tether serve --http` process. It reports
// calls per second, p50 and p99 call latency, the process's peak RSS and its
// RSS per extra session. Nothing is asserted about time.
//
// A benchmark: its tests may import whatever they measure, and nothing
// imports it. It holds no code outside its tests.
package host
