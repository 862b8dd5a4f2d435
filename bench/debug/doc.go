// Package debug measures the debug tool's launch-to-first-stop time for each
// installed adapter (delve, debugpy, lldb-dap, node): the time from the `launch`
// call through the tools API to the first breakpoint stop on a tiny program,
// with the real adapter. Results go in bench/README.md; nothing is asserted
// about time. A missing adapter skips its case, naming it, unless
// TETHER_REQUIRE_PEERS=1.
//
// A benchmark: its tests may import whatever they measure (tools, the DAP
// bridge, internal/testenv), and nothing imports it. It holds no code
// outside its tests.
package debug
