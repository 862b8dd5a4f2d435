// Package internal holds what every layer of tether may use, in packages
// below it: fsutil (a confined workspace root and all-or-nothing writes),
// proc (child processes that never outlive tether), textcut (bounded text),
// bytesize (sizes as the flags take them), jsontree, ipynb (notebooks
// rewritten by spans), glob (path globs as regular expressions), logging,
// enginebench (tether bench: structural search engines compared), and the test
// helpers testenv and chromium. Its own test, layout_test.go, keeps the
// import direction of the whole module (docs/layout.md).
//
// No package under internal/ imports a tether package outside internal/.
// This package itself holds no code.
package internal
