package fsutil

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteCacheFile replaces (or creates) the file at path with data as
// WriteFileAtomic does (a temporary file in the same directory renamed over
// path, so a reader never sees a mix), but without syncing: it is for caches,
// whose readers verify what they read, so a crash that leaves a short or
// empty file costs a miss, not a wrong answer. A new file gets mode (or
// DefaultFileMode when mode is 0).
func WriteCacheFile(path string, data []byte, mode fs.FileMode) error {
	dir := filepath.Dir(path)
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("fsutil: write %s: %w", path, err)
	}
	defer root.Close()
	if err := writeAtomicSync(root, filepath.Base(path), data, mode, "", false); err != nil {
		return fmt.Errorf("fsutil: write %s: %w", path, err)
	}
	return nil
}
