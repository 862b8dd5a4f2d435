package fsutil

import "errors"
import "fmt"
import "io"
import "os"
import "path/filepath"

// ErrNotRegular is returned (wrapped) by Open and ReadFile for a path that is
// neither a regular file nor a directory (a named pipe, a socket, a device).
var ErrNotRegular = errors.New("not a regular file")

// testHookAfterResolve, when set by a test, runs between the confinement check
// and the open, where a racing process could swap a link in.
var testHookAfterResolve func(rel string)

// Open opens the regular file or directory that path names, for reading,
// confined to the root as Resolve confines it, and returns it with its path
// relative to the root (forward slashes).
//
// Unlike Resolve followed by os.Open, the open goes through the root directory
// (os.Root): a directory or file swapped for a symbolic link that leads out,
// after the check and before the open, is refused with ErrOutside instead of
// being read. Anything but a regular file or a directory is refused with
// ErrNotRegular without being opened for long (a named pipe would block).
func (r *Root) Open(path string) (*os.File, string, error) {
	_, rel, err := r.Resolve(path)
	if err != nil {
		return nil, "", err
	}
	if testHookAfterResolve != nil {
		testHookAfterResolve(rel)
	}
	root, err := os.OpenRoot(r.real)
	if err != nil {
		return nil, rel, fmt.Errorf("fsutil: the working directory: %w", r.relErr(err))
	}
	defer root.Close()
	p := filepath.FromSlash(rel)
	fi, err := root.Stat(p)
	if err != nil {
		return nil, rel, r.opErr("", rel, err)
	}
	if !fi.IsDir() && !fi.Mode().IsRegular() {
		return nil, rel, fmt.Errorf("fsutil: %s: %w (%s); only files and directories can be read", rel, ErrNotRegular, fi.Mode().Type())
	}
	// Non-blocking, so that a named pipe swapped in after the Stat does not
	// block the open; the type is checked again on the open file.
	f, err := root.OpenFile(p, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, rel, r.opErr("open", rel, err)
	}
	fi, err = f.Stat()
	if err != nil {
		f.Close()
		return nil, rel, r.opErr("", rel, err)
	}
	if !fi.IsDir() && !fi.Mode().IsRegular() {
		f.Close()
		return nil, rel, fmt.Errorf("fsutil: %s: %w (%s); only files and directories can be read", rel, ErrNotRegular, fi.Mode().Type())
	}
	return f, rel, nil
}

// ReadFile reads the regular file path names, opened as Open opens it.
// A directory gives an error wrapping ErrNotRegular.
func (r *Root) ReadFile(path string) ([]byte, error) {
	f, rel, err := r.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, r.opErr("read", rel, err)
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("fsutil: %s is a directory, %w", rel, ErrNotRegular)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, r.opErr("read", rel, err)
	}
	return data, nil
}

// ReadRegularFile reads the regular file at path, opened without waiting on a
// named pipe; anything else (a pipe, a device, a directory) is refused with
// ErrNotRegular. It does not confine path: it is for a path already checked
// (and when read again, a file a server named), where a plain os.ReadFile of
// a pipe the workspace made would block the call for good.
func ReadRegularFile(path string) ([]byte, error) {
	f, err := OpenRegularFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// Kind names what a file that is neither regular nor a directory is, for
// errors: "named pipe", "socket", "device", "symbolic link", else "special
// file".
func Kind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "named pipe"
	case m&os.ModeSocket != 0:
		return "socket"
	case m&os.ModeDevice != 0:
		return "device"
	case m&os.ModeSymlink != 0:
		return "symbolic link"
	}
	return "special file"
}

// OpenRegularFile opens the regular file at path for reading, as
// ReadRegularFile does: without waiting on a named pipe, and refusing
// anything but a regular file with ErrNotRegular. It does not confine path.
func OpenRegularFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("fsutil: %s: %w (%s)", path, ErrNotRegular, fi.Mode().Type())
	}
	return f, nil
}
