package search

import "bytes"
import "context"
import "errors"

import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/matcher"

// FileChange is one file's part of a rewrite.
type FileChange struct {
	// Path is the file as the search walked it.
	Path string
	// Display is how to show the path (e.g. relative to a working
	// directory); "" means Path.
	Display      string
	Old, New     []byte
	Replacements int
	// From, when set, moves the file: From (whose content is Old) is
	// removed and Path (which must not exist) is created with New, both in
	// the same all-or-nothing apply. FromDisplay is how to show From.
	From, FromDisplay string
	// Create makes a new file at Path (which must not exist) with New;
	// Old is empty.
	Create bool
	// Delete removes the file at Path, which must still hold Old; New is
	// empty.
	Delete bool
	// Cells, for a Jupyter notebook, are the code cells the change
	// rewrites, with their sources: its diff shows those, not the JSON
	// text of Old and New.
	Cells []CellChange
}

// Plan is a computed rewrite: the search's result plus each file's new
// content. Nothing is written until it is applied.
type Plan struct {
	Result       *Result
	Rewrite      string
	Changes      []FileChange
	Replacements int
	// Edits counts every replacement, those that leave the text as it was
	// too (Replacements counts those in Changes), as ast-grep -U counts
	// "Applied N changes".
	Edits int
	// Unbound are the rewrite's metavariables that the pattern does not bind
	// as written ($Y, or $ARGS where the pattern has $$$ARGS): each is
	// replaced by nothing, as ast-grep replaces it.
	Unbound []string
	// LeftOut are the files with a replacement that the plan leaves
	// unchanged because their tree has a syntax error (Query.IncludeErrors
	// was not set), with the line of their first error.
	LeftOut []BrokenFile
	// Parenthesized are the replacements (or captures substituted into
	// them) put in parentheses so that the code around them reads them as
	// the template meant (meaning.go).
	Parenthesized []Parenthesized
	// Source is the tool that staged the plan ("ast_edit" when empty): a
	// rejected or unknown edit says to run it again.
	Source string
	// After, when set, runs once the plan is applied (a language server
	// told of the moved files); it returns notes for the result.
	After func(ctx context.Context) []string
}

// Stager returns the tool that staged p, for messages.
func (p *Plan) Stager() string {
	if p.Source == "" {
		return "ast_edit"
	}
	return p.Source
}

// Rewrite runs q and computes the replacement of every match by the rewrite
// template. Of overlapping matches the outermost wins. Files whose tree has a
// syntax error are left out (Plan.LeftOut) unless q.IncludeErrors is set.
// Files are not written.
func (s *Searcher) Rewrite(ctx context.Context, q Query, rewrite string) (*Plan, error) {
	res, jobs, err := s.run(ctx, q, &rewrite)
	if err != nil {
		return nil, err
	}
	p := &Plan{Result: res, Rewrite: rewrite}
	if res.Pattern != nil {
		p.Unbound = matcher.NewTemplate(res.Pattern, rewrite).Unbound()
	}
	for _, j := range jobs {
		n := len(j.edits)
		if isNotebook(j.host) {
			n = j.cellEdits()
		}
		if n == 0 {
			continue
		}
		if j.brokenLine != 0 && !q.IncludeErrors {
			p.LeftOut = append(p.LeftOut, BrokenFile{Path: j.path, Line: j.brokenLine, Cell: j.brokenCell})
			continue
		}
		p.Edits += n
		if isNotebook(j.host) {
			c, changed, err := s.notebookChange(ctx, p, j.path, j.src, j.lang, j.cells)
			if err != nil {
				return nil, err
			}
			if changed {
				p.Changes = append(p.Changes, c)
				p.Replacements += c.Replacements
			}
			continue
		}
		edits := j.edits
		if j.lang != nil {
			var notes []Parenthesized
			edits, notes = s.keepMeaning(ctx, j.lang, j.path, j.src, j.edits)
			p.Parenthesized = append(p.Parenthesized, notes...)
			if len(notes) > 0 {
				replaced(res.Matches, j.path, nil, edits)
			}
		}
		nw := matcher.Apply(j.src, edits)
		if bytes.Equal(nw, j.src) {
			continue
		}
		p.Changes = append(p.Changes, FileChange{Path: j.path, Old: j.src, New: nw, Replacements: len(j.edits)})
		p.Replacements += len(j.edits)
	}
	return p, nil
}

// replaced sets the replacement of each match in path (in its cell, nil
// outside notebooks) that an edit replaces to the edit's text.
func replaced(ms []Match, path string, cell *Cell, edits []matcher.Edit) {
	for _, e := range edits {
		for k := range ms {
			if ms[k].Path == path && sameCell(ms[k].Cell, cell) && ms[k].Span.StartByte == e.Start && ms[k].Span.EndByte == e.End {
				text := e.Text
				ms[k].Replacement = &text
			}
		}
	}
}

// CompileQuery compiles q's pattern for lang: with q.Selector, as
// matcher.CompileSelector; otherwise as matcher.Compile.
func CompileQuery(ctx context.Context, p matcher.Parser, lang *grammars.Language, q Query) (*matcher.Pattern, error) {
	var pat *matcher.Pattern
	var err error
	if q.Selector != "" {
		pat, err = matcher.CompileSelector(ctx, p, lang, q.Pattern, q.Selector)
	} else {
		pat, err = matcher.Compile(ctx, p, lang, q.Pattern)
	}
	if err != nil && ctx.Err() == nil {
		return nil, invalidQuery{err}
	}
	return pat, err
}

// ErrInvalidQuery is matched (errors.Is) by the error of a pattern or
// selector that does not compile: the query as written is wrong, not the
// files searched (a command line exits 8 for it, as ast-grep does).
var ErrInvalidQuery = errors.New("search: invalid query")

// invalidQuery marks a pattern's error as ErrInvalidQuery, its message
// left as it is.
type invalidQuery struct{ err error }

func (e invalidQuery) Error() string        { return e.err.Error() }
func (e invalidQuery) Unwrap() error        { return e.err }
func (e invalidQuery) Is(target error) bool { return target == ErrInvalidQuery }

// sameCell reports whether a and b are the same notebook cell, or both
// nil.
func sameCell(a, b *Cell) bool {
	return a == b || a != nil && b != nil && a.Index == b.Index
}
