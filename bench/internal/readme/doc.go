// Package readme writes a benchmark command's table into bench/README.md,
// between the markers of its section, so that rerunning the command
// replaces the table it wrote before and leaves the rest of the file alone.
//
// It is for the commands under bench/ only; it imports nothing but the
// standard library.
package readme
