package engine

import "golang.org/x/sys/cpu"

// cpuFeatures is wazero's CPU feature bits on amd64 (SSE4.1, BMI1, and
// BMI1, BMI2 and POPCNT together), as its cache keys hold them.
func cpuFeatures() (uint64, bool) {
	var f uint64
	if cpu.X86.HasSSE41 {
		f |= 1
	}
	if cpu.X86.HasBMI1 {
		f |= 2
	}
	if cpu.X86.HasBMI1 && cpu.X86.HasBMI2 && cpu.X86.HasPOPCNT {
		f |= 4
	}
	return f, true
}
