package tools

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tetherhq/tether/bridges/lsp"
	"github.com/tetherhq/tether/grammars"
)

func (l *lspTools) rename(ctx context.Context, call *Call) (*Result, error) {
	var a renameArgs
	if err := decodeText(call, &a); err != nil {
		return nil, err
	}
	// A new name that cannot be the identifier (a reserved word) is refused
	// before a server starts for the baseline.
	if err := l.sup.CheckRename(lsp.Position{File: a.File, Line: a.Line, Symbol: a.Symbol}, a.NewName); err != nil {
		return nil, err
	}
	// Diagnostics on write takes the changed files' baselines once the
	// server's edit names them, before it is applied, and reports after it.
	applyCtx := lsp.WithBeforeApply(ctx, func(files []string) { WillWrite(ctx, files) })
	res, err := l.sup.Rename(applyCtx, lsp.Position{File: a.File, Line: a.Line, Symbol: a.Symbol}, a.NewName)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	for _, n := range res.Notes {
		b.WriteString(n + "\n")
	}
	fmt.Fprintf(&b, "renamed %q to %q: %d edit(s) in %d file(s): %s", a.Symbol, a.NewName, res.Edits, len(res.Files), strings.Join(res.Files, ", "))
	if left := l.leftBehind(ctx, res); left != "" {
		b.WriteString("\n" + left)
	}
	out := Text(b.String())
	changed := make([]FileChange, 0, len(res.Files))
	for _, f := range res.Files {
		changed = append(changed, FileChange{Path: f, Action: "updated"})
	}
	out.Structured = &FileChanges{Changed: changed}
	return out, nil
}

// Bounds of the search for what a rename left behind.
const (
	// renameScanFiles is how many directory entries the search looks at.
	renameScanFiles = 20000
	// renameScanBytes skips larger files.
	renameScanBytes = 2 << 20
	// renameShown is how many occurrences (and non-code files) are listed.
	renameShown = 20
)

// docExts are the non-code files a rename leftover is counted in.
var docExts = []string{".md", ".markdown", ".rst", ".txt", ".adoc"}

// leftBehind searches the workspace's files of the renaming server's
// language for identifiers still spelled as the old name, with tether's own
// tree-sitter parser (so strings and comments do not count), and counts the
// non-code files that mention it: a server that could not type a receiver
// (pyright on an untyped parameter) renames the declaration and leaves
// callers behind, and the rename would read as done.
func (l *lspTools) leftBehind(ctx context.Context, res *lsp.RenameResult) string {
	old := res.OldName
	if old == "" || l.parser == nil || l.root == nil {
		return ""
	}
	var occ []string
	total := 0
	docs := map[string]int{}
	var docNames []string
	seen, complete, failed := 0, true, 0
	word := []byte(old)
	_ = filepath.WalkDir(l.root.Dir(), func(p string, d fs.DirEntry, err error) error {
		if err != nil || ctx.Err() != nil {
			return nil
		}
		if seen++; seen > renameScanFiles {
			complete = false
			return filepath.SkipAll
		}
		name := d.Name()
		if d.IsDir() {
			if p != l.root.Dir() && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "__pycache__" || name == "venv") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		ext := strings.ToLower(filepath.Ext(name))
		code := slices.Contains(res.Extensions, ext)
		if !code && !slices.Contains(docExts, ext) {
			return nil
		}
		if fi, err := d.Info(); err != nil || fi.Size() > renameScanBytes {
			return nil
		}
		rel, _ := filepath.Rel(l.root.Dir(), p)
		rel = filepath.ToSlash(rel)
		src, err := l.root.ReadFile(rel)
		if err != nil || !bytes.Contains(src, word) {
			return nil
		}
		if !code {
			if n := countWord(src, old); n > 0 {
				docs[rel] = n
				docNames = append(docNames, rel)
			}
			return nil
		}
		lines, err := l.identifiers(ctx, rel, src, old)
		if err != nil {
			failed++
			return nil
		}
		total += len(lines)
		for _, ln := range lines {
			if len(occ) < renameShown {
				occ = append(occ, fmt.Sprintf("%s:%d", rel, ln))
			}
		}
		return nil
	})
	var b []string
	if total > 0 {
		s := fmt.Sprintf("%d other occurrence(s) of %s remain (the server did not rename them; an unrelated symbol of the same name looks the same): %s",
			total, old, strings.Join(occ, ", "))
		if total > len(occ) {
			s += fmt.Sprintf(", ... (%d of %d shown)", len(occ), total)
		}
		b = append(b, s)
	} else {
		b = append(b, fmt.Sprintf("no identifier spelled %s remains in the workspace's %s files", old, strings.Join(res.Extensions, ", ")))
	}
	if len(docNames) > 0 {
		var parts []string
		for i, f := range docNames {
			if i == renameShown {
				parts = append(parts, fmt.Sprintf("... %d more", len(docNames)-i))
				break
			}
			parts = append(parts, fmt.Sprintf("%s (%d)", f, docs[f]))
		}
		b = append(b, fmt.Sprintf("%s is still mentioned in %d non-code file(s): %s", old, len(docNames), strings.Join(parts, ", ")))
	}
	if !complete || failed > 0 || ctx.Err() != nil {
		why := []string{}
		if !complete {
			why = append(why, fmt.Sprintf("only the first %d entries of the workspace were looked at", renameScanFiles))
		}
		if failed > 0 {
			why = append(why, fmt.Sprintf("%d file(s) could not be parsed", failed))
		}
		if ctx.Err() != nil {
			why = append(why, "the search was cancelled")
		}
		b = append(b, "the search for what the rename left behind is incomplete: "+strings.Join(why, "; "))
	}
	return strings.Join(b, "\n")
}

// identifiers returns the 1-based lines of src's identifier nodes spelled
// name (identifier, field_identifier, type_identifier, ...; PHP's name and
// Ruby's constant): never text inside a string or a comment.
func (l *lspTools) identifiers(ctx context.Context, rel string, src []byte, name string) ([]int, error) {
	lang, ok := grammars.ForPath(rel)
	if !ok {
		return nil, fmt.Errorf("tools: no grammar for %s", rel)
	}
	tree, err := l.parser.Parse(ctx, lang.ID, src)
	if err != nil {
		return nil, err
	}
	var lines []int
	for i := 0; i < tree.Len(); i++ {
		n := tree.NodeAt(i)
		if n.ChildCount() != 0 || !n.IsNamed() {
			continue
		}
		k := n.Kind()
		if !strings.Contains(k, "identifier") && k != "name" && k != "constant" {
			continue
		}
		if n.Text() == name {
			lines = append(lines, int(n.Range().StartPoint.Row)+1)
		}
	}
	return lines, nil
}

// countWord counts the occurrences of name in src that are whole words.
func countWord(src []byte, name string) int {
	n := 0
	for i := 0; ; {
		j := bytes.Index(src[i:], []byte(name))
		if j < 0 {
			return n
		}
		at, end := i+j, i+j+len(name)
		if (at == 0 || !isWordByte(src[at-1])) && (end == len(src) || !isWordByte(src[end])) {
			n++
		}
		i = end
	}
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}
