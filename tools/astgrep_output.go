package tools

import "encoding/json"
import "fmt"
import "strings"

import "github.com/tetherhq/tether/internal/textcut"
import "github.com/tetherhq/tether/search"

// ast_grep's output choices (argument "output").
const (
	// AstGrepOutputLines shows a match of at most astGrepShortMatch lines
	// whole and a longer one by its first line, with the captures (default).
	AstGrepOutputLines = "lines"
	// AstGrepOutputFull shows every match's lines whole.
	AstGrepOutputFull = "full"
	// AstGrepOutputCaptures shows where each match is and what it captured.
	AstGrepOutputCaptures = "captures"
	// astGrepShortMatch is the most lines a match has that output "lines"
	// shows whole.
	astGrepShortMatch = 3
	// astGrepCaptureText bounds a capture's text (on one line).
	astGrepCaptureText = 200
	// astGrepMaxErrors bounds the files that could not be searched listed in
	// the structured result (the summary counts them all).
	astGrepMaxErrors = 10
)

// AstGrepResult is ast_grep's Structured result: the matches as its text
// shows them, within the same bound, so the structured part never costs
// several times the text.
type AstGrepResult struct {
	// Summary is the text's first line; it is left out of the JSON, whose
	// counts (Total, Searched, Languages) say the same for programs.
	Summary string `json:"-"`
	Output  string `json:"output"`
	// Languages are the languages searched (several when the pattern parses
	// in several languages of the directory and none was given).
	Languages []AstGrepLanguage `json:"languages"`
	Total     int               `json:"total"`
	Searched  int               `json:"searched"`
	Matches   []AstGrepMatch    `json:"matches"`
	// More says what was held back and how to get it.
	More []string `json:"more,omitempty"`
	// Index is the structural index's progress when the answer came while
	// the run's warm-up was still parsing ("structural index: 6,210 of
	// 7,708 files (parsing in the background)").
	Index  string             `json:"index,omitempty"`
	Errors []search.FileError `json:"errors,omitempty"`
	// SyntaxErrorFiles counts the searched files whose tree has a syntax
	// error; SyntaxErrors names the first 20 with the line of the first
	// error. Their matches are in Matches all the same.
	SyntaxErrorFiles int                 `json:"syntax_error_files,omitempty"`
	SyntaxErrors     []search.BrokenFile `json:"syntax_errors,omitempty"`
	// NoMatch, when the pattern found nothing in the files it searched
	// (in one language), says how it was read, how many nodes of its root
	// kind the files parsed hold, the nearest miss and hints; the summary
	// says the same. Nil when something matched or nothing was searched.
	NoMatch *search.NoMatch `json:"no_match,omitempty"`
}

// AstGrepLanguage is one language a search ran in.
type AstGrepLanguage struct {
	Language string `json:"language"`
	// Context is the reading the pattern was parsed as (statement, ...).
	Context  string `json:"context"`
	Matches  int    `json:"matches"`
	Searched int    `json:"searched"`
}

// AstGrepMatch is one match as shown. Its JSON is where the match is and
// what it captured, the text's index: its Start and End are one "range" as
// the text shows it ("3:1-13:2"); Language is left out when the search ran
// in one language (AstGrepResult.Languages names it); Lines and
// HiddenLines are left out, the text shows the lines (so the structured
// part stays within MaxStructuredRatio of the text however short the
// matches).
type AstGrepMatch struct {
	File     string `json:"file"`
	Language string `json:"language,omitempty"`
	// Cell is the notebook cell the match is in (its range in the cell's
	// source), nil outside notebooks.
	Cell  *search.Cell    `json:"cell,omitempty"`
	Start search.Position `json:"-"`
	End   search.Position `json:"-"`
	// Context names the reading of the pattern that matched when it has
	// several (search.Match.Context).
	Context string `json:"context,omitempty"`
	// Lines are the match's lines as shown (none in output captures).
	Lines string `json:"lines,omitempty"`
	// HiddenLines counts the match's lines not shown.
	HiddenLines int `json:"hiddenLines,omitempty"`
	// Cut says the lines or a capture were cut.
	Cut bool `json:"cut,omitempty"`
	// Captures map "$NAME" or "$$$NAME" to the text captured, on one line.
	Captures map[string]string `json:"captures,omitempty"`
}

// astGrepMatchJSON is AstGrepMatch's JSON shape.
type astGrepMatchJSON struct {
	File     string       `json:"file"`
	Language string       `json:"language,omitempty"`
	Cell     *search.Cell `json:"cell,omitempty"`
	// Range is "line:column-line:column", 1-based.
	Range    string            `json:"range"`
	Context  string            `json:"context,omitempty"`
	Cut      bool              `json:"cut,omitempty"`
	Captures map[string]string `json:"captures,omitempty"`
}

// MarshalJSON writes m with its range as one string.
func (m AstGrepMatch) MarshalJSON() ([]byte, error) {
	return json.Marshal(astGrepMatchJSON{File: m.File, Language: m.Language, Cell: m.Cell,
		Range:   fmt.Sprintf("%d:%d-%d:%d", m.Start.Line, m.Start.Column, m.End.Line, m.End.Column),
		Context: m.Context, Cut: m.Cut, Captures: m.Captures})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (m *AstGrepMatch) UnmarshalJSON(b []byte) error {
	var j astGrepMatchJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*m = AstGrepMatch{File: j.File, Language: j.Language, Cell: j.Cell, Context: j.Context, Cut: j.Cut, Captures: j.Captures}
	if _, err := fmt.Sscanf(j.Range, "%d:%d-%d:%d", &m.Start.Line, &m.Start.Column, &m.End.Line, &m.End.Column); err != nil {
		return fmt.Errorf("tools: ast_grep match range %q: %w", j.Range, err)
	}
	return nil
}

// grepOutput renders a search's matches in an output choice within budget
// bytes of text: the same matches go into the text and the structured
// result; a match that does not fit ends the list, and the result says so.
type grepOutput struct {
	output string
	budget int
	max    int // max_results asked for

	b        strings.Builder
	res      AstGrepResult
	short    int  // matches shown by their first line
	capCut   int  // matches with a capture cut
	capLines int  // $$$ captures shown by their line count
	inCells  bool // a match shown is in a notebook's cell
	overflow bool
}

func (o *grepOutput) add(m search.Match) bool {
	var b strings.Builder
	am := AstGrepMatch{File: m.Path, Language: m.Language, Cell: m.Cell, Start: m.Span.Start, End: m.Span.End, Context: m.Context, Cut: m.Cut}
	reading := "" // which of the pattern's readings matched, when it has several
	if m.Context != "" {
		reading = " (as " + m.Context + ")"
	}
	fmt.Fprintf(&b, "\n%s:%d:%d-%d:%d%s\n", search.Where(m.Path, m.Cell), m.Span.Start.Line, m.Span.Start.Column, m.Span.End.Line, m.Span.End.Column, reading)
	if o.output != AstGrepOutputCaptures {
		am.Lines = m.Lines
		if n := m.Span.End.Line - m.Span.Start.Line + 1; o.output == AstGrepOutputLines && n > astGrepShortMatch {
			am.Lines, _, _ = strings.Cut(m.Lines, "\n")
			am.HiddenLines = n - 1
		}
		for _, l := range strings.Split(am.Lines, "\n") {
			b.WriteString("    " + l + "\n")
		}
		if am.HiddenLines > 0 {
			fmt.Fprintf(&b, "    ... (%d more lines, to line %d)\n", am.HiddenLines, m.Span.End.Line)
		} else if m.Cut {
			b.WriteString("    ... (match cut)\n")
		}
	}
	cut := false
	for _, bd := range m.Bindings {
		sigil := "$"
		if bd.Multi {
			sigil = "$$$"
		}
		text, c := oneLineCut(bd.Text, astGrepCaptureText)
		if n := strings.Count(strings.TrimSpace(bd.Text), "\n") + 1; bd.Multi && n > 1 && o.output == AstGrepOutputLines {
			// a run of statements is its line count here: output "captures"
			// or "full" shows the text
			text, c = fmt.Sprintf("(%d lines, %d-%d)", n, bd.Span.Start.Line, bd.Span.Start.Line+n-1), false
			o.capLines++
		}
		cut = cut || c
		if am.Captures == nil {
			am.Captures = map[string]string{}
		}
		am.Captures[sigil+bd.Name] = text
		fmt.Fprintf(&b, "  %s%s = %s\n", sigil, bd.Name, text)
	}
	am.Cut = am.Cut || cut
	if o.b.Len()+b.Len() > o.budget {
		o.overflow = true
		return false
	}
	if am.HiddenLines > 0 {
		o.short++
	}
	o.inCells = o.inCells || m.Cell != nil
	if cut {
		o.capCut++
	}
	o.b.WriteString(b.String())
	o.res.Matches = append(o.res.Matches, am)
	return true
}

// oneLineCut shows a capture on one line, cut at max bytes, and says whether
// it was cut.
func oneLineCut(s string, max int) (string, bool) {
	s = strings.Join(strings.Fields(s), " ")
	p := textcut.Prefix(s, max)
	if len(p) == len(s) {
		return s, false
	}
	return fmt.Sprintf("%s ... (%d of %d bytes shown)", p, len(p), len(s)), true
}

// more lists what the output held back and how to get it.
func (o *grepOutput) more(total int) []string {
	var notes []string
	if o.overflow {
		notes = append(notes, fmt.Sprintf("the list stops after %d of %d matches to keep this result under %d KiB: output %q is shorter, start pages on, or narrow the path or the pattern",
			len(o.res.Matches), total, o.budget>>10, AstGrepOutputCaptures))
	}
	if o.short > 0 {
		notes = append(notes, fmt.Sprintf("%s longer than %d lines shown by the first line: output %q shows them whole, or read the file at the lines given",
			countMatches(o.short), astGrepShortMatch, AstGrepOutputFull))
	}
	if o.capLines > 0 {
		notes = append(notes, fmt.Sprintf("%s of more than one line shown by their line count: output %q shows their text", plural(o.capLines, "$$$ capture"), AstGrepOutputCaptures))
	}
	if o.capCut > 0 {
		notes = append(notes, fmt.Sprintf("captures of %s cut: read the file at the lines given for the whole text", countMatches(o.capCut)))
	}
	if o.inCells && (o.short > 0 || o.capCut > 0) {
		notes = append(notes, "a notebook match's lines are those of its cell's source: notebook with action \"read\", start the cell's index and count 1 shows the cell")
	}
	return notes
}

// countMatches counts matches: "1 match", "3 matches".
func countMatches(n int) string {
	if n == 1 {
		return "1 match"
	}
	return fmt.Sprintf("%d matches", n)
}
