package tools

import (
	"fmt"
	"strings"

	"github.com/tetherhq/tether/internal/textcut"
	"github.com/tetherhq/tether/search"
)

// ast_grep's output choices (argument "output").
const (
	// AstGrepOutputLines shows a match of at most AstGrepShortMatch lines
	// whole and a longer one by its first line, with the captures (default).
	AstGrepOutputLines = "lines"
	// AstGrepOutputFull shows every match's lines whole.
	AstGrepOutputFull = "full"
	// AstGrepOutputCaptures shows where each match is and what it captured.
	AstGrepOutputCaptures = "captures"
	// AstGrepShortMatch is the most lines a match has that output "lines"
	// shows whole.
	AstGrepShortMatch = 3
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
	// Summary is the text's first line.
	Summary string `json:"summary"`
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
}

// AstGrepLanguage is one language a search ran in.
type AstGrepLanguage struct {
	Language string `json:"language"`
	// Context is the reading the pattern was parsed as (statement, ...).
	Context  string `json:"context"`
	Matches  int    `json:"matches"`
	Searched int    `json:"searched"`
}

// AstGrepMatch is one match as shown.
type AstGrepMatch struct {
	File     string          `json:"file"`
	Language string          `json:"language"`
	Start    search.Position `json:"start"`
	End      search.Position `json:"end"`
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

// grepOutput renders a search's matches in an output choice within budget
// bytes of text: the same matches go into the text and the structured
// result; a match that does not fit ends the list, and the result says so.
type grepOutput struct {
	output string
	budget int
	max    int // max_results asked for

	b        strings.Builder
	res      AstGrepResult
	short    int // matches shown by their first line
	capCut   int // matches with a capture cut
	overflow bool
}

func (o *grepOutput) add(m search.Match) bool {
	var b strings.Builder
	am := AstGrepMatch{File: m.Path, Language: m.Language, Start: m.Span.Start, End: m.Span.End, Context: m.Context, Cut: m.Cut}
	reading := "" // which of the pattern's readings matched, when it has several
	if m.Context != "" {
		reading = " (as " + m.Context + ")"
	}
	fmt.Fprintf(&b, "\n%s:%d:%d-%d:%d%s\n", m.Path, m.Span.Start.Line, m.Span.Start.Column, m.Span.End.Line, m.Span.End.Column, reading)
	if o.output != AstGrepOutputCaptures {
		am.Lines = m.Lines
		if n := m.Span.End.Line - m.Span.Start.Line + 1; o.output == AstGrepOutputLines && n > AstGrepShortMatch {
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
		notes = append(notes, fmt.Sprintf("the list stops after %d of %d matches to keep this result under %d KiB: output %q is shorter, or narrow the path or the pattern",
			len(o.res.Matches), total, o.budget>>10, AstGrepOutputCaptures))
	} else if len(o.res.Matches) < total {
		notes = append(notes, fmt.Sprintf("%d of %d matches shown: raise max_results (now %d) or narrow the path", len(o.res.Matches), total, o.max))
	}
	if o.short > 0 {
		notes = append(notes, fmt.Sprintf("%s longer than %d lines shown by the first line: output %q shows them whole, or read the file at the lines given",
			countMatches(o.short), AstGrepShortMatch, AstGrepOutputFull))
	}
	if o.capCut > 0 {
		notes = append(notes, fmt.Sprintf("captures of %s cut: read the file at the lines given for the whole text", countMatches(o.capCut)))
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
