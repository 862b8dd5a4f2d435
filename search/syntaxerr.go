package search

import "fmt"
import "strings"

import "github.com/tetherhq/tether/engine"

// MaxBrokenListed is how many files with syntax errors a Result names; the
// rest are counted (Result.BrokenCount).
const MaxBrokenListed = 20

// BrokenFile is a searched file whose tree has a syntax error: an ERROR or
// MISSING node, where the parser recovered from code it could not read.
// Its matches are reported, but a rewrite leaves it alone unless
// Query.IncludeErrors is set, as a replacement there may land in code the
// parser misread.
type BrokenFile struct {
	Path string `json:"file"`
	// Line is the 1-based line of the file's first syntax error; in a
	// notebook, of the cell's source.
	Line int `json:"line"`
	// Cell is the notebook cell the error is in, nil outside notebooks.
	Cell *Cell `json:"cell,omitempty"`
}

// firstErrorLine returns the 1-based line, offset by b's line, of the first
// ERROR or MISSING node of t in source order, or 0 when t has none. It
// descends only into subtrees that hold an error, so it costs the depth of
// the tree times its fan-out, not its size.
func firstErrorLine(t *engine.Tree, b base) int {
	if !t.HasError() {
		return 0
	}
	n := t.Root()
	for guard := 0; guard < 1<<16; guard++ {
		if n.IsError() || n.IsMissing() {
			return int(n.Range().StartPoint.Row) + 1 + b.line
		}
		next, found := n, false
		for c, ok := n.FirstChild(); ok; c, ok = c.NextSibling() {
			if c.HasError() {
				next, found = c, true
				break
			}
		}
		if !found {
			// the flag is set on n alone: report where n starts
			return int(n.Range().StartPoint.Row) + 1 + b.line
		}
		n = next
	}
	return int(n.Range().StartPoint.Row) + 1 + b.line
}

// noteBroken records, once per file, the first syntax error of a tree of
// j's (a whole file, or a chunk at b).
func (j *fileJob) noteBroken(t *engine.Tree, b base) {
	if j.brokenLine != 0 {
		return
	}
	if j.brokenLine = firstErrorLine(t, b); j.brokenLine != 0 {
		j.brokenCell = b.inCell()
	}
}

// addBroken counts a file with a syntax error and names it while fewer than
// MaxBrokenListed are named.
func (r *Result) addBroken(f BrokenFile) {
	r.BrokenCount++
	if len(r.Broken) < MaxBrokenListed {
		r.Broken = append(r.Broken, f)
	}
}

// MergeBroken adds o's files with syntax errors to r's, within
// MaxBrokenListed named (a search over several languages merges its parts).
func (r *Result) MergeBroken(o *Result) {
	r.BrokenCount += o.BrokenCount
	for _, f := range o.Broken {
		if len(r.Broken) < MaxBrokenListed {
			r.Broken = append(r.Broken, f)
		}
	}
}

// brokenNote says which searched files have syntax errors, or "" when none.
func (r *Result) brokenNote() string {
	if r.BrokenCount == 0 {
		return ""
	}
	names := make([]string, len(r.Broken))
	for i, f := range r.Broken {
		names[i] = fmt.Sprintf("%s:%d", Where(f.Path, f.Cell), f.Line)
	}
	s := fmt.Sprintf("%d %s with syntax errors (first error at %s", r.BrokenCount,
		plural(r.BrokenCount, "file", "files"), strings.Join(names, ", "))
	if more := r.BrokenCount - len(r.Broken); more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s + ")"
}

// LeftOutNote says which files the plan left unchanged for their syntax
// errors and how to include them (how: the flag or parameter that sets
// Query.IncludeErrors), or "" when none were.
func (p *Plan) LeftOutNote(how string) string {
	if len(p.LeftOut) == 0 {
		return ""
	}
	names := make([]string, 0, MaxBrokenListed)
	for _, f := range p.LeftOut[:min(len(p.LeftOut), MaxBrokenListed)] {
		names = append(names, fmt.Sprintf("%s:%d", Where(f.Path, f.Cell), f.Line))
	}
	s := fmt.Sprintf("left out %d %s with syntax errors, not rewritten (first error at %s", len(p.LeftOut),
		plural(len(p.LeftOut), "file", "files"), strings.Join(names, ", "))
	if more := len(p.LeftOut) - len(names); more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s + "): fix them, or pass " + how + " to rewrite them as parsed"
}
