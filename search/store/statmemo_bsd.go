//go:build darwin || freebsd || netbsd

package store

import "syscall"

// statTimes are the modification and status-change times, in nanoseconds.
func statTimes(st *syscall.Stat_t) (mtime, ctime int64) {
	return st.Mtimespec.Nano(), st.Ctimespec.Nano()
}
