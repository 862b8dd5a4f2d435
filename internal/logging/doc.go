// Package logging builds tether's diagnostic logger (log/slog) from the
// --log-level and --log-format flags. Diagnostics go to stderr, never to
// stdout (which `tether serve` speaks MCP on), and never carry file contents
// or tokens: a message names what happened and how big it was.
//
// It imports no tether package outside internal/ (the standard library and the
// few third-party modules internal/layout_test.go allows it), so that every
// layer may use it.
package logging
