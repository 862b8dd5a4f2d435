package search

import "github.com/tetherhq/tether/internal/ipynb"
import "github.com/tetherhq/tether/matcher"
import "github.com/tetherhq/tether/matcher/rule"

// Position is a 1-based line and 1-based byte column.
type Position struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// Span is where a match or capture lies: 1-based positions and byte offsets
// (end exclusive).
type Span struct {
	Start     Position `json:"start"`
	End       Position `json:"end"`
	StartByte int      `json:"startByte"`
	EndByte   int      `json:"endByte"`
}

// Part is one node of a $$$ capture.
type Part struct {
	Text string `json:"text"`
	Span Span   `json:"span"`
}

// Binding is what one metavariable captured.
type Binding struct {
	Name  string `json:"name"`
	Multi bool   `json:"multi,omitempty"`
	Text  string `json:"text"`
	// Span is the capture's extent; an empty $$$ capture has a zero Span.
	Span Span `json:"span"`
	// Parts are a $$$ capture's nodes, separators included, as ast-grep lists them.
	Parts []Part `json:"parts,omitempty"`
}

// Cell is the code cell of a Jupyter notebook that a match, a capture or
// a syntax error lies in: its 0-based index among the notebook's cells (as
// the notebook tool numbers them), and its id when it has one (nbformat
// 4.5). A span in a cell is in the cell's source as the notebook holds it
// decoded: lines, columns and byte offsets of that text, not of the file.
// It is the cell diagnostics name too (lsp.Diagnostic.Cell), and String
// names it as the notebook tools do: "cell 3 id=a1b2".
type Cell = ipynb.CellRef

// Where names a place in the file at path: the path itself, or for a
// notebook's cell the path with the cell, "nb.ipynb[cell 3 id=a1b2]", to
// which ":line:column" in the cell's source may be added.
func Where(path string, c *Cell) string { return ipynb.Where(path, c) }

// Match is one place a pattern matched.
type Match struct {
	Path     string `json:"file"`
	Language string `json:"language"`
	// Cell is the notebook cell the match is in (Span in its source); nil
	// outside notebooks.
	Cell *Cell `json:"cell,omitempty"`
	Span Span  `json:"span"`
	// Text is the matched source, cut at Config.MaxText bytes (Cut says so).
	Text string `json:"text"`
	// Lines are the whole source lines the match spans, cut like Text.
	Lines string `json:"lines"`
	// Cut says that Text, Lines or the text of a capture was cut.
	Cut      bool      `json:"cut,omitempty"`
	Bindings []Binding `json:"bindings,omitempty"`
	// Context names the reading of the pattern that matched ("type",
	// "member"), when the pattern has several (matcher.Pattern.Contexts).
	Context string `json:"context,omitempty"`
	// Replacement is the text a rewrite puts in place of the match; nil when
	// there was no rewrite or an enclosing match's replacement won.
	Replacement *string `json:"replacement,omitempty"`
}

// FileError is a file that could not be searched.
type FileError struct {
	Path string `json:"file"`
	Err  string `json:"error"`
}

// Result is the outcome of a search. Total counts every match even when
// Matches is cut at MaxResults; Searched counts the files looked at (read and
// either parsed or ruled out by the token prefilter), so "no matches in N
// files" is distinct from files that could not be searched (Errors).
type Result struct {
	Pattern *matcher.Pattern `json:"-"`
	// Rule is the compiled rule of a query with Rule (Pattern is nil then).
	Rule    *rule.Rule `json:"-"`
	Matches []Match    `json:"matches"`
	Total   int        `json:"total"`
	// Handed counts the matches handed to Query.OnMatches.
	Handed int `json:"handed,omitempty"`
	// handedFiles counts the files whose matches were handed on.
	handedFiles int
	Searched    int `json:"searched"`
	Parsed      int `json:"parsed"`
	Prefiltered int `json:"prefiltered"`
	// KindSkipped counts the files among Prefiltered whose node kinds, as the
	// tree store knew them, lack what the pattern needs (store/kinds.go).
	KindSkipped int   `json:"kindSkipped,omitempty"`
	CacheHits   int   `json:"cacheHits"`
	Skipped     Skips `json:"skipped"`
	// SizeCap is the size above which files were skipped (Skipped.Large).
	SizeCap int64       `json:"sizeCap,omitempty"`
	Errors  []FileError `json:"errors,omitempty"`
	// BrokenCount counts the searched files whose tree has a syntax error
	// (an ERROR or MISSING node); Broken names the first MaxBrokenListed
	// with the line of their first error. A file parsed in chunks is
	// known broken when a chunk that holds the pattern's tokens is, or,
	// in a rewrite, when it has a replacement.
	BrokenCount int          `json:"syntaxErrorFiles,omitempty"`
	Broken      []BrokenFile `json:"syntaxErrors,omitempty"`
	// RegionsCutCount counts the host files that embed more regions of the
	// language than inject.MaxRegionsPerFile (only the first were searched);
	// RegionsCut names the first MaxBrokenListed.
	RegionsCutCount int          `json:"regionsCutFiles,omitempty"`
	RegionsCut      []RegionsCut `json:"regionsCut,omitempty"`
	// NoMatch says how the pattern was read and what of its shape the
	// files hold, when a pattern search looked at files and found nothing;
	// nil otherwise (a match, a rule, or nothing searched).
	NoMatch *NoMatch `json:"noMatch,omitempty"`
	// inferred: the query's language was not given but inferred
	inferred bool
}

// tally counts the searched jobs into r, with their matches up to max
// (0: all).
func (r *Result) tally(jobs []*fileJob, max int) {
	for _, j := range jobs {
		if j.tally(j.path, &r.Skipped, &r.Errors) || j.none {
			continue
		}
		r.Searched++
		if j.prefilter {
			r.Prefiltered++
		}
		if j.kindSkip {
			r.KindSkipped++
		}
		if j.parsed {
			r.Parsed++
		}
		if j.cacheHit {
			r.CacheHits++
		}
		if j.brokenLine != 0 {
			r.addBroken(BrokenFile{Path: j.path, Line: j.brokenLine, Cell: j.brokenCell})
		}
		if j.regionsTotal > j.regions {
			r.RegionsCutCount++
			if len(r.RegionsCut) < MaxBrokenListed {
				r.RegionsCut = append(r.RegionsCut, RegionsCut{Path: j.path, Regions: j.regionsTotal, Searched: j.regions})
			}
		}
		r.Total += j.count
		for _, mt := range j.matches { // none when streamed
			if max > 0 && len(r.Matches) >= max {
				break
			}
			r.Matches = append(r.Matches, mt)
		}
	}
}
