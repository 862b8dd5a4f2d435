package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

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

// ActionQuery says where to ask for code actions: pos (its symbol may be
// empty: the whole line), through EndLine (1-based, 0: pos's line), or a
// diagnostic's range.
type ActionQuery struct {
	Position
	EndLine int
	// Diagnostic, when set, keeps the diagnostics passed to the server to
	// those whose message holds it (any case) or whose code it is; with no
	// line, the one diagnostic of the file it matches gives the range.
	Diagnostic string
}

// rawAction is one code action as the server sent it, with its JSON (kept
// whole for codeAction/resolve).
type rawAction struct {
	wCodeAction
	raw json.RawMessage
	// cmd is the command to run: the action's own, or the action itself
	// when the server sent a bare Command.
	cmd *wCommand
}

type wCommand struct {
	Title     string            `json:"title"`
	Command   string            `json:"command"`
	Arguments []json.RawMessage `json:"arguments,omitempty"`
}

// codeActionsAt asks the server for the code actions over q's range,
// passing the diagnostics known on those lines.
func (s *Supervisor) codeActionsAt(ctx context.Context, q ActionQuery) (*prepared, []rawAction, error) {
	p, err := s.prepare(ctx, q.File)
	if err != nil {
		return nil, nil, err
	}
	in := p.in
	// Diagnostics for the current content (and the other files as they
	// are now) make quick fixes appear.
	uri := pathToURI(p.path)
	var current []wDiagnostic
	if d, err := s.fileDiagnostics(ctx, q.File, false); err == nil && len(d.Items) > 0 {
		if ds, ok := s.pullCheck(ctx, in, p.path); ok {
			current = ds
		} else {
			in.mu.Lock()
			if e := in.diags[uri]; e != nil {
				current = e.diags
			}
			in.mu.Unlock()
		}
	}
	matches := func(d wDiagnostic) bool {
		if q.Diagnostic == "" {
			return true
		}
		var code any
		_ = json.Unmarshal(d.Code, &code)
		return strings.Contains(strings.ToLower(d.Message), strings.ToLower(q.Diagnostic)) || (code != nil && fmt.Sprint(code) == q.Diagnostic)
	}
	var start, end wPosition
	if q.Line == 0 {
		// A diagnostic alone: its range.
		if q.Diagnostic == "" {
			return nil, nil, errors.New("lsp: code actions need a line (1-based), or a diagnostic (a part of its message, or its code) to find in the file")
		}
		var found []wDiagnostic
		for _, d := range current {
			if matches(d) {
				found = append(found, d)
			}
		}
		if len(found) != 1 {
			return nil, nil, fmt.Errorf("lsp: %s in %s: pass line too, or a more precise diagnostic", s.diagChoice(q.Diagnostic, found, current), q.File)
		}
		start, end = found[0].Range.Start, found[0].Range.End
	} else if start, end, err = s.actionRange(p, q); err != nil {
		return nil, nil, err
	}
	cp := wCodeActionParams{TextDocument: wTextDocumentIdentifier{URI: uri}, Range: wRange{Start: start, End: end}}
	cp.Context.Diagnostics = []wDiagnostic{}
	for _, d := range current {
		if d.Range.Start.Line <= end.Line && d.Range.End.Line >= start.Line && matches(d) {
			cp.Context.Diagnostics = append(cp.Context.Diagnostics, d)
		}
	}
	if q.Diagnostic != "" && len(cp.Context.Diagnostics) == 0 {
		var near []wDiagnostic
		for _, d := range current {
			if d.Range.Start.Line <= end.Line && d.Range.End.Line >= start.Line {
				near = append(near, d)
			}
		}
		return nil, nil, fmt.Errorf("lsp: %s on those lines of %s", s.diagChoice(q.Diagnostic, nil, near), q.File)
	}
	acts, err := s.askActions(ctx, in, cp)
	if err != nil {
		return nil, nil, s.failed(in, err, p.notes)
	}
	// Some servers (typescript-language-server) offer the source actions
	// (organize imports, fix all) only when asked for them by kind.
	hasSource := false
	for _, a := range acts {
		hasSource = hasSource || a.Kind == "source" || strings.HasPrefix(a.Kind, "source.")
	}
	if !hasSource {
		cp.Context.Only = []string{"source"}
		if more, err := s.askActions(ctx, in, cp); err == nil {
			for _, m := range more {
				if !slices.ContainsFunc(acts, func(a rawAction) bool { return a.Title == m.Title && a.Kind == m.Kind }) {
					acts = append(acts, m)
				}
			}
		}
	}
	return p, acts, nil
}

// actionRange is the range of q's line and symbol (the identifier), line
// (the whole line) or lines through EndLine.
func (s *Supervisor) actionRange(p *prepared, q ActionQuery) (start, end wPosition, err error) {
	in := p.in
	starts := lineStarts(p.text)
	var line, col int
	if strings.TrimSpace(q.Symbol) != "" {
		if line, col, err = resolveSymbol(p.text, q.Line, q.Symbol, s.rel(p.path)); err != nil {
			return start, end, err
		}
	} else {
		line = q.Line - 1
		if q.Line < 1 || line >= len(starts) {
			return start, end, fmt.Errorf("lsp: line %d is outside %s (%d lines): pass a line from 1 to %d", q.Line, q.File, len(starts), len(starts))
		}
	}
	endLine := line
	if q.EndLine != 0 {
		if q.EndLine < q.Line || q.EndLine > len(starts) {
			return start, end, fmt.Errorf("lsp: end_line %d is not between line %d and the last line of %s (%d)", q.EndLine, q.Line, q.File, len(starts))
		}
		endLine = q.EndLine - 1
	}
	lt := lineText(p.text, starts, line)
	start = wPosition{Line: line, Character: in.enc.col(lt, col)}
	if q.Symbol != "" && endLine == line {
		endByte := col
		for endByte < len(lt) {
			r, n := utf8.DecodeRuneInString(lt[endByte:])
			if !isIdentRune(r) {
				break
			}
			endByte += n
		}
		return start, wPosition{Line: line, Character: in.enc.col(lt, endByte)}, nil
	}
	el := lineText(p.text, starts, endLine)
	return start, wPosition{Line: endLine, Character: in.enc.col(el, len(el))}, nil
}

// maxDiagChoices bounds the diagnostics a refusal lists.
const maxDiagChoices = 10

// diagChoice says which diagnostics the selector want matched (found)
// when not exactly one did, listing those there are (all).
func (s *Supervisor) diagChoice(want string, found, all []wDiagnostic) string {
	list := found
	what := fmt.Sprintf("%d diagnostics match %q", len(found), want)
	if len(found) == 0 {
		list = all
		what = fmt.Sprintf("no diagnostic matches %q", want)
		if len(all) == 0 {
			return what + " (the server reports none there)"
		}
	}
	var parts []string
	for i, d := range list {
		if i == maxDiagChoices {
			parts = append(parts, fmt.Sprintf("... %d more", len(list)-i))
			break
		}
		var code any
		_ = json.Unmarshal(d.Code, &code)
		c := ""
		if code != nil {
			c = fmt.Sprintf(" [%v]", code)
		}
		parts = append(parts, fmt.Sprintf("line %d: %s%s", d.Range.Start.Line+1, d.Message, c))
	}
	return what + "; there: " + strings.Join(parts, "; ")
}

// askActions sends one codeAction request.
func (s *Supervisor) askActions(ctx context.Context, in *instance, cp wCodeActionParams) ([]rawAction, error) {
	raw, err := in.call(ctx, s.requestTimeout, "textDocument/codeAction", cp)
	if err != nil {
		return nil, err
	}
	var list []json.RawMessage
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, fmt.Errorf("lsp: %s answered codeAction with something unreadable: %w", in.spec.Name, err)
		}
	}
	var acts []rawAction
	for _, r := range list {
		if a, ok := decodeAction(r); ok {
			acts = append(acts, a)
		}
	}
	return acts, nil
}

// decodeAction reads one element of a codeAction answer: a CodeAction or a
// bare Command.
func decodeAction(r json.RawMessage) (rawAction, bool) {
	var probe struct {
		Title   string          `json:"title"`
		Command json.RawMessage `json:"command"`
	}
	if json.Unmarshal(r, &probe) != nil || probe.Title == "" {
		return rawAction{}, false
	}
	a := rawAction{raw: r}
	if len(probe.Command) > 0 && probe.Command[0] == '"' {
		var c wCommand
		if json.Unmarshal(r, &c) != nil {
			return rawAction{}, false
		}
		a.Title, a.cmd = c.Title, &c
		return a, true
	}
	if json.Unmarshal(r, &a.wCodeAction) != nil {
		return rawAction{}, false
	}
	if len(a.Command) > 0 && string(a.Command) != "null" {
		var c wCommand
		if json.Unmarshal(a.Command, &c) == nil && c.Command != "" {
			a.cmd = &c
		}
	}
	return a, true
}

// CodeActionsIn lists the actions the server offers over q's range (a
// symbol, a line, or lines through EndLine), numbered from 1 in the order
// the server gave them: the numbers ApplyCodeAction takes.
func (s *Supervisor) CodeActionsIn(ctx context.Context, q ActionQuery) (*CodeActions, error) {
	ctx, done, err := s.reading(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	p, acts, err := s.codeActionsAt(ctx, q)
	if err != nil {
		return nil, err
	}
	out := &CodeActions{Notes: p.notes}
	for _, a := range acts {
		ca := CodeAction{Title: a.Title, Kind: a.Kind, Preferred: a.IsPreferred}
		if a.Edit != nil {
			ca.Refused = s.editRefusal(*a.Edit)
		}
		if a.Edit == nil && a.cmd != nil {
			ca.Command = a.cmd.Command
			if why := commandRefusal(a); why != "" {
				ca.Refused = "its command " + why
			}
		}
		out.Items = append(out.Items, ca)
	}
	return out, nil
}

// pickAction chooses the action which names: its number (1-based, as
// CodeActionsIn lists them), its title (exact, any case; or a part of one
// title only), or a kind (source.organizeImports, quickfix: the action of
// that kind or a kind under it, the preferred one when several are).
func pickAction(acts []rawAction, which string) (int, error) {
	which = strings.TrimSpace(which)
	list := func() string {
		if len(acts) == 0 {
			return "the server offers no action there"
		}
		var b []string
		for i, a := range acts {
			k := ""
			if a.Kind != "" {
				k = " (" + a.Kind + ")"
			}
			b = append(b, fmt.Sprintf("%d. %s%s", i+1, a.Title, k))
		}
		return "the actions offered are: " + strings.Join(b, "; ")
	}
	if which == "" {
		return 0, fmt.Errorf("lsp: no action given: pass its number, title or kind; %s", list())
	}
	if n, err := strconv.Atoi(which); err == nil {
		if n < 1 || n > len(acts) {
			return 0, fmt.Errorf("lsp: there is no action %d: %s", n, list())
		}
		return n - 1, nil
	}
	for i, a := range acts {
		if strings.EqualFold(a.Title, which) {
			return i, nil
		}
	}
	var kinds []int
	for i, a := range acts {
		if a.Kind == which || strings.HasPrefix(a.Kind, which+".") {
			kinds = append(kinds, i)
		}
	}
	if len(kinds) > 1 {
		var preferred []int
		for _, i := range kinds {
			if acts[i].IsPreferred {
				preferred = append(preferred, i)
			}
		}
		if len(preferred) == 1 {
			return preferred[0], nil
		}
		return 0, fmt.Errorf("lsp: %d actions are of kind %s and none is the one preferred: pass a number or a title; %s", len(kinds), which, list())
	}
	if len(kinds) == 1 {
		return kinds[0], nil
	}
	var parts []int
	for i, a := range acts {
		if strings.Contains(strings.ToLower(a.Title), strings.ToLower(which)) {
			parts = append(parts, i)
		}
	}
	if len(parts) == 1 {
		return parts[0], nil
	}
	if len(parts) > 1 {
		return 0, fmt.Errorf("lsp: %q is part of %d titles: pass a number or a whole title; %s", which, len(parts), list())
	}
	return 0, fmt.Errorf("lsp: no action is numbered, titled or of kind %q: %s", which, list())
}

// ApplyCodeAction computes the edit of the action which names among those
// offered over q's range (see pickAction): the action's own edit, the one
// codeAction/resolve fills in, or, for a command, the edits the server
// sends back through workspace/applyEdit while it runs (captured, never
// written). Nothing is written.
func (s *Supervisor) ApplyCodeAction(ctx context.Context, q ActionQuery, which string) (*ProposedEdit, error) {
	ctx, done, err := s.reading(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	p, acts, err := s.codeActionsAt(ctx, q)
	if err != nil {
		return nil, err
	}
	i, err := pickAction(acts, which)
	if err != nil {
		return nil, err
	}
	in, a := p.in, acts[i]
	notes := p.notes
	if a.Edit == nil && a.cmd == nil || a.Edit == nil && len(a.Data) > 0 {
		if resolved, ok, err := s.resolveAction(ctx, in, a); err != nil {
			return nil, err
		} else if ok {
			a = resolved
		}
	}
	var edits []wWorkspaceEdit
	var made []string
	switch {
	case a.Edit != nil:
		edits = append(edits, *a.Edit)
		if a.cmd != nil {
			notes = append(notes, fmt.Sprintf("the action also names the command %s, which was not run: its edit is staged alone", a.cmd.Command))
		}
	case a.cmd != nil:
		if why := commandRefusal(a); why != "" {
			return nil, fmt.Errorf("lsp: %s's action %q runs the command %s, which %s; tether runs a command only for the edit it sends back, so nothing was run or staged", in.spec.Name, a.Title, a.cmd.Command, why)
		}
		started := time.Now()
		edits, err = s.runCommand(ctx, in, *a.cmd)
		if err != nil {
			return nil, err
		}
		made, notes = s.serverMade(in, edits, started, notes)
	default:
		return nil, fmt.Errorf("lsp: %s offers %q with neither an edit nor a command: there is nothing to apply", in.spec.Name, a.Title)
	}
	pe, err := s.propose(in, edits, nil, made...)
	if err != nil {
		return nil, fmt.Errorf("lsp: %q: %w", a.Title, err)
	}
	if len(pe.Files) == 0 {
		return nil, fmt.Errorf("lsp: %s's action %q changes nothing (its edit leaves every file as it is); nothing was staged", in.spec.Name, a.Title)
	}
	pe.Title, pe.Notes = a.Title, append(notes, pe.Notes...)
	return pe, nil
}

// editKinds are the code action kinds whose commands are run for their
// edit: fixes, refactorings, the import and clean-up source actions, and
// adding a test. Other commands (browse documentation or assembly, toggle
// compiler details) do something else than edit files.
var editKinds = []string{"quickfix", "refactor", "source.organizeImports", "source.fixAll", "source.removeUnused",
	"source.addMissingImports", "source.sortImports", "source.removeUnusedImports", "source.addTest"}

// commandRefusal says why the command of a (an action with no edit) is
// not run, or "".
func commandRefusal(a rawAction) string {
	if a.Kind == "" {
		return "the server gives no kind, so whether it edits is not known"
	}
	for _, k := range editKinds {
		if a.Kind == k || strings.HasPrefix(a.Kind, k+".") {
			return ""
		}
	}
	return fmt.Sprintf("is of kind %s, not a fix, refactoring, import clean-up or added test", a.Kind)
}

// serverMade finds the files a command's edits write into that the server
// created itself, empty, while the command ran (typescript-language-server
// creates the file of "Move to a new file" on disk and sends its content as
// an edit): each is removed again, so that nothing changes before resolve,
// and staged as a creation. A file with content, or older than the command,
// is left alone.
func (s *Supervisor) serverMade(in *instance, edits []wWorkspaceEdit, started time.Time, notes []string) ([]string, []string) {
	var made []string
	for _, we := range edits {
		for _, uri := range editURIs(we) {
			path := uriToPath(uri)
			real, rel, err := s.root.Resolve(path)
			if err != nil || slices.Contains(made, real) {
				continue
			}
			fi, err := os.Lstat(real)
			if err != nil || !fi.Mode().IsRegular() || fi.Size() != 0 || fi.ModTime().Before(started.Add(-time.Second)) {
				continue
			}
			root, err := os.OpenRoot(s.root.RealDir())
			if err != nil {
				continue
			}
			err = root.Remove(rel)
			root.Close()
			if err != nil {
				continue
			}
			made = append(made, real)
			notes = append(notes, fmt.Sprintf("%s created %s (empty) itself while the command ran; tether removed it again and stages its creation with the rest", in.spec.Name, rel))
		}
	}
	return made, notes
}

// resolveAction fills in a lazily computed action's edit with
// codeAction/resolve, where the server offers it.
func (s *Supervisor) resolveAction(ctx context.Context, in *instance, a rawAction) (rawAction, bool, error) {
	var opts struct {
		ResolveProvider bool `json:"resolveProvider"`
	}
	if in.caps == nil || json.Unmarshal(in.caps["codeActionProvider"], &opts) != nil || !opts.ResolveProvider {
		return a, false, nil
	}
	raw, err := in.call(ctx, s.requestTimeout, "codeAction/resolve", a.raw)
	if err != nil {
		return a, false, s.failed(in, err, nil)
	}
	r, ok := decodeAction(raw)
	if !ok {
		return a, false, fmt.Errorf("lsp: %s answered codeAction/resolve for %q with something unreadable", in.spec.Name, a.Title)
	}
	return r, true, nil
}

// runCommand runs a command action with workspace/executeCommand and
// returns the edits the server sent back through workspace/applyEdit
// while it ran: captured, not written (the server is told they were
// applied, so that the command completes; its view of the files comes from
// what tether syncs, as always). A command that sends no edit is refused:
// tether runs commands only for their edits.
func (s *Supervisor) runCommand(ctx context.Context, in *instance, c wCommand) ([]wWorkspaceEdit, error) {
	if in.caps != nil {
		if v, ok := in.caps["executeCommandProvider"]; !ok || string(v) == "null" {
			return nil, fmt.Errorf("lsp: the action runs the command %s, but %s offers no workspace/executeCommand: nothing can be applied", c.Command, in.spec.Name)
		}
	}
	in.cmdMu.Lock()
	defer in.cmdMu.Unlock()
	var got []wWorkspaceEdit
	in.mu.Lock()
	in.capture = func(we wWorkspaceEdit) { got = append(got, we) }
	in.mu.Unlock()
	_, err := in.call(ctx, s.requestTimeout, "workspace/executeCommand", map[string]any{"command": c.Command, "arguments": c.Arguments})
	in.mu.Lock()
	in.capture = nil
	edits := got
	in.mu.Unlock()
	if err != nil && len(edits) == 0 {
		return nil, s.failed(in, err, nil)
	}
	if len(edits) == 0 {
		return nil, fmt.Errorf("lsp: %s ran the command %s but sent no edit back (workspace/applyEdit): tether runs a command only for the edit it makes, so nothing was staged", in.spec.Name, c.Command)
	}
	return edits, nil
}

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

// RenamePreview computes the edit of renaming the symbol at pos to newName
// as Rename does, writing nothing.
func (s *Supervisor) RenamePreview(ctx context.Context, pos Position, newName string) (*ProposedEdit, error) {
	ctx, done, err := s.reading(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	r, err := s.renameEdit(ctx, pos, newName)
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
	var moves []Move
	var files []string // the moved files, to find a server
	if fi.IsDir() {
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
			return nil, err
		}
		if len(moves) == 0 {
			return nil, fmt.Errorf("lsp: %s holds no file to move", from)
		}
	} else if fi.Mode().IsRegular() {
		moves = []Move{{From: src, To: dst}}
		files = []string{src}
	} else {
		return nil, fmt.Errorf("lsp: %s is not a regular file or directory: tether moves only those", from)
	}
	// The server of the first moved file that one serves is asked.
	var in *instance
	var notes []string
	why := ""
	for _, f := range files {
		if _, err := s.specFor(f); err != nil {
			continue
		}
		p, err := s.prepare(ctx, s.rel(f))
		if err != nil {
			why = strings.TrimPrefix(err.Error(), "lsp: ")
			break
		}
		in, notes = p.in, p.notes
		break
	}
	var edits []wWorkspaceEdit
	switch {
	case in == nil && why == "":
		why = "no language server serves the moved files"
	case in != nil && !in.fileOperation("willRename"):
		why = in.spec.Name + " offers no file-rename edits (workspace/willRenameFiles)"
	case in != nil:
		params := map[string]any{"files": []map[string]string{{"oldUri": pathToURI(src), "newUri": pathToURI(dst)}}}
		raw, err := in.call(ctx, s.requestTimeout, "workspace/willRenameFiles", params)
		if err != nil {
			return nil, s.failed(in, err, notes)
		}
		if len(raw) > 0 && string(raw) != "null" {
			var we wWorkspaceEdit
			if err := json.Unmarshal(raw, &we); err != nil {
				return nil, fmt.Errorf("lsp: %s answered willRenameFiles with something unreadable: %w", in.spec.Name, err)
			}
			edits = append(edits, we)
		}
	}
	pe, err := s.propose(in, edits, moves)
	if err != nil {
		return nil, fmt.Errorf("lsp: moving %s: %w", from, err)
	}
	pe.Title = fmt.Sprintf("move %s to %s", s.rel(src), s.rel(dst))
	pe.Moves = []Move{{From: src, To: dst}}
	if fi.IsDir() {
		pe.EmptiedDirs = dirsUnder(src)
	}
	pe.Notes = append(notes, pe.Notes...)
	if why != "" {
		pe.Notes = append(pe.Notes, "imports and references were not updated: "+why)
	} else if pe.Edits == 0 {
		pe.Notes = append(pe.Notes, in.spec.Name+" found no import or reference to update")
	}
	return pe, nil
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

// state is the running server's state for status: indexing while it has
// not looked ready yet (work-done progress still active, no first
// diagnostics), ready after.
func (in *instance) state() string {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.ready && len(in.active) == 0 {
		return "ready"
	}
	return "indexing"
}

// version is what the server said of itself in initialize (serverInfo).
func (in *instance) version() string { return in.info }

// serverFeatures are the requests and features tether uses, with the
// capability that announces each.
var serverFeatures = []struct{ name, capability string }{
	{"definition", "definitionProvider"},
	{"type_definition", "typeDefinitionProvider"},
	{"implementation", "implementationProvider"},
	{"references", "referencesProvider"},
	{"hover", "hoverProvider"},
	{"document_symbols", "documentSymbolProvider"},
	{"workspace_symbols", "workspaceSymbolProvider"},
	{"code_actions", "codeActionProvider"},
	{"rename", "renameProvider"},
	{"call_hierarchy", "callHierarchyProvider"},
	{"type_hierarchy", "typeHierarchyProvider"},
	{"pull_diagnostics", "diagnosticProvider"},
	{"execute_command", "executeCommandProvider"},
}

// features lists what the server announced of serverFeatures, and what
// it did not, plus code action resolve and kinds and file-rename edits.
func (in *instance) features() (supports, lacks []string) {
	if in.caps == nil {
		return nil, nil
	}
	on := func(key string) bool {
		v, ok := in.caps[key]
		return ok && string(v) != "false" && string(v) != "null"
	}
	for _, f := range serverFeatures {
		if !on(f.capability) {
			lacks = append(lacks, f.name)
			continue
		}
		name := f.name
		if f.capability == "codeActionProvider" {
			var o struct {
				Kinds   []string `json:"codeActionKinds"`
				Resolve bool     `json:"resolveProvider"`
			}
			if json.Unmarshal(in.caps[f.capability], &o) == nil && len(o.Kinds) > 0 {
				name += " (" + strings.Join(o.Kinds, ", ") + ")"
			}
		}
		supports = append(supports, name)
	}
	if in.fileOperation("willRename") {
		supports = append(supports, "file_rename_edits")
	} else {
		lacks = append(lacks, "file_rename_edits")
	}
	return supports, lacks
}
