package search

import "bytes"
import "errors"
import "fmt"
import "io"
import "io/fs"
import "os"
import "path/filepath"
import "strings"

import "github.com/tetherhq/tether/internal/fsutil"

// files is how a search reaches the file system. With a workspace root
// (Config.Root) every access of the walk and the reads goes through the root
// directory, opened once per search as an os.Root: a directory swapped for a
// symbolic link that leads out, between the walk listing it and the read, is
// refused there and then, never followed, and no path string checked earlier
// is trusted. A nil *files is the plain file system, for a caller that
// searches the paths its own user names.
type files struct {
	root *os.Root
	dirs []string // the root's real directory and the one it was given as, absolute
}

// openFiles opens r's directory for one search; nil r gives the plain file
// system.
func openFiles(r *fsutil.Root) (*files, error) {
	if r == nil {
		return nil, nil
	}
	root, err := os.OpenRoot(r.RealDir())
	if err != nil {
		return nil, fmt.Errorf("search: working directory %s: %w", r.Dir(), err)
	}
	return &files{root: root, dirs: []string{r.RealDir(), r.Dir()}}, nil
}

func (f *files) close() {
	if f != nil {
		f.root.Close()
	}
}

// rel returns p relative to the root ("." for the root itself); a path
// outside it is an error wrapping fsutil.ErrOutside. A relative p is
// relative to the root, not to the process's working directory.
func (f *files) rel(p string) (string, error) {
	abs := filepath.Clean(p)
	if !filepath.IsAbs(p) {
		abs = filepath.Join(f.dirs[1], p)
	}
	for _, d := range f.dirs {
		if r, err := filepath.Rel(d, abs); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return r, nil
		}
	}
	return "", fmt.Errorf("search: %s: %w", p, fsutil.ErrOutside)
}

// inside reports whether p lies in the root (always, for the plain file
// system).
func (f *files) inside(p string) bool {
	if f == nil {
		return true
	}
	_, err := f.rel(p)
	return err == nil
}

// confined says why an access through the root failed: a path that leads out
// (os.Root's "path escapes from parent") wraps fsutil.ErrOutside. The
// caller names the path.
func confined(err error) error {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if e.Error() == "path escapes from parent" {
			return fmt.Errorf("%w through a symbolic link", fsutil.ErrOutside)
		}
	}
	return err
}

// access calls plain with p on the plain file system, or rooted with the
// root and p relative to it, its error read by confined.
func access[T any](f *files, p string, plain func(string) (T, error), rooted func(*os.Root, string) (T, error)) (T, error) {
	if f == nil {
		return plain(p)
	}
	r, err := f.rel(p)
	if err != nil {
		var zero T
		return zero, err
	}
	v, err := rooted(f.root, r)
	return v, confined(err)
}

func (f *files) lstat(p string) (fs.FileInfo, error) {
	return access(f, p, os.Lstat, (*os.Root).Lstat)
}

func (f *files) stat(p string) (fs.FileInfo, error) {
	return access(f, p, os.Stat, (*os.Root).Stat)
}

// readDir lists the directory p.
func (f *files) readDir(p string) ([]fs.DirEntry, error) {
	return access(f, p, os.ReadDir, func(root *os.Root, r string) ([]fs.DirEntry, error) {
		d, err := root.Open(r)
		if err != nil {
			return nil, err
		}
		defer d.Close()
		return d.ReadDir(-1)
	})
}

// errNotRegular is a path that is no regular file (a directory, a named
// pipe, a device).
var errNotRegular = errors.New("not a regular file")

// open opens the regular file p for reading, without waiting on a named pipe
// swapped in after the walk listed a file, and returns its information, read
// from the open file.
func (f *files) open(p string) (*os.File, fs.FileInfo, error) {
	file, err := access(f, p, func(p string) (*os.File, error) {
		return os.OpenFile(p, os.O_RDONLY|openNonblock, 0)
	}, func(root *os.Root, r string) (*os.File, error) {
		return root.OpenFile(r, os.O_RDONLY|openNonblock, 0)
	})
	if err != nil {
		return nil, nil, err
	}
	fi, err := file.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s: %w", p, errNotRegular)
	}
	if err != nil {
		file.Close()
		return nil, nil, err
	}
	return file, fi, nil
}

// readFile reads the regular file p, at most max bytes (0: no bound): a
// file that grew past it since it was measured is reported too large by
// the caller (the size is in the returned information).
func (f *files) readFile(p string, max int64) ([]byte, fs.FileInfo, error) {
	file, fi, err := f.open(p)
	if err != nil {
		return nil, nil, err
	}
	defer file.Close()
	if max > 0 && fi.Size() > max {
		return nil, fi, nil
	}
	var r io.Reader = file
	if max > 0 {
		r = io.LimitReader(file, max+1)
	}
	// sized from the stat, so that a file read whole is one allocation
	// (io.ReadAll's growing left about as much garbage as the file again)
	buf := bytes.NewBuffer(make([]byte, 0, int(fi.Size())+bytes.MinRead))
	_, err = buf.ReadFrom(r)
	return buf.Bytes(), fi, err
}

// readAncestor reads a file of a directory above the search (an ignore file
// or a repository marker): through the root when it lies inside it, and as
// it is when it lies above the root, where the workspace cannot swap
// anything.
func (f *files) readAncestor(p string) ([]byte, error) {
	if !f.inside(p) {
		return readGitFile(p)
	}
	data, _, err := f.readFile(p, maxIgnoreFile)
	return data, err
}

// existsAncestor is exists for a path of readAncestor's kind.
func (f *files) existsAncestor(p string) bool {
	if !f.inside(p) {
		_, err := os.Stat(p)
		return err == nil
	}
	_, err := f.stat(p)
	return err == nil
}

// maxIgnoreFile bounds the ignore files read (a .gitignore is a few KiB).
const maxIgnoreFile = 4 << 20
