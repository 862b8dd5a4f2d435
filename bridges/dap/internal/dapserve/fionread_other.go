//go:build !linux

package dapserve

// fionread asks how many bytes wait in a pipe: FIONREAD, _IOR('f', 127,
// int) on the BSDs and macOS, which golang.org/x/sys/unix does not name.
const fionread = 0x4004667f
