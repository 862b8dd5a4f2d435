//go:build race

package jsproc

// raceScale widens the hard resident cap in a race-detector build, whose
// shadow memory makes a child's resident size several times what the same
// heap holds in a normal build; without it the backstop ends children whose
// heap guard is still within its cap.
const raceScale = 4
