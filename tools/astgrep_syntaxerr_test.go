package tools_test

import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/tools"

// A Python tree with one broken file: ast_grep shows its match and names it
// with the line of its first error; ast_edit leaves it out of the staged
// change and says so, unless include_errors is set.
func TestAstGrepEditSyntaxErrors(t *testing.T) {
	const clean = "import os\n\n\ndef f():\n    return os.getenv(\"A\")\n"
	const broken = "import os\n\n\ndef g():\n    return os.getenv(\"B\")\n\n\ndef h(:\n    pass\n"
	r, dir := structuralRun(t, tools.SurfaceDefault, map[string]string{"pkg/clean.py": clean, "pkg/broken.py": broken})

	res := callResult(t, r, "ast_grep", `{"pattern":"os.getenv($K)","language":"python"}`)
	txt := res.AllText()
	if !strings.Contains(txt, "2 matches in 2 of 2 files searched") || !strings.Contains(txt, "pkg/broken.py:5:") {
		t.Errorf("ast_grep hides the broken file's match:\n%s", txt)
	}
	if !strings.Contains(txt, "1 file with syntax errors (first error at pkg/broken.py:8)") {
		t.Errorf("ast_grep does not name the broken file and its line:\n%s", txt)
	}
	st, ok := res.Structured.(*tools.AstGrepResult)
	if !ok {
		t.Fatalf("structured result is %T", res.Structured)
	}
	if st.SyntaxErrorFiles != 1 || len(st.SyntaxErrors) != 1 || st.SyntaxErrors[0] != (search.BrokenFile{Path: "pkg/broken.py", Line: 8}) {
		t.Errorf("structured syntax errors: %d %+v", st.SyntaxErrorFiles, st.SyntaxErrors)
	}

	res = callResult(t, r, "ast_edit", `{"pattern":"os.getenv($K)","rewrite":"os.environ[$K]","language":"python"}`)
	txt = res.AllText()
	for _, want := range []string{"(proposed) 1 replacement in 1 file", "left out 1 file with syntax errors, not rewritten (first error at pkg/broken.py:8)", "include_errors: true", "--- a/pkg/clean.py"} {
		if !strings.Contains(txt, want) {
			t.Errorf("ast_edit result lacks %q:\n%s", want, txt)
		}
	}
	if strings.Contains(txt, "--- a/pkg/broken.py") {
		t.Errorf("ast_edit staged a change to the broken file:\n%s", txt)
	}
	if _, err := call(t, r, "resolve", `{"edit_id":"edit_1","action":"discard"}`); err != nil {
		t.Fatal(err)
	}

	res = callResult(t, r, "ast_edit", `{"pattern":"os.getenv($K)","rewrite":"os.environ[$K]","language":"python","include_errors":true}`)
	if txt = res.AllText(); !strings.Contains(txt, "(proposed) 2 replacements in 2 files") || strings.Contains(txt, "left out") {
		t.Errorf("ast_edit with include_errors:\n%s", txt)
	}
	if _, err := call(t, r, "resolve", `{"edit_id":"edit_2","action":"accept"}`); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "pkg", "broken.py")); !strings.Contains(string(data), `os.environ["B"]`) {
		t.Errorf("broken.py after accepting with include_errors:\n%s", data)
	}

	// only broken files match: nothing staged, and the answer says why
	os.WriteFile(filepath.Join(dir, "pkg", "clean.py"), []byte("x = 1\n"), 0o644)
	res = callResult(t, r, "ast_edit", `{"pattern":"os.environ[$K]","rewrite":"os.getenv($K)","language":"python"}`)
	if txt = res.AllText(); !strings.HasPrefix(txt, "nothing staged: left out 1 file with syntax errors") {
		t.Errorf("ast_edit over broken files alone:\n%s", txt)
	}
}
