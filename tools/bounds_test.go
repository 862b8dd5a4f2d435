package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tetherhq/tether/tools"
)

// shapedCall calls tool name of r and returns its text and the JSON of its
// structured part, failing the test when the structured part is more than
// 1.5 times the text or holds a null list.
func shapedCall(t *testing.T, r *tools.Run, name string, args any) (string, []byte) {
	t.Helper()
	b, _ := json.Marshal(args)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := r.Call(ctx, name, b, tools.FromModel)
	if err != nil {
		t.Fatalf("%s %s: %v", name, b, err)
	}
	text := res.AllText()
	if res.Structured == nil {
		return text, nil
	}
	st, err := json.Marshal(res.Structured)
	if err != nil {
		t.Fatal(err)
	}
	if float64(len(st)) > 1.5*float64(len(text)) {
		t.Errorf("%s %s: structured part %d bytes, text %d: more than 1.5x\n%s\n%s", name, b, len(st), len(text), text, st)
	}
	if strings.Contains(string(st), ":null") {
		t.Errorf("%s %s: structured part holds null, not []:\n%s", name, b, st)
	}
	return text, st
}

// pyErrorModule is a Python module with 3n errors pyright reports: n
// identical assignment errors, n identical missing-argument errors and n
// attribute errors each naming another attribute, then two warnings
// (expressions whose value is unused).
func pyErrorModule(n int) string {
	var b strings.Builder
	b.WriteString("def need(x: int) -> int:\n    return x\n\n\nclass Box:\n    pass\n\n\n")
	for i := range n {
		fmt.Fprintf(&b, "a%d: int = \"s\"\nb%d = need()\nc%d = Box().nope%d\n", i, i, i, i)
	}
	b.WriteString("a0 == 1\na1 == 2\n")
	return b.String()
}

// TestLSPDiagnosticsPaged: a file's diagnostics from pyright come 100 at a
// time with counts by code, identical messages grouped with their places,
// start paging on, severity narrowing; the structured part follows the text
// (before: every diagnostic, 40 KB of text and 60 KB structured for 178).
func TestLSPDiagnosticsPaged(t *testing.T) {
	r, _ := projectRun(t, "pyright-langserver", map[string]string{
		"pyproject.toml": "[project]\nname = \"p\"\n",
		"core.py":        pyErrorModule(45), // 135 errors, 2 warnings
	})
	text, st := shapedCall(t, r, "lsp", map[string]any{"action": "diagnostics", "file": "core.py"})
	for _, want := range []string{
		"core.py: 137 errors and warnings (135 errors, 2 warnings); by code: ",
		"reportAssignmentType 45", "reportCallIssue 45", "reportAttributeAccessIssue 45",
		"1-100 of 137 shown, identical messages grouped; pass start 100 for the next",
		"error: Argument missing for parameter \"x\" [Pyright reportCallIssue]\n  at ",
	} {
		if !strings.Contains(text, want) {
			t.Fatalf("first page lacks %q:\n%s", want, text)
		}
	}
	if n := strings.Count(text, "Argument missing for parameter"); n != 1 {
		t.Fatalf("the same message is listed %d times, want once with its places:\n%s", n, text)
	}
	var page tools.DiagnosticsPage
	if err := json.Unmarshal(st, &page); err != nil {
		t.Fatal(err)
	}
	if page.Total != 137 || page.Shown != 100 || page.Next != 100 || len(page.Groups) >= 100 || page.BySeverity["warning"] != 2 {
		t.Fatalf("structured page: total %d shown %d next %d groups %d by severity %v", page.Total, page.Shown, page.Next, len(page.Groups), page.BySeverity)
	}

	text, _ = shapedCall(t, r, "lsp", map[string]any{"action": "diagnostics", "file": "core.py", "start": 100})
	if !strings.Contains(text, "101-137 of 137 shown") || strings.Contains(text, "pass start") || !strings.Contains(text, "Expression value is unused") {
		t.Fatalf("second page:\n%s", text)
	}

	text, _ = shapedCall(t, r, "lsp", map[string]any{"action": "diagnostics", "file": "core.py", "severity": "error", "start": 100})
	if !strings.Contains(text, "core.py: 135 errors; by code: ") || !strings.Contains(text, "101-135 of 135 shown") ||
		strings.Contains(text, "Expression value is unused") || !strings.Contains(text, "(2 less severe diagnostic(s) not counted: severity warning or lower shows them)") {
		t.Fatalf("errors only, second page:\n%s", text)
	}

	text, _ = shapedCall(t, r, "lsp", map[string]any{"action": "diagnostics", "file": "core.py", "start": 500})
	if !strings.Contains(text, "none from start 500: there are 137 (start 0 shows the first)") {
		t.Fatalf("past the end:\n%s", text)
	}

	if _, err := lspCall(t, r, "lsp", map[string]any{"action": "diagnostics", "file": "core.py", "severity": "fatal"}); err == nil ||
		!strings.Contains(err.Error(), "error") || !strings.Contains(err.Error(), "hint") {
		t.Fatalf("an unknown severity: %v", err)
	}
}

// TestLSPDiagnosticsGroupedGo: gopls's "not enough arguments" with its
// have/want lines, repeated on 12 lines, is one message with 12 places.
func TestLSPDiagnosticsGroupedGo(t *testing.T) {
	var b strings.Builder
	b.WriteString("package p\n\nfunc need(n int) int { return n }\n\nvar (\n")
	for i := range 12 {
		fmt.Fprintf(&b, "\tv%d = need()\n", i)
	}
	b.WriteString(")\n")
	r, _ := projectRun(t, "gopls", map[string]string{"go.mod": goMod, "calls.go": b.String()})
	text, _ := shapedCall(t, r, "lsp", map[string]any{"action": "diagnostics", "file": "calls.go"})
	if !strings.Contains(text, "calls.go: 12 errors") || strings.Count(text, "not enough arguments in call to need") != 1 ||
		!regexp.MustCompile(`at 12 places: calls.go 6:\d+ 7:\d+ `).MatchString(text) {
		t.Fatalf("12 identical errors:\n%s", text)
	}
}

// TestLSPCheckPaged: diagnostics "*" keeps every finding of pyright's
// command line (it stopped at 200 and could not page), counts them by code
// (pyright's rule, moved out of the message), and pages them.
func TestLSPCheckPaged(t *testing.T) {
	files := map[string]string{"pyproject.toml": "[project]\nname = \"p\"\n"}
	for i := range 3 {
		files[fmt.Sprintf("m%d.py", i)] = pyErrorModule(25) // 75 errors, 2 warnings each
	}
	r, _ := projectRun(t, "pyright", files)
	text, st := shapedCall(t, r, "lsp", map[string]any{"action": "diagnostics", "file": "*", "severity": "error", "start": 200})
	for _, want := range []string{
		"findings: 225 errors; by code: reportAssignmentType 75, reportAttributeAccessIssue 75, reportCallIssue 75",
		"201-225 of 225 shown",
		"(6 less severe diagnostic(s) not counted: severity warning or lower shows them)",
	} {
		if !strings.Contains(text, want) {
			t.Fatalf("diagnostics \"*\" lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "(reportCallIssue)") {
		t.Fatalf("the rule stayed in the message:\n%s", text)
	}
	var page tools.CheckPage
	if err := json.Unmarshal(st, &page); err != nil || page.Total != 225 || page.Shown != 25 || len(page.Ran) != 1 {
		t.Fatalf("structured: %v %+v", err, page)
	}
}

// TestLSPResolveCleanFilesOneLine: resolve over four files gopls finds
// clean says so in one line, not one per file; the file it broke is
// listed, its identical errors once with their places.
func TestLSPResolveCleanFilesOneLine(t *testing.T) {
	files := map[string]string{"go.mod": goMod, "lib.go": "package p\n\nvar V = 1\n\nfunc Need(n int) int { return 0 }\n"}
	for i := range 4 {
		files[fmt.Sprintf("c%d.go", i)] = fmt.Sprintf("package p\n\nvar C%d = Need(V) + Need(V)\n", i)
	}
	r, _ := projectRun(t, "gopls", files)
	out, err := lspCall(t, r, "ast_edit", map[string]any{"pattern": "Need($X)", "rewrite": "Need($X + 0)", "language": "go", "path": "."})
	if err != nil || !strings.Contains(out, "edit_1") {
		t.Fatalf("ast_edit: %v\n%s", err, out)
	}
	out, err = lspCall(t, r, "resolve", map[string]any{"edit_id": "edit_1", "action": "accept"})
	if err != nil || !strings.Contains(out, "lsp: 4 files clean (no errors or warnings)") || strings.Contains(out, "c0.go: no errors") {
		t.Fatalf("resolve accept of four clean files: %v\n%s", err, out)
	}
	out, err = lspCall(t, r, "edit", map[string]any{"path": "lib.go", "old_string": "n int", "new_string": "n string"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "lsp: lib.go: no errors or warnings") || strings.Count(out, "error: cannot use") != 1 ||
		!regexp.MustCompile(`at 8 places: c0.go 3:\d+ 3:\d+; c1.go 3:\d+ 3:\d+; c2.go`).MatchString(out) {
		t.Fatalf("a signature change breaking eight calls in four files:\n%s", out)
	}
}
