package jsproc

import "bytes"
import "os"
import "strconv"

// residentBytes is a process's resident memory, or 0 when it cannot be read.
func residentBytes(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return 0
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.ParseInt(string(f[1]), 10, 64)
	return n * int64(os.Getpagesize())
}
