package search

import "bytes"
import "context"
import "errors"
import "fmt"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/internal/ipynb"
import "github.com/tetherhq/tether/matcher"
import "github.com/tetherhq/tether/matcher/rule"
import "github.com/tetherhq/tether/search/inject"
import "github.com/tetherhq/tether/search/store"

// Jupyter notebooks. A search in Python also searches the code cells of
// the .ipynb files under its paths (inject.NotebookCells): each cell's
// source is decoded from the notebook's JSON, its IPython lines made
// comments, parsed as Python and matched; a match names the cell
// (Match.Cell) and its span is in the cell's source. A rewrite applies each cell's edits to
// its source and writes it back with ipynb's SetSource, which keeps the
// rest of the notebook byte for byte; the plan's change is the notebook's
// whole text, so that staging checks the file's bytes as for any file, and
// its diff shows the cells' source lines (FileChange.Cells).

// notebookHost marks a notebook in a search's hostOf: its code cells are
// searched, not its text. namedNotebook marks one the search was given by
// name, rather than found under a directory: one of another language is
// said not searched, where a found one is passed over as any file of
// another language is.
var (
	notebookHost  = &grammars.Language{ID: "ipynb", Name: "Jupyter notebook"}
	namedNotebook = &grammars.Language{ID: "ipynb", Name: "Jupyter notebook"}
)

// isNotebook reports whether host marks a notebook.
func isNotebook(host *grammars.Language) bool {
	return host == notebookHost || host == namedNotebook
}

// cellJob is one code cell of a notebook that a search matched in: its
// place, its source (as the notebook holds it) and a rewrite's edits of
// that source.
type cellJob struct {
	Cell
	src   []byte
	edits []matcher.Edit
}

// doNotebook searches the code cells of the notebook j: it is parsed
// whatever tokens its text holds (its JSON may escape them, and a notebook
// that does not parse is said so), and a cell that holds the pattern's
// tokens is parsed as lang (through the tree store, keyed
// by its text) and matched. A notebook that does not parse, or whose
// kernel is of another language, is skipped, saying why.
func (s *Searcher) doNotebook(ctx context.Context, fsys *files, w *worker, lang *grammars.Language, j *fileJob, limit int) error {
	src, _, ok := s.readText(fsys, j.path, &j.unread)
	if !ok {
		return nil
	}
	_, cells, err := inject.NotebookCells(src, lang.ID)
	if le := (*inject.NotebookLanguageError)(nil); errors.As(err, &le) && le.KernelID != "" && j.host != namedNotebook {
		j.none = true // a notebook of another language, found under a directory
		return nil
	}
	if err != nil {
		j.skip, j.why = "notebook", notebookSkip(err)
		return nil
	}
	parsed, hits := 0, 0
	for _, c := range cells {
		if err := ctx.Err(); err != nil {
			return err
		}
		key, ok := s.regionNeeded(w.kinds, w.tokens, lang, c.Text)
		if !ok {
			continue
		}
		t, hit, err := s.cellTree(ctx, lang, key, c)
		if err != nil {
			j.err = fmt.Errorf("cell %d: %w", c.Index, err)
			return nil
		}
		parsed++
		if hit {
			hits++
		}
		cj := &cellJob{Cell: Cell{Index: c.Index, ID: c.ID}, src: c.Source}
		b := base{cell: cj}
		j.noteBroken(t, b)
		if err := s.collect(ctx, w, lang, j, t, b, limit); err != nil {
			return err
		}
		if len(cj.edits) > 0 {
			j.cells = append(j.cells, cj)
		}
	}
	if parsed == 0 {
		j.prefilter = true
		return nil
	}
	j.parsed, j.cacheHit = true, hits == parsed
	if w.rewrites() {
		// the cells' edits are in lang
		j.src, j.lang = src, lang
	}
	return nil
}

// notebookSkip says why a notebook was not searched.
func notebookSkip(err error) string {
	if le := (*inject.NotebookLanguageError)(nil); errors.As(err, &le) {
		if le.KernelID == "" {
			return fmt.Sprintf("kernel language %s, which no shipped grammar reads", le.Kernel)
		}
		return fmt.Sprintf("kernel language %s, not %s: search it with language %s", le.Kernel, le.Want, le.KernelID)
	}
	return err.Error()
}

// cellEdits counts the edits of a notebook's cells.
func (j *fileJob) cellEdits() int {
	n := 0
	for _, c := range j.cells {
		n += len(c.edits)
	}
	return n
}

// CellChange is one code cell a notebook's change rewrites: its place and
// its source before and after.
type CellChange struct {
	Cell
	Old, New string
}

// notebookChange is the change that the edits of cells (sorted, not
// overlapping) make to the notebook at path, whose text is src, each kept
// in its meaning in lang, the cells' language (meaning.go), and whether it
// changes anything; the Parenthesized it reports are added to p.
func (s *Searcher) notebookChange(ctx context.Context, p *Plan, path string, src []byte, lang *grammars.Language, cells []*cellJob) (FileChange, bool, error) {
	kept := make([]*cellJob, len(cells))
	for k, c := range cells {
		edits, notes := c.edits, []Parenthesized(nil)
		if lang != nil {
			edits, notes = s.keepMeaning(ctx, lang, path, c.src, c.edits)
		}
		for i := range notes {
			notes[i].Cell = base{cell: c}.inCell()
		}
		p.Parenthesized = append(p.Parenthesized, notes...)
		if len(notes) > 0 {
			replaced(p.Result.Matches, path, &c.Cell, edits)
		}
		kept[k] = &cellJob{Cell: c.Cell, src: c.src, edits: edits}
	}
	return writeCells(path, src, kept)
}

// writeCells is the change that the edits of cells (sorted, not
// overlapping) make to the notebook at path, whose text is src: each
// cell's new source written back with ipynb's SetSource, the rest of the
// text kept; and whether it changes anything.
func writeCells(path string, src []byte, cells []*cellJob) (FileChange, bool, error) {
	nb, err := ipynb.Parse(src)
	if err != nil {
		// the search parsed the same bytes
		return FileChange{}, false, fmt.Errorf("search: %s: %w", path, err)
	}
	raws := make([][]byte, len(nb.Cells))
	for i := range nb.Cells {
		raws[i] = nb.Raw(i)
	}
	fc := FileChange{Path: path, Old: src}
	for _, c := range cells {
		nw := matcher.Apply(c.src, c.edits)
		if bytes.Equal(nw, c.src) {
			continue
		}
		if raws[c.Index], err = nb.SetSource(c.Index, string(nw)); err != nil {
			return FileChange{}, false, fmt.Errorf("search: %s: %w", path, err)
		}
		fc.Cells = append(fc.Cells, CellChange{Cell: c.Cell, Old: string(c.src), New: string(nw)})
		fc.Replacements += len(c.edits)
	}
	if len(fc.Cells) == 0 {
		return fc, false, nil
	}
	fc.New = nb.WithCells(raws)
	return fc, true, nil
}

// scanNotebook runs the rules of the notebook's language (those of byLang
// its path is for) on the code cells of the notebook j, as doNotebook
// searches them; with fix, the notebook's text and its cells' sources are
// kept for the findings' fixes.
func (s *Searcher) scanNotebook(ctx context.Context, fsys *files, byLang map[string][]*scanRule, pick func([]*scanRule) []*scanRule, runners map[*rule.Rule]*rule.Runner, j *scanJob, fix bool) error {
	if len(byLang) == 0 {
		return nil
	}
	src, _, ok := s.readText(fsys, j.path, &j.unread)
	if !ok {
		j.searched = true
		return nil
	}
	_, kernel, cells, err := inject.KernelCells(src)
	if err != nil {
		j.searched = true
		j.skip, j.why = "notebook", notebookSkip(err)
		return nil
	}
	rs := pick(byLang[kernel])
	if len(rs) == 0 {
		return nil // no rule of its language
	}
	j.searched = true
	lang := rs[0].r.Grammar()
	for _, c := range cells {
		if err := ctx.Err(); err != nil {
			return err
		}
		var live []*scanRule
		key := store.KeyOf(s.partition, lang, c.Text)
		for _, sr := range rs {
			if hasTokens(c.Text, sr.r.Tokens()) && !s.cache.RuledOut(sr.kinds, key) {
				live = append(live, sr)
			}
		}
		if len(live) == 0 {
			continue
		}
		t, _, err := s.cellTree(ctx, lang, key, c)
		if err != nil {
			j.err = fmt.Errorf("cell %d: %w", c.Index, err)
			return nil
		}
		j.parsed = true
		cj := &cellJob{Cell: Cell{Index: c.Index, ID: c.ID}, src: c.Source}
		n := len(j.findings)
		if err := s.runRules(ctx, j, t, lang.ID, live, runners, base{cell: cj}, src, fix); err != nil {
			return err
		}
		if fix && len(j.findings) > n {
			j.cells = append(j.cells, cj)
		}
	}
	if !j.parsed {
		j.prefiltered = true
	}
	return nil
}

// notebookFixes adds the fixes of the findings in notebook j's cells to p.
func notebookFixes(p *Plan, j *scanJob) {
	var cells []*cellJob
	for _, c := range j.cells {
		var in []Finding
		for _, f := range j.findings {
			if f.Cell != nil && f.Cell.Index == c.Index {
				in = append(in, f)
			}
		}
		edits := fixEdits(in)
		p.Edits += len(edits)
		cells = append(cells, &cellJob{Cell: c.Cell, src: c.src, edits: edits})
	}
	fc, changed, err := writeCells(j.path, j.src, cells)
	switch {
	case err != nil:
		p.Result.Errors = append(p.Result.Errors, FileError{Path: j.path, Err: err.Error()})
	case changed:
		p.Changes = append(p.Changes, fc)
		p.Replacements += fc.Replacements
	}
}

// cellIndex is a notebook cell's index, -1 for none.
func cellIndex(c *Cell) int {
	if c == nil {
		return -1
	}
	return c.Index
}

// cellTree is the tree of cell c's text (key is its store key) over the
// cell's source: what is parsed has its IPython lines made comments, what the
// matches, captures, fixes and rewrites read is the source as written, so
// that a fix that spans a magic line keeps it.
func (s *Searcher) cellTree(ctx context.Context, lang *grammars.Language, key store.Key, c inject.Cell) (*engine.Tree, bool, error) {
	t, hit, err := s.wholeTree(ctx, lang, key, c.Text)
	if err != nil {
		return nil, false, err
	}
	over := t.WithSource(c.Source)
	if over == nil {
		// BlankIPython keeps the length and the line breaks
		return nil, false, fmt.Errorf("search: cell %d: its parsed text does not fit its source", c.Index)
	}
	return over, hit, nil
}
