package tools_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherhq/tether/tools"
)

const injectPage = "<html>\n<body>\n<script>\n  init(load(1));\n  console.log(\"x\");\n</script>\n<p>init(load(2))</p>\n</body>\n</html>\n"

const injectNotes = "# Use\n\n```js\ninit(load(3));\n```\n\ninit(load(4)) in prose\n"

// TestAstGrepEmbedded: ast_grep finds JavaScript in an HTML script and a
// markdown fence at the host file's lines, ast_edit rewrites it in place
// through a staged edit, and two ops overlapping there are refused.
func TestAstGrepEmbedded(t *testing.T) {
	r, dir := structuralRun(t, tools.SurfaceDefault, map[string]string{"web/page.html": injectPage, "docs/notes.md": injectNotes})
	res, err := call(t, r, "ast_grep", `{"pattern":"init($X)","language":"javascript"}`)
	if err != nil {
		t.Fatal(err)
	}
	txt := res.AllText()
	for _, want := range []string{"2 matches in 2 of 2 files searched", "web/page.html:4:3-4:16", "docs/notes.md:4:1-4:14"} {
		if !strings.Contains(txt, want) {
			t.Errorf("result lacks %q:\n%s", want, txt)
		}
	}
	if strings.Contains(txt, "load(2)") || strings.Contains(txt, "load(4)") {
		t.Errorf("text outside the script and the fence matched:\n%s", txt)
	}
	// two ops replacing overlapping text in the script: refused, naming both
	_, err = call(t, r, "ast_edit", `{"language":"javascript","path":"web","ops":[{"pattern":"init($X)","rewrite":"start($X)"},{"pattern":"load($N)","rewrite":"fetch($N)"}]}`)
	if err == nil || !strings.Contains(err.Error(), `ops[0] (pattern "init($X)")`) || !strings.Contains(err.Error(), `ops[1] (pattern "load($N)")`) || !strings.Contains(err.Error(), "web/page.html:4") {
		t.Errorf("overlapping ops in a script: %v", err)
	}
	res, err = call(t, r, "ast_edit", `{"pattern":"init($X)","rewrite":"start($X)","language":"javascript"}`)
	if err != nil || !strings.Contains(res.AllText(), "(proposed) 2 replacements in 2 files") {
		t.Fatalf("ast_edit: %v\n%s", err, res.AllText())
	}
	if _, err := call(t, r, "resolve", `{"edit_id":"edit_1","action":"accept"}`); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"web/page.html": strings.Replace(injectPage, "  init(load(1));", "  start(load(1));", 1),
		"docs/notes.md": strings.Replace(injectNotes, "\ninit(load(3));", "\nstart(load(3));", 1),
	} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s after the edit:\n%s\nwant\n%s", name, got, want)
		}
	}
}
