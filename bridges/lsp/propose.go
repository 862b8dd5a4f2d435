package lsp

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"

	"github.com/tetherhq/tether/internal/fsutil"
)

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
	pe := &ProposedEdit{in: in, Moves: moves}
	enc := encUTF16
	if in != nil {
		pe.Server, enc = in.spec.Name, in.enc
	}
	type pfile struct {
		path     string // where it is now, in the edit
		from     string // where it was on disk, for a moved file
		old, cur []byte
		created  bool
		deleted  bool
		edits    int
	}
	files := map[string]*pfile{} // by current path
	var all []*pfile
	for _, m := range made {
		f := &pfile{path: m, created: true, cur: []byte{}}
		files[m] = f
		all = append(all, f)
	}
	exists := func(path string) bool {
		if f := files[path]; f != nil {
			return true
		}
		for _, f := range all {
			if f.deleted && f.path == path {
				return false
			}
		}
		_, err := os.Lstat(path)
		return err == nil
	}
	clean := func(uri string) string {
		path := uriToPath(uri)
		if real, _, err := s.root.Resolve(path); err == nil {
			return real
		}
		return path
	}
	get := func(path string) (*pfile, error) {
		if f := files[path]; f != nil {
			return f, nil
		}
		for _, f := range all {
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
		files[path] = f
		all = append(all, f)
		return f, nil
	}
	textEdit := func(uri string, list []wTextEdit) error {
		f, err := get(clean(uri))
		if err != nil {
			return err
		}
		nt, err := applyEdits(f.cur, list, enc)
		if err != nil {
			return fmt.Errorf("%s: %w; nothing was changed", s.rel(f.path), err)
		}
		f.cur = nt
		f.edits += len(list)
		pe.Edits += len(list)
		return nil
	}
	move := func(from, to string) error {
		f, err := get(from)
		if err != nil {
			return err
		}
		if exists(to) {
			return fmt.Errorf("it would move %s to %s, which exists; nothing was changed", s.rel(from), s.rel(to))
		}
		delete(files, from)
		if !f.created && f.from == "" {
			f.from = from
		}
		f.path = to
		files[to] = f
		return nil
	}
	// remove stages the deletion of the file at path (a file the edit
	// created is just dropped); a directory is refused whole.
	remove := func(path string, ignoreMissing bool) error {
		if fi, err := os.Lstat(path); err == nil && fi.IsDir() && files[path] == nil {
			return fmt.Errorf("it would delete the directory %s; tether deletes files only, so nothing was changed: delete the directory yourself", s.rel(path))
		}
		if !exists(path) {
			if ignoreMissing {
				return nil
			}
			return fmt.Errorf("it would delete %s, which does not exist; nothing was changed", s.rel(path))
		}
		f, err := get(path)
		if err != nil {
			return err
		}
		delete(files, path)
		if f.created && f.from == "" {
			// created and deleted in the same edit: nothing to stage
			all = slices.DeleteFunc(all, func(g *pfile) bool { return g == f })
			return nil
		}
		f.deleted, f.cur = true, nil
		return nil
	}
	for _, we := range edits {
		if why := s.editRefusal(we); why != "" {
			return nil, fmt.Errorf("refused: %s; nothing was changed. %s", why, editInsideHint)
		}
		uris := make([]string, 0, len(we.Changes))
		for u := range we.Changes {
			uris = append(uris, u)
		}
		sort.Strings(uris)
		for _, u := range uris {
			if err := textEdit(u, we.Changes[u]); err != nil {
				return nil, err
			}
		}
		for _, raw := range we.DocumentChanges {
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
				return nil, fmt.Errorf("unreadable document change: %w", err)
			}
			switch op.Kind {
			case "":
				var td wTextDocumentEdit
				if err := json.Unmarshal(raw, &td); err != nil {
					return nil, fmt.Errorf("unreadable document change: %w", err)
				}
				if err := textEdit(td.TextDocument.URI, td.Edits); err != nil {
					return nil, err
				}
			case "create":
				path := clean(op.URI)
				if slices.ContainsFunc(all, func(f *pfile) bool { return f.deleted && f.path == path }) {
					return nil, fmt.Errorf("it would create %s again after deleting it; tether stages either, not both, so nothing was changed", s.rel(path))
				}
				if exists(path) {
					if op.Options.IgnoreIfExists {
						continue
					}
					return nil, fmt.Errorf("it would create %s, which exists (tether never overwrites a file with a created one); nothing was changed", s.rel(path))
				}
				f := &pfile{path: path, created: true, cur: []byte{}}
				files[path] = f
				all = append(all, f)
			case "rename":
				if err := move(clean(op.OldURI), clean(op.NewURI)); err != nil {
					return nil, err
				}
			case "delete":
				if err := remove(clean(op.URI), op.Options.IgnoreIfNotExists); err != nil {
					return nil, err
				}
			default:
				return nil, fmt.Errorf("the server's edit has a document change of kind %q, which tether does not know (it creates, moves, edits and deletes files), so nothing was changed", op.Kind)
			}
		}
	}
	for _, m := range moves {
		if err := move(m.From, m.To); err != nil {
			return nil, err
		}
	}
	for _, f := range all {
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
		pe.Files = append(pe.Files, pf)
	}
	sort.Slice(pe.Files, func(i, j int) bool { return pe.Files[i].Rel < pe.Files[j].Rel })
	return pe, nil
}
