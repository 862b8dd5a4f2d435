// Package kernels measures the eval kernels' round trips against bare
// peers measured in the same run (bench/README.md, "kernels"): a trivial cell
// through tether's Python kernel against the same expression sent to a bare
// python3 loop over a pipe, a trivial cell through the JavaScript kernel
// against goja's RunString, and a tool() bridge call from a cell against a
// trivial cell. Nothing is asserted about time.
//
// A benchmark: its tests may import whatever they measure, and nothing
// imports it. It holds no code outside its tests.
package kernels
