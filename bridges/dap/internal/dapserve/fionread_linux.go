package dapserve

import "golang.org/x/sys/unix"

// fionread asks how many bytes wait in a pipe.
const fionread = unix.TIOCINQ
