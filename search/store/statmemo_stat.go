//go:build linux || darwin || freebsd || netbsd

package store

import "io/fs"
import "syscall"

// stampOf reads the stamp from a stat's system data.
func stampOf(fi fs.FileInfo) (fileStamp, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileStamp{}, false
	}
	mtime, ctime := statTimes(st)
	return fileStamp{dev: uint64(st.Dev), ino: uint64(st.Ino), size: st.Size, mtime: mtime, ctime: ctime}, true
}
