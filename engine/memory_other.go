//go:build !linux

package engine

import "github.com/tetratelabs/wazero/experimental"

// newMemoryAllocator caps each instance's linear memory at limit bytes.
func newMemoryAllocator(limit uint64) experimental.MemoryAllocator {
	return experimental.MemoryAllocatorFunc(func(capacity, moduleMax uint64) experimental.LinearMemory {
		size := moduleMax
		if limit > 0 && limit < size {
			size = limit
		}
		return &sliceMemory{max: max(size, capacity)}
	})
}
