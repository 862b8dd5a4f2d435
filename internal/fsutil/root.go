package fsutil

import "errors"
import "fmt"
import "io/fs"
import "os"
import "path/filepath"
import "strings"
import "syscall"

// ErrOutside is returned (wrapped) when a path leads outside the root, whether
// by "..", by an absolute path or through a symbolic link.
var ErrOutside = errors.New("path leads outside the working directory")

// maxLinks bounds the number of symbolic links followed while resolving one path.
const maxLinks = 40

// Root is a directory that paths are confined to. The zero value is not usable;
// call NewRoot.
type Root struct {
	dir  string // absolute, cleaned, as given
	real string // dir with every symbolic link resolved
}

// NewRoot returns a Root for dir, which must be an existing directory.
func NewRoot(dir string) (*Root, error) {
	if dir == "" {
		return nil, errors.New("fsutil: no working directory given")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("fsutil: working directory %q: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("fsutil: working directory %q does not exist or cannot be read: %w", dir, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("fsutil: working directory %q: %w", dir, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("fsutil: working directory %q is not a directory", dir)
	}
	return &Root{dir: filepath.Clean(abs), real: real}, nil
}

// Dir returns the root directory as given to NewRoot, made absolute.
func (r *Root) Dir() string { return r.dir }

// RealDir returns the root directory with every symbolic link resolved.
func (r *Root) RealDir() string { return r.real }

// Resolve confines path to the root and returns the real absolute path it
// names (symbolic links resolved, including a dangling link's target) and that
// path relative to the root, with forward slashes.
//
// A relative path is taken relative to the root. An absolute path must lie
// inside the root. The path need not exist: the components that do not exist
// yet are appended as written, and the existing ones (any of which may be a
// symbolic link) must stay inside the root. Errors wrap ErrOutside when the
// path leads out.
func (r *Root) Resolve(path string) (real, rel string, err error) {
	if path == "" {
		return "", "", errors.New("fsutil: empty path: give a path relative to the working directory")
	}
	if strings.ContainsRune(path, 0) {
		return "", "", fmt.Errorf("fsutil: path %q contains a NUL byte", path)
	}
	var rest string
	if filepath.IsAbs(path) {
		p := filepath.Clean(path)
		switch {
		case within(r.dir, p):
			rest, _ = filepath.Rel(r.dir, p)
		case within(r.real, p):
			rest, _ = filepath.Rel(r.real, p)
		default:
			return "", "", fmt.Errorf("fsutil: %q: %w (%s); give a path inside it", path, ErrOutside, r.dir)
		}
	} else {
		rest = path
	}
	// Refuse lexical escapes before touching the file system.
	if c := filepath.Clean(rest); c == ".." || strings.HasPrefix(c, ".."+string(filepath.Separator)) {
		return "", "", fmt.Errorf("fsutil: %q: %w (%s); give a path inside it", path, ErrOutside, r.dir)
	}
	real, err = r.walk(path, rest)
	if err != nil {
		return "", "", err
	}
	rel, err = filepath.Rel(r.real, real)
	if err != nil {
		return "", "", fmt.Errorf("fsutil: %q: %w", path, err)
	}
	return real, filepath.ToSlash(rel), nil
}

// walk resolves rest (relative to the real root) one component at a time,
// following symbolic links, and refuses any step that leaves the root.
func (r *Root) walk(orig, rest string) (string, error) {
	cur := r.real
	parts := splitPath(rest)
	links := 0
	for len(parts) > 0 {
		p := parts[0]
		parts = parts[1:]
		switch p {
		case ".", "":
			continue
		case "..":
			cur = filepath.Dir(cur)
			if !within(r.real, cur) {
				return "", fmt.Errorf("fsutil: %q: %w (%s); give a path inside it", orig, ErrOutside, r.dir)
			}
			continue
		}
		next := filepath.Join(cur, p)
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			// Nothing below a missing component exists yet: append the rest
			// lexically (a ".." here could only climb back into what we walked).
			joined := filepath.Join(append([]string{next}, parts...)...)
			if !within(r.real, joined) {
				return "", fmt.Errorf("fsutil: %q: %w (%s); give a path inside it", orig, ErrOutside, r.dir)
			}
			return joined, nil
		}
		if errors.Is(err, syscall.ENOTDIR) {
			return "", fmt.Errorf("fsutil: %q: %s is a file, not a directory; give a path that names a file or directory", orig, r.relOf(cur))
		}
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			return "", fmt.Errorf("fsutil: %q: %s: %w", orig, r.relOf(next), pe.Err)
		}
		if err != nil {
			return "", fmt.Errorf("fsutil: %q: %w", orig, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		links++
		if links > maxLinks {
			return "", fmt.Errorf("fsutil: %q: too many levels of symbolic links", orig)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", fmt.Errorf("fsutil: %q: %w", orig, err)
		}
		if filepath.IsAbs(target) {
			t := filepath.Clean(target)
			switch {
			case within(r.real, t):
				rel, _ := filepath.Rel(r.real, t)
				cur = r.real
				parts = append(splitPath(rel), parts...)
			case within(r.dir, t):
				rel, _ := filepath.Rel(r.dir, t)
				cur = r.real
				parts = append(splitPath(rel), parts...)
			default:
				return "", fmt.Errorf("fsutil: %q: %w through the symbolic link %s -> %s", orig, ErrOutside, r.relOf(next), target)
			}
			continue
		}
		parts = append(splitPath(target), parts...)
		// cur stays the link's directory; ".." in the target is checked above.
		if c := filepath.Clean(filepath.Join(cur, target)); !within(r.real, c) {
			return "", fmt.Errorf("fsutil: %q: %w through the symbolic link %s -> %s", orig, ErrOutside, r.relOf(next), target)
		}
	}
	return cur, nil
}

func (r *Root) relOf(real string) string {
	rel, err := filepath.Rel(r.real, real)
	if err != nil {
		return real
	}
	return filepath.ToSlash(rel)
}

func splitPath(p string) []string {
	return strings.Split(filepath.ToSlash(p), "/")
}

// within reports whether p is dir or inside it (both clean and absolute).
func within(dir, p string) bool {
	if p == dir {
		return true
	}
	if dir == string(filepath.Separator) {
		return strings.HasPrefix(p, dir)
	}
	return strings.HasPrefix(p, dir+string(filepath.Separator))
}
