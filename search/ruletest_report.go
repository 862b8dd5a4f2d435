package search

import "bufio"
import "fmt"
import "io"
import "os"
import "path/filepath"
import "sort"
import "strconv"
import "strings"

import udiff "github.com/aymanbagabas/go-udiff"

// RuleTestOutcome is what a rule test run came to.
type RuleTestOutcome int

const (
	// TestsPassed: every test passed.
	TestsPassed RuleTestOutcome = iota
	// TestsFailed: a test failed otherwise than by a snapshot mismatch.
	TestsFailed
	// SnapshotsMismatched: every failing test failed by snapshots only.
	SnapshotsMismatched
)

// ReportRuleTests writes results as ast-grep's `test` prints them: the
// number of tests, the details of each failing case, a line per test
// (PASS, FAIL or SKIP and a character per case) and the summary line. With
// update, every wrong snapshot is accepted (its case becomes CaseUpdated,
// reported as updated) before it is reported. It returns the outcome and
// the summary ("N passed; M failed;").
func ReportRuleTests(w io.Writer, results []RuleTestResult, update bool) (RuleTestOutcome, string, error) {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "Running %d tests\n", len(results))
	var run []RuleTestResult
	for _, r := range results {
		if r.NotFound {
			fmt.Fprintf(bw, "Configuration not found! %s\n", r.ID)
		} else {
			run = append(run, r)
		}
	}
	results = run
	bw.WriteString("\n----------- Case Details -----------\n")
	for i := range results {
		r := &results[i]
		if r.Passed() {
			continue
		}
		for j := range r.Cases {
			c := &r.Cases[j]
			if update && c.Status == CaseWrong {
				c.Status = CaseUpdated
			}
			writeCaseDetail(bw, r.ID, c)
		}
	}
	passed, failed := 0, 0
	for i := range results {
		r := &results[i]
		status := "FAIL"
		switch {
		case len(r.Cases) == 0:
			status = "SKIP"
		case r.Passed():
			status = "PASS"
		}
		if r.Passed() {
			passed++
		} else {
			failed++
		}
		fmt.Fprintf(bw, "%s %s  %s\n", status, r.ID, caseMarks(r.Cases))
	}
	bw.WriteString("\n")
	summary := fmt.Sprintf("%d passed; %d failed;", passed, failed)
	outcome := TestsPassed
	if failed > 0 {
		outcome = SnapshotsMismatched
		for i := range results {
			if !results[i].Passed() && !results[i].SnapshotsOnly() {
				outcome = TestsFailed
			}
		}
	} else {
		fmt.Fprintf(bw, "test result: ok. %s\n", summary)
	}
	return outcome, summary, bw.Flush()
}

// caseMarks is a character per case (., U, W, M, N, E), or counts of each
// for more than 40 cases.
func caseMarks(cs []CaseOutcome) string {
	marks := map[CaseStatus]byte{CaseValidated: '.', CaseReported: '.', CaseUpdated: 'U', CaseWrong: 'W', CaseMissing: 'M', CaseNoisy: 'N', CaseError: 'E'}
	if len(cs) <= 40 {
		b := make([]byte, len(cs))
		for i, c := range cs {
			b[i] = marks[c.Status]
		}
		return string(b)
	}
	counts := map[CaseStatus]int{}
	for _, c := range cs {
		st := c.Status
		if st == CaseReported {
			st = CaseValidated
		}
		counts[st]++
	}
	var parts []string
	for _, x := range []struct {
		st    CaseStatus
		label string
	}{{CaseValidated, "Pass"}, {CaseUpdated, "Updated"}, {CaseWrong, "Wrong"}, {CaseMissing, "Missing"}, {CaseNoisy, "Noisy"}, {CaseError, "Error"}} {
		if counts[x.st] > 0 {
			parts = append(parts, fmt.Sprintf("%s × %d", x.label, counts[x.st]))
		}
	}
	s := strings.Join(parts, ", ")
	// centred in 50 columns of dots, as ast-grep's {:.^50}
	if n := len([]rune(s)); n < 50 {
		left := (50 - n) / 2
		s = strings.Repeat(".", left) + s + strings.Repeat(".", 50-n-left)
	}
	return s
}

func indented(w *bufio.Writer, code string) {
	for _, l := range strings.Split(strings.TrimSuffix(code, "\n"), "\n") {
		fmt.Fprintf(w, "  %s\n", strings.TrimSuffix(l, "\r"))
	}
}

func writeCaseDetail(w *bufio.Writer, id string, c *CaseOutcome) {
	switch c.Status {
	case CaseUpdated:
		fmt.Fprintf(w, "[Updated] Rule %s's snapshot baseline has been updated.\n\n", id)
		indented(w, c.Source)
		w.WriteString("\n")
	case CaseWrong:
		if c.Expected != nil {
			fmt.Fprintf(w, "[Wrong] %s snapshot is different from baseline.\nDiff:\n", id)
			writeLineDiff(w, snapshotYAML(c.Expected), snapshotYAML(c.Actual))
		} else {
			fmt.Fprintf(w, "[Wrong] No %s baseline found.\nGenerated Snapshot:\n", id)
			indented(w, snapshotYAML(c.Actual))
		}
		w.WriteString("For Code:\n")
		indented(w, c.Source)
		w.WriteString("\n")
	case CaseMissing:
		fmt.Fprintf(w, "[Missing] Expect rule %s to report issues, but none found in:\n\n", id)
		indented(w, c.Source)
		w.WriteString("\n")
	case CaseNoisy:
		fmt.Fprintf(w, "[Noisy] Expect %s to report no issue, but some issues found in:\n\n", id)
		indented(w, c.Source)
		w.WriteString("\n")
	case CaseError:
		fmt.Fprintf(w, "[Error] Fail to apply fix to %s\n", id)
	}
}

// writeLineDiff writes the line diff of two texts with three lines of
// context, each line with its old and new line numbers, as ast-grep's
// test prints a snapshot's.
func writeLineDiff(w *bufio.Writer, old, nw string) {
	edits := udiff.Lines(old, nw)
	d, err := udiff.ToUnifiedDiff("", "", old, edits, 3)
	if err != nil {
		fmt.Fprintf(w, "(no diff: %v)\n", err)
		return
	}
	width := len(strconv.Itoa(max(strings.Count(old, "\n"), strings.Count(nw, "\n")) + 1))
	for _, h := range d.Hunks {
		var o, n int
		for _, l := range h.Lines {
			if l.Kind != udiff.Insert {
				o++
			}
			if l.Kind != udiff.Delete {
				n++
			}
		}
		fmt.Fprintf(w, "@@ -%d,%d +%d,%d @@\n", h.FromLine-1, o, h.ToLine-1, n)
		ol, nl := h.FromLine, h.ToLine
		for _, l := range h.Lines {
			text := strings.TrimSuffix(l.Content, "\n")
			switch l.Kind {
			case udiff.Delete:
				fmt.Fprintf(w, "%*d %*s│-%s\n", width, ol, width, "", text)
				ol++
			case udiff.Insert:
				fmt.Fprintf(w, "%*s %*d│+%s\n", width, "", width, nl, text)
				nl++
			default:
				fmt.Fprintf(w, "%*d %*d│ %s\n", width, ol, width, nl, text)
				ol++
				nl++
			}
		}
	}
}

// WriteSnapshots writes the snapshot file of each result with an updated
// case: the snapshots read (t.Snapshots) with the updated ones merged in,
// to <snapshotDir>/<id>-snapshot.yml, the directory made when missing.
func WriteSnapshots(t *RuleTests, results []RuleTestResult) error {
	for _, r := range results {
		ts := t.Snapshots[r.ID]
		changed := false
		for _, c := range r.Cases {
			if c.Status != CaseUpdated || c.Actual == nil {
				continue
			}
			if ts == nil {
				ts = &TestSnapshots{ID: r.ID, Snapshots: map[string]TestSnapshot{}}
				t.Snapshots[r.ID] = ts
			}
			if ts.Snapshots == nil {
				ts.Snapshots = map[string]TestSnapshot{}
			}
			ts.Snapshots[c.Source] = *c.Actual
			changed = true
		}
		if !changed {
			continue
		}
		if err := os.MkdirAll(r.SnapshotDir, 0o755); err != nil {
			return fmt.Errorf("search: snapshot directory: %w", err)
		}
		p := filepath.Join(r.SnapshotDir, r.ID+"-snapshot.yml")
		if err := os.WriteFile(p, []byte(snapshotsYAML(ts)), 0o644); err != nil {
			return fmt.Errorf("search: snapshot: %w", err)
		}
	}
	return nil
}

// snapshotsYAML is a snapshot file's text, keys of the snapshots sorted,
// in the YAML style ast-grep writes.
func snapshotsYAML(ts *TestSnapshots) string {
	var b strings.Builder
	fmt.Fprintf(&b, "id: %s\nsnapshots:\n", yamlScalar(ts.ID, 2))
	keys := make([]string, 0, len(ts.Snapshots))
	for k := range ts.Snapshots {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		s := ts.Snapshots[k]
		fmt.Fprintf(&b, "  %s:\n", yamlKey(k))
		writeSnapshotBody(&b, &s, "    ")
	}
	return b.String()
}

// snapshotYAML is one snapshot's text, as the report shows it.
func snapshotYAML(s *TestSnapshot) string {
	var b strings.Builder
	writeSnapshotBody(&b, s, "")
	return b.String()
}

func writeSnapshotBody(b *strings.Builder, s *TestSnapshot, ind string) {
	if s.Fixed != nil {
		fmt.Fprintf(b, "%sfixed: %s\n", ind, yamlScalar(*s.Fixed, len(ind)+2))
	}
	if len(s.Labels) == 0 {
		fmt.Fprintf(b, "%slabels: []\n", ind)
		return
	}
	fmt.Fprintf(b, "%slabels:\n", ind)
	for _, l := range s.Labels {
		fmt.Fprintf(b, "%s- source: %s\n", ind, yamlScalar(l.Source, len(ind)+4))
		if l.Message != nil {
			fmt.Fprintf(b, "%s  message: %s\n", ind, yamlScalar(*l.Message, len(ind)+4))
		}
		fmt.Fprintf(b, "%s  style: %s\n%s  start: %d\n%s  end: %d\n", ind, l.Style, ind, l.Start, ind, l.End)
	}
}

// yamlKey is s as a mapping key: plain when that reads back as s, else
// double-quoted.
func yamlKey(s string) string {
	if plainOK(s, true) {
		return s
	}
	return yamlQuote(s)
}

// yamlQuote is s double-quoted, with YAML's escapes for the line and
// paragraph separators.
func yamlQuote(s string) string {
	q := strconv.Quote(s)
	return strings.NewReplacer(`\u2028`, `\L`, `\u2029`, `\P`, `\u0085`, `\N`).Replace(q)
}

// yamlScalar is s as a mapping value at indentation ind: a literal block
// for text of several lines, else plain when that reads back as s, else
// quoted.
func yamlScalar(s string, ind int) string {
	if !strings.Contains(s, "\n") || strings.Contains(s, "\r") || strings.TrimLeft(s, " ") != s {
		switch {
		case plainOK(s, false):
			return s
		case s == "-":
			return "'-'"
		}
		return yamlQuote(s)
	}
	head := "|-"
	body := s
	if strings.HasSuffix(s, "\n") {
		head = "|"
		body = strings.TrimSuffix(s, "\n")
		if strings.HasSuffix(body, "\n") {
			head = "|+"
		}
	}
	pad := strings.Repeat(" ", ind)
	var b strings.Builder
	b.WriteString(head)
	for _, l := range strings.Split(body, "\n") {
		// blank lines are indented too, as ast-grep writes them
		b.WriteString("\n" + pad + l)
	}
	return b.String()
}

// plainOK reports whether s may be written as a plain YAML scalar and read
// back as the same string, in the style ast-grep's snapshots have: not
// empty, no leading indicator or surrounding space, no ": ", " #" or
// control characters, not a null, boolean, number or special token, and
// as a key no flow indicator or colon at all.
func plainOK(s string, key bool) bool {
	if s == "" || strings.TrimSpace(s) != s || strings.ContainsAny(s[:1], "-?:,[]{}#&*!|>'\"%@`") {
		return false
	}
	if strings.Contains(s, ": ") || strings.Contains(s, " #") || strings.HasSuffix(s, ":") || strings.ContainsAny(s, "\n\r\t\u2028\u2029\u0085") {
		return false
	}
	if key && strings.ContainsAny(s, "{}[],:") {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	switch strings.ToLower(s) {
	case "~", "null", "true", "false", "yes", "no", "on", "off", "y", "n", "<<", "=", ".inf", "-.inf", "+.inf", ".nan":
		return false
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return false
	}
	if _, err := strconv.ParseInt(s, 0, 64); err == nil {
		return false
	}
	return true
}
