package search

import "bytes"
import "errors"
import "fmt"
import "os"
import "path/filepath"
import "strings"

import "github.com/tetherhq/tether/internal/fsutil"

// ErrStale is wrapped by Plan.Apply (and so by a staged edit's accept) when
// files changed after the plan was computed.
var ErrStale = errors.New("search: files changed since the edit was staged")

// Apply writes p's changes, all or none, confined to root: every file is
// read again (through root, as a search with a root read it) and compared
// with the content p was computed from, and a single one that changed
// rejects the whole plan, naming the changed files (ErrStale), with
// nothing written; otherwise the files are replaced all or nothing, even
// across a crash (journaled: the next start rolls a half-made change back).
// Without a root (the command line) the change is confined to the deepest
// directory that holds every file it changes. name is how errors name the
// change ("edit_3").
func (p *Plan) Apply(root *fsutil.Root, name string) error {
	var err error
	read := os.ReadFile
	if root != nil {
		read = root.ReadFile
	}
	var changed []string
	for _, c := range p.Changes {
		if c.Create {
			if _, err := read(c.Path); err == nil {
				changed = append(changed, c.Path+" (a file it creates now exists)")
			}
			continue
		}
		if c.Delete {
			cur, err := read(c.Path)
			switch {
			case err != nil:
				changed = append(changed, c.Path+" (a file it deletes is gone)")
			case !bytes.Equal(cur, c.Old):
				changed = append(changed, c.Path)
			}
			continue
		}
		from := c.Path
		if c.From != "" {
			from = c.From
			if _, err := read(c.Path); err == nil {
				changed = append(changed, c.Path+" (the destination of a move now exists)")
			}
		}
		cur, err := read(from)
		if err != nil || !bytes.Equal(cur, c.Old) {
			changed = append(changed, from)
		}
	}
	if len(changed) > 0 {
		return fmt.Errorf("%w: %s rejected, nothing written; changed: %s; discard it and run %s again",
			ErrStale, name, strings.Join(changed, ", "), p.Stager())
	}
	confined := root != nil
	if !confined {
		// No workspace: the files lie wherever the search went.
		if root, err = commonRoot(p.Changes); err != nil {
			return fmt.Errorf("search: %s not applied: %w", name, err)
		}
	}
	abs := func(path string) (string, error) {
		if !confined {
			// commonRoot's directory is absolute: a relative path (ast-grep
			// -U ws) would be resolved against it a second time.
			return filepath.Abs(path)
		}
		return path, nil
	}
	changes := make([]fsutil.Change, 0, len(p.Changes))
	for _, c := range p.Changes {
		path, err := abs(c.Path)
		if err != nil {
			return fmt.Errorf("search: %s not applied: %w", name, err)
		}
		if c.Create {
			changes = append(changes, fsutil.Change{Path: path, Content: c.New, MustNotExist: true})
			continue
		}
		if c.Delete {
			// journaled with the rest: a crash mid-apply restores it
			changes = append(changes, fsutil.Change{Path: path, Delete: true, Expected: c.Old})
			continue
		}
		if c.From == "" {
			changes = append(changes, fsutil.Change{Path: path, Content: c.New, Expected: c.Old, MustExist: true})
			continue
		}
		// A move is the removal of From and the creation of Path in one
		// journaled apply: a crash between them rolls both back.
		from, err := abs(c.From)
		if err != nil {
			return fmt.Errorf("search: %s not applied: %w", name, err)
		}
		mode := fsutil.DefaultFileMode
		if fi, err := os.Stat(from); err == nil {
			mode = fi.Mode().Perm()
		}
		changes = append(changes,
			fsutil.Change{Path: from, Delete: true, Expected: c.Old},
			fsutil.Change{Path: path, Content: c.New, Mode: mode, MustNotExist: true})
	}
	if _, err := root.Apply(changes); err != nil {
		return fmt.Errorf("search: %s not applied: %w", name, err)
	}
	return nil
}

// commonRoot returns a root at the deepest directory that holds every file
// of changes.
func commonRoot(changes []FileChange) (*fsutil.Root, error) {
	common := ""
	for _, c := range changes {
		abs, err := filepath.Abs(c.Path)
		if err != nil {
			return nil, err
		}
		dir := filepath.Dir(abs)
		if common == "" {
			common = dir
			continue
		}
		for common != dir && !strings.HasPrefix(dir, common+string(filepath.Separator)) && common != filepath.Dir(common) {
			common = filepath.Dir(common)
		}
	}
	if common == "" {
		common = "."
	}
	return fsutil.NewRoot(common)
}
