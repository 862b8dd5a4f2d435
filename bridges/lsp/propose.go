package lsp

import "encoding/json"
import "errors"
import "fmt"
import "os"
import "slices"
import "sort"

import "github.com/tetherhq/tether/internal/fsutil"

// ProposedEdit is a server's WorkspaceEdit (a code action's, a rename's, or
// the import updates of a file move) turned into the new content of every
// file it touches. Nothing is written: the caller stages it and applies it
// all or nothing.
type ProposedEdit struct {
	// Files are the files changed or moved, sorted by path.
	Files []ProposedFile
	// Edits counts the text edits.
	Edits int
	// Server is the server that proposed the edit ("" for a move no server
	// was asked about).
	Server string
	// Title says what the edit does ("Organize Imports", "rename Area to Size").
	Title string
	Notes []string
	// Moves are the file moves of a rename_file, absolute paths, in the
	// order asked; didRename tells the server once they are applied.
	Moves []Move
	// EmptiedDirs are the directories a directory move leaves empty,
	// deepest first: removed once it is applied.
	EmptiedDirs []string
	// OldName, Extensions and Implementations are a rename preview's, as
	// RenameResult's: the name renamed, the file kinds its server reads and
	// where the symbol is implemented or overridden.
	OldName         string
	Extensions      []string
	Implementations []Location
	in              *instance
}

// ProposedFile is one file of a ProposedEdit.
type ProposedFile struct {
	// Path is the file's absolute path inside the workspace (for a move,
	// where it goes); Rel is it relative to the workspace.
	Path, Rel string
	// From, when set, is where a moved file is now (absolute), FromRel it
	// relative to the workspace; Old is then From's content.
	From, FromRel string
	Old, New      []byte
	Edits         int
	// Created is set for a file the edit creates (Old is nil).
	Created bool
	// Deleted is set for a file the edit deletes (New is nil).
	Deleted bool
}

// Move is one file or directory moved by rename_file, absolute paths.
type Move struct{ From, To string }

// propose turns edits (applied in order, each to the result of the ones
// before; a WorkspaceEdit's documentChanges in their order, file creations
// and renames among them) and moves into new file contents, refusing the
// whole change when any file lies outside the workspace. A moved file's
// edits are those the server made to it under its old name.
//
// made are files the server created itself while a command ran (and tether
// removed again): their edits are staged as a creation.
func (s *Supervisor) propose(in *instance, edits []wWorkspaceEdit, moves []Move, made ...string) (*ProposedEdit, error) {
	pl := &editPlan{s: s, enc: encUTF16, pe: &ProposedEdit{in: in, Moves: moves}, files: map[string]*pfile{}}
	if in != nil {
		pl.pe.Server, pl.enc = in.spec.Name, in.enc
	}
	for _, m := range made {
		pl.add(&pfile{path: m, created: true, cur: []byte{}})
	}
	for _, we := range edits {
		if err := pl.workspaceEdit(we); err != nil {
			return nil, err
		}
	}
	for _, m := range moves {
		if err := pl.move(m.From, m.To); err != nil {
			return nil, err
		}
	}
	pl.pe.Files = pl.proposedFiles()
	return pl.pe, nil
}

// pfile is one file of an edit being proposed, as the steps so far left it.
type pfile struct {
	path     string // where it is now, in the edit
	from     string // where it was on disk, for a moved file
	old, cur []byte
	created  bool
	deleted  bool
	edits    int
}

// editPlan is the state of propose: the files the edit touched so far and
// their content after the steps applied.
type editPlan struct {
	s     *Supervisor
	enc   encoding
	pe    *ProposedEdit
	files map[string]*pfile // by current path
	all   []*pfile          // every file touched, in the order first touched
}

// add makes f the file at its path.
func (pl *editPlan) add(f *pfile) {
	pl.files[f.path] = f
	pl.all = append(pl.all, f)
}

// deletedAt reports whether the edit deleted the file at path.
func (pl *editPlan) deletedAt(path string) bool {
	return slices.ContainsFunc(pl.all, func(f *pfile) bool { return f.deleted && f.path == path })
}

// exists reports whether a file is at path after the steps so far.
func (pl *editPlan) exists(path string) bool {
	if f := pl.files[path]; f != nil {
		return true
	}
	if pl.deletedAt(path) {
		return false
	}
	_, err := os.Lstat(path)
	return err == nil
}

// clean is the path of uri with symbolic links resolved inside the
// workspace (as is, when it does not resolve there).
func (pl *editPlan) clean(uri string) string {
	path := uriToPath(uri)
	if real, _, err := pl.s.root.Resolve(path); err == nil {
		return real
	}
	return path
}

// get returns the file at path, read through the workspace root the first
// time; a file the edit moved away or deleted is refused.
func (pl *editPlan) get(path string) (*pfile, error) {
	s := pl.s
	if f := pl.files[path]; f != nil {
		return f, nil
	}
	for _, f := range pl.all {
		if f.from == path {
			return nil, fmt.Errorf("it edits or moves %s after moving it away; nothing was changed", s.rel(path))
		}
		if f.deleted && f.path == path {
			return nil, fmt.Errorf("it edits, moves or deletes %s after deleting it; nothing was changed", s.rel(path))
		}
	}
	b, err := s.root.ReadFile(path)
	if errors.Is(err, fsutil.ErrOutside) {
		return nil, fmt.Errorf("it would change %s, outside the workspace; nothing was changed. %s", path, editInsideHint)
	}
	if err != nil {
		return nil, fmt.Errorf("%w; nothing was changed", err)
	}
	f := &pfile{path: path, old: b, cur: b}
	pl.add(f)
	return f, nil
}

// workspaceEdit applies one WorkspaceEdit: its changes by file, sorted,
// then its documentChanges in order.
func (pl *editPlan) workspaceEdit(we wWorkspaceEdit) error {
	if why := pl.s.editRefusal(we); why != "" {
		return fmt.Errorf("refused: %s; nothing was changed. %s", why, editInsideHint)
	}
	uris := make([]string, 0, len(we.Changes))
	for u := range we.Changes {
		uris = append(uris, u)
	}
	sort.Strings(uris)
	for _, u := range uris {
		if err := pl.textEdit(u, we.Changes[u]); err != nil {
			return err
		}
	}
	for _, raw := range we.DocumentChanges {
		if err := pl.documentChange(raw); err != nil {
			return err
		}
	}
	return nil
}

// documentChange applies one element of documentChanges: a text document
// edit, or a file creation, rename or deletion.
func (pl *editPlan) documentChange(raw json.RawMessage) error {
	var op struct {
		Kind    string `json:"kind"`
		URI     string `json:"uri"`
		OldURI  string `json:"oldUri"`
		NewURI  string `json:"newUri"`
		Options struct {
			Overwrite         bool `json:"overwrite"`
			IgnoreIfExists    bool `json:"ignoreIfExists"`
			Recursive         bool `json:"recursive"`
			IgnoreIfNotExists bool `json:"ignoreIfNotExists"`
		} `json:"options"`
	}
	if err := json.Unmarshal(raw, &op); err != nil {
		return fmt.Errorf("unreadable document change: %w", err)
	}
	switch op.Kind {
	case "":
		var td wTextDocumentEdit
		if err := json.Unmarshal(raw, &td); err != nil {
			return fmt.Errorf("unreadable document change: %w", err)
		}
		return pl.textEdit(td.TextDocument.URI, td.Edits)
	case "create":
		return pl.create(pl.clean(op.URI), op.Options.IgnoreIfExists)
	case "rename":
		return pl.move(pl.clean(op.OldURI), pl.clean(op.NewURI))
	case "delete":
		return pl.remove(pl.clean(op.URI), op.Options.IgnoreIfNotExists)
	default:
		return fmt.Errorf("the server's edit has a document change of kind %q, which tether does not know (it creates, moves, edits and deletes files), so nothing was changed", op.Kind)
	}
}

// textEdit applies list to the file of uri.
func (pl *editPlan) textEdit(uri string, list []wTextEdit) error {
	f, err := pl.get(pl.clean(uri))
	if err != nil {
		return err
	}
	nt, err := applyEdits(f.cur, list, pl.enc)
	if err != nil {
		return fmt.Errorf("%s: %w; nothing was changed", pl.s.rel(f.path), err)
	}
	f.cur = nt
	f.edits += len(list)
	pl.pe.Edits += len(list)
	return nil
}

// create stages an empty new file at path; tether never overwrites a file
// with a created one.
func (pl *editPlan) create(path string, ignoreIfExists bool) error {
	s := pl.s
	if pl.deletedAt(path) {
		return fmt.Errorf("it would create %s again after deleting it; tether stages either, not both, so nothing was changed", s.rel(path))
	}
	if pl.exists(path) {
		if ignoreIfExists {
			return nil
		}
		return fmt.Errorf("it would create %s, which exists (tether never overwrites a file with a created one); nothing was changed", s.rel(path))
	}
	pl.add(&pfile{path: path, created: true, cur: []byte{}})
	return nil
}

// move stages the move of the file at from to to, which must not exist.
func (pl *editPlan) move(from, to string) error {
	f, err := pl.get(from)
	if err != nil {
		return err
	}
	if pl.exists(to) {
		return fmt.Errorf("it would move %s to %s, which exists; nothing was changed", pl.s.rel(from), pl.s.rel(to))
	}
	delete(pl.files, from)
	if !f.created && f.from == "" {
		f.from = from
	}
	f.path = to
	pl.files[to] = f
	return nil
}

// remove stages the deletion of the file at path (a file the edit
// created is just dropped); a directory is refused whole.
func (pl *editPlan) remove(path string, ignoreMissing bool) error {
	s := pl.s
	if fi, err := os.Lstat(path); err == nil && fi.IsDir() && pl.files[path] == nil {
		return fmt.Errorf("it would delete the directory %s; tether deletes files only, so nothing was changed: delete the directory yourself", s.rel(path))
	}
	if !pl.exists(path) {
		if ignoreMissing {
			return nil
		}
		return fmt.Errorf("it would delete %s, which does not exist; nothing was changed", s.rel(path))
	}
	f, err := pl.get(path)
	if err != nil {
		return err
	}
	delete(pl.files, path)
	if f.created && f.from == "" {
		// created and deleted in the same edit: nothing to stage
		pl.all = slices.DeleteFunc(pl.all, func(g *pfile) bool { return g == f })
		return nil
	}
	f.deleted, f.cur = true, nil
	return nil
}

// proposedFiles are the files the steps changed, created, moved or
// deleted, sorted by path.
func (pl *editPlan) proposedFiles() []ProposedFile {
	s := pl.s
	var out []ProposedFile
	for _, f := range pl.all {
		if !f.created && !f.deleted && f.from == "" && string(f.old) == string(f.cur) {
			continue
		}
		pf := ProposedFile{Path: f.path, Rel: s.rel(f.path), Old: f.old, New: f.cur, Edits: f.edits, Created: f.created, Deleted: f.deleted}
		if f.deleted && f.from != "" {
			// moved, then deleted: the file at its old place goes
			pf.Path, pf.Rel = f.from, s.rel(f.from)
		} else if f.from != "" {
			pf.From, pf.FromRel = f.from, s.rel(f.from)
		}
		out = append(out, pf)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Rel < out[j].Rel })
	return out
}
