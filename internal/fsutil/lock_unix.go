//go:build unix

package fsutil

import "os"
import "syscall"

// lockFile takes an exclusive lock on f that the kernel releases when the
// process dies. Without wait it fails at once when another open file holds
// the lock (in this process or another).
func lockFile(f *os.File, wait bool) error {
	how := syscall.LOCK_EX
	if !wait {
		how |= syscall.LOCK_NB
	}
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			return err
		}
	}
}
