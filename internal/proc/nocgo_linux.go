//go:build !cgo

package proc

// cgoLinked: not a cgo build; syscall.AllThreadsSyscall can set every
// thread's state, so a peer that is this binary is confined in place
// (inPlaceFor).
const cgoLinked = false
