//go:build !race

package jsproc

// raceScale is 1 outside race-detector builds: the hard resident cap is as
// documented.
const raceScale = 1
