package tools

import "context"
import "errors"
import "fmt"
import "path/filepath"
import "strings"

import "github.com/tetherhq/tether/search/stage"

// resolve accepts, discards or shows a change that ast_edit, symbol_edit,
// lsp_apply, lsp_rename with preview or rename_file, notebook_edit or
// notebook_run, or an isolated worker (vibe_wait) staged: one family, so
// that every staged change is applied the same way (the drift check, all
// or nothing, diagnostics on write). notebook_edit is in every run, and
// so resolve is.
func init() {
	addFamily(family{
		name: "resolve",
		register: func(r *Run) (func() error, error) {
			return nil, r.reg.Register((&stagedTools{run: r}).tools()...)
		},
		tools: func() []Tool { return (&stagedTools{}).tools() },
	})
}

// stager is the run's staged changes, made on first use: every tool that
// stages shares it, so resolve finds what any of them staged.
func (r *Run) stager() *stage.Stager {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stage == nil {
		r.stage = stage.New(r.root.Dir())
	}
	return r.stage
}

// stagingTools names the tools whose changes resolve applies, for messages.
const stagingTools = "ast_edit, symbol_edit, lsp_apply, lsp_rename with preview or rename_file, notebook_edit, notebook_run, vibe_wait of an isolated worker"

// stagedTools is resolve bound to a run.
type stagedTools struct {
	run *Run
}

func (s *stagedTools) tools() []Tool {
	return []Tool{Typed(Tool{
		Name: "resolve",
		Tier: TierWrite,
		Description: "Accept or discard a change staged by " + stagingTools + ", or show it. accept re-reads every file: if any changed since " +
			"staging, the whole change is rejected (nothing is written) and the changed files are named; otherwise all " +
			"files are written atomically, all or none (a file move included). show writes nothing: it lists every file with its counts and shows " +
			"400 lines of the diff from start (or of one file's diff, with file).",
		Writes:  writesFor(s.resolveTargets),
		Preview: previewFor(s.previewResolve),
	}, s.resolve)}
}

// resolveArgs are resolve's arguments.
type resolveArgs struct {
	EditID string `json:"edit_id" jsonschema:"the id the staging tool returned (ast_edit, symbol_edit, lsp_apply, lsp_rename with preview, rename_file), e.g. edit_1" bounds:"minLength=1"`
	Action string `json:"action" jsonschema:"accept writes every file of the edit (all or none); discard drops it; show lists its files and shows a page of its diff, writing nothing" bounds:"enum=accept|discard|show"`
	// File and Start page through the diff with show.
	File  string `json:"file,omitempty" jsonschema:"show: the file whose diff to show, as the edit lists it (default: the whole edit)" bounds:"minLength=1"`
	Start int    `json:"start,omitempty" jsonschema:"show: the diff line to start at (0-based); a page is 400 lines and says the start of the next" bounds:"minimum=0"`
}

func (s *stagedTools) resolve(ctx context.Context, call *Call, a resolveArgs) (*Result, Change, error) {
	if a.Action != "show" && (a.File != "" || a.Start != 0) {
		return nil, nil, fmt.Errorf("tools: resolve: file and start go with action \"show\", not %q", a.Action)
	}
	stage := s.run.stager()
	switch a.Action {
	case "show":
		p, ok := stage.Pending(a.EditID)
		if !ok {
			return nil, nil, fmt.Errorf("tools: resolve: no staged edit %q: it was resolved, dropped, or never staged; %s stages a new one", a.EditID, stagingTools)
		}
		head := fmt.Sprintf("(proposed) %s, %s in %s; nothing written yet\n", a.EditID, plural(p.Replacements, "replacement"), plural(len(p.Changes), "file"))
		return stagedResult(head, a.EditID, p, a.File, a.Start)
	case "discard":
		if err := stage.Discard(a.EditID); err != nil {
			return nil, nil, err
		}
		return Text(fmt.Sprintf("discarded %s; no file was changed", a.EditID)), nil, nil
	case "accept":
		if p, ok := stage.Pending(a.EditID); ok {
			WillMove(ctx, p)
		}
		plan, err := stage.Accept(a.EditID)
		if err != nil {
			return nil, nil, s.run.relErr(err)
		}
		fc := &FileChanges{}
		var names []string
		for _, c := range plan.Changes {
			rel := s.run.rel(c.Path)
			if c.From != "" {
				from := s.run.rel(c.From)
				names = append(names, from+" -> "+rel)
				fc.Changed = append(fc.Changed, FileChange{Path: rel, Action: "created", MovedFrom: from})
				continue
			}
			if c.Create {
				names = append(names, rel+" (created)")
				fc.Changed = append(fc.Changed, FileChange{Path: rel, Action: "created"})
				continue
			}
			names = append(names, rel)
			fc.Changed = append(fc.Changed, FileChange{Path: rel, Action: "updated"})
		}
		text := fmt.Sprintf("accepted %s: %s written to %s: %s", a.EditID,
			plural(plan.Replacements, "replacement"), plural(len(names), "file"), strings.Join(names, ", "))
		if plan.After != nil {
			for _, n := range plan.After(ctx) {
				text += "\n" + n
			}
		}
		out := Text(text)
		return out, fc, nil
	}
	return nil, nil, errors.New("tools: resolve: action must be accept, discard or show")
}

// resolveTargets are the files resolve accept writes: those of the staged
// change it names (both ends of a move).
func (s *stagedTools) resolveTargets(a resolveArgs) []string {
	if a.Action != "accept" {
		return nil
	}
	p, ok := s.run.stager().Pending(a.EditID)
	if !ok {
		return nil
	}
	paths := make([]string, 0, len(p.Changes))
	for _, c := range p.Changes {
		paths = append(paths, s.run.rel(c.Path))
		if c.From != "" {
			paths = append(paths, s.run.rel(c.From))
		}
	}
	return paths
}

// rel names path relative to the working directory, as results name it.
func (r *Run) rel(path string) string {
	if !filepath.IsAbs(path) {
		return filepath.ToSlash(path)
	}
	for _, base := range []string{r.root.RealDir(), r.root.Dir()} {
		if rel, err := filepath.Rel(base, path); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return path
}

// relErr names the paths in err relative to the working directory, as the
// results name them.
func (r *Run) relErr(err error) error {
	msg := err.Error()
	for _, base := range []string{r.root.RealDir(), r.root.Dir()} {
		msg = strings.ReplaceAll(msg, base+string(filepath.Separator), "")
		msg = strings.ReplaceAll(msg, base, ".")
	}
	if msg == err.Error() {
		return err
	}
	return &relError{msg: msg, err: err}
}
