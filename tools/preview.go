package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/tetherhq/tether/search"
)

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

func (f *fileTools) previewWrite(ctx context.Context, call *Call) (string, error) {
	var a writeArgs
	if err := decodeText(call, &a); err != nil {
		return "", err
	}
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

func (f *fileTools) previewEdit(ctx context.Context, call *Call) (string, error) {
	e, err := f.planEdit(call)
	if err != nil {
		return "", err
	}
	return previewDiff([]search.FileChange{{Path: e.rel, Old: e.data, New: []byte(e.out)}}), nil
}

func (f *fileTools) previewPatch(ctx context.Context, call *Call) (string, error) {
	var a patchArgs
	if err := decodeText(call, &a); err != nil {
		return "", err
	}
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
