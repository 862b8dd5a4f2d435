package lsp

import "context"
import "encoding/json"
import "errors"
import "fmt"
import "slices"
import "sort"
import "strings"
import "sync"
import "time"
import "unicode"

import "github.com/tetherhq/tether/internal/fsutil"

// RenameResult reports a project-wide rename.
type RenameResult struct {
	// Files are the workspace-relative files changed, sorted.
	Files []string `json:"files"`
	// Edits is the number of text edits applied.
	Edits int `json:"edits"`
	// Diagnostics are the changed files' diagnostics after the rename.
	Diagnostics []Diagnostic `json:"diagnostics,omitempty"`
	// DiagnosticsReady is false when some file's diagnostics did not arrive
	// within the bound.
	DiagnosticsReady bool     `json:"diagnostics_ready"`
	Notes            []string `json:"notes,omitempty"`
	// OldName is the identifier renamed, as it was spelled at the position.
	OldName string `json:"old_name,omitempty"`
	// Extensions are the file kinds the server that renamed reads (".py"):
	// where an occurrence it left behind would be.
	Extensions []string `json:"extensions,omitempty"`
	// Implementations are where the server said, before the rename, that
	// the symbol is implemented or overridden (or what it implements): a
	// declaration there that the rename left spelled as the old name breaks
	// the build. Empty when the server offers no implementation query.
	Implementations []Location `json:"implementations,omitempty"`
	// Before are the changed files' diagnostics as the server last
	// published them before the rename, for those it had published: what
	// the rename did not cause.
	Before []OtherFile `json:"before,omitempty"`
}

// Rename renames the symbol at pos to newName across the project: it asks the
// server for the WorkspaceEdit and applies it to every file atomically (all
// files or none), then syncs the changed files and collects their diagnostics.
func (s *Supervisor) Rename(ctx context.Context, pos Position, newName string) (*RenameResult, error) {
	ctx, done, r, err := s.readRename(ctx, pos, newName)
	defer done()
	if err != nil {
		return nil, err
	}
	p, params, oldName, edits := r.p, r.params, r.oldName, r.edits
	impls := s.implementationsAt(ctx, p, params)
	// Compute every new content first; write nothing until all are known.
	var changes []fileChange
	total := 0
	for uri, list := range edits {
		path := uriToPath(uri)
		// Read through the workspace root: a path checked above that a
		// symbolic link swapped in since leads out is refused here.
		old, err := s.root.ReadFile(path)
		if errors.Is(err, fsutil.ErrOutside) {
			return nil, fmt.Errorf("lsp: rename refused: it would change %s, outside the workspace; nothing was changed. %s", path, editInsideHint)
		}
		if err != nil {
			return nil, fmt.Errorf("lsp: rename: %w; nothing was changed", err)
		}
		nt, err := applyEdits(old, list, p.in.enc)
		if err != nil {
			return nil, fmt.Errorf("lsp: rename: %s: %w; nothing was changed", s.rel(path), err)
		}
		changes = append(changes, fileChange{path: path, old: old, new: nt})
		total += len(list)
	}
	s.beforeApply(ctx, changes)
	published, _ := p.in.publications()
	if err := s.applyAtomically(changes); err != nil {
		return nil, err
	}
	res := &RenameResult{Edits: total, Notes: p.notes, DiagnosticsReady: true, OldName: oldName, Extensions: p.in.spec.Extensions, Implementations: impls}
	files := fileCache{}
	for _, c := range changes {
		uri := pathToURI(c.path)
		if e := published[uri]; e != nil {
			o := OtherFile{Path: s.rel(c.path), HadBefore: true}
			for _, d := range e.diags {
				o.Before = append(o.Before, s.diagnostic(files, p.in.enc, uri, d))
			}
			res.Before = append(res.Before, o)
		}
	}
	type pending struct {
		path         string
		version, seq int
	}
	var waits []pending
	for _, c := range changes {
		res.Files = append(res.Files, s.rel(c.path))
		v, seq, _, err := s.syncDoc(ctx, p.in, c.path, true)
		if err != nil {
			res.Notes = append(res.Notes, fmt.Sprintf("files were renamed, but syncing %s with %s failed: %v", s.rel(c.path), p.in.spec.Name, err))
			res.DiagnosticsReady = false
			continue
		}
		waits = append(waits, pending{c.path, v, seq})
	}
	sort.Strings(res.Files)
	// Wait for every file's diagnostics at once: the bound applies once.
	results := make([]*Diagnostics, len(waits))
	errs := make([]error, len(waits))
	var wg sync.WaitGroup
	for i, w := range waits {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = s.collect(ctx, p.in, w.path, w.version, w.seq, nil)
		}()
	}
	wg.Wait()
	for i := range waits {
		if errs[i] != nil {
			res.Notes = append(res.Notes, errs[i].Error())
			res.DiagnosticsReady = false
			continue
		}
		d := results[i]
		res.Diagnostics = append(res.Diagnostics, d.Items...)
		if whole, _ := d.Whole(); !whole {
			res.DiagnosticsReady = false
			res.Notes = append(res.Notes, d.Notes...)
		}
	}
	sortDiagnostics(res.Diagnostics)
	return res, nil
}

// RenamePreview computes the edit of renaming the symbol at pos to newName
// as Rename does, writing nothing.
func (s *Supervisor) RenamePreview(ctx context.Context, pos Position, newName string) (*ProposedEdit, error) {
	ctx, done, r, err := s.readRename(ctx, pos, newName)
	defer done()
	if err != nil {
		return nil, err
	}
	pe, err := s.propose(r.p.in, []wWorkspaceEdit{r.we}, nil)
	if err != nil {
		return nil, fmt.Errorf("lsp: rename %w", err)
	}
	pe.Title = fmt.Sprintf("rename %s to %s", r.oldName, newName)
	pe.Notes = append(r.p.notes, pe.Notes...)
	pe.OldName, pe.Extensions = r.oldName, r.p.in.spec.Extensions
	pe.Implementations = s.implementationsAt(ctx, r.p, r.params)
	return pe, nil
}

// readRename starts a read of the workspace (see reading) and asks for the
// edit of renaming the symbol at pos to newName (see renameEdit). done ends
// the read; the caller defers it whatever the error.
func (s *Supervisor) readRename(ctx context.Context, pos Position, newName string) (context.Context, func(), *renamed, error) {
	ctx, done, err := s.reading(ctx)
	if err != nil {
		return ctx, done, nil, err
	}
	r, err := s.renameEdit(ctx, pos, newName)
	return ctx, done, r, err
}

// renamed is a rename's WorkspaceEdit as the server gave it, checked.
type renamed struct {
	p       *prepared
	params  wPositionParams
	oldName string
	we      wWorkspaceEdit
	edits   map[string][]wTextEdit
}

// renameEdit asks the server for the edit of renaming the symbol at pos
// to newName and checks it (a new name the language refuses, an edit
// outside the workspace or that is not text refuse the whole rename).
func (s *Supervisor) renameEdit(ctx context.Context, pos Position, newName string) (*renamed, error) {
	// A new name that cannot replace the identifier is refused before any
	// server starts.
	oldName, err := s.checkRename(pos, newName)
	if err != nil {
		return nil, err
	}
	p, params, err := s.positionParams(ctx, pos)
	if err != nil {
		return nil, err
	}
	if why := p.in.spec.partialView(p.in.root, s.relRoot(p.in.root)); why != "" {
		return nil, fmt.Errorf("lsp: cannot rename %q: %s, so a rename would miss the uses in the others and break the build; nothing was changed. %s and retry",
			pos.Symbol, why, upperFirst(p.in.spec.indexHint()))
	}
	raw, err := p.in.call(ctx, s.requestTimeout, "textDocument/rename",
		wRenameParams{TextDocument: params.TextDocument, Position: params.Position, NewName: newName})
	if err != nil {
		return nil, s.failed(p.in, err, p.notes)
	}
	if len(raw) == 0 || string(raw) == "null" {
		return nil, fmt.Errorf("lsp: %s cannot rename %q on line %d of %s (it returned no edit): is it a symbol the project declares?", p.in.spec.Name, pos.Symbol, pos.Line, pos.File)
	}
	var we wWorkspaceEdit
	if err := json.Unmarshal(raw, &we); err != nil {
		return nil, fmt.Errorf("lsp: %s answered rename with something unreadable: %w", p.in.spec.Name, err)
	}
	if why := s.editRefusal(we); why != "" {
		return nil, fmt.Errorf("lsp: rename refused: %s; nothing was changed. %s", why, editInsideHint)
	}
	edits, err := flattenEdit(we)
	if err != nil {
		return nil, err
	}
	if len(edits) == 0 {
		return nil, fmt.Errorf("lsp: %s proposed no changes for renaming %q to %q", p.in.spec.Name, pos.Symbol, newName)
	}
	return &renamed{p: p, params: params, oldName: oldName, we: we, edits: edits}, nil
}

// implementationTimeout bounds the implementation query a rename makes first.
const implementationTimeout = 10 * time.Second

// implementationsAt asks the server, before a rename, what implements or
// overrides the symbol at params (an interface method's implementations, or
// what a method implements). It is best effort: a server that offers no
// implementation query, or fails it, gives none.
func (s *Supervisor) implementationsAt(ctx context.Context, p *prepared, params wPositionParams) []Location {
	if p.in.caps == nil || p.in.supports("textDocument/implementation") != nil {
		return nil
	}
	// Bounded apart: a slow answer must not hold the rename up for long.
	raw, err := p.in.call(ctx, min(s.requestTimeout, implementationTimeout), "textDocument/implementation", params)
	if err != nil {
		return nil
	}
	locs, err := decodeLocations(raw)
	if err != nil {
		return nil
	}
	files := fileCache{}
	var out []Location
	for _, l := range locs {
		out = append(out, s.location(files, p.in.enc, l))
	}
	return out
}

// editInsideHint says what to do about an edit refused for touching files
// that are not in the workspace.
const editInsideHint = "tether changes files inside the workspace only: rename a symbol whose declaration and uses all lie inside it"

// maxNamed bounds the paths an edit's refusal names.
const maxNamed = 3

// editRefusal says why tether would refuse the WorkspaceEdit we whole, or
// returns "": every file it touches (by a text edit or a create, rename or
// delete) must be a file inside the workspace. A file outside, or one a
// symbolic link in the workspace leads out to, is named by its path alone.
func (s *Supervisor) editRefusal(we wWorkspaceEdit) string {
	var outside, other []string
	for _, uri := range editURIs(we) {
		path := uriToPath(uri)
		if path == "" {
			other = append(other, uri)
			continue
		}
		if _, err := s.abs(path); errors.Is(err, fsutil.ErrOutside) {
			outside = append(outside, path)
		}
	}
	name := func(list []string) string {
		slices.Sort(list)
		list = slices.Compact(list)
		if len(list) > maxNamed {
			return fmt.Sprintf("%s and %d more", strings.Join(list[:maxNamed], ", "), len(list)-maxNamed)
		}
		return strings.Join(list, ", ")
	}
	switch {
	case len(outside) > 0:
		return fmt.Sprintf("it would change %s, outside the workspace", name(outside))
	case len(other) > 0:
		return fmt.Sprintf("it would change %s, which is not a file", name(other))
	}
	return ""
}

// editURIs lists every document URI a WorkspaceEdit touches: the keys of
// changes, each text document edit's document, and both ends of a file
// create, rename or delete.
func editURIs(we wWorkspaceEdit) []string {
	var out []string
	for uri := range we.Changes {
		out = append(out, uri)
	}
	for _, raw := range we.DocumentChanges {
		var op struct {
			URI          string `json:"uri"`
			OldURI       string `json:"oldUri"`
			NewURI       string `json:"newUri"`
			TextDocument struct {
				URI string `json:"uri"`
			} `json:"textDocument"`
		}
		_ = json.Unmarshal(raw, &op)
		for _, u := range []string{op.URI, op.OldURI, op.NewURI, op.TextDocument.URI} {
			if u != "" {
				out = append(out, u)
			}
		}
	}
	return out
}

// flattenEdit turns a WorkspaceEdit into text edits per URI. Resource
// operations (create, rename, delete files) are refused.
func flattenEdit(we wWorkspaceEdit) (map[string][]wTextEdit, error) {
	out := map[string][]wTextEdit{}
	for uri, list := range we.Changes {
		out[uri] = append(out[uri], list...)
	}
	for _, raw := range we.DocumentChanges {
		var probe struct {
			Kind string `json:"kind"`
		}
		_ = json.Unmarshal(raw, &probe)
		if probe.Kind != "" {
			return nil, fmt.Errorf("lsp: the server's edit would %s a file; tether applies text edits only, so nothing was changed", probe.Kind)
		}
		var td wTextDocumentEdit
		if err := json.Unmarshal(raw, &td); err != nil {
			return nil, fmt.Errorf("lsp: unreadable document change: %w", err)
		}
		out[td.TextDocument.URI] = append(out[td.TextDocument.URI], td.Edits...)
	}
	return out, nil
}

// applyEdits applies non-overlapping text edits to text.
func applyEdits(text []byte, edits []wTextEdit, enc encoding) ([]byte, error) {
	starts := lineStarts(text)
	type span struct {
		from, to int
		text     string
	}
	spans := make([]span, 0, len(edits))
	for _, e := range edits {
		a, b := offsetOf(text, starts, e.Range.Start, enc), offsetOf(text, starts, e.Range.End, enc)
		if b < a {
			return nil, fmt.Errorf("edit with an inverted range")
		}
		spans = append(spans, span{a, b, e.NewText})
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].from < spans[j].from })
	var out []byte
	last := 0
	for _, sp := range spans {
		if sp.from < last {
			return nil, fmt.Errorf("overlapping edits")
		}
		out = append(out, text[last:sp.from]...)
		out = append(out, sp.text...)
		last = sp.to
	}
	out = append(out, text[last:]...)
	return out, nil
}

type fileChange struct {
	path     string
	old, new []byte
}

// applyAtomically writes every change or none (fsutil.Root.Apply), refusing
// the whole change when any file no longer holds what the edit was computed
// from.
func (s *Supervisor) applyAtomically(changes []fileChange) error {
	var cs []fsutil.Change
	for _, c := range changes {
		cs = append(cs, fsutil.Change{Path: c.path, Content: c.new, Expected: c.old, MustExist: true})
	}
	if _, err := s.root.Apply(cs); err != nil {
		return fmt.Errorf("lsp: rename not applied: %w", err)
	}
	return nil
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// CheckRename refuses a new name that cannot replace the identifier at pos
// (not an identifier of the file's language, or one of its reserved words)
// without starting a server or writing anything; Rename does the same
// check first. A position that does not resolve is left to Rename, which
// says what is wrong with it.
func (s *Supervisor) CheckRename(pos Position, newName string) error {
	_, err := s.checkRename(pos, newName)
	return err
}

// checkRename is CheckRename, also returning the identifier at pos ("" when
// the position does not resolve).
func (s *Supervisor) checkRename(pos Position, newName string) (string, error) {
	if strings.TrimSpace(newName) == "" {
		return "", fmt.Errorf("lsp: new_name is empty: pass the identifier to rename to")
	}
	path, err := s.abs(pos.File)
	if err != nil {
		return "", nil
	}
	text, err := s.root.ReadFile(path)
	if err != nil {
		return "", nil
	}
	line, col, err := resolveSymbol(text, pos.Line, pos.Symbol, s.rel(path))
	if err != nil {
		return "", nil
	}
	language := ""
	if spec, err := s.specFor(path); err == nil {
		language = spec.Language
	}
	lt := lineText(text, lineStarts(text), line)
	if err := checkNewName(rulesFor(path, language), lt, col, newName); err != nil {
		return "", err
	}
	return lt[col:identEnd(lt, col)], nil
}

// checkNewName refuses, before the server is asked, a new name that cannot
// replace the identifier at column at of line lt under rules: not every
// server checks (pyright and typescript-language-server return edits that
// write "1bad" or "class" into every file, breaking the build). A position
// inside a string (a quoted property key) is left to the server. A reserved
// word is refused even where the language would take it (a JavaScript
// property named delete): which occurrences are properties is not known
// before the server answers.
func checkNewName(rules identRules, lt string, at int, newName string) error {
	end := identEnd(lt, at)
	old := lt[at:end]
	if old == "" {
		return nil
	}
	prev := ""
	if at > 0 {
		prev = lt[at-1 : at]
	}
	if prev == `"` || prev == "'" || prev == "`" {
		return nil
	}
	name := newName
	if prev == "#" && strings.HasPrefix(name, "#") { // a JavaScript private name
		name = name[1:]
	}
	valid := name != ""
	for i, r := range name {
		ok := r == '_' || unicode.IsLetter(r) || (i > 0 && unicode.IsDigit(r)) || (rules.dollar && r == '$')
		if !ok {
			valid = false
			break
		}
	}
	lang := rules.name + " "
	if rules.name == "" {
		lang = ""
	}
	switch {
	case !valid:
		rule := "letters, digits and _, not starting with a digit"
		if rules.dollar {
			rule = "letters, digits, _ and $, not starting with a digit"
		}
		return fmt.Errorf("lsp: cannot rename %q to %q: %q is not a valid %sidentifier (%s); nothing was changed. Pass a new_name that is a single identifier", old, newName, newName, lang, rule)
	case rules.reserved[name]:
		return fmt.Errorf("lsp: cannot rename %q to %q: %q is a reserved word in %s; nothing was changed. Pass a new_name that is not a reserved word", old, newName, newName, rules.name)
	}
	return nil
}
