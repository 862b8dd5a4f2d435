package tools

import "context"
import "errors"
import "fmt"
import "os"
import "strings"
import "time"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/search"

// maxLSPTimeout bounds an lsp call's timeout argument (the call's own
// deadline, when it has an earlier one, still wins).
const maxLSPTimeout = 600

// serverTimeout is the timeout argument of the tools that wait for a
// language server's answer.
type serverTimeout struct {
	Timeout int `json:"timeout,omitempty" jsonschema:"seconds to wait for the server (default: its request bound; at most 600)" bounds:"minimum=1,maximum=600"`
}

// applyArgs are lsp_apply's arguments.
type applyArgs struct {
	File       string `json:"file" jsonschema:"workspace-relative file" bounds:"minLength=1"`
	Line       int    `json:"line,omitempty" jsonschema:"1-based line of file where the action applies (any line for a whole-file action such as source.organizeImports); may be omitted with diagnostic" bounds:"minimum=1"`
	Symbol     string `json:"symbol,omitempty" jsonschema:"substring of that line naming the symbol (name#2 for the second occurrence); omitted: the whole line"`
	EndLine    int    `json:"end_line,omitempty" jsonschema:"last line (1-based) of a range of lines, from line; omitted: line alone" bounds:"minimum=1"`
	Diagnostic string `json:"diagnostic,omitempty" jsonschema:"the diagnostic to fix: a part of its message (any case) or its code; only it is passed to the server, and without line the one such diagnostic in file gives the place"`
	Action     string `json:"action" jsonschema:"which action: its number as lsp code_actions lists it (1 is the first), its title (whole, or a part of one title only), or a kind such as source.organizeImports or quickfix (the preferred one when several are of that kind)" bounds:"minLength=1"`
	serverTimeout
}

// renameFileArgs are rename_file's arguments.
type renameFileArgs struct {
	From    string `json:"from" jsonschema:"workspace-relative file or directory to move" bounds:"minLength=1"`
	To      string `json:"to" jsonschema:"its new workspace-relative path; must not exist (its directory is created)" bounds:"minLength=1"`
	Preview bool   `json:"preview,omitempty" jsonschema:"stage the move and the import updates and return an edit_id and the diff for resolve, instead of applying them now"`
	serverTimeout
}

// applyTools are lsp_apply, rename_file, lsp_format, lsp_request and
// lsp_command.
func (l *lspTools) applyTools() []Tool {
	return append([]Tool{
		Typed(Tool{
			Name: "lsp_apply",
			Tier: TierWrite,
			Description: "Stage a code action of the language server (a quick fix, organize imports, a refactoring) as a change for resolve: " +
				"file, line, optional symbol (or end_line for a range), or diagnostic (a part of its message or its code) with or without line, and action: its number as lsp code_actions lists it, its title, or a kind " +
				"(source.organizeImports, quickfix). Nothing is written: the result names an edit_id and shows the diff; resolve accept applies it " +
				"all or nothing (rejected whole if any file changed since) and reports new diagnostics. An action that runs a command is staged " +
				"from the edit the server sends back; one whose edit touches a file outside the workspace is refused whole.",
		}, l.apply),
		Typed(Tool{
			Name: "rename_file",
			Tier: TierWrite,
			Description: "Move or rename a file or directory inside the workspace, with the import and reference updates the language server " +
				"gives for it (workspace/willRenameFiles): the move and the edits are applied together, all or nothing, and the server is told. " +
				"Where no server offers such edits the move is still made and the result says imports were not updated. " +
				"preview: true stages it for resolve (edit_id and diff) instead.",
			Writes: writesFor(renameFileTargets),
		}, l.renameFile),
		l.formatTool(),
	}, l.requestTools()...)
}

// renameFileTargets are both ends of the move rename_file makes now (a
// preview writes nothing); the importers it updates are named with
// WillWrite once the server's edit is known.
func renameFileTargets(a renameFileArgs) []string {
	if a.Preview {
		return nil
	}
	return []string{a.From, a.To}
}

// withTimeout bounds ctx by seconds (none when 0).
func withTimeout(ctx context.Context, seconds int) (context.Context, context.CancelFunc) {
	if seconds <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, time.Duration(min(seconds, maxLSPTimeout))*time.Second)
}

// timeoutErr says that err came from the call's own timeout, and what to
// do, when it did.
func timeoutErr(ctx context.Context, seconds int, err error) error {
	if err != nil && seconds > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("lsp: no answer within the call's timeout of %ds (%w): pass a larger timeout (at most %d) or retry once the server is ready (lsp status)", seconds, err, maxLSPTimeout)
	}
	return err
}

func (l *lspTools) apply(ctx context.Context, call *Call, a applyArgs) (*Result, *StagedDiff, error) {
	cctx, cancel := withTimeout(ctx, a.Timeout)
	defer cancel()
	if a.Line == 0 && a.Diagnostic == "" {
		return nil, nil, errors.New("lsp: lsp_apply needs line (1-based), or diagnostic (a part of the message or the code of the diagnostic to fix)")
	}
	pe, err := l.sup.ApplyCodeAction(cctx, lsp.ActionQuery{Position: lsp.Position{File: a.File, Line: a.Line, Symbol: a.Symbol}, EndLine: a.EndLine, Diagnostic: a.Diagnostic}, a.Action)
	if err != nil {
		return nil, nil, timeoutErr(cctx, a.Timeout, err)
	}
	return l.stageProposed(pe, "lsp_apply")
}

func (l *lspTools) renameFile(ctx context.Context, call *Call, a renameFileArgs) (*Result, Change, error) {
	cctx, cancel := withTimeout(ctx, a.Timeout)
	defer cancel()
	pe, err := l.sup.RenameFile(cctx, a.From, a.To)
	if err != nil {
		return nil, nil, timeoutErr(cctx, a.Timeout, err)
	}
	if a.Preview {
		return l.stageProposed(pe, "rename_file")
	}
	// Applied now: the staged-edit path, so that the drift check, the
	// journal and the after-steps are the same as resolve's.
	plan := l.plan(pe, "rename_file")
	var written []string
	for _, c := range plan.Changes {
		if c.From == "" {
			written = append(written, l.run.rel(c.Path))
		}
	}
	WillWrite(ctx, written)
	WillMove(ctx, plan)
	if err := l.run.stager().Apply(plan); err != nil {
		return nil, nil, l.run.relErr(err)
	}
	var b strings.Builder
	for _, n := range pe.Notes {
		b.WriteString(n + "\n")
	}
	fc := &FileChanges{}
	moved, updated := 0, 0
	var names []string
	for _, c := range plan.Changes {
		rel := l.run.rel(c.Path)
		if c.From != "" {
			moved++
			fc.Changed = append(fc.Changed, FileChange{Path: rel, Action: "created", MovedFrom: l.run.rel(c.From)})
			names = append(names, l.run.rel(c.From)+" -> "+rel)
			continue
		}
		updated++
		fc.Changed = append(fc.Changed, FileChange{Path: rel, Action: "updated"})
		names = append(names, rel)
	}
	fmt.Fprintf(&b, "moved %s to %s: %s moved, %s updated (%s): %s", a.From, a.To, plural(moved, "file"), plural(updated, "file"),
		plural(pe.Edits, "edit"), strings.Join(firstN(names, renameShown), ", "))
	for _, n := range plan.After(ctx) {
		b.WriteString("\n" + n)
	}
	out := Text(b.String())
	return out, fc, nil
}

// plan turns a server's proposed edit into a staged plan; once resolve
// applies it, the server is told (lsp.Supervisor.Applied) and the
// directories a move emptied are removed.
func (l *lspTools) plan(pe *lsp.ProposedEdit, source string) *search.Plan {
	plan := &search.Plan{Source: source, Replacements: pe.Edits}
	for _, f := range pe.Files {
		plan.Changes = append(plan.Changes, search.FileChange{Path: f.Path, Display: f.Rel, Old: f.Old, New: f.New,
			Replacements: f.Edits, From: f.From, FromDisplay: f.FromRel, Create: f.Created, Delete: f.Deleted})
	}
	plan.After = func(ctx context.Context) []string {
		notes := l.sup.Applied(ctx, pe)
		if len(pe.EmptiedDirs) > 0 {
			if root, err := os.OpenRoot(l.run.root.RealDir()); err == nil {
				for _, d := range pe.EmptiedDirs {
					root.Remove(l.run.rel(d)) // only if empty: a file added since stays, with its directory
				}
				root.Close()
			}
		}
		return notes
	}
	return plan
}

// stageProposed stages pe for resolve and says what it would do.
func (l *lspTools) stageProposed(pe *lsp.ProposedEdit, source string) (*Result, *StagedDiff, error) {
	return l.stageProposedWith(pe, source, "", nil)
}

// stageProposedWith is stageProposed with note (lines ending in a newline)
// after what was staged, and after's notes added to accepting it.
func (l *lspTools) stageProposedWith(pe *lsp.ProposedEdit, source, note string, after func(context.Context) []string) (*Result, *StagedDiff, error) {
	plan := l.plan(pe, source)
	if after != nil {
		applied := plan.After
		plan.After = func(ctx context.Context) []string {
			return append(applied(ctx), after(ctx)...)
		}
	}
	if len(plan.Changes) == 0 {
		return nil, nil, fmt.Errorf("lsp: %s changes no file; nothing was staged", pe.Title)
	}
	id, dropped := l.run.stager().StageDropping(plan)
	var b strings.Builder
	for _, n := range pe.Notes {
		b.WriteString(n + "\n")
	}
	moved := 0
	for _, c := range plan.Changes {
		if c.From != "" {
			moved++
		}
	}
	what := fmt.Sprintf("%s in %s", plural(pe.Edits, "edit"), plural(len(plan.Changes)-moved, "file"))
	if moved > 0 {
		what = fmt.Sprintf("%s moved, %s", plural(moved, "file"), what)
	}
	fmt.Fprintf(&b, "(proposed) %s: %s; nothing written yet: call resolve with edit_id %q and action \"accept\" to apply or \"discard\" to drop it\n",
		pe.Title, what, id)
	b.WriteString(note)
	b.WriteString(droppedNote(dropped))
	return stagedResult(b.String(), id, plan, "", 0)
}
