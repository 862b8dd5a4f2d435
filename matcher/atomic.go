package matcher

import (
	"fmt"
	"os"
	"path/filepath"
)

// writeAtomic replaces path's content: it writes a temporary file in the same
// directory with path's permissions, syncs it and renames it over path.
func writeAtomic(path string, data []byte) error {
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tether-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	ok = true
	return nil
}

// writeFile is the write step of applyAll; tests replace it to inject failures.
var writeFile = writeAtomic

// applyAll writes every file's new content, all or nothing: when one write
// fails, the files already replaced get their old content back.
func applyAll(changes []FileChange) error {
	for i, c := range changes {
		if err := writeFile(c.Path, c.New); err != nil {
			var lost []string
			for k := i - 1; k >= 0; k-- {
				if rerr := writeAtomic(changes[k].Path, changes[k].Old); rerr != nil {
					lost = append(lost, changes[k].Path)
				}
			}
			if len(lost) > 0 {
				return fmt.Errorf("matcher: writing %s failed (%v) and restoring %v failed too: check those files", c.Path, err, lost)
			}
			return fmt.Errorf("matcher: writing %s failed: %w; the %d files already written were restored, nothing changed", c.Path, err, i)
		}
	}
	return nil
}
