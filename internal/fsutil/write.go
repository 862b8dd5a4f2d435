package fsutil

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// DefaultFileMode is the mode of a file created by WriteFileAtomic or Apply when
// no mode is given.
const DefaultFileMode fs.FileMode = 0o644

// WriteFileAtomic replaces (or creates) the file at path with data so that a
// reader sees either the old or the new content, never a mix: the data goes to a
// temporary file in the same directory, is synced, and is renamed over path.
// An existing file keeps its permission bits; a new one gets mode (or
// DefaultFileMode when mode is 0). The parent directory must exist.
//
// path is used as given: confine it with Root.Resolve first.
func WriteFileAtomic(path string, data []byte, mode fs.FileMode) error {
	if fi, err := os.Stat(path); err == nil {
		if fi.IsDir() {
			return fmt.Errorf("fsutil: %s is a directory", path)
		}
		mode = fi.Mode().Perm()
	} else if mode == 0 {
		mode = DefaultFileMode
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tether-*")
	if err != nil {
		return fmt.Errorf("fsutil: write %s: %w", path, err)
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(name)
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("fsutil: write %s: %w", path, err)
	}
	if err := tmp.Chmod(mode.Perm()); err != nil {
		return fmt.Errorf("fsutil: write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("fsutil: write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("fsutil: write %s: %w", path, err)
	}
	if err := os.Rename(name, path); err != nil {
		return fmt.Errorf("fsutil: write %s: %w", path, err)
	}
	ok = true
	syncDir(dir)
	return nil
}

// syncDir makes a rename durable; failures are ignored (not every file system
// supports syncing a directory).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// Change is one file change in an all-or-nothing Apply.
type Change struct {
	// Path names the file, relative to the root or absolute inside it.
	Path string
	// Content is the file's new content (ignored when Delete is set).
	Content []byte
	// Delete removes the file instead of writing it.
	Delete bool
	// Mode is the permission of a file that does not exist yet (0 means
	// DefaultFileMode). An existing file keeps its mode.
	Mode fs.FileMode
	// Expected, when non-nil, is the content the file must have right now;
	// any difference rejects the whole Apply. Use []byte{} for an empty file.
	Expected []byte
	// MustNotExist rejects the whole Apply when the file already exists.
	MustNotExist bool
	// MustExist rejects the whole Apply when the file does not exist.
	MustExist bool
}

// ConflictError is returned by Apply when a file does not hold what a Change
// expects; nothing was written.
type ConflictError struct {
	Path   string // relative to the root
	Reason string
}

// Error says which file did not match and that nothing was written.
func (e *ConflictError) Error() string {
	return fmt.Sprintf("fsutil: %s %s; nothing was written", e.Path, e.Reason)
}

// Applied describes one file that Apply changed.
type Applied struct {
	Path    string // relative to the root, forward slashes
	Created bool   // the file did not exist before
	Deleted bool
}

type snapshot struct {
	real    string
	rel     string
	existed bool
	data    []byte
	mode    fs.FileMode
}

// Apply makes every change or none. All paths are confined to the root and
// every precondition (Expected, MustExist, MustNotExist) is checked before the
// first write; a failure while writing rolls the files already changed back to
// their previous content (and removes files and directories it created). Two
// changes to the same file are refused.
func (r *Root) Apply(changes []Change) ([]Applied, error) {
	snaps := make([]snapshot, len(changes))
	seen := map[string]int{}
	for i, c := range changes {
		real, rel, err := r.Resolve(c.Path)
		if err != nil {
			return nil, err
		}
		if j, dup := seen[real]; dup {
			return nil, fmt.Errorf("fsutil: %s is changed twice (changes %d and %d); merge them into one", rel, j+1, i+1)
		}
		seen[real] = i
		s := snapshot{real: real, rel: rel}
		fi, err := os.Stat(real)
		switch {
		case err == nil && fi.IsDir():
			return nil, &ConflictError{Path: rel, Reason: "is a directory"}
		case err == nil && !fi.Mode().IsRegular():
			return nil, &ConflictError{Path: rel, Reason: "is not a regular file"}
		case err == nil:
			data, rerr := os.ReadFile(real)
			if rerr != nil {
				return nil, fmt.Errorf("fsutil: read %s: %w", rel, rerr)
			}
			s.existed, s.data, s.mode = true, data, fi.Mode().Perm()
		case errors.Is(err, fs.ErrNotExist):
		default:
			return nil, fmt.Errorf("fsutil: %s: %w", rel, err)
		}
		switch {
		case c.MustNotExist && s.existed:
			return nil, &ConflictError{Path: rel, Reason: "already exists"}
		case (c.MustExist || c.Delete) && !s.existed:
			return nil, &ConflictError{Path: rel, Reason: "does not exist"}
		case c.Expected != nil && (!s.existed || !bytes.Equal(c.Expected, s.data)):
			return nil, &ConflictError{Path: rel, Reason: "changed since the edit was prepared"}
		}
		snaps[i] = s
	}

	var done []int
	var madeDirs []string
	rollback := func() error {
		var errs []error
		for k := len(done) - 1; k >= 0; k-- {
			s := snaps[done[k]]
			if s.existed {
				if err := WriteFileAtomic(s.real, s.data, s.mode); err != nil {
					errs = append(errs, err)
				} else {
					os.Chmod(s.real, s.mode)
				}
			} else if err := os.Remove(s.real); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
		}
		for k := len(madeDirs) - 1; k >= 0; k-- {
			os.Remove(madeDirs[k]) // only if still empty
		}
		return errors.Join(errs...)
	}
	applied := make([]Applied, 0, len(changes))
	for i, c := range changes {
		s := snaps[i]
		var err error
		if testHookBeforeChange != nil {
			err = testHookBeforeChange(s.rel)
		}
		if err != nil {
		} else if c.Delete {
			err = os.Remove(s.real)
			if err == nil {
				syncDir(filepath.Dir(s.real))
			}
		} else {
			var made []string
			made, err = mkdirAll(filepath.Dir(s.real))
			madeDirs = append(madeDirs, made...)
			if err == nil {
				err = WriteFileAtomic(s.real, c.Content, c.Mode)
			}
		}
		if err != nil {
			if rerr := rollback(); rerr != nil {
				return nil, fmt.Errorf("fsutil: %s: %w; rolling back the earlier changes also failed: %v", s.rel, err, rerr)
			}
			return nil, fmt.Errorf("fsutil: %s: %w; the earlier changes were rolled back, nothing was changed", s.rel, err)
		}
		done = append(done, i)
		applied = append(applied, Applied{Path: s.rel, Created: !s.existed && !c.Delete, Deleted: c.Delete})
	}
	return applied, nil
}

// testHookBeforeChange, when set by a test, runs before each change is made and
// can fail it, to exercise the rollback.
var testHookBeforeChange func(rel string) error

// mkdirAll creates dir and its missing parents, returning the directories it
// created, outermost first.
func mkdirAll(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	var made []string
	for k := len(missing) - 1; k >= 0; k-- {
		if err := os.Mkdir(missing[k], 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return made, err
		}
		made = append(made, missing[k])
	}
	return made, nil
}
