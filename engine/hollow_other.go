//go:build !amd64 && !arm64

package engine

// cpuFeatures: wazero compiles only on amd64 and arm64; elsewhere it
// interprets and keeps no cache, so there is no hollow loading.
func cpuFeatures() (uint64, bool) { return 0, false }
