package fsutil

import "bytes"
import "errors"
import "fmt"
import "io/fs"
import "math/rand/v2"
import "os"
import "path/filepath"
import "time"

// DefaultFileMode is the mode of a file created by WriteFileAtomic or Apply when
// no mode is given.
const DefaultFileMode fs.FileMode = 0o644

// WriteFileAtomic replaces (or creates) the file at path with data so that a
// reader sees either the old or the new content, never a mix: the data goes to a
// temporary file in the same directory, is synced, and is renamed over path.
// An existing file keeps its permission bits; a new one gets mode (or
// DefaultFileMode when mode is 0). The parent directory must exist.
//
// path is used as given (only its last component is confined, to its
// directory): to write inside a workspace use Root.Apply, which confines the
// whole path.
func WriteFileAtomic(path string, data []byte, mode fs.FileMode) error {
	return writePath(path, data, mode, true)
}

// writePath writes data to path through a root on its directory
// (writeAtomicSync); with sync set, the file before its rename and the
// directory after it are synced.
func writePath(path string, data []byte, mode fs.FileMode, sync bool) error {
	root, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("fsutil: write %s: %w", path, err)
	}
	defer root.Close()
	if err := writeAtomicSync(root, filepath.Base(path), data, mode, "", sync); err != nil {
		return fmt.Errorf("fsutil: write %s: %w", path, err)
	}
	if sync {
		syncDir(root, ".")
	}
	return nil
}

// writeAtomic is WriteFileAtomic for the file rel inside root: every step goes
// through root, so no symbolic link (even one swapped in meanwhile) can carry
// the write outside it. The temporary file is named tmp (relative to root),
// which must not exist, or, when tmp is "", .NAME.tether-RANDOM next to rel.
// The caller syncs rel's directory (once for many files) to make the rename
// durable.
func writeAtomic(root *os.Root, rel string, data []byte, mode fs.FileMode, tmp string) error {
	return writeAtomicSync(root, rel, data, mode, tmp, true)
}

// writeAtomicSync is writeAtomic, syncing the file before its rename when
// sync is set.
func writeAtomicSync(root *os.Root, rel string, data []byte, mode fs.FileMode, tmp string, sync bool) error {
	if fi, err := root.Stat(rel); err == nil {
		if fi.IsDir() {
			return errors.New("it is a directory")
		}
		mode = fi.Mode().Perm()
	} else if mode == 0 {
		mode = DefaultFileMode
	}
	var f *os.File
	name := tmp
	for try := 0; ; try++ {
		if tmp == "" {
			name = tempName(rel, fmt.Sprint(rand.Uint32()))
		}
		var err error
		f, err = root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			break
		}
		if tmp != "" || !errors.Is(err, fs.ErrExist) || try == 100 {
			return err
		}
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			root.Remove(name)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Chmod(mode.Perm()); err != nil {
		return err
	}
	if sync {
		if err := f.Sync(); err != nil {
			return err
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	if testHookBeforeRename != nil {
		testHookBeforeRename(name)
	}
	if err := root.Rename(name, rel); err != nil {
		return err
	}
	ok = true
	return nil
}

// tempName is the temporary file that replaces rel: .NAME.tether-TAG in
// rel's directory, NAME cut so that the whole name stays well under the
// usual 255-byte limit on a name.
func tempName(rel, tag string) string {
	dir, base := filepath.Split(rel)
	if len(base) > 200 {
		base = base[:200]
	}
	return filepath.Join(dir, "."+base+".tether-"+tag)
}

// syncDir makes a rename durable; failures are ignored (not every file system
// supports syncing a directory).
func syncDir(root *os.Root, dir string) {
	if dir == "" {
		dir = "."
	}
	if d, err := root.Open(dir); err == nil {
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
	rel     string // relative to the root, forward slashes
	path    string // rel in the OS's form, for the os.Root
	existed bool
	data    []byte
	mode    fs.FileMode
}

// snapshots reads what each change would replace, checking it against
// the change's conditions (must exist, must not, expected bytes) and
// refusing a path changed twice, before anything is written.
func (r *Root) snapshots(root *os.Root, changes []Change) ([]snapshot, error) {
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
		s := snapshot{rel: rel, path: filepath.FromSlash(rel)}
		fi, err := root.Stat(s.path)
		switch {
		case err == nil && fi.IsDir():
			return nil, &ConflictError{Path: rel, Reason: "is a directory"}
		case err == nil && !fi.Mode().IsRegular():
			return nil, &ConflictError{Path: rel, Reason: "is not a regular file"}
		case err == nil:
			data, rerr := root.ReadFile(s.path)
			if rerr != nil {
				return nil, r.opErr("read", rel, rerr)
			}
			s.existed, s.data, s.mode = true, data, fi.Mode().Perm()
		case errors.Is(err, fs.ErrNotExist):
		default:
			return nil, r.opErr("", rel, err)
		}
		switch {
		case c.MustNotExist && s.existed:
			return nil, &ConflictError{Path: rel, Reason: "already exists"}
		case (c.MustExist || c.Delete) && !s.existed:
			return nil, &ConflictError{Path: rel, Reason: "does not exist"}
		case c.Expected != nil && (!s.existed || !bytes.Equal(c.Expected, s.data)):
			return nil, &ConflictError{Path: rel, Reason: "changed since the edit was prepared"}
		case c.Expected != nil:
			s.data = c.Expected // the same bytes: keep one copy of a large original, not two
		}
		snaps[i] = s
	}
	return snaps, nil
}

// Apply makes every change or none. All paths are confined to the root and
// every precondition (Expected, MustExist, MustNotExist) is checked before the
// first write; a failure while writing rolls the files already changed back to
// their previous content (and removes files and directories it created). Two
// changes to the same file are refused.
//
// All or none holds across a crash too: a change of more than one file first
// writes an intent journal (the originals, see journal.go) and Recover, run
// at the next start, rolls a change that was cut short back. When the journal
// cannot be written (no space, no cache directory, over MaxJournalBytes of
// originals), Apply changes nothing and says so.
//
// Every read and write goes through the root directory opened once (os.Root),
// not through the path Resolve returned: a directory swapped for a symbolic
// link that leads out, after the check and before the write, makes the change
// fail with ErrOutside instead of writing outside the root.
func (r *Root) Apply(changes []Change) ([]Applied, error) {
	root, err := os.OpenRoot(r.real)
	if err != nil {
		return nil, fmt.Errorf("fsutil: the working directory: %w", r.relErr(err))
	}
	defer root.Close()
	snaps, err := r.snapshots(root, changes)
	if err != nil {
		return nil, err
	}

	// A change of more than one file is journaled first (journal.go), so
	// that a crash in the middle can be rolled back by the next Recover.
	// One file needs no originals (the rename replaces it whole): its light
	// journal, best effort, only lets Recover find a temporary file left by
	// a crash.
	var jr *journal
	tag := func(string) string { return "" } // the temporary file's name
	switch {
	case len(changes) > 1:
		if jr, err = r.beginJournal(root, changes, snaps, false); err != nil {
			return nil, err
		}
	case len(changes) == 1 && !changes[0].Delete:
		jr, _ = r.beginJournal(root, changes, snaps, true)
	}
	if jr != nil {
		tag = func(p string) string { return tempName(p, jr.id) }
	}
	if testHookStep != nil {
		testHookStep(0)
	}

	var done []int
	var madeDirs []string
	dirty := map[string]bool{} // directories whose renames and removals to sync
	syncDirty := func() {
		for d := range dirty {
			syncDir(root, d)
		}
	}
	rollback := func() error {
		defer syncDirty()
		var errs []error
		for k := len(done) - 1; k >= 0; k-- {
			s := snaps[done[k]]
			if s.existed {
				rtmp := ""
				if jr != nil {
					rtmp = tag(s.path) + "r"
				}
				if err := writeAtomic(root, s.path, s.data, s.mode, rtmp); err != nil {
					errs = append(errs, fmt.Errorf("%s: %w", s.rel, r.relErr(err)))
				} else {
					root.Chmod(s.path, s.mode)
				}
			} else if err := root.Remove(s.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, r.relErr(err))
			}
		}
		for k := len(madeDirs) - 1; k >= 0; k-- {
			root.Remove(madeDirs[k]) // only if still empty
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
			err = root.Remove(s.path)
		} else {
			var made []string
			made, err = mkdirAll(root, filepath.Dir(s.path))
			madeDirs = append(madeDirs, made...)
			if err == nil {
				err = writeAtomic(root, s.path, c.Content, c.Mode, tag(s.path))
			}
		}
		if err != nil {
			err = r.opErr("", s.rel, err)
			if rerr := rollback(); rerr != nil {
				if jr != nil {
					jr.keep()
					return nil, fmt.Errorf("%w; rolling back the earlier changes also failed: %v; the change's journal %s is kept and the next start of tether rolls it back", err, rerr, filepath.Base(jr.path))
				}
				return nil, fmt.Errorf("%w; rolling back the earlier changes also failed: %v", err, rerr)
			}
			if jr != nil {
				jr.done()
			}
			return nil, fmt.Errorf("%w; the earlier changes were rolled back, nothing was changed", err)
		}
		done = append(done, i)
		dirty[filepath.Dir(s.path)] = true
		applied = append(applied, Applied{Path: s.rel, Created: !s.existed && !c.Delete, Deleted: c.Delete})
		if testHookStep != nil {
			testHookStep(i + 1)
		}
	}
	syncDirty() // before the journal goes: no rename may be lost after it
	if jr != nil {
		jr.done()
	}
	return applied, nil
}

// beginJournal writes the journal of changes (whose files are as snaps
// say), light or not (journalHeader.Light), and returns it held. When it
// cannot, nothing has been changed and the error says so.
func (r *Root) beginJournal(root *os.Root, changes []Change, snaps []snapshot, light bool) (*journal, error) {
	h := &journalHeader{Root: r.real, ID: newJournalID(), PID: os.Getpid(), Started: time.Now().UTC(), Light: light}
	var stored int64
	var writes []string
	for i, c := range changes {
		s := snaps[i]
		e := journalEntry{Path: s.rel, Existed: s.existed, Delete: c.Delete}
		if s.existed {
			e.Mode, e.Size, e.OldHash = s.mode, int64(len(s.data)), hashOf(s.data)
			stored += e.Size
		}
		if !c.Delete {
			e.NewHash = hashOf(c.Content)
			writes = append(writes, s.path)
		}
		h.Entries = append(h.Entries, e)
	}
	if stored > maxJournalBytes && !light {
		return nil, fmt.Errorf("fsutil: the change rewrites or deletes %d MiB of existing files, more than the %d MiB a change may keep in its journal (to undo it after a crash); nothing was changed: split it into smaller changes",
			stored>>20, maxJournalBytes>>20)
	}
	dirs, err := missingDirs(root, writes)
	if err != nil {
		return nil, fmt.Errorf("fsutil: %w; nothing was changed", err)
	}
	h.Dirs = dirs
	j, err := writeJournal(h, func(i int) []byte { return snaps[i].data })
	if err != nil {
		return nil, fmt.Errorf("%w; nothing was changed (a change of several files is journaled first so that a crash cannot leave it half made): free space there or set XDG_CACHE_HOME to a writable directory", err)
	}
	return j, nil
}

// opErr wraps an error of an operation on rel made through the os.Root. When
// os.Root refused to follow a symbolic link out of the root (one swapped in
// after Resolve checked the path), the error wraps ErrOutside.
func (r *Root) opErr(op, rel string, err error) error {
	err = r.relErr(err)
	what := rel
	if op != "" {
		what = op + " " + rel
	}
	if escapes(err) {
		return fmt.Errorf("fsutil: %s: %w: a symbolic link on the way was changed to lead out after the path was checked", what, ErrOutside)
	}
	return fmt.Errorf("fsutil: %s: %w", what, err)
}

// relErr makes the paths err names (of each fs.PathError and os.LinkError
// in its chain) relative to the root when they are inside it: a write that
// fails names the file, and its temporary file, as the caller knows them,
// not by the host's absolute path. The errors are changed in place (they
// are the failed operation's own).
func (r *Root) relErr(err error) error {
	rel := func(p string) string {
		for _, dir := range []string{r.real, r.dir} {
			if filepath.IsAbs(p) && within(dir, p) {
				if x, e := filepath.Rel(dir, p); e == nil {
					return filepath.ToSlash(x)
				}
			}
		}
		return p
	}
	var walk func(error)
	walk = func(e error) {
		for e != nil {
			switch x := e.(type) {
			case *fs.PathError:
				x.Path = rel(x.Path)
			case *os.LinkError:
				x.Old, x.New = rel(x.Old), rel(x.New)
			case interface{ Unwrap() []error }:
				for _, y := range x.Unwrap() {
					walk(y)
				}
				return
			}
			e = errors.Unwrap(e)
		}
	}
	walk(err)
	return err
}

// escapes reports whether err is os.Root's refusal of a path that leads out of
// the root. Its sentinel is not exported, so the message is compared.
func escapes(err error) bool {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if e.Error() == "path escapes from parent" {
			return true
		}
	}
	return false
}

// testHookBeforeChange, when set by a test, runs before each change is made and
// can fail it, to exercise the rollback.
var testHookBeforeChange func(rel string) error

// testHookBeforeRename, when set by a test, runs in writeAtomic once the
// temporary file tmp is written, before it replaces the file.
var testHookBeforeRename func(tmp string)

// testHookStep is SetApplyHook's function.
var testHookStep func(done int)

// SetApplyHook is for tests only (of this and other packages, e.g. a crash
// test that kills its own process part way through a change): fn runs in
// Apply after done files were changed, before the next one; first with 0,
// once any journal is written, last with len(changes), before the journal
// is removed. Nil removes it. Not safe to call while Apply runs.
func SetApplyHook(fn func(done int)) { testHookStep = fn }

// mkdirAll creates dir (relative to root) and its missing parents, returning
// the directories it created, outermost first.
func mkdirAll(root *os.Root, dir string) ([]string, error) {
	var missing []string
	for d := dir; d != "." && d != string(filepath.Separator) && d != ""; d = filepath.Dir(d) {
		if _, err := root.Stat(d); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		missing = append(missing, d)
	}
	var made []string
	for k := len(missing) - 1; k >= 0; k-- {
		if err := root.Mkdir(missing[k], 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return made, err
		}
		made = append(made, missing[k])
	}
	return made, nil
}
