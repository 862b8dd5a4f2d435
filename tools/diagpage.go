package tools

import "fmt"
import "sort"
import "strings"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/internal/ipynb"

// DiagnosticsPageSize is how many diagnostics one lsp diagnostics answer
// shows at most (a file's, or the project's with "*"); start pages on.
const DiagnosticsPageSize = 100

// DiagnosticsPageBytes bounds the text of one page's diagnostics: a page
// ends before the diagnostic that would take it past this (a page shows
// one at least), so that with its summary and notes an answer stays under
// 8 KB whatever the server's messages are like (pyright's run to 200 bytes).
const DiagnosticsPageBytes = 6 << 10

// maxCodeCounts bounds the codes a diagnostics summary names.
const maxCodeCounts = 8

// severityRank orders the severities, most severe first.
var severityRank = map[string]int{"error": 0, "warning": 1, "info": 2, "hint": 3}

// diagnosticSeverities are the values of lsp's severity argument.
var diagnosticSeverities = []string{"error", "warning", "info", "hint"}

// DiagnosticsPage is the Structured result of lsp diagnostics: one page of
// a file's (or with "*", the project's) diagnostics at the severity asked,
// identical messages grouped, with counts over all of them.
type DiagnosticsPage struct {
	// File is the file asked for, or "*".
	File string `json:"file"`
	// Severity is the least severe kind counted and shown.
	Severity string `json:"severity"`
	// Total counts the diagnostics at Severity or above; Start of them were
	// skipped and Shown are in Groups. Next is the start of the next page
	// (0 when this is the last).
	Total int `json:"total"`
	Start int `json:"start,omitempty"`
	Shown int `json:"shown"`
	Next  int `json:"next,omitempty"`
	// BySeverity and ByCode count all Total diagnostics: ByCode the
	// maxCodeCounts most frequent codes, "(no code)" those without one,
	// "(other codes)" the rest.
	BySeverity map[string]int `json:"by_severity"`
	ByCode     map[string]int `json:"by_code"`
	// Groups are the page's diagnostics, those with the same severity,
	// code, source and message in one group with all their places.
	Groups []DiagnosticGroup `json:"groups"`
	// Filtered counts the less severe diagnostics not counted.
	Filtered int `json:"filtered,omitempty"`
	// Stale is true when the server had not published diagnostics for the
	// file's current content: they may be out of date or missing.
	Stale bool     `json:"stale,omitempty"`
	Notes []string `json:"notes,omitempty"`

	codes []codeCount // every code, the most frequent first
}

// codeCount is how many diagnostics have one code.
type codeCount struct {
	code string
	n    int
}

// DiagnosticGroup is one message and every place on the page it is
// reported at.
type DiagnosticGroup struct {
	Severity string `json:"severity"`
	Code     string `json:"code,omitempty"`
	Source   string `json:"source,omitempty"`
	Message  string `json:"message"`
	// At maps each file to the places in it, each "line:col"; a notebook's
	// cell is a file of its own, "nb.ipynb[cell 3 id=a1b2]", its places in
	// the cell's source.
	At map[string][]string `json:"at"`
}

// severityArg checks lsp's severity argument ("" is warning: errors and
// warnings, as the specification's diagnostics action lists them).
func severityArg(s string) (string, error) {
	if s == "" {
		return "warning", nil
	}
	if _, ok := severityRank[s]; !ok {
		return "", fmt.Errorf("lsp: severity %q is not one of %s: it names the least severe diagnostics shown (warning, the default, shows errors and warnings)", s, strings.Join(diagnosticSeverities, ", "))
	}
	return s, nil
}

// atLeast keeps the diagnostics of ds at severity sev or above and counts
// the others.
func atLeast(ds []lsp.Diagnostic, sev string) (keep []lsp.Diagnostic, other int) {
	limit := severityRank[sev]
	for _, d := range ds {
		r, ok := severityRank[d.Severity]
		if !ok {
			r = 0 // unknown: shown as an error would be
		}
		if r <= limit {
			keep = append(keep, d)
		} else {
			other++
		}
	}
	return keep, other
}

// pageDiagnostics builds the page of ds (sorted; at severity sev or above,
// other less severe not counted) from start.
func pageDiagnostics(file, sev string, ds []lsp.Diagnostic, other, start int) *DiagnosticsPage {
	p := &DiagnosticsPage{File: file, Severity: sev, Total: len(ds), Start: start, Filtered: other,
		BySeverity: map[string]int{}, ByCode: map[string]int{}, Groups: []DiagnosticGroup{}}
	codes := map[string]int{}
	for _, d := range ds {
		p.BySeverity[d.Severity]++
		codes[d.Code]++
	}
	p.codes = make([]codeCount, 0, len(codes))
	for c, n := range codes {
		if c == "" {
			c = "(no code)"
		}
		p.codes = append(p.codes, codeCount{c, n})
	}
	sort.Slice(p.codes, func(i, j int) bool {
		a, b := p.codes[i], p.codes[j]
		if a.n != b.n {
			return a.n > b.n
		}
		return a.code < b.code
	})
	for i, c := range p.codes {
		if i >= maxCodeCounts {
			p.ByCode["(other codes)"] += c.n
			continue
		}
		p.ByCode[c.code] = c.n
	}
	if start >= len(ds) {
		return p
	}
	page := ds[start:min(len(ds), start+DiagnosticsPageSize)]
	size := 0
	seen := map[[4]string]bool{}
	for k, d := range page {
		// a diagnostic alone is "path:line:col: severity: message [source
		// code]"; one more place of a grouped message is " path line:col"
		key := [4]string{d.Severity, d.Code, d.Source, d.Message}
		if seen[key] {
			size += len(d.Path) + 12
		} else {
			seen[key] = true
			size += len(d.Path) + len(d.Severity) + len(d.Message) + len(d.Source) + len(d.Code) + 36
		}
		if k > 0 && size > DiagnosticsPageBytes {
			page = page[:k]
			break
		}
	}
	p.Shown = len(page)
	if start+len(page) < len(ds) {
		p.Next = start + len(page)
	}
	p.Groups = groupDiagnostics(page)
	return p
}

// groupDiagnostics puts diagnostics with the same severity, code, source
// and message in one group, in the order of their first place.
func groupDiagnostics(ds []lsp.Diagnostic) []DiagnosticGroup {
	out := []DiagnosticGroup{}
	index := map[[4]string]int{}
	for _, d := range ds {
		k := [4]string{d.Severity, d.Code, d.Source, d.Message}
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, DiagnosticGroup{Severity: d.Severity, Code: d.Code, Source: d.Source, Message: d.Message, At: map[string][]string{}})
		}
		at := ipynb.Where(d.Path, d.Cell) // a notebook's cell: nb.ipynb[cell 3 id=a1b2]
		out[i].At[at] = append(out[i].At[at], fmt.Sprintf("%d:%d", d.Line, d.Col))
	}
	return out
}

// places counts a group's places.
func (g DiagnosticGroup) places() int {
	n := 0
	for _, ps := range g.At {
		n += len(ps)
	}
	return n
}

// files lists the files of a group's places, sorted.
func (g DiagnosticGroup) files() []string {
	fs := make([]string, 0, len(g.At))
	for f := range g.At {
		fs = append(fs, f)
	}
	sort.Strings(fs)
	return fs
}

// severityWords names the diagnostics a severity keeps.
func severityWords(sev string) string {
	switch sev {
	case "error":
		return "errors"
	case "warning":
		return "errors and warnings"
	case "info":
		return "errors, warnings and infos"
	}
	return "diagnostics"
}

// summary is the page's first line: what was counted, by severity and by
// code: "178 errors and warnings: 178 error(s); by code: reportCallIssue
// 60, ...".
func (p *DiagnosticsPage) summary(what string) string {
	var sevs []string
	for _, s := range diagnosticSeverities {
		if n := p.BySeverity[s]; n > 0 {
			sevs = append(sevs, fmt.Sprintf("%d %s", n, plural1(n, s)))
		}
	}
	line := fmt.Sprintf("%s: %d %s", what, p.Total, severityWords(p.Severity))
	switch {
	case len(sevs) == 1:
		line = what + ": " + sevs[0]
	case len(sevs) > 1:
		line += " (" + strings.Join(sevs, ", ") + ")"
	}
	if len(p.codes) > 1 || len(p.codes) == 1 && p.codes[0].code != "(no code)" {
		var cs []string
		for i, c := range p.codes {
			if i == maxCodeCounts {
				cs = append(cs, fmt.Sprintf("%d more codes", len(p.codes)-i))
				break
			}
			cs = append(cs, fmt.Sprintf("%s %d", c.code, c.n))
		}
		line += "; by code: " + strings.Join(cs, ", ")
	}
	return line
}

// plural1 is word for n == 1, word+"s" otherwise.
func plural1(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// render writes the page as text: the summary, which part is shown, then
// each group: a single diagnostic as "path:line:col: severity: message
// [source code]", a repeated one by its message then its places.
func (p *DiagnosticsPage) render(b *strings.Builder, what string) {
	b.WriteString(p.summary(what) + "\n")
	switch {
	case p.Total == 0:
	case p.Shown == 0:
		fmt.Fprintf(b, "none from start %d: there are %d (start 0 shows the first)\n", p.Start, p.Total)
	case p.Shown < p.Total:
		note := pageNote(p.Start, p.Shown, p.Total)
		if len(p.Groups) < p.Shown {
			shown, next, _ := strings.Cut(note, ";")
			note = shown + ", identical messages grouped;" + next
		}
		b.WriteString(strings.TrimSuffix(note, ";") + "\n")
	case len(p.Groups) < p.Shown:
		b.WriteString("identical messages grouped\n")
	}
	for _, g := range p.Groups {
		b.WriteString(g.text("") + "\n")
	}
	if p.Filtered > 0 {
		fmt.Fprintf(b, "(%d less severe diagnostic(s) not counted: severity %s shows them)\n", p.Filtered, lessSevere(p.Severity))
	}
}

// text renders g, each line after the first indented by indent: a single
// diagnostic as "path:line:col: severity: message [source code]", a
// repeated one as its message, then "at 3 places: a.go 3:1 9:1; b.go 4:2".
func (g DiagnosticGroup) text(indent string) string {
	tag := strings.TrimSpace(g.Source + " " + g.Code)
	if tag != "" {
		tag = " [" + tag + "]"
	}
	files := g.files()
	if g.places() == 1 {
		return fmt.Sprintf("%s:%s: %s: %s%s", files[0], g.At[files[0]][0], g.Severity, g.Message, tag)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s%s\n%s  at %d places:", g.Severity, g.Message, tag, indent, g.places())
	for i, f := range files {
		if i > 0 {
			b.WriteString(";")
		}
		fmt.Fprintf(&b, " %s %s", f, strings.Join(g.At[f], " "))
	}
	return b.String()
}

// groupedLines renders ds with identical messages grouped (see
// DiagnosticGroup.text), each group's lines prefixed with indent.
func groupedLines(ds []lsp.Diagnostic, indent string) []string {
	var out []string
	for _, g := range groupDiagnostics(ds) {
		out = append(out, strings.Split(indent+g.text(indent), "\n")...)
	}
	return out
}

// lessSevere is the severity argument that shows everything.
func lessSevere(sev string) string {
	if sev == "error" {
		return "warning or lower"
	}
	return "hint"
}
