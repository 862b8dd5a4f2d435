// Package textcut bounds text for tool results: cuts that never split a
// UTF-8 sequence and say how much is shown, and writers that keep the head or
// the tail of a stream within a byte budget and count what they dropped
// (every tool result is bounded, and a cut result says so).
//
// It imports no tether package outside internal/ (the standard library and the
// few third-party modules internal/layout_test.go allows it), so that every
// layer may use it.
package textcut
