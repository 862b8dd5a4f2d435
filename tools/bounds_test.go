package tools_test

import "bytes"
import "context"
import "encoding/json"
import "fmt"
import "os"
import "path/filepath"
import "regexp"
import "strconv"
import "strings"
import "sync"
import "testing"
import "time"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/matcher"
import "github.com/tetherhq/tether/tools"

// shapedCall calls tool name of r and returns its text and the JSON of its
// structured part, failing the test when the structured part is more than
// 1.5 times the text (past StructuredFloor) or holds a null list. The
// tool's own shape must fit: the registry's safety net, which drops a
// structured part too large, fails it too.
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
	if !tools.StructuredFits(len(text), len(st)) || strings.Contains(string(st), `"omitted":`) {
		t.Errorf("%s %s: structured part %d bytes, text %d: more than 1.5x (or %d bytes for a short text)\n%s\n%s", name, b, len(st), len(text), tools.StructuredFloor, text, st)
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

// TestLSPDiagnosticsPaged: a file's diagnostics from pyright come at most
// 100 and under 8 KB at a time with counts by code, identical messages grouped with their places,
// start paging on, severity narrowing; the structured part follows the text
// (before: every diagnostic, 40 KB of text and 60 KB structured for 178).
func TestLSPDiagnosticsPaged(t *testing.T) {
	r, _ := projectRun(t, "pyright-langserver", map[string]string{
		"pyproject.toml": "[project]\nname = \"p\"\n",
		"core.py":        pyErrorModule(45), // 135 errors, 2 warnings
	})
	text, st := shapedCall(t, r, "lsp", map[string]any{"action": "diagnostics", "file": "core.py"})
	if !testenv.WantAll(t, "first page", text,
		"core.py: 137 errors and warnings (135 errors, 2 warnings); by code: ",
		"reportAssignmentType 45", "reportCallIssue 45", "reportAttributeAccessIssue 45",
		"of 137 shown, identical messages grouped; pass start ",
		"error: Argument missing for parameter \"x\" [Pyright reportCallIssue]\n  at ",
	) {
		t.FailNow()
	}
	if n := strings.Count(text, "Argument missing for parameter"); n != 1 {
		t.Fatalf("the same message is listed %d times, want once with its places:\n%s", n, text)
	}
	var page tools.DiagnosticsPage
	if err := json.Unmarshal(st, &page); err != nil {
		t.Fatal(err)
	}
	if page.Total != 137 || page.Shown < 40 || page.Next != page.Shown || len(page.Groups) >= page.Shown || page.BySeverity["warning"] != 2 {
		t.Fatalf("structured page: total %d shown %d next %d groups %d by severity %v", page.Total, page.Shown, page.Next, len(page.Groups), page.BySeverity)
	}
	if len(text) > 8<<10 {
		t.Errorf("first page is %d bytes, more than 8 KB", len(text))
	}
	// start pages on to the last diagnostic, each page under 8 KB
	seen := page.Shown
	for start := page.Next; start != 0; {
		text, st = shapedCall(t, r, "lsp", map[string]any{"action": "diagnostics", "file": "core.py", "start": start})
		var pg tools.DiagnosticsPage
		if err := json.Unmarshal(st, &pg); err != nil {
			t.Fatal(err)
		}
		if len(text) > 8<<10 || pg.Shown == 0 || !strings.Contains(text, fmt.Sprintf("%d-%d of 137 shown", start+1, start+pg.Shown)) {
			t.Fatalf("page from %d (%d bytes):\n%s", start, len(text), text)
		}
		if pg.Next != 0 && !strings.Contains(text, fmt.Sprintf("pass start %d for the next", pg.Next)) {
			t.Fatalf("page from %d does not say where the next starts:\n%s", start, text)
		}
		seen += pg.Shown
		start = pg.Next
	}
	if seen != 137 || !strings.Contains(text, "Expression value is unused") {
		t.Fatalf("paging showed %d of 137; last page:\n%s", seen, text)
	}

	text, _ = shapedCall(t, r, "lsp", map[string]any{"action": "diagnostics", "file": "core.py", "severity": "error", "start": 130})
	if !strings.Contains(text, "core.py: 135 errors; by code: ") || !strings.Contains(text, "131-135 of 135 shown") ||
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
	if !testenv.WantAll(t, "diagnostics \"*\"", text,
		"findings: 225 errors; by code: reportAssignmentType 75, reportAttributeAccessIssue 75, reportCallIssue 75",
		"201-225 of 225 shown",
		"(6 less severe diagnostic(s) not counted: severity warning or lower shows them)",
	) {
		t.FailNow()
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
	out = lspText(t, r, "edit", map[string]any{"path": "lib.go", "old_string": "n int", "new_string": "n string"})
	if !strings.Contains(out, "lsp: lib.go: no errors or warnings") || strings.Count(out, "error: cannot use") != 1 ||
		!regexp.MustCompile(`at 8 places: c0.go 3:\d+ 3:\d+; c1.go 3:\d+ 3:\d+; c2.go`).MatchString(out) {
		t.Fatalf("a signature change breaking eight calls in four files:\n%s", out)
	}
}

// TestAstGrepStartPages: start pages through the matches past max_results,
// in the same order; the count of the matches shown is given once, with
// the start of the next page (before: no start, and "N of M shown" twice).
func TestAstGrepStartPages(t *testing.T) {
	r, _ := structuralRun(t, tools.SurfaceDefault, map[string]string{"a.go": longFuncs(12), "b.go": longFuncs(3)})
	const pattern = `"pattern":"func $F($$$A) int { $$$B }","language":"go","max_results":5`
	var all []string
	for start := 0; start < 15; start += 5 {
		text, st := shapedCall(t, r, "ast_grep", json.RawMessage(fmt.Sprintf(`{%s,"start":%d}`, pattern, start)))
		var res tools.AstGrepResult
		if err := json.Unmarshal(st, &res); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("%d-%d of 15 matches shown", start+1, start+5)
		if start == 0 {
			want = "5 of 15 matches shown"
		}
		if start < 10 {
			want += fmt.Sprintf(" (raise max_results or narrow the path for more; start %d shows the next)", start+5)
		}
		if !strings.HasPrefix(text, want) || strings.Count(text, "of 15 matches shown") != 1 || len(res.Matches) != 5 || res.Total != 15 {
			t.Fatalf("start %d: want %q once, 5 matches:\n%s", start, want, text)
		}
		for _, m := range res.Matches {
			all = append(all, m.File+":"+m.Captures["$F"])
		}
	}
	if len(all) != 15 || all[0] != "a.go:f0" || all[11] != "a.go:f11" || all[12] != "b.go:f0" || all[14] != "b.go:f2" {
		t.Fatalf("the pages together: %v", all)
	}
	text, _ := shapedCall(t, r, "ast_grep", json.RawMessage(`{`+pattern+`,"start":40}`))
	if !strings.HasPrefix(text, "no matches from start 40: there are 15 (start 0 shows the first)") {
		t.Fatalf("start past the end:\n%s", text)
	}
	if _, err := call(t, r, "ast_grep", `{`+pattern+`,"start":-1}`); err == nil {
		t.Fatal("a negative start was accepted")
	}
}

// TestAstGrepMultiLineCaptureCounted: in output "lines" a $$$ capture of
// more than one line is shown as its line count and range, not its text
// (50 whole functions took 17.4 KB, most of it the bodies on one line);
// output "captures" still shows the text.
func TestAstGrepMultiLineCaptureCounted(t *testing.T) {
	r, _ := structuralRun(t, tools.SurfaceDefault, map[string]string{"a.go": longFuncs(2)})
	const pattern = `"pattern":"func $F($$$A) int { $$$B }","language":"go"`
	text, st := shapedCall(t, r, "ast_grep", json.RawMessage(`{`+pattern+`}`))
	if !strings.Contains(text, "  $$$B = (9 lines, 4-12)\n") || !strings.Contains(text, "  $$$A = a int\n") || strings.Contains(text, "step 3 of function 0") ||
		!strings.Contains(text, `note: 2 $$$ captures of more than one line shown by their line count: output "captures" shows their text`) {
		t.Fatalf("output lines:\n%s", text)
	}
	if !strings.Contains(string(st), `"$$$B":"(9 lines, 4-12)"`) {
		t.Fatalf("structured:\n%s", st)
	}
	text, _ = shapedCall(t, r, "ast_grep", json.RawMessage(`{`+pattern+`,"output":"captures"}`))
	if !strings.Contains(text, "$$$B = a = a*2 + 0 // step 0 of function 0") {
		t.Fatalf("output captures:\n%s", text)
	}
}

// warmGate holds every parse of a source holding "WARMGATE" until its
// context is cancelled: the warm-up parses those files, queries elsewhere
// never do, so the warm-up stays under way for as long as the test needs.
type warmGate struct {
	p       matcher.Parser
	once    sync.Once
	entered chan struct{}
}

func (g *warmGate) Parse(ctx context.Context, lang *grammars.Language, src []byte) (*engine.Tree, error) {
	if bytes.Contains(src, []byte("WARMGATE")) {
		g.once.Do(func() { close(g.entered) })
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return g.p.Parse(ctx, lang, src)
}

// TestAstGrepWarmUpNotedOnce: the note that the structural index is still
// being built comes with the first answer during the warm-up, not with
// every one; the structured part keeps the progress each time.
func TestAstGrepWarmUpNotedOnce(t *testing.T) {
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{
		"q/a.go":      "package q\n\nfunc f() { mu.Lock() }\n",
		"slow/w.go":   "package slow // WARMGATE\n",
		"slow/x/y.go": "package x // WARMGATE\n",
	})
	gate := &warmGate{p: parseEngine(t), entered: make(chan struct{})}
	r, err := tools.NewRun(context.Background(), tools.Config{WorkDir: dir, Policy: tools.PolicyOf(tools.Allow), Search: tools.SearchConfig{Parser: gate, WarmUp: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	<-gate.entered
	for i, wantNote := range []bool{true, false, false} {
		res := callResult(t, r, "ast_grep", `{"pattern":"$M.Lock()","language":"go","path":"q"}`)
		st, _ := res.Structured.(*tools.AstGrepResult)
		if st == nil || !strings.HasPrefix(st.Index, "structural index: ") {
			t.Fatalf("call %d: structured index while warming up: %+v", i, st)
		}
		if got := strings.Contains(res.AllText(), "note: structural index: "); got != wantNote {
			t.Fatalf("call %d: warm-up note given %v, want %v:\n%s", i, got, wantNote, res.AllText())
		}
	}
}

// printFiles are n Go files, each with k fmt.Println calls far enough
// apart to get a diff hunk each.
func printFiles(n, k int) map[string]string {
	files := map[string]string{}
	for f := range n {
		var b strings.Builder
		b.WriteString("package p\n\nimport \"fmt\"\n")
		for i := range k {
			fmt.Fprintf(&b, "\nfunc P%d_%d(v int) {\n\tw := v * 2\n\tw++\n\tfmt.Println(\"value\", v, w)\n\tw--\n\t_ = w\n}\n", f, i)
		}
		files[fmt.Sprintf("p%02d.go", f)] = b.String()
	}
	return files
}

// TestAstEditDiffPages: ast_edit lists every file of the edit with its
// counts however long the diff, and resolve's show action reads the diff
// page by page, or one file's, writing nothing (before: the preview was cut
// at 400 lines and the files past it could not be reviewed).
func TestAstEditDiffPages(t *testing.T) {
	r, dir := structuralRun(t, tools.SurfaceDefault, printFiles(22, 7))
	text, st := shapedCall(t, r, "ast_edit", map[string]any{"pattern": "fmt.Println($$$A)", "rewrite": "fmt.Print($$$A)", "language": "go"})
	var d tools.StagedDiff
	if err := json.Unmarshal(st, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Files) != 22 || d.Replacements != 154 || d.Shown == 0 || d.Next != d.Shown || d.Lines <= d.Shown {
		t.Fatalf("structured: %+v", d)
	}
	for _, want := range []string{
		"22 files: p00.go 7 (+7 -7), p01.go 7 (+7 -7),", ", p21.go 7 (+7 -7)\n",
		fmt.Sprintf("diff: lines 1-%d of %d (p00.go to p", d.Shown, d.Lines),
		fmt.Sprintf(`resolve with edit_id "edit_1", action "show" and start %d shows the next page, with file one file's diff`, d.Next),
	} {
		if !strings.Contains(text, want) {
			t.Fatalf("ast_edit lacks %q:\n%s", want, text[:min(len(text), 2000)])
		}
	}
	if len(text) > 8<<10 {
		t.Errorf("ast_edit's preview is %d bytes, more than 8 KB", len(text))
	}
	// start pages through every line, each page under 8 KB
	var seen []string
	for start := 0; start < d.Lines; {
		res := callResult(t, r, "resolve", map[string]any{"edit_id": "edit_1", "action": "show", "start": start})
		text := res.AllText()
		// the page's own lines: "lines 1-112 of 1430"
		m := regexp.MustCompile(`lines (\d+)-(\d+) of (\d+)`).FindStringSubmatch(text)
		if len(text) > 8<<10 || m == nil || m[1] != strconv.Itoa(start+1) || m[3] != strconv.Itoa(d.Lines) {
			t.Fatalf("show from %d (%d bytes):\n%s", start, len(text), text[:min(len(text), 1000)])
		}
		last, _ := strconv.Atoi(m[2])
		next := regexp.MustCompile(`start (\d+) shows the next page`).FindStringSubmatch(text)
		for _, l := range strings.Split(text, "\n") {
			if strings.HasPrefix(l, "+++ b/") {
				seen = append(seen, strings.TrimPrefix(l, "+++ b/"))
			}
		}
		if last < d.Lines && (next == nil || next[1] != strconv.Itoa(last)) {
			t.Fatalf("show from %d to %d does not say that start %d shows the next page:\n%s", start, last, last, text[:min(len(text), 1000)])
		}
		start = last
	}
	if len(seen) != 22 || seen[21] != "p21.go" {
		t.Fatalf("the pages together show the diffs of %v", seen)
	}
	text, _ = shapedCall(t, r, "resolve", map[string]any{"edit_id": "edit_1", "action": "show", "file": "p21.go"})
	if strings.Count(text, "+\tfmt.Print(\"value\", v, w)") != 7 || strings.Contains(text, "+++ b/p20.go") || strings.Contains(text, "lines 1-") {
		t.Fatalf("show p21.go:\n%s", text)
	}
	for _, bad := range []map[string]any{
		{"edit_id": "edit_1", "action": "show", "file": "nope.go"},
		{"edit_id": "edit_1", "action": "show", "start": 100000},
		{"edit_id": "edit_1", "action": "accept", "start": d.Next},
		{"edit_id": "edit_9", "action": "show"},
	} {
		if _, err := call(t, r, "resolve", bad); err == nil {
			t.Fatalf("resolve %v was accepted", bad)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "p21.go")); strings.Contains(string(b), "fmt.Print(") {
		t.Fatal("show wrote the file")
	}
}

// TestLSPSymbolsCappedAndGrouped: gopls stops a workspace search at 100;
// the answer says the server capped it, also past the end ("there are
// 100" was wrong), and names the package once, not on every symbol.
func TestLSPSymbolsCappedAndGrouped(t *testing.T) {
	var b strings.Builder
	b.WriteString("package p\n")
	for i := range 130 {
		fmt.Fprintf(&b, "\nfunc Sym%03d() int { return %d }\n", i, i)
	}
	r, _ := projectRun(t, "gopls", map[string]string{"go.mod": goMod, "syms.go": b.String()})
	text, st := shapedCall(t, r, "lsp", map[string]any{"action": "symbols", "query": "Sym"})
	if !strings.HasPrefix(text, "100 symbols (the server returned 100, its own cap: there may be more matches; narrow the query)\nin example.com/p:\n  function Sym") ||
		strings.Count(text, "example.com/p") != 1 {
		t.Fatalf("capped search:\n%s", text[:min(len(text), 600)])
	}
	var page tools.SymbolsPage
	if err := json.Unmarshal(st, &page); err != nil || !page.Capped || page.Total != 100 || len(page.Groups) != 1 || len(page.Groups[0].ByKind["function"]) != 100 {
		t.Fatalf("structured: %v %+v", err, page)
	}
	text, _ = shapedCall(t, r, "lsp", map[string]any{"action": "symbols", "query": "Sym", "start": 100})
	if !strings.Contains(text, "no symbols from start 100: the server returned 100, its own cap: there may be more matches; narrow the query") || strings.Contains(text, "there are 100") {
		t.Fatalf("past the capped list:\n%s", text)
	}
}

// TestLSPOutlineLeavesOutLocals: pyright lists every parameter and local
// of a function among a file's symbols; the outline leaves them out and
// counts them unless locals is true.
func TestLSPOutlineLeavesOutLocals(t *testing.T) {
	var b strings.Builder
	for i := range 20 {
		fmt.Fprintf(&b, "def func%d(alpha: int, beta: int) -> int:\n    one = alpha + 1\n    two = beta + 2\n    return one + two\n\n\n", i)
	}
	b.WriteString("class Box:\n    size: int = 0\n\n    def grow(self, by: int) -> None:\n        more = by\n        self.size += more\n")
	r, _ := projectRun(t, "pyright-langserver", map[string]string{"pyproject.toml": "[project]\nname = \"p\"\n", "outline.py": b.String()})
	text, st := shapedCall(t, r, "lsp", map[string]any{"action": "symbols", "file": "outline.py"})
	if !strings.Contains(text, "function func19  outline.py:") || !strings.Contains(text, "class Box") || !strings.Contains(text, "  method grow") ||
		strings.Contains(text, "variable alpha") || strings.Contains(text, "variable more") || !regexp.MustCompile(`\((8\d) parameters and locals of functions left out: locals true lists them\)`).MatchString(text) {
		t.Fatalf("outline:\n%s", text)
	}
	var page tools.SymbolsPage
	if err := json.Unmarshal(st, &page); err != nil || page.File != "outline.py" || page.Locals < 80 || len(page.Outline) != 21 {
		t.Fatalf("structured: %v %+v", err, page)
	}
	text, _ = shapedCall(t, r, "lsp", map[string]any{"action": "symbols", "file": "outline.py", "locals": true})
	if !strings.Contains(text, "  variable alpha  outline.py:1:") || !strings.Contains(text, "    variable more  outline.py:") || strings.Contains(text, "left out") {
		t.Fatalf("outline with locals:\n%s", text)
	}
}

// TestLSPEmptyListsNotNull: answers with nothing in them have [] in their
// structured part, never null (a clean file's diagnostics, the
// implementations of a position with none).
func TestLSPEmptyListsNotNull(t *testing.T) {
	r, _ := projectRun(t, "gopls", map[string]string{"go.mod": goMod, "a.go": "package p\n\n// F is unused.\nfunc F() int { return 1 }\n"})
	for _, args := range []map[string]any{
		{"action": "diagnostics", "file": "a.go"},
		{"action": "implementation", "file": "a.go", "line": 4, "symbol": "int"},
	} {
		_, st := shapedCall(t, r, "lsp", args) // fails on a null
		if !strings.Contains(string(st), "[]") {
			t.Errorf("%v: no empty list in %s", args, st)
		}
	}
}

// TestFileChangesJSON: the files a write changed are listed by action in
// JSON, near the size of the text naming them (one object per file cost
// 4.5x the text), and read back the same.
func TestFileChangesJSON(t *testing.T) {
	in := tools.FileChanges{Changed: []tools.FileChange{{Path: "a.go", Action: "updated"}, {Path: "n.go", Action: "created", MovedFrom: "o.go"}, {Path: "d.go", Action: "deleted"}}}
	b, err := json.Marshal(in)
	if err != nil || string(b) != `{"created":["n.go"],"updated":["a.go"],"deleted":["d.go"],"moved":{"n.go":"o.go"}}` {
		t.Fatalf("%v %s", err, b)
	}
	var out tools.FileChanges
	if err := json.Unmarshal(b, &out); err != nil || len(out.Changed) != 3 || out.Changed[0] != in.Changed[1] || out.Changed[1] != in.Changed[0] || out.Changed[2] != in.Changed[2] {
		t.Fatalf("%v %+v", err, out)
	}
	r, _ := structuralRun(t, tools.SurfaceDefault, printFiles(22, 1))
	callResult(t, r, "ast_edit", map[string]any{"pattern": "fmt.Println($$$A)", "rewrite": "fmt.Print($$$A)", "language": "go"})
	_, st := shapedCall(t, r, "resolve", map[string]any{"edit_id": "edit_1", "action": "accept"})
	if !strings.HasPrefix(string(st), `{"updated":["p00.go","p01.go",`) {
		t.Fatalf("resolve accept of 22 files: %s", st)
	}
}
