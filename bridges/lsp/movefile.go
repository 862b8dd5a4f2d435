package lsp

import "context"
import "encoding/json"
import "errors"
import "fmt"
import "os"
import "slices"
import "strings"

// maxMovedFiles bounds the files a directory move takes.
const maxMovedFiles = 2000

// RenameFile computes the move of the file or directory from to to (both
// workspace-relative, inside the workspace; to must not exist), with the
// edits the server of from's language gives for workspace/willRenameFiles
// (the imports and references that name it). Nothing is written: the moved
// files are in Files with From set. A server that offers no file-rename
// edits leaves the move alone, and a note says imports were not updated.
func (s *Supervisor) RenameFile(ctx context.Context, from, to string) (*ProposedEdit, error) {
	ctx, done, err := s.reading(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	src, err := s.abs(from)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(src)
	if err != nil {
		return nil, fmt.Errorf("lsp: %s does not exist in the workspace: pass an existing file or directory", from)
	}
	if src == s.root.RealDir() {
		return nil, errors.New("lsp: cannot move the workspace itself: pass a file or directory inside it")
	}
	dst, err := s.abs(to)
	if err != nil {
		return nil, err
	}
	if _, err := os.Lstat(dst); err == nil {
		return nil, fmt.Errorf("lsp: %s already exists: pass a new path for to (rename_file never overwrites)", to)
	}
	if dst == src || strings.HasPrefix(dst, src+string(os.PathSeparator)) {
		return nil, fmt.Errorf("lsp: cannot move %s into itself (%s)", from, to)
	}
	moves, files, err := movesOf(from, src, dst, fi)
	if err != nil {
		return nil, err
	}
	a, err := s.askWillRename(ctx, files, src, dst)
	if err != nil {
		return nil, err
	}
	pe, err := s.propose(a.in, a.edits, moves)
	if err != nil {
		return nil, fmt.Errorf("lsp: moving %s: %w", from, err)
	}
	pe.Title = fmt.Sprintf("move %s to %s", s.rel(src), s.rel(dst))
	pe.Moves = []Move{{From: src, To: dst}}
	if fi.IsDir() {
		pe.EmptiedDirs = dirsUnder(src)
	}
	pe.Notes = append(a.notes, pe.Notes...)
	if a.why != "" {
		pe.Notes = append(pe.Notes, "imports and references were not updated: "+a.why)
	} else if pe.Edits == 0 {
		pe.Notes = append(pe.Notes, a.in.spec.Name+" found no import or reference to update")
	}
	return pe, nil
}

// movesOf lists the file moves of moving src (from, as asked, stat'ed as
// fi) to dst: the file itself, or every regular file under the directory;
// files are the moved files, to find a server by.
func movesOf(from, src, dst string, fi os.FileInfo) (moves []Move, files []string, err error) {
	switch {
	case fi.IsDir():
		count := 0
		err := walkFiles(src, func(p string) error {
			count++
			if count > maxMovedFiles {
				return fmt.Errorf("lsp: %s holds more than %d files: move it with a shell command (imports are then not updated)", from, maxMovedFiles)
			}
			moves = append(moves, Move{From: p, To: dst + strings.TrimPrefix(p, src)})
			files = append(files, p)
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
		if len(moves) == 0 {
			return nil, nil, fmt.Errorf("lsp: %s holds no file to move", from)
		}
		return moves, files, nil
	case fi.Mode().IsRegular():
		return []Move{{From: src, To: dst}}, []string{src}, nil
	default:
		return nil, nil, fmt.Errorf("lsp: %s is not a regular file or directory: tether moves only those", from)
	}
}

// moveAnswer is what the server of a move's files answered about it.
type moveAnswer struct {
	in    *instance // the server asked; nil when none was
	notes []string
	edits []wWorkspaceEdit
	// why says why imports and references are not updated ("" when the
	// server was asked).
	why string
}

// askWillRename asks the server of the first moved file that one serves
// for the edits of moving src to dst (workspace/willRenameFiles).
func (s *Supervisor) askWillRename(ctx context.Context, files []string, src, dst string) (moveAnswer, error) {
	var a moveAnswer
	for _, f := range files {
		if _, err := s.specFor(f); err != nil {
			continue
		}
		p, err := s.prepare(ctx, s.rel(f))
		if err != nil {
			a.why = strings.TrimPrefix(err.Error(), "lsp: ")
			break
		}
		a.in, a.notes = p.in, p.notes
		break
	}
	in := a.in
	switch {
	case in == nil && a.why == "":
		a.why = "no language server serves the moved files"
	case in != nil && !in.fileOperation("willRename"):
		a.why = in.spec.Name + " offers no file-rename edits (workspace/willRenameFiles)"
	case in != nil:
		params := map[string]any{"files": []map[string]string{{"oldUri": pathToURI(src), "newUri": pathToURI(dst)}}}
		raw, err := in.call(ctx, s.requestTimeout, "workspace/willRenameFiles", params)
		if err != nil {
			return a, s.failed(in, err, a.notes)
		}
		if len(raw) > 0 && string(raw) != "null" {
			var we wWorkspaceEdit
			if err := json.Unmarshal(raw, &we); err != nil {
				return a, fmt.Errorf("lsp: %s answered willRenameFiles with something unreadable: %w", in.spec.Name, err)
			}
			a.edits = append(a.edits, we)
		}
	}
	return a, nil
}

// walkFiles calls fn with every regular file under dir, in lexical order.
// Symbolic links are neither followed nor moved.
func walkFiles(dir string, fn func(string) error) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		p := dir + string(os.PathSeparator) + e.Name()
		switch {
		case e.IsDir():
			if err := walkFiles(p, fn); err != nil {
				return err
			}
		case e.Type().IsRegular():
			if err := fn(p); err != nil {
				return err
			}
		default:
			return fmt.Errorf("lsp: %s is not a regular file: tether moves directories of regular files only", p)
		}
	}
	return nil
}

// fileOperation reports whether the server asked to hear of (or be asked
// about) file renames: workspace.fileOperations.willRename or didRename.
func (in *instance) fileOperation(op string) bool {
	var ws struct {
		FileOperations map[string]json.RawMessage `json:"fileOperations"`
	}
	if in.caps == nil || json.Unmarshal(in.caps["workspace"], &ws) != nil {
		return false
	}
	v, ok := ws.FileOperations[op]
	return ok && string(v) != "null"
}

// Applied tells the server that proposed pe that it was applied: the moves
// with workspace/didRenameFiles, where the server asked for them (the
// files it had open under their old names are closed by the next query's
// sync). It returns notes for the result.
func (s *Supervisor) Applied(ctx context.Context, pe *ProposedEdit) []string {
	ctx, done, err := s.reading(ctx)
	if err != nil {
		return []string{reason(err)}
	}
	defer done()
	if pe.in == nil || len(pe.Moves) == 0 || !pe.in.fileOperation("didRename") {
		return nil
	}
	var files []map[string]string
	for _, m := range pe.Moves {
		files = append(files, map[string]string{"oldUri": pathToURI(m.From), "newUri": pathToURI(m.To)})
	}
	if err := pe.in.notify(ctx, "workspace/didRenameFiles", map[string]any{"files": files}); err != nil {
		return []string{fmt.Sprintf("the move is made, but telling %s of it failed: %v (lsp reload restarts it)", pe.in.spec.Name, err)}
	}
	return nil
}

// dirsUnder lists the directories under dir and dir itself, deepest
// first: those a move of dir leaves empty.
func dirsUnder(dir string) []string {
	var dirs []string
	_ = walkDirs(dir, func(d string) { dirs = append(dirs, d) })
	dirs = append(dirs, dir)
	slices.SortStableFunc(dirs, func(a, b string) int { return len(b) - len(a) })
	return dirs
}

func walkDirs(dir string, fn func(string)) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.IsDir() {
			p := dir + string(os.PathSeparator) + e.Name()
			_ = walkDirs(p, fn)
			fn(p)
		}
	}
	return nil
}
