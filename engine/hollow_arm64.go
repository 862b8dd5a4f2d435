package engine

import "golang.org/x/sys/cpu"

// cpuFeatures is wazero's CPU feature bits on arm64 (the atomics), as its
// cache keys hold them.
func cpuFeatures() (uint64, bool) {
	if cpu.ARM64.HasATOMICS {
		return 1, true
	}
	return 0, true
}
