//go:build !linux && !darwin && !freebsd && !netbsd

package store

import "io/fs"

// stampOf: no stamp is read on this system (its stat is not known to carry
// a status-change time and an inode), so nothing is remembered.
func stampOf(fs.FileInfo) (fileStamp, bool) { return fileStamp{}, false }
