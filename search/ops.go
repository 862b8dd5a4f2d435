package search

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/tetherhq/tether/matcher"
)

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
	type fileState struct {
		src    []byte
		edits  []opEdit
		broken int
		lang   string // "" when a host file's regions or two languages
	}
	files := map[string]*fileState{}
	var order []string // paths in the order first met
	p := &Plan{}
	errPaths := map[string]bool{}
	searched := map[string]int{} // files searched by language: the ops of one language search the same files
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
				p.Unbound = append(p.Unbound, op.Name+": "+u)
			}
		}
		lang, _ := resultLang(res)
		searched[lang] = max(searched[lang], res.Searched)
		if p.Result == nil {
			r := *res
			r.Matches = slices.Clone(res.Matches)
			r.Errors = slices.Clone(res.Errors)
			for _, e := range res.Errors {
				errPaths[e.Path] = true
			}
			p.Result = &r
		} else {
			p.Result.Matches = append(p.Result.Matches, res.Matches...)
			p.Result.Total += res.Total
			for _, e := range res.Errors {
				// each op reads the same files: a file that could not be read is named once
				if !errPaths[e.Path] {
					errPaths[e.Path] = true
					p.Result.Errors = append(p.Result.Errors, e)
				}
			}
			for _, b := range res.Broken {
				if !slices.ContainsFunc(p.Result.Broken, func(o BrokenFile) bool { return o.Path == b.Path }) && len(p.Result.Broken) < MaxBrokenListed {
					p.Result.Broken = append(p.Result.Broken, b)
				}
			}
			p.Result.BrokenCount = max(p.Result.BrokenCount, res.BrokenCount)
		}
		for _, j := range jobs {
			if len(j.edits) == 0 {
				continue
			}
			f := files[j.path]
			if f == nil {
				f = &fileState{src: j.src, broken: j.brokenLine, lang: j.lang}
				files[j.path] = f
				order = append(order, j.path)
			} else if !bytes.Equal(f.src, j.src) {
				return nil, fmt.Errorf("search: %s changed while the ops were matched; nothing staged: run the edit again", j.path)
			}
			if j.brokenLine != 0 {
				f.broken = j.brokenLine
			}
			if f.lang != j.lang {
				f.lang = ""
			}
			for _, e := range j.edits {
				f.edits = append(f.edits, opEdit{Edit: e, op: i})
			}
		}
	}
	p.Result.Searched = 0
	for _, n := range searched {
		p.Result.Searched += n
	}
	includeErrors := true
	for _, op := range ops {
		includeErrors = includeErrors && op.Query.IncludeErrors
	}
	for _, path := range order {
		f := files[path]
		sort.SliceStable(f.edits, func(a, b int) bool {
			ea, eb := f.edits[a], f.edits[b]
			if ea.Start != eb.Start {
				return ea.Start < eb.Start
			}
			return ea.op < eb.op
		})
		for k := 1; k < len(f.edits); k++ {
			prev, cur := f.edits[k-1], f.edits[k]
			// edits of one op never overlap (matcher.Template.Edits keeps
			// the outermost); two ops' do when they share a byte or a start
			if prev.op == cur.op {
				continue
			}
			if cur.Start < prev.End || cur.Start == prev.Start {
				a, b := min(prev.op, cur.op), max(prev.op, cur.op)
				return nil, &OverlapError{A: a, B: b, NameA: ops[a].Name, NameB: ops[b].Name,
					Path: path, Line: 1 + bytes.Count(f.src[:cur.Start], []byte("\n"))}
			}
		}
		// a later op's edit may still overlap an earlier one that is not
		// its neighbour (a long edit spanning several of another op's)
		end, endOp := -1, -1
		for _, e := range f.edits {
			if e.Start < end && e.op != endOp {
				a, b := min(endOp, e.op), max(endOp, e.op)
				return nil, &OverlapError{A: a, B: b, NameA: ops[a].Name, NameB: ops[b].Name,
					Path: path, Line: 1 + bytes.Count(f.src[:e.Start], []byte("\n"))}
			}
			if e.End > end {
				end, endOp = e.End, e.op
			}
		}
		if f.broken != 0 && !includeErrors {
			p.LeftOut = append(p.LeftOut, BrokenFile{Path: path, Line: f.broken})
			continue
		}
		edits := make([]matcher.Edit, len(f.edits))
		for k, e := range f.edits {
			edits[k] = e.Edit
		}
		p.Edits += len(edits)
		if f.lang != "" {
			var notes []Parenthesized
			edits, notes = s.keepMeaning(ctx, f.lang, path, f.src, edits)
			p.Parenthesized = append(p.Parenthesized, notes...)
			if len(notes) > 0 {
				replaced(p.Result.Matches, path, edits)
			}
		}
		nw := matcher.Apply(f.src, edits)
		if bytes.Equal(nw, f.src) {
			continue
		}
		p.Changes = append(p.Changes, FileChange{Path: path, Old: f.src, New: nw, Replacements: len(edits)})
		p.Replacements += len(edits)
	}
	names := make([]string, len(ops))
	for i, op := range ops {
		names[i] = op.Rewrite
	}
	p.Rewrite = strings.Join(names, "\n")
	return p, nil
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
