//go:build !linux

package jsproc

// residentBytes is 0 where /proc is not there: the heap cap's guard in the
// child is the only cap.
func residentBytes(int) int64 { return 0 }
