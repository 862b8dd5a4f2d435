//go:build cgo

package main

// A cgo build links the C runtime's threads, which syscall.AllThreadsSyscall
// cannot reach.
import _ "runtime/cgo"
