//go:build cgo

package proc

// cgoLinked: a cgo build, whose syscall.AllThreadsSyscall refuses to run, so
// no peer is confined in place (inPlaceFor).
const cgoLinked = true
