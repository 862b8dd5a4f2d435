package tools

import "context"
import "fmt"
import "slices"
import "strings"

import "github.com/tetherhq/tether/bridges/lsp"

func (l *lspTools) rename(ctx context.Context, call *Call, a renameArgs) (*Result, Change, error) {
	// A new name that cannot be the identifier (a reserved word) is refused
	// before a server starts for the baseline.
	if err := l.sup.CheckRename(lsp.Position{File: a.File, Line: a.Line, Symbol: a.Symbol}, a.NewName); err != nil {
		return nil, nil, err
	}
	ctx, cancel := withTimeout(ctx, a.Timeout)
	defer cancel()
	if a.Preview {
		pe, err := l.sup.RenamePreview(ctx, lsp.Position{File: a.File, Line: a.Line, Symbol: a.Symbol}, a.NewName)
		if err != nil {
			return nil, nil, timeoutErr(ctx, a.Timeout, err)
		}
		return l.stageRename(ctx, pe, a.NewName)
	}
	// Diagnostics on write takes the changed files' baselines once the
	// server's edit names them, before it is applied, and reports after it.
	applyCtx := lsp.WithBeforeApply(ctx, func(files []string) { WillWrite(ctx, files) })
	res, err := l.sup.Rename(applyCtx, lsp.Position{File: a.File, Line: a.Line, Symbol: a.Symbol}, a.NewName)
	if err != nil {
		return nil, nil, timeoutErr(ctx, a.Timeout, err)
	}
	var b strings.Builder
	for _, n := range res.Notes {
		b.WriteString(n + "\n")
	}
	fmt.Fprintf(&b, "renamed %q to %q: %d edit(s) in %d file(s): %s", a.Symbol, a.NewName, res.Edits, len(res.Files), strings.Join(res.Files, ", "))
	if left := l.leftBehind(ctx, res, a.NewName, nil); left != "" {
		b.WriteString("\n" + left)
	}
	out := Text(b.String())
	changed := make([]FileChange, 0, len(res.Files))
	for _, f := range res.Files {
		changed = append(changed, FileChange{Path: f, Action: "updated"})
	}
	return out, &FileChanges{Changed: changed}, nil
}

// stageRename stages a rename preview for resolve. Its reply names what the
// rename would leave behind (leftBehind, over the files as the rename would
// leave them), and accepting it names what it left, as a direct rename does.
func (l *lspTools) stageRename(ctx context.Context, pe *lsp.ProposedEdit, newName string) (*Result, *StagedDiff, error) {
	res := &lsp.RenameResult{OldName: pe.OldName, Extensions: pe.Extensions, Implementations: pe.Implementations}
	over := map[string][]byte{}
	for _, f := range pe.Files {
		res.Files = append(res.Files, f.Rel)
		over[f.Rel] = f.New
	}
	var note string
	if left := l.leftBehind(ctx, res, newName, over); left != "" {
		note = "if accepted: " + strings.ReplaceAll(left, "\n", "\nif accepted: ") + "\n"
	}
	after := func(ctx context.Context) []string {
		if left := l.leftBehind(ctx, res, newName, nil); left != "" {
			return strings.Split(left, "\n")
		}
		return nil
	}
	return l.stageProposedWith(pe, "lsp_rename", note, after)
}

// renameShown is how many occurrences (and non-code files) a rename lists.
const renameShown = 20

// leftBehind searches the workspace's files of the renaming server's
// language for identifiers still spelled as the old name (ScanSameName: so
// strings and comments do not count), and counts the non-code files that
// mention it: a server that could not type a receiver (pyright on an
// untyped parameter) renames the declaration and leaves callers behind, and
// the rename would read as done. Declarations come first: one the server
// said implements or overrides the renamed symbol (or that it implements)
// breaks the build, and one with the renamed function's signature may;
// both are named in a warning before the list.
//
// over, when set, holds files' content as the rename would leave them
// (workspace-relative): a preview looks at the rename as if it were made.
func (l *lspTools) leftBehind(ctx context.Context, res *lsp.RenameResult, newName string, over map[string][]byte) string {
	old := res.OldName
	if old == "" || l.parser == nil || l.root == nil {
		return ""
	}
	impl := map[string]bool{}
	for _, loc := range res.Implementations {
		impl[fmt.Sprintf("%s:%d", loc.Path, loc.Line)] = true
	}
	// The renamed functions' signatures, read from the files the server
	// changed: a leftover method with one of them may implement or
	// override what was renamed.
	sigs := map[string]bool{}
	for _, f := range res.Files {
		src, err := l.root.ReadFile(f)
		if o, ok := over[f]; ok {
			src, err = o, nil
		}
		if err != nil || !strings.Contains(string(src), newName) {
			continue
		}
		ids, _ := lsp.Identifiers(ctx, lspParser(l.parser), f, src, newName)
		for _, id := range ids {
			if id.Sig != "" {
				sigs[id.Sig] = true
			}
		}
	}
	var implements, sameSig, decls, mentions []string
	total := 0
	scan := l.sup.ScanSameName(ctx, lspParser(l.parser), old, res.Extensions, true, over, func(id lsp.SameName) {
		total++
		switch {
		case id.Decl != "" && impl[id.At()]:
			implements = append(implements, id.At())
		case id.Decl != "" && id.Sig != "" && sigs[id.Sig]:
			sameSig = append(sameSig, id.At())
		case id.Decl != "":
			if len(decls) < renameShown {
				decls = append(decls, id.At())
			}
		default:
			if len(mentions) < renameShown {
				mentions = append(mentions, id.At())
			}
		}
	})
	var b []string
	if len(implements) > 0 {
		b = append(b, fmt.Sprintf("the build is likely broken: the server named %s as implementing or overriding %s (or as implemented by it), and the rename left %s there: rename those too (lsp_rename on that line with new_name %s)",
			strings.Join(firstN(implements, renameShown), ", "), old, old, newName))
	}
	if len(sameSig) > 0 {
		b = append(b, fmt.Sprintf("%s still declare %s with the renamed function's signature: if one implements or overrides it, the build is likely broken",
			strings.Join(firstN(sameSig, renameShown), ", "), old))
	}
	if total > 0 {
		var parts []string
		for _, group := range []struct {
			what  string
			sites []string
		}{{"declaration implementing it", implements}, {"declaration with its signature", sameSig}, {"declaration", decls}, {"", mentions}} {
			for _, at := range group.sites {
				if len(parts) == renameShown {
					break
				}
				if group.what != "" {
					at += " (" + group.what + ")"
				}
				parts = append(parts, at)
			}
		}
		first := ""
		if len(implements)+len(sameSig)+len(decls) > 0 {
			first = ", declarations first"
		}
		s := fmt.Sprintf("%d other occurrence(s) of %s remain (the server did not rename them; an unrelated symbol of the same name looks the same)%s: %s",
			total, old, first, strings.Join(parts, ", "))
		if total > len(parts) {
			// references on a leftover lists the server's, then every other
			// identifier spelled old, paged with start
			at, _, _ := strings.Cut(parts[0], " (")
			file, line, _ := strings.Cut(at, ":")
			s += fmt.Sprintf(", ... (%d of %d shown; lsp references with file %s, line %s and symbol %s pages through all of them)", len(parts), total, file, line, old)
		}
		b = append(b, s)
	} else {
		b = append(b, fmt.Sprintf("no identifier spelled %s remains in the workspace's %s files", old, strings.Join(res.Extensions, ", ")))
	}
	if len(scan.DocNames) > 0 {
		var parts []string
		for i, f := range scan.DocNames {
			if i == renameShown {
				parts = append(parts, fmt.Sprintf("... %d more", len(scan.DocNames)-i))
				break
			}
			parts = append(parts, fmt.Sprintf("%s (%d)", f, scan.Docs[f]))
		}
		b = append(b, fmt.Sprintf("%s is still mentioned in %d non-code file(s): %s", old, len(scan.DocNames), strings.Join(parts, ", ")))
	}
	if len(scan.Incomplete) > 0 {
		b = append(b, "the search for what the rename left behind is incomplete: "+strings.Join(scan.Incomplete, "; "))
	}
	return strings.Join(b, "\n")
}

// firstN returns the first n of ss, with "..." when there are more.
func firstN(ss []string, n int) []string {
	if len(ss) <= n {
		return ss
	}
	return append(slices.Clone(ss[:n]), fmt.Sprintf("... (%d more)", len(ss)-n))
}
