package fsutil

import "io/fs"

// WriteCacheFile replaces (or creates) the file at path with data as
// WriteFileAtomic does (a temporary file in the same directory renamed over
// path, so a reader never sees a mix), but without syncing: it is for caches,
// whose readers verify what they read, so a crash that leaves a short or
// empty file costs a miss, not a wrong answer. A new file gets mode (or
// DefaultFileMode when mode is 0).
func WriteCacheFile(path string, data []byte, mode fs.FileMode) error {
	return writePath(path, data, mode, false)
}
