// Package python is tether's Python kernel: an external python3 process
// reached over its stdin/stdout with a framed protocol of ours (no sockets, no
// ports). The in-kernel driver is a small Python program embedded in the
// binary (driver.py); it runs cells, echoes the last expression, renders rich
// output (pandas tables, matplotlib figures as PNG), rewrites nothing itself:
// IPython idioms are rewritten on the host by Rewrite before a cell is sent.
//
// What a cell can do is in docs/tools.md ("eval").
//
// python imports kernels and internal/ only: never tools or anything above it.
package python
