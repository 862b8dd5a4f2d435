// Package peer runs the commands the benchmarks under bench/ compare
// (ast-grep, tether) and times them: one way to start a run, read its
// output, take its wall time and peak RSS and tell "nothing matched" from
// a failure.
//
// It is for the commands under bench/ only; it imports nothing but the
// standard library.
package peer
