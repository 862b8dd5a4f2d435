// Command astgrep measures tether's structural search against ast-grep on the
// same corpus (by default Go's standard library), the same patterns and the
// same thread count, in one run, and writes the ratio table into
// bench/README.md ("Structural search vs ast-grep" section).
//
//	go run ./bench/astgrep [-corpus DIR] [-j N] [-tether bin/tether] [-readme bench/README.md]
//	go run ./bench/astgrep -session [...]
//	go run ./bench/astgrep -tier [-corpus DIR] [-rounds N] [-one] [...]
//
// cold: a new process per query for both (tether's wasm compilation cache on
// disk is warm, as after any earlier run; the OS file cache is warm for both).
// warm: the same query a second time inside one tether process, served by the
// process's tree store; ast-grep has no warm mode, so its cold time is the
// reference for both ratios.
//
// -session: the agent-session benchmark (session.go): 20 different patterns
// as 20 ast-grep processes, as 20 tether processes with a cold then a warm
// disk tier, and in one tether process (the matcher as serve's ast_grep
// runs it, without the MCP framing); then the session's floor (floor.go):
// one wasm parse of what its queries need, and for the warm rows the read of
// the files and trees they need.
//
// -tier: the disk tier benchmark (tier.go): each of TierPatterns over the
// corpus, then a one-file search, as tether with an empty disk tier, tether
// with --no-cache and ast-grep, in turn in every round; the medians of the
// rounds and their ratios, with the load average, since the machine may be
// shared. -tier -one runs only the one-file search, -rounds times.
//
// A benchmark command: it may import whatever it measures, and nothing imports
// it.
package main
