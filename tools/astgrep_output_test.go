package tools_test

import "encoding/json"
import "fmt"
import "strings"
import "testing"

import "github.com/tetherhq/tether/tools"

// longFuncs is a Go file of n functions of ten lines each, every line long
// enough that whole matches cost far more than their first lines.
func longFuncs(n int) string {
	var b strings.Builder
	b.WriteString("package p\n")
	for i := range n {
		fmt.Fprintf(&b, "\nfunc f%d(a int) int {\n", i)
		for j := range 8 {
			fmt.Fprintf(&b, "\ta = a*%d + %d // step %d of function %d, a comment to make the line long enough to matter\n", j+2, i, j, i)
		}
		b.WriteString("\treturn a\n}\n")
	}
	return b.String()
}

func structuredBytes(t *testing.T, res *tools.Result) []byte {
	t.Helper()
	data, err := json.Marshal(res.Structured)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestAstGrepOutputChoices (issue 13, item 7): whole functions are shown by
// their first line unless output "full" is asked for, output "captures" shows
// no lines, the structured part holds the matches as the text shows them
// (never several times its size: 39 methods cost 41 KB of text and 167 KB of
// structuredContent), and the result says how to get more.
func TestAstGrepOutputChoices(t *testing.T) {
	r, _ := structuralRun(t, tools.SurfaceDefault, map[string]string{"a.go": longFuncs(50)})
	const pattern = `"pattern":"func $F($$$A) int { $$$B }","language":"go"`
	res := callResult(t, r, "ast_grep", `{`+pattern+`}`)
	txt := res.AllText()
	for _, want := range []string{"50 matches in 1 of 1 file searched", "a.go:3:1-13:2", "    func f0(a int) int {\n    ... (10 more lines, to line 13)\n", "$F = f0",
		`note: 50 matches longer than 3 lines shown by the first line: output "full" shows them whole`} {
		if !strings.Contains(txt, want) {
			t.Errorf("default output lacks %q:\n%s", want, txt)
		}
	}
	if strings.Contains(txt, "step 7 of function 0") {
		t.Errorf("default output shows the body of a long match:\n%s", txt)
	}
	st := structuredBytes(t, res)
	if len(st) > 2*len(txt) || strings.Contains(string(st), "step 7 of function 0") {
		t.Errorf("structured part is %d bytes for %d bytes of text, or holds lines the text does not show:\n%s", len(st), len(txt), st)
	}
	var got tools.AstGrepResult
	if err := json.Unmarshal(st, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Matches) != 50 || got.Total != 50 || got.Output != "lines" || got.Matches[0].End.Line != 13 || got.Matches[0].Captures["$F"] != "f0" || len(got.More) == 0 {
		t.Errorf("structured result: %d matches, total %d, output %q, %+v, more %q", len(got.Matches), got.Total, got.Output, got.Matches[0], got.More)
	}

	full := callResult(t, r, "ast_grep", `{`+pattern+`,"output":"full","max_results":2}`)
	ftxt := full.AllText()
	for _, want := range []string{"2 of 50 matches shown (raise max_results or narrow the path for more; start 2 shows the next)", "\ta = a*9 + 1 // step 7 of function 1"} {
		if !strings.Contains(ftxt, want) {
			t.Errorf("output full lacks %q:\n%s", want, ftxt)
		}
	}
	if n := strings.Count(ftxt, "of 50 matches shown"); n != 1 {
		t.Errorf("output full says %d times how many are shown, want once:\n%s", n, ftxt)
	}
	// The structured part indexes the matches; the text shows their lines.
	if fst := structuredBytes(t, full); !strings.Contains(string(fst), `"range":"15:1-25:2"`) || strings.Contains(string(fst), "step 7 of function 1, a comment") || len(fst) > len(ftxt) {
		t.Errorf("output full's structured part (%d bytes for %d of text):\n%s", len(fst), len(ftxt), fst)
	}

	caps := callResult(t, r, "ast_grep", `{`+pattern+`,"output":"captures","max_results":3}`)
	ctxt := caps.AllText()
	if !strings.Contains(ctxt, "\na.go:15:1-25:2\n  $") || !strings.Contains(ctxt, "\n  $F = f1\n") || !strings.Contains(ctxt, "\n  $$$A = a int\n") ||
		!strings.Contains(ctxt, "\n  $$$B = a = a*2 + 1 // step 0 of function 1") || strings.Contains(ctxt, "func f1") {
		t.Errorf("output captures:\n%s", ctxt)
	}
	if _, err := call(t, r, "ast_grep", `{`+pattern+`,"output":"all"}`); err == nil {
		t.Error("output \"all\" accepted")
	}
}

// TestAstGrepOutputBounded: matches whose text passes the result's bound end
// the list at a whole match: the structured part holds the same matches as
// the text, and the result says why it stopped and what is shorter.
func TestAstGrepOutputBounded(t *testing.T) {
	r, _ := structuralRun(t, tools.SurfaceDefault, map[string]string{"a.go": longFuncs(150)})
	res := callResult(t, r, "ast_grep", `{"pattern":"func $F($$$A) int { $$$B }","language":"go","output":"full","max_results":150}`)
	txt := res.AllText()
	var got tools.AstGrepResult
	if err := json.Unmarshal(structuredBytes(t, res), &got); err != nil {
		t.Fatal(err)
	}
	shown := strings.Count(txt, "\na.go:")
	if shown == 0 || shown >= 150 || len(got.Matches) != shown || got.Total != 150 || len(txt) > 70<<10 {
		t.Fatalf("%d matches in the text (%d bytes), %d in the structured part, total %d", shown, len(txt), len(got.Matches), got.Total)
	}
	want := fmt.Sprintf(`the list stops after %d of 150 matches to keep this result under 64 KiB: output "captures" is shorter`, shown)
	if !strings.Contains(txt, want) || strings.Contains(txt, "raise max_results") {
		t.Errorf("result lacks %q, or says to raise max_results, which shows no more:\n%s", want, txt[:min(len(txt), 600)])
	}
	last := got.Matches[len(got.Matches)-1]
	if !strings.Contains(txt, fmt.Sprintf("\na.go:%d:1-%d:2\n", last.Start.Line, last.End.Line)) ||
		!strings.Contains(txt, fmt.Sprintf("step 7 of function %s, a comment", strings.TrimPrefix(last.Captures["$F"], "f"))) {
		t.Errorf("the last structured match is not whole in the text: %+v", last)
	}
}

// TestAstGrepSeveralLanguages (issue 13, item 9): a Go repository with two
// YAML and two shell files, searched without language by a pattern that
// parses in go, bash and yaml, is searched in each, and the result says which
// languages matched (it was refused: "pass language").
func TestAstGrepSeveralLanguages(t *testing.T) {
	r, _ := structuralRun(t, tools.SurfaceDefault, map[string]string{
		"a.go": goSrc, "sub/b.go": goSrc, "c.go": "package p\n", "ci.yaml": "on: push\nrun: fmt.Errorf(x)\n", "deploy.yml": "a: 1\n",
		"build.sh": "echo fmt.Errorf\n", "scripts/test.sh": "go test ./...\n",
	})
	res := callResult(t, r, "ast_grep", `{"pattern":"fmt.Errorf($$$ARGS)"}`)
	txt := res.AllText()
	for _, want := range []string{"4 matches in 2 of 7 files searched", "the pattern parses in 3 languages found here, all searched: go (as statement): 4 matches in 3 files;",
		"yaml (as document): no matches in 2 files", "bash (as ", "pass language to search one", "sub/b.go:9:9-9:33"} {
		if !strings.Contains(txt, want) {
			t.Errorf("result lacks %q:\n%s", want, txt)
		}
	}
	var got tools.AstGrepResult
	if err := json.Unmarshal(structuredBytes(t, res), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Languages) != 3 || got.Languages[0].Language != "go" || got.Languages[0].Matches != 4 || got.Searched != 7 {
		t.Errorf("structured languages: %+v, searched %d", got.Languages, got.Searched)
	}
	// with language, one search as before
	res, err := call(t, r, "ast_grep", `{"pattern":"fmt.Errorf($$$ARGS)","language":"yaml"}`)
	if err != nil || !strings.HasPrefix(res.AllText(), "no matches in 2 files (the pattern was read as document (string_scalar)") || !strings.Contains(res.AllText(), ") (yaml pattern parsed as document)") {
		t.Errorf("yaml alone: %v\n%s", err, res.AllText())
	}
}
