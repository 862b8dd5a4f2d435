package lsp

import "context"
import "encoding/json"
import "errors"
import "fmt"
import "os"
import "slices"
import "strconv"
import "strings"
import "time"
import "unicode/utf8"

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

// readActions starts a read of the workspace (see reading) and asks for the
// code actions over q's range (see codeActionsAt). done ends the read; the
// caller defers it whatever the error.
func (s *Supervisor) readActions(ctx context.Context, q ActionQuery) (context.Context, func(), *prepared, []rawAction, error) {
	ctx, done, err := s.reading(ctx)
	if err != nil {
		return ctx, done, nil, nil, err
	}
	p, acts, err := s.codeActionsAt(ctx, q)
	return ctx, done, p, acts, err
}

// CodeActionsIn lists the actions the server offers over q's range (a
// symbol, a line, or lines through EndLine), numbered from 1 in the order
// the server gave them: the numbers ApplyCodeAction takes.
func (s *Supervisor) CodeActionsIn(ctx context.Context, q ActionQuery) (*CodeActions, error) {
	_, done, p, acts, err := s.readActions(ctx, q)
	defer done()
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
	ctx, done, p, acts, err := s.readActions(ctx, q)
	defer done()
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
