package format

import "bufio"
import "fmt"
import "io"
import "strings"

import "github.com/tetherhq/tether/search"

// Label is a range a finding points at, in ast-grep's JSON shape.
type Label struct {
	Text    string  `json:"text"`
	Range   Range   `json:"range"`
	Message *string `json:"message,omitempty"`
	Style   string  `json:"style"`
}

// Finding is one finding in the JSON shape `ast-grep scan --json` prints:
// a match with the rule's id, severity, note, message and labels.
type Finding struct {
	Match
	RuleID   string  `json:"ruleId"`
	Severity string  `json:"severity"`
	Note     *string `json:"note"`
	Message  string  `json:"message"`
	Labels   []Label `json:"labels"`
}

func (c *jsonConverter) finding(f search.Finding) Finding {
	a := Finding{Match: c.convert(f.Match), RuleID: f.Rule.ID, Severity: f.Rule.Severity, Message: f.Message}
	if f.Rule.Note != "" {
		note := f.Rule.Note
		a.Note = &note
	}
	if f.Replacement != nil {
		a.ReplacementOffsets.Start, a.ReplacementOffsets.End = f.FixStart, f.FixEnd
	}
	if len(f.Transformed) > 0 {
		if a.MetaVariables == nil {
			a.MetaVariables = &MetaVariables{Single: map[string]Capture{}, Multi: map[string][]Capture{}}
		}
		a.MetaVariables.Transformed = f.Transformed
	}
	if len(f.Rule.Labels) > 0 {
		a.Labels = c.ruleLabels(f)
		return a
	}
	a.Labels = []Label{{Text: a.Text, Range: a.Range, Style: "primary"}}
	if a.MetaVariables != nil {
		for _, c := range a.MetaVariables.Multi["secondary"] {
			a.Labels = append(a.Labels, Label{Text: c.Text, Range: c.Range, Style: "secondary"})
		}
	}
	return a
}

// ruleLabels are the labels of f's rule: each the capture of its
// metavariable (a $$$ capture from its first node to its last; an empty
// one has no label), with the label's style and message, as written.
func (c *jsonConverter) ruleLabels(f search.Finding) []Label {
	out := []Label{}
	for _, l := range f.Rule.Labels {
		for _, b := range f.Bindings {
			if b.Name != l.Var || b.Multi && len(b.Parts) == 0 {
				continue
			}
			out = append(out, Label{Text: b.Text, Range: c.rangeOf(f.Path, f.Cell, b.Span), Message: l.Message, Style: l.Style})
			break
		}
	}
	return out
}

// FindingsJSON converts findings to ast-grep's scan JSON shape.
func FindingsJSON(fs []search.Finding) []Finding {
	var c jsonConverter
	out := make([]Finding, 0, len(fs))
	for _, f := range fs {
		out = append(out, c.finding(f))
	}
	return out
}

// WriteFindingsJSON writes findings as `ast-grep scan --json=STYLE`
// prints them (pretty, compact or stream; see WriteJSONStyle).
func WriteFindingsJSON(w io.Writer, fs []search.Finding, style string) error {
	return writeJSONStyle(w, fs, style, (*jsonConverter).finding)
}

// WriteFindings writes findings for a reader: per finding a line
// "severity[rule]: message" (no ": " without a message) and the place, "  --> path:line:column"
// (in a notebook's cell "  --> nb.ipynb[cell 3 id=a1b2]:line:column"), then
// the source line, and the fix when the rule has one.
func WriteFindings(w io.Writer, fs []search.Finding) error {
	bw := bufio.NewWriter(w)
	for _, f := range fs {
		fmt.Fprintf(bw, "%s[%s]", f.Rule.Severity, f.Rule.ID)
		if f.Message != "" {
			fmt.Fprintf(bw, ": %s", f.Message)
		}
		fmt.Fprintf(bw, "\n  --> %s:%d:%d\n", search.Where(f.Path, f.Cell), f.Span.Start.Line, f.Span.Start.Column)
		for _, l := range strings.Split(f.Lines, "\n") {
			fmt.Fprintf(bw, "   | %s\n", l)
		}
		if f.Replacement != nil {
			fmt.Fprintf(bw, "  fix: %s\n", *f.Replacement)
		}
		if f.Rule.Note != "" {
			fmt.Fprintf(bw, "  note: %s\n", f.Rule.Note)
		}
		bw.WriteString("\n")
	}
	return bw.Flush()
}
