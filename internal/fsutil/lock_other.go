//go:build !unix

package fsutil

import "os"

// lockFile does nothing where flock is missing: Recover there cannot tell a
// live change from one cut short, so run one tether per machine at a time.
func lockFile(f *os.File, wait bool) error { return nil }
