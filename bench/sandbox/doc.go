// Package sandbox measures what the sandbox costs a process tether starts:
// the time from nothing to a first answer of gopls, pyright and a Python
// kernel, with the sandbox on (internal/proc's launcher, Landlock and
// namespaces) and off. Results are ratios measured in the same run
// (bench/README.md); nothing is asserted about time.
//
// A benchmark: its tests may import whatever they measure, and nothing
// imports it. It holds no code outside its tests.
package sandbox
