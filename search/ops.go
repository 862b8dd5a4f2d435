package search

import "bytes"
import "context"
import "fmt"
import "slices"
import "sort"
import "strings"

import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/matcher"

// MaxOps bounds how many rewrites one RewriteOps plan combines.
const MaxOps = 32

// Op is one rewrite of a RewriteOps plan: a query (pattern or rule) and its
// rewrite template ("" with a rule: the rule's fix).
type Op struct {
	Query   Query
	Rewrite string
	// Name is how messages name the op, e.g. `ops[1] (pattern "f($X)")`.
	Name string
}

// OverlapError is returned by RewriteOps when two ops replace overlapping
// text: the plan is refused whole.
type OverlapError struct {
	// A and B are the indexes of the two ops (A < B), named NameA and NameB.
	A, B         int
	NameA, NameB string
	// Path and Line (1-based) are where the overlap starts.
	Path string
	Line int
}

func (e *OverlapError) Error() string {
	return fmt.Sprintf("search: %s and %s replace overlapping text at %s:%d; nothing staged: narrow one of them (or run them as separate edits, the second after the first is applied)",
		e.NameA, e.NameB, e.Path, e.Line)
}

// opEdit is one replacement and the op it comes from.
type opEdit struct {
	matcher.Edit
	op int
}

// RewriteOps runs every op's query and combines their replacements into one
// plan, applied (staged, accepted) as one all-or-nothing change. Every op
// matches the files as they are when RewriteOps runs, not the text an
// earlier op produces, as ast-grep applies several rules to one file; the
// replacements are made in one pass, so their order only decides the
// order they are listed in. Two ops replacing overlapping text (or
// inserting at the same place) refuse the plan with an *OverlapError
// naming both and where. Files whose tree has a syntax error are left out
// as Rewrite leaves them out, unless every op's IncludeErrors is set.
func (s *Searcher) RewriteOps(ctx context.Context, ops []Op) (*Plan, error) {
	switch {
	case len(ops) == 0:
		return nil, fmt.Errorf("search: no ops: give at least one pattern or rule with its rewrite")
	case len(ops) > MaxOps:
		return nil, fmt.Errorf("search: %d ops: at most %d are combined in one edit; split them into several edits", len(ops), MaxOps)
	}
	o := &opsPlan{p: &Plan{}, files: map[string]*opFile{}, errPaths: map[string]bool{}, searched: map[string]int{}}
	for i, op := range ops {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rw := op.Rewrite
		res, jobs, err := s.run(ctx, op.Query, &rw)
		if err != nil {
			return nil, fmt.Errorf("search: %s: %w", op.Name, err)
		}
		if res.Pattern != nil {
			for _, u := range matcher.NewTemplate(res.Pattern, rw).Unbound() {
				o.p.Unbound = append(o.p.Unbound, op.Name+": "+u)
			}
		}
		o.addResult(res)
		if err := o.addEdits(i, jobs); err != nil {
			return nil, err
		}
	}
	p := o.p
	p.Result.Searched = 0
	for _, n := range o.searched {
		p.Result.Searched += n
	}
	includeErrors := true
	for _, op := range ops {
		includeErrors = includeErrors && op.Query.IncludeErrors
	}
	for _, path := range o.order {
		f := o.files[path]
		if err := f.overlaps(ops, path); err != nil {
			return nil, err
		}
		for _, c := range f.cells {
			if err := c.overlaps(ops, Where(path, &c.Cell)); err != nil {
				return nil, err
			}
		}
		if f.broken != 0 && !includeErrors {
			p.LeftOut = append(p.LeftOut, BrokenFile{Path: path, Line: f.broken, Cell: f.brokenCell})
			continue
		}
		if err := s.opChange(ctx, p, path, f); err != nil {
			return nil, err
		}
	}
	names := make([]string, len(ops))
	for i, op := range ops {
		names[i] = op.Rewrite
	}
	p.Rewrite = strings.Join(names, "\n")
	return p, nil
}

// opsPlan is the plan RewriteOps makes while it runs the ops.
type opsPlan struct {
	p     *Plan
	files map[string]*opFile
	order []string // paths in the order first met
	// errPaths are the files named in p.Result.Errors
	errPaths map[string]bool
	// searched counts the files searched by language: the ops of one
	// language search the same files
	searched map[string]int
}

// opFile is what the ops replace in one file: in its text, or in a
// notebook's cells.
type opFile struct {
	src        []byte
	edits      []opEdit
	cells      []*opCell // a notebook's, in order
	broken     int
	brokenCell *Cell
	lang       *grammars.Language // nil when a host file's regions or two languages
}

// opCell is what the ops replace in one code cell of a notebook: src is
// the cell's source.
type opCell struct {
	Cell
	opFile
}

// plain is f's edits without their ops.
func (f *opFile) plain() []matcher.Edit {
	edits := make([]matcher.Edit, len(f.edits))
	for k, e := range f.edits {
		edits[k] = e.Edit
	}
	return edits
}

// addResult adds an op's result to the plan's: its matches and total, and
// the files it could not read or found broken, each named once.
func (o *opsPlan) addResult(res *Result) {
	lang, _ := resultLang(res)
	o.searched[lang] = max(o.searched[lang], res.Searched)
	if o.p.Result == nil {
		r := *res
		r.Matches = slices.Clone(res.Matches)
		r.Errors = slices.Clone(res.Errors)
		for _, e := range res.Errors {
			o.errPaths[e.Path] = true
		}
		o.p.Result = &r
		return
	}
	pr := o.p.Result
	pr.Matches = append(pr.Matches, res.Matches...)
	pr.Total += res.Total
	for _, e := range res.Errors {
		// each op reads the same files: a file that could not be read is named once
		if !o.errPaths[e.Path] {
			o.errPaths[e.Path] = true
			pr.Errors = append(pr.Errors, e)
		}
	}
	for _, b := range res.Broken {
		if !slices.ContainsFunc(pr.Broken, func(x BrokenFile) bool { return x.Path == b.Path }) && len(pr.Broken) < MaxBrokenListed {
			pr.Broken = append(pr.Broken, b)
		}
	}
	pr.BrokenCount = max(pr.BrokenCount, res.BrokenCount)
}

// addEdits adds the replacements op made in its jobs' files; a file that
// op read with other content than an earlier op refuses the plan.
func (o *opsPlan) addEdits(op int, jobs []*fileJob) error {
	for _, j := range jobs {
		if len(j.edits) == 0 && j.cellEdits() == 0 {
			continue
		}
		f := o.files[j.path]
		if f == nil {
			f = &opFile{src: j.src, broken: j.brokenLine, brokenCell: j.brokenCell, lang: j.lang}
			o.files[j.path] = f
			o.order = append(o.order, j.path)
		} else if !bytes.Equal(f.src, j.src) {
			return fmt.Errorf("search: %s changed while the ops were matched; nothing staged: run the edit again", j.path)
		}
		if j.brokenLine != 0 {
			f.broken, f.brokenCell = j.brokenLine, j.brokenCell
		}
		if f.lang != j.lang {
			f.lang = nil
		}
		for _, e := range j.edits {
			f.edits = append(f.edits, opEdit{Edit: e, op: op})
		}
		f.addCells(op, j.cells)
	}
	return nil
}

// addCells adds op's edits of a notebook's cells to f's.
func (f *opFile) addCells(op int, cells []*cellJob) {
	for _, c := range cells {
		k := slices.IndexFunc(f.cells, func(x *opCell) bool { return x.Index == c.Index })
		if k < 0 {
			k = len(f.cells)
			f.cells = append(f.cells, &opCell{Cell: c.Cell, opFile: opFile{src: c.src}})
		}
		for _, e := range c.edits {
			f.cells[k].edits = append(f.cells[k].edits, opEdit{Edit: e, op: op})
		}
	}
	slices.SortFunc(f.cells, func(a, b *opCell) int { return a.Index - b.Index })
}

// overlaps sorts f's edits by where they start (then by op) and returns an
// *OverlapError for the first two of different ops that overlap.
func (f *opFile) overlaps(ops []Op, path string) error {
	sort.SliceStable(f.edits, func(a, b int) bool {
		ea, eb := f.edits[a], f.edits[b]
		if ea.Start != eb.Start {
			return ea.Start < eb.Start
		}
		return ea.op < eb.op
	})
	overlap := func(x, y, at int) error {
		a, b := min(x, y), max(x, y)
		return &OverlapError{A: a, B: b, NameA: ops[a].Name, NameB: ops[b].Name,
			Path: path, Line: 1 + bytes.Count(f.src[:at], []byte("\n"))}
	}
	for k := 1; k < len(f.edits); k++ {
		prev, cur := f.edits[k-1], f.edits[k]
		// edits of one op never overlap (matcher.Template.Edits keeps
		// the outermost); two ops' do when they share a byte or a start
		if prev.op == cur.op {
			continue
		}
		if cur.Start < prev.End || cur.Start == prev.Start {
			return overlap(prev.op, cur.op, cur.Start)
		}
	}
	// a later op's edit may still overlap an earlier one that is not
	// its neighbour (a long edit spanning several of another op's)
	end, endOp := -1, -1
	for _, e := range f.edits {
		if e.Start < end && e.op != endOp {
			return overlap(endOp, e.op, e.Start)
		}
		if e.End > end {
			end, endOp = e.End, e.op
		}
	}
	return nil
}

// opChange adds the change f's edits make to path to p, with the edits
// kept in their meaning (meaning.go) where the file has one language.
func (s *Searcher) opChange(ctx context.Context, p *Plan, path string, f *opFile) error {
	if len(f.cells) > 0 {
		cells := make([]*cellJob, len(f.cells))
		for k, c := range f.cells {
			cells[k] = &cellJob{Cell: c.Cell, src: c.src, edits: c.plain()}
			p.Edits += len(c.edits)
		}
		c, changed, err := s.notebookChange(ctx, p, path, f.src, f.lang, cells)
		if changed {
			p.Changes = append(p.Changes, c)
			p.Replacements += c.Replacements
		}
		return err
	}
	edits := f.plain()
	p.Edits += len(edits)
	if f.lang != nil {
		var notes []Parenthesized
		edits, notes = s.keepMeaning(ctx, f.lang, path, f.src, edits)
		p.Parenthesized = append(p.Parenthesized, notes...)
		if len(notes) > 0 {
			replaced(p.Result.Matches, path, nil, edits)
		}
	}
	nw := matcher.Apply(f.src, edits)
	if bytes.Equal(nw, f.src) {
		return nil
	}
	p.Changes = append(p.Changes, FileChange{Path: path, Old: f.src, New: nw, Replacements: len(edits)})
	p.Replacements += len(edits)
	return nil
}

// resultLang is the language a result was searched in.
func resultLang(r *Result) (string, bool) {
	switch {
	case r.Rule != nil:
		return r.Rule.Language, true
	case r.Pattern != nil:
		return r.Pattern.Language(), true
	}
	return "", false
}

// compileGlobs reads Query.Globs relative to the searcher's root when it
// has one (a tool's working directory), else to the process's.
func (s *Searcher) compileGlobs(gs []string) (*globs, error) {
	if s.root != nil && len(gs) > 0 {
		return compileGlobsAt(gs, s.root.RealDir())
	}
	return compileGlobs(gs)
}
