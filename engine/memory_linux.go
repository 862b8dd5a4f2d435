//go:build linux

package engine

import "syscall"

import "github.com/tetratelabs/wazero/experimental"

// mmapMemory backs an instance's linear memory with one anonymous mapping
// reserved up front at the instance's cap: growing never copies, untouched
// pages cost nothing, and the bytes live outside the Go heap.
type mmapMemory struct {
	buf []byte
}

// newMemoryAllocator returns an allocator that reserves at most limit bytes
// per instance (less when the module's own maximum is lower). A reservation
// the kernel refuses falls back to wazero's default growth.
func newMemoryAllocator(limit uint64) experimental.MemoryAllocator {
	return experimental.MemoryAllocatorFunc(func(capacity, max uint64) experimental.LinearMemory {
		size := max
		if limit > 0 && limit < size {
			size = limit
		}
		if size < capacity {
			size = capacity
		}
		b, err := syscall.Mmap(-1, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE,
			syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
		if err != nil {
			return &sliceMemory{max: size}
		}
		return &mmapMemory{buf: b}
	})
}

func (m *mmapMemory) Reallocate(size uint64) []byte {
	if size > uint64(len(m.buf)) {
		return nil
	}
	return m.buf[:size]
}

func (m *mmapMemory) Free() {
	if m.buf != nil {
		syscall.Munmap(m.buf)
		m.buf = nil
	}
}
