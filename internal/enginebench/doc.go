// Package enginebench compares structural search engines on one corpus, for
// `tether bench`: a suite of patterns (a file of them, or a built-in set for
// Go, Python, TypeScript or Rust) run by tether four ways (an empty disk
// tier, --no-cache, a warm tier, and one process answering every pattern)
// and by every other engine found on PATH (ast-grep; semgrep and comby,
// whose pattern languages are translated where they can be), in rounds that
// alternate the engines' order so that no engine always runs on a warmer
// machine. Each run's wall time, CPU time, peak RSS and match count are
// kept; the report prints as a table, encodes as JSON and draws as an SVG
// chart, and says where engines' match counts differ.
//
// The engines run as child processes and nothing here parses code: tether
// itself is re-run from its own binary, so the package works in a binary
// installed with `go install` as in a checkout. It imports the standard
// library and internal/proc alone (every engine it starts ends with tether),
// so that cmd/tether may use it without pulling a layer in.
package enginebench
