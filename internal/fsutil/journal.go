package fsutil

import "bufio"
import "crypto/rand"
import "crypto/sha256"
import "encoding/hex"
import "encoding/json"
import "errors"
import "fmt"
import "io"
import "io/fs"
import "os"
import "path/filepath"
import "strings"
import "time"

// The intent journal makes a multi-file Apply all or nothing across a crash
// (kill -9, the OOM killer, a power cut): before the first file is replaced,
// Apply writes every original (content and mode, or its absence) and the hash
// of every new content to a journal file, synced with its directory; it
// removes the journal once the last file is in place. Recover, run when
// tether starts, finds the journals of changes that were cut short and puts
// their files back.
//
// Journals live in the user's cache directory (os.UserCacheDir, then
// tether/journal), not in the workspace: the workspace is untrusted (a
// journal in it could be planted or rewritten by the project's own processes
// to make recovery write what they like), a file there would show up in
// searches, diffs and version control, and a directory of the user's own
// needs no confinement against symbolic links the workspace plants. A journal
// names the working directory it belongs to, so one directory serves every
// workspace, and any tether that starts recovers every unfinished change,
// not only its own workspace's.
//
// A journal being written or applied is held with an exclusive lock (flock on
// unix) that the kernel drops when its process dies: Recover skips a locked
// journal, so a tether that starts while another one is applying a change
// leaves that change alone.
//
// Format (version 1): the line "tether-journal 1", one line of JSON
// (journalHeader), the stored originals' bytes one after the other in entry
// order, and the line "end HEX" where HEX is the SHA-256 of everything before
// it. It is written to ID.tmp and renamed to ID.journal once complete and
// synced: an ID.tmp is never acted on (no file was touched before the rename).

const journalMagic = "tether-journal 1\n"

// MaxJournalBytes bounds the original content one Apply stores in its journal
// (the sum of the sizes of the files it modifies or deletes). A larger change
// is refused before anything is written; split it.
const MaxJournalBytes = 1 << 30

// maxJournalBytes is MaxJournalBytes (smaller in tests).
var maxJournalBytes int64 = MaxJournalBytes

type journalHeader struct {
	Root    string    `json:"root"` // the working directory, symbolic links resolved
	ID      string    `json:"id"`
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
	Dirs    []string  `json:"dirs,omitempty"` // directories the change creates, outermost first
	// Light marks the journal of a one-file change: no originals are stored
	// (the rename replaces the file whole) and it is not synced; it is there
	// to find the temporary file a crash may leave.
	Light   bool           `json:"light,omitempty"`
	Entries []journalEntry `json:"entries"`
}

type journalEntry struct {
	Path    string      `json:"path"` // relative to Root, forward slashes
	Existed bool        `json:"existed"`
	Mode    fs.FileMode `json:"mode,omitempty"` // the original's permission bits
	Size    int64       `json:"size,omitempty"` // the original's size, stored after the header
	OldHash string      `json:"old,omitempty"`  // SHA-256 of the original
	Delete  bool        `json:"delete,omitempty"`
	NewHash string      `json:"new,omitempty"` // SHA-256 of the new content (not for Delete)
}

func hashOf(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func newJournalID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// JournalDir returns the directory that holds the change journals.
func JournalDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("fsutil: no directory for the change journal: %w; set XDG_CACHE_HOME or HOME", err)
	}
	return filepath.Join(base, "tether", "journal"), nil
}

// openJournalDir opens the journal directory as an os.Root, creating it
// (mode 0700) when create is set. It refuses a directory on the way from the
// cache directory that is a symbolic link or that others may write to.
func openJournalDir(create bool) (*os.Root, string, error) {
	dir, err := JournalDir()
	if err != nil {
		return nil, "", err
	}
	if create {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, dir, fmt.Errorf("fsutil: creating the change journal directory %s: %w", dir, err)
		}
	}
	for _, d := range []string{filepath.Dir(dir), dir} {
		fi, err := os.Lstat(d)
		if err != nil {
			return nil, dir, fmt.Errorf("fsutil: the change journal directory: %w", err)
		}
		if !fi.IsDir() || fi.Mode().Perm()&0o022 != 0 {
			return nil, dir, fmt.Errorf("fsutil: the change journal directory %s is not a directory that only its owner can write (%v); remove it or make it one", d, fi.Mode())
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, dir, fmt.Errorf("fsutil: the change journal directory: %w", err)
	}
	return root, dir, nil
}

// journal is one Apply's journal, held locked while the change is made.
type journal struct {
	id   string
	dir  *os.Root
	path string // for messages
	name string // ID.journal, in dir
	f    *os.File
}

// writeJournal writes h and the originals (old(i) for each entry that
// existed, unless h.Light) to a new journal, syncs it and its directory
// (unless h.Light), and returns it held locked. On error nothing is left
// behind.
func writeJournal(h *journalHeader, old func(i int) []byte) (*journal, error) {
	dir, dpath, err := openJournalDir(true)
	if err != nil {
		return nil, err
	}
	tmp := h.ID + ".tmp"
	f, err := createLocked(dir, tmp)
	if err != nil {
		dir.Close()
		return nil, fmt.Errorf("fsutil: creating the change journal in %s: %w", dpath, err)
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			dir.Remove(tmp)
			dir.Close()
		}
	}()
	sum := sha256.New()
	w := bufio.NewWriterSize(io.MultiWriter(f, sum), 1<<16)
	hdr, err := json.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("fsutil: the change journal: %w", err)
	}
	w.WriteString(journalMagic)
	w.Write(hdr)
	w.WriteByte('\n')
	for i, e := range h.Entries {
		if e.Existed && !h.Light {
			w.Write(old(i)) // streamed: the originals are not copied into one buffer
		}
	}
	err = w.Flush()
	if err == nil {
		_, err = fmt.Fprintf(f, "end %x\n", sum.Sum(nil))
	}
	if err == nil && !h.Light {
		err = f.Sync()
	}
	if err == nil {
		err = dir.Rename(tmp, h.ID+".journal")
	}
	if err != nil {
		return nil, fmt.Errorf("fsutil: writing the change journal in %s: %w", dpath, err)
	}
	if !h.Light {
		syncDir(dir, ".")
	}
	ok = true
	return &journal{id: h.ID, dir: dir, path: filepath.Join(dpath, h.ID+".journal"), name: h.ID + ".journal", f: f}, nil
}

// testHookCreated, when set, runs between a journal's create and its lock.
var testHookCreated func()

// createLocked creates the file name in dir and locks it. Another process's
// Recover removes an unlocked journal it finds unfinished, and may do so
// between the create and the lock: the file is then made again, a bounded
// number of times.
func createLocked(dir *os.Root, name string) (*os.File, error) {
	for try := 0; ; try++ {
		f, err := dir.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return nil, err
		}
		if testHookCreated != nil {
			testHookCreated()
		}
		if err := lockFile(f, true); err != nil {
			f.Close()
			dir.Remove(name)
			return nil, fmt.Errorf("locking it: %w", err)
		}
		fi, err1 := f.Stat()
		li, err2 := dir.Lstat(name)
		if err1 == nil && err2 == nil && os.SameFile(fi, li) {
			return f, nil
		}
		f.Close()
		if try == 4 {
			return nil, errors.New("another process kept removing it before it was locked; retry")
		}
	}
}

// done removes the journal: the change is complete (or fully rolled back).
func (j *journal) done() {
	j.dir.Remove(j.name)
	j.f.Close()
	j.dir.Close()
}

// keep leaves the journal for the next Recover and releases it.
func (j *journal) keep() {
	j.f.Close()
	j.dir.Close()
}

// Recovery says what Recover did with one journal.
type Recovery struct {
	// Root is the working directory the change was made in.
	Root string
	// Started is when the change began; PID is the process that made it.
	Started time.Time
	PID     int
	// Files is how many files the change touched.
	Files int
	// Completed is set when every file already had its new content: the
	// change is kept as made.
	Completed bool
	// RolledBack lists the files given back their original content (or
	// removed, for files the change created), relative to Root.
	RolledBack []string
	// Conflicts lists files that hold neither their original nor their new
	// content (something changed them after the crash): they were left as
	// they are, and the journal is kept at Kept.
	Conflicts []string
	// Temps is how many temporary files of the change were removed.
	Temps int
	// Kept is the journal's path when it was kept for a person to look at.
	Kept string
	// Err is why the change could not be recovered (the journal is kept and
	// the next start tries again, unless it is unreadable).
	Err error
}

// String says in a sentence what happened, for the log and the agent.
func (r Recovery) String() string {
	var b strings.Builder
	files := fmt.Sprintf("%d files", r.Files)
	if r.Files == 1 {
		files = "one file"
	}
	fmt.Fprintf(&b, "a change to %s in %s (tether pid %d, %s) was cut short by a crash: ", files, r.Root, r.PID, r.Started.UTC().Format(time.RFC3339))
	switch {
	case r.Err != nil:
		fmt.Fprintf(&b, "it could not be recovered (%v); its journal is kept at %s", r.Err, r.Kept)
		if strings.HasSuffix(r.Kept, ".journal") {
			b.WriteString(" and the next start tries again")
		}
		if len(r.RolledBack) > 0 {
			fmt.Fprintf(&b, "; rolled back before the failure: %s", listShort(r.RolledBack))
		}
	case r.Completed:
		b.WriteString("every file had already been written, so the change is kept as made")
	case len(r.RolledBack) == 0 && len(r.Conflicts) == 0:
		b.WriteString("it had not changed any file yet")
	default:
		fmt.Fprintf(&b, "rolled back, every file has its content from before the change again (%d restored: %s)", len(r.RolledBack), listShort(r.RolledBack))
	}
	if len(r.Conflicts) > 0 {
		fmt.Fprintf(&b, "; changed since the crash and left as they are: %s (their originals are in the journal kept at %s)", listShort(r.Conflicts), r.Kept)
	}
	if r.Temps > 0 {
		fmt.Fprintf(&b, "; removed %d temporary files", r.Temps)
	}
	return b.String()
}

func listShort(l []string) string {
	const max = 10
	if len(l) <= max {
		return strings.Join(l, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(l[:max], ", "), len(l)-max)
}

// Recover finds the journals of changes that were cut short (their process
// died while applying them) and puts every file of each back as it was before
// the change, or, when every file already holds its new content, keeps the
// change and drops the journal: a change is never left half made. Each journal's
// leftover temporary files (.NAME.tether-ID) are removed. Journals of changes
// still being made by a live process are left alone.
//
// It returns what it did, one Recovery per journal (none when there was
// nothing to recover); an error only when the journal directory cannot be
// read.
func Recover() ([]Recovery, error) {
	dir, dpath, err := openJournalDir(false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	d, err := dir.Open(".")
	if err != nil {
		return nil, fmt.Errorf("fsutil: reading the change journal directory: %w", err)
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, fmt.Errorf("fsutil: reading the change journal directory %s: %w", dpath, err)
	}
	var out []Recovery
	for _, name := range names {
		switch {
		case strings.HasSuffix(name, ".tmp"):
			// A journal its writer did not finish: no file was touched yet.
			if f, ok := claim(dir, name); ok {
				dir.Remove(name)
				f.Close()
			}
		case strings.HasSuffix(name, ".journal"):
			f, ok := claim(dir, name)
			if !ok {
				continue
			}
			rec := recoverJournal(f)
			setAside := func(ext string) {
				kept := strings.TrimSuffix(name, ".journal") + ext
				rec.Kept = filepath.Join(dpath, name)
				if dir.Rename(name, kept) == nil {
					rec.Kept = filepath.Join(dpath, kept)
				}
			}
			switch {
			case rec.Err == nil && len(rec.Conflicts) == 0:
				dir.Remove(name)
			case errors.Is(rec.Err, errBadJournal):
				setAside(".bad") // unreadable: reported once, not at every start
			case rec.Err != nil && !errors.Is(rec.Err, errRootGone):
				rec.Kept = filepath.Join(dpath, name) // the next start tries again
			default:
				setAside(".kept") // for a person to look at; reported once
			}
			f.Close()
			out = append(out, rec)
		}
	}
	return out, nil
}

// claim opens and locks the journal file name unless a live process holds
// it, and checks that it is still the file at that name (its recoverer may
// have removed it between the open and the lock).
func claim(dir *os.Root, name string) (*os.File, bool) {
	f, err := dir.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return nil, false
	}
	if lockFile(f, false) != nil {
		f.Close()
		return nil, false
	}
	fi, err1 := f.Stat()
	li, err2 := dir.Lstat(name)
	if err1 != nil || err2 != nil || !os.SameFile(fi, li) || !fi.Mode().IsRegular() {
		f.Close()
		return nil, false
	}
	return f, true
}

var (
	errBadJournal = errors.New("the journal is damaged")
	errRootGone   = errors.New("the working directory no longer exists")
)

// readJournal reads and checks a journal's header and checksum, returning the
// header and the offset of the first stored original.
func readJournal(f *os.File) (*journalHeader, int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	br := bufio.NewReaderSize(io.NewSectionReader(f, 0, fi.Size()), 1<<16)
	magic, err := br.ReadString('\n')
	if err != nil || magic != journalMagic {
		return nil, 0, fmt.Errorf("%w: not a tether journal (version 1)", errBadJournal)
	}
	line, err := br.ReadBytes('\n')
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %v", errBadJournal, err)
	}
	var h journalHeader
	if err := json.Unmarshal(line, &h); err != nil {
		return nil, 0, fmt.Errorf("%w: %v", errBadJournal, err)
	}
	start := int64(len(magic) + len(line))
	var stored int64
	for _, e := range h.Entries {
		if !filepath.IsLocal(filepath.FromSlash(e.Path)) || e.Size < 0 {
			return nil, 0, fmt.Errorf("%w: bad path %q", errBadJournal, e.Path)
		}
		if e.Existed && !h.Light {
			stored += e.Size
		}
	}
	for _, d := range h.Dirs {
		if !filepath.IsLocal(filepath.FromSlash(d)) {
			return nil, 0, fmt.Errorf("%w: bad directory %q", errBadJournal, d)
		}
	}
	end := start + stored
	const trailer = len("end \n") + 2*sha256.Size
	if fi.Size() != end+int64(trailer) {
		return nil, 0, fmt.Errorf("%w: %d bytes, want %d", errBadJournal, fi.Size(), end+int64(trailer))
	}
	sum := sha256.New()
	if _, err := io.Copy(sum, io.NewSectionReader(f, 0, end)); err != nil {
		return nil, 0, err
	}
	tail := make([]byte, trailer)
	if _, err := f.ReadAt(tail, end); err != nil {
		return nil, 0, err
	}
	if string(tail) != fmt.Sprintf("end %x\n", sum.Sum(nil)) {
		return nil, 0, fmt.Errorf("%w: checksum mismatch", errBadJournal)
	}
	return &h, start, nil
}

// state of a file against its journal entry
const (
	stateOther = iota // neither: changed by something else
	stateOld
	stateNew
)

func fileState(root *os.Root, e journalEntry) (int, error) {
	p := filepath.FromSlash(e.Path)
	fi, err := root.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		switch {
		case !e.Existed:
			return stateOld, nil
		case e.Delete:
			return stateNew, nil
		}
		return stateOther, nil
	}
	if err != nil {
		return stateOther, err
	}
	if !fi.Mode().IsRegular() {
		return stateOther, nil
	}
	f, err := root.Open(p)
	if err != nil {
		return stateOther, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return stateOther, err
	}
	sum := hex.EncodeToString(h.Sum(nil))
	switch {
	case e.Existed && sum == e.OldHash:
		return stateOld, nil
	case !e.Delete && sum == e.NewHash:
		return stateNew, nil
	}
	return stateOther, nil
}

// recoverJournal rolls the change in the locked journal f back, or keeps it
// when every file already holds its new content.
func recoverJournal(f *os.File) (rec Recovery) {
	h, start, err := readJournal(f)
	if err != nil {
		rec.Err = err
		return rec
	}
	rec.Root, rec.Started, rec.PID, rec.Files = h.Root, h.Started, h.PID, len(h.Entries)
	root, err := os.OpenRoot(h.Root)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			err = errRootGone
		}
		rec.Err = fmt.Errorf("opening the working directory: %w", err)
		return rec
	}
	defer root.Close()
	states := make([]int, len(h.Entries))
	offsets := make([]int64, len(h.Entries))
	allNew := true
	off := start
	for i, e := range h.Entries {
		offsets[i] = off
		if e.Existed && !h.Light {
			off += e.Size
		}
		states[i], err = fileState(root, e)
		if err != nil {
			rec.Err = fmt.Errorf("%s: %w", e.Path, err)
			return rec
		}
		allNew = allNew && states[i] == stateNew
	}
	rec.Completed = allNew
	var errs []error
	dirty := map[string]bool{}
	for i, e := range h.Entries {
		p := filepath.FromSlash(e.Path)
		switch {
		case allNew:
		case states[i] == stateOther:
			rec.Conflicts = append(rec.Conflicts, e.Path)
		case states[i] == stateNew && e.Existed && h.Light:
			// Not reached: a one-file change is all new or all old.
			errs = append(errs, fmt.Errorf("%s: its original was not kept", e.Path))
		case states[i] == stateNew && e.Existed:
			data := make([]byte, e.Size)
			if _, err := f.ReadAt(data, offsets[i]); err != nil {
				errs = append(errs, fmt.Errorf("%s: reading its original from the journal: %w", e.Path, err))
				continue
			}
			if hashOf(data) != e.OldHash {
				errs = append(errs, fmt.Errorf("%s: its original in the journal does not match its hash", e.Path))
				continue
			}
			if _, err := mkdirAll(root, filepath.Dir(p)); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", e.Path, err))
				continue
			}
			tmp := tempName(p, h.ID+"r")
			root.Remove(tmp) // a leftover of an earlier recovery cut short
			if err := writeAtomic(root, p, data, e.Mode, tmp); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", e.Path, err))
				continue
			}
			root.Chmod(p, e.Mode)
			dirty[filepath.Dir(p)] = true
			rec.RolledBack = append(rec.RolledBack, e.Path)
		case states[i] == stateNew:
			if err := root.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, fmt.Errorf("%s: %w", e.Path, err))
				continue
			}
			dirty[filepath.Dir(p)] = true
			rec.RolledBack = append(rec.RolledBack, e.Path)
		}
	}
	for _, e := range h.Entries {
		p := filepath.FromSlash(e.Path)
		for _, tag := range []string{h.ID, h.ID + "r"} {
			if root.Remove(tempName(p, tag)) == nil {
				rec.Temps++
			}
		}
	}
	for d := range dirty {
		syncDir(root, d) // before the journal goes
	}
	if !allNew {
		for k := len(h.Dirs) - 1; k >= 0; k-- {
			root.Remove(filepath.FromSlash(h.Dirs[k])) // only if empty
		}
	}
	rec.Err = errors.Join(errs...)
	return rec
}

// missingDirs returns the directories (relative to root) that writing the
// files rels would create, outermost first, each once.
func missingDirs(root *os.Root, rels []string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, rel := range rels {
		var missing []string
		for d := filepath.Dir(rel); d != "." && d != string(filepath.Separator) && d != "" && !seen[d]; d = filepath.Dir(d) {
			if _, err := root.Stat(d); err == nil {
				break
			} else if !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
			missing = append(missing, d)
		}
		for k := len(missing) - 1; k >= 0; k-- {
			seen[missing[k]] = true
			out = append(out, filepath.ToSlash(missing[k]))
		}
	}
	return out, nil
}
