package tools

import "context"
import "strings"

import udiff "github.com/aymanbagabas/go-udiff"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/matcher"

// The language-server family's workspace scans (the files a write can
// break, the identifiers a rename left behind or references did not
// confirm) live in bridges/lsp; this file hands them what that package
// cannot import: tether's tree-sitter parser and a line diff.

// maxChangedRanges bounds the changed regions looked at per file; more
// are merged into one.
const maxChangedRanges = 200

// noParserNote is why no other file was searched after a write, in a run
// without a structural parser.
const noParserNote = "this run has no structural parser (tools.Config.Search.Parser), so no other file was searched"

// lspParser is p as bridges/lsp's scans take it: each tree copied into a
// flat lsp.Syntax in one walk. Nil without a parser.
func lspParser(p matcher.Parser) lsp.Parser {
	if p == nil {
		return nil
	}
	return func(ctx context.Context, lang *grammars.Language, src []byte) (*lsp.Syntax, error) {
		tree, err := p.Parse(ctx, lang, src)
		if err != nil {
			return nil, err
		}
		return syntaxOf(tree), nil
	}
}

// syntaxOf copies t's nodes, in preorder, into an lsp.Syntax.
func syntaxOf(t *engine.Tree) *lsp.Syntax {
	s := &lsp.Syntax{Language: t.Language(), Source: t.Source(), Nodes: make([]lsp.SyntaxNode, t.Len())}
	var open []int // the nodes whose subtree holds the one walked, innermost last
	t.Root().Walk(func(n engine.Node) bool {
		i := n.Index()
		for len(open) > 0 && i > open[len(open)-1]+s.Nodes[open[len(open)-1]].Descendants {
			open = open[:len(open)-1]
		}
		parent := -1
		if len(open) > 0 {
			parent = open[len(open)-1]
			s.Nodes[parent].Children++
		}
		s.Nodes[i] = lsp.SyntaxNode{Kind: n.Kind(), Field: n.Field(), Named: n.IsNamed(),
			Start: int(n.StartByte()), End: int(n.EndByte()), Parent: parent, Descendants: n.DescendantCount()}
		open = append(open, i)
		return true
	})
	return s
}

// writtenFiles are files, just written, with their content from before
// the write when it was kept (old, by seenPath), as the scans read them.
func (l *lspTools) written(w *writeCall, files []string) []lsp.WrittenFile {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]lsp.WrittenFile, len(files))
	for i, f := range files {
		key := l.seenPath(f)
		out[i] = lsp.WrittenFile{Path: key, Old: w.old[key], Moved: w.movedFrom[key]}
	}
	return out
}

// affectedFiles finds the files other than the written ones that a write
// can have broken (lsp.Supervisor.AffectedFiles): those that mention a
// declaration it changed, or include a written header.
func (l *lspTools) affectedFiles(ctx context.Context, written []lsp.WrittenFile) lsp.Affected {
	if l.root == nil {
		return lsp.Affected{}
	}
	a := l.sup.AffectedFiles(ctx, lspParser(l.parser), changedRanges, written)
	if a.NoParser {
		a.Incomplete = noParserNote
	}
	return a
}

// affectedMention says what the affected files have in common: the names
// they mention, the headers they include.
func affectedMention(a lsp.Affected) string {
	var parts []string
	if len(a.Names) > 0 {
		parts = append(parts, "mention "+nameList(a.Names))
	}
	if len(a.Headers) > 0 {
		parts = append(parts, "include "+strings.Join(a.Headers, ", "))
	}
	return strings.Join(parts, " or ")
}

// changedRanges returns the byte ranges of old and of now that a line diff
// between them replaces (a pure insertion or deletion is an empty range
// where it happens). A created file (old nil) is changed throughout.
func changedRanges(old, now []byte) (oldR, nowR [][2]int) {
	if old == nil {
		return nil, [][2]int{{0, len(now)}}
	}
	edits := udiff.Lines(string(old), string(now))
	delta := 0
	for _, e := range edits {
		oldR = append(oldR, [2]int{e.Start, e.End})
		start := e.Start + delta
		nowR = append(nowR, [2]int{start, start + len(e.New)})
		delta += len(e.New) - (e.End - e.Start)
	}
	merge := func(r [][2]int) [][2]int {
		if len(r) <= maxChangedRanges {
			return r
		}
		return [][2]int{{r[0][0], r[len(r)-1][1]}}
	}
	return merge(oldR), merge(nowR)
}
