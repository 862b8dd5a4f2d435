//go:build unix

package engine

import "os"
import "syscall"

// links is how many names fi's file has (0 when unknown).
func links(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 0
}
