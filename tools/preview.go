package tools

import "context"
import "errors"
import "fmt"
import "io/fs"
import "path/filepath"
import "strconv"
import "strings"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/search"

// Permission previews of the file tools: what a write, edit or apply_patch
// call would change, as the unified diff its permission prompt shows instead
// of the raw arguments. Nothing is written; a call that would fail has no
// preview (the prompt falls back to its arguments and the call itself then
// reports the problem).

// previewDiff renders changes as a unified diff cut at astEditDiffLines
// lines, the page size of ast_edit's own previews; a cut diff says how many
// lines were left out.
func previewDiff(changes []search.FileChange) string {
	d := (&search.Plan{Changes: changes}).Diff(astEditDiffLines)
	if d == "" {
		return "(no change to the content)"
	}
	return strings.TrimSuffix(d, "\n")
}

func (f *fileTools) previewWrite(ctx context.Context, a writeArgs) (string, error) {
	real, rel, err := f.root.Resolve(a.Path)
	if err != nil {
		return "", pathErr("write", err)
	}
	old, err := f.root.ReadFile(real)
	create := errors.Is(err, fs.ErrNotExist)
	if err != nil && !create {
		return "", pathErr("write", err)
	}
	return previewDiff([]search.FileChange{{Path: rel, Old: old, New: []byte(a.Content), Create: create}}), nil
}

func (f *fileTools) previewEdit(ctx context.Context, a editArgs) (string, error) {
	e, err := f.planEdit(a)
	if err != nil {
		return "", err
	}
	return previewDiff([]search.FileChange{{Path: e.rel, Old: e.data, New: []byte(e.out)}}), nil
}

func (f *fileTools) previewPatch(ctx context.Context, a patchArgs) (string, error) {
	ops, err := parsePatch(a.Patch)
	if err != nil {
		return "", err
	}
	changes, links, _, err := planPatch(f.root, ops)
	if err != nil {
		return "", err
	}
	var out []search.FileChange
	for _, c := range changes {
		rel, err := filepath.Rel(f.root.RealDir(), c.Path)
		if err != nil {
			rel = c.Path
		}
		rel = filepath.ToSlash(rel)
		switch {
		case c.Delete:
			out = append(out, search.FileChange{Path: rel, Old: c.Expected})
		case c.MustNotExist:
			out = append(out, search.FileChange{Path: rel, New: c.Content, Create: true})
		default:
			out = append(out, search.FileChange{Path: rel, Old: c.Expected, New: c.Content})
		}
	}
	d := previewDiff(out)
	for _, l := range links {
		d += fmt.Sprintf("\n(deletes the symbolic link %s)", l.rel)
	}
	return d, nil
}

// previewEval shows an eval call as its code with its language, cell by
// cell, instead of JSON with escaped newlines; a cell's code is cut at
// 4000 bytes.
func previewEval(ctx context.Context, a evalArgs) (string, error) {
	lang := func(l string) string {
		if l == "" {
			l = a.Language
		}
		if l == "" {
			l = "python"
		}
		return l
	}
	cells := a.Cells
	if len(cells) == 0 {
		cells = []evalCell{{Language: a.Language, Code: a.Code}}
	}
	var b strings.Builder
	if a.Description != "" {
		fmt.Fprintf(&b, "%s\n", a.Description)
	}
	for i, c := range cells {
		head := lang(c.Language)
		if len(cells) > 1 {
			head = fmt.Sprintf("cell %d of %d: %s", i+1, len(cells), head)
		}
		fmt.Fprintf(&b, "[%s]\n%s\n", head, strings.TrimRight(truncateText(c.Code, 4000), "\n"))
	}
	var opts []string
	if a.Reset {
		opts = append(opts, "reset: the interpreter's state is discarded first")
	}
	if a.Timeout > 0 {
		opts = append(opts, fmt.Sprintf("timeout: %ds", a.Timeout))
	}
	if len(opts) > 0 {
		b.WriteString("(" + strings.Join(opts, "; ") + ")")
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// previewDebug shows a debug launch as the program and its arguments (or
// the test it runs); other ops keep their arguments.
func previewDebug(ctx context.Context, a debugRequest) (string, error) {
	if a.Op != "launch" {
		return "", nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "launch %s", a.Program)
	if a.Test != "" {
		fmt.Fprintf(&b, ", running the test %s", a.Test)
	}
	if a.Adapter != "" {
		fmt.Fprintf(&b, " under %s", a.Adapter)
	}
	if len(a.Args) > 0 {
		q := make([]string, len(a.Args))
		for i, s := range a.Args {
			q[i] = strconv.Quote(s)
		}
		fmt.Fprintf(&b, "\narguments: %s", truncateText(strings.Join(q, " "), 2000))
	}
	return b.String(), nil
}

// previewResolve shows what resolve would do: accept, the staged edit's diff
// (its first page, with every file's counts); discard and show write
// nothing.
func (s *stagedTools) previewResolve(ctx context.Context, a resolveArgs) (string, error) {
	switch a.Action {
	case "accept":
		p, ok := s.run.stager().Pending(a.EditID)
		if !ok {
			return "", nil
		}
		diff, _, err := stagedDiff(a.EditID, p, "", 0)
		if err != nil {
			return "", err
		}
		return "accept " + a.EditID + ": " + strings.TrimRight(diff, "\n"), nil
	case "discard":
		return "discard " + a.EditID + ": no file is changed", nil
	}
	return "", nil
}

// previewRename asks the language server for the rename's edit, writing
// nothing, and shows its diff (cut at astEditDiffLines lines).
func (l *lspTools) previewRename(ctx context.Context, a renameArgs) (string, error) {
	pos := lsp.Position{File: a.File, Line: a.Line, Symbol: a.Symbol}
	if err := l.sup.CheckRename(pos, a.NewName); err != nil {
		return "", err
	}
	ctx, cancel := withTimeout(ctx, a.Timeout)
	defer cancel()
	pe, err := l.sup.RenamePreview(ctx, pos, a.NewName)
	if err != nil {
		return "", err
	}
	d := previewDiff(l.plan(pe, "lsp_rename").Changes)
	if a.Preview {
		d = "stages this rename for resolve (nothing is written yet):\n" + d
	}
	return d, nil
}

// previewAstEdit works the rewrite out as ast_edit does, stages nothing,
// and shows the diff it would stage (cut at astEditDiffLines lines).
func (s *structural) previewAstEdit(ctx context.Context, a astEditArgs) (string, error) {
	plan, err := s.editPlan(ctx, "ast_edit", a)
	if err != nil {
		return "", err
	}
	if plan.Replacements == 0 {
		return "", nil
	}
	for i := range plan.Changes {
		plan.Changes[i].Display = s.rel(plan.Changes[i].Path)
	}
	return fmt.Sprintf("stages %s in %s for resolve (nothing is written yet):\n%s",
		plural(plan.Replacements, "replacement"), plural(len(plan.Changes), "file"), previewDiff(plan.Changes)), nil
}
