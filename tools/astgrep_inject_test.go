package tools_test

import "errors"
import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/fsutil"
import "github.com/tetherhq/tether/tools"

const injectPage = "<html>\n<body>\n<script>\n  init(load(1));\n  console.log(\"x\");\n</script>\n<p>init(load(2))</p>\n</body>\n</html>\n"

const injectNotes = "# Use\n\n```js\ninit(load(3));\n```\n\ninit(load(4)) in prose\n"

// TestAstGrepEmbedded: ast_grep finds JavaScript in an HTML script and a
// markdown fence at the host file's lines, ast_edit rewrites it in place
// through a staged edit, and two ops overlapping there are refused.
func TestAstGrepEmbedded(t *testing.T) {
	r, dir := structuralRun(t, tools.SurfaceDefault, map[string]string{"web/page.html": injectPage, "docs/notes.md": injectNotes})
	res := callResult(t, r, "ast_grep", `{"pattern":"init($X)","language":"javascript"}`)
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
	_, err := call(t, r, "ast_edit", `{"language":"javascript","path":"web","ops":[{"pattern":"init($X)","rewrite":"start($X)"},{"pattern":"load($N)","rewrite":"fetch($N)"}]}`)
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

const styledApp = "const Button = styled.button`\n  color: red;\n  padding: 4px;\n`;\nconst plain = `color: red;`;\n"

const styledConfig = "ruleDirs: [rules]\nlanguageInjections:\n- hostLanguage: js\n  rule:\n    pattern: styled.$TAG`$CONTENT`\n  injected: css\n"

// TestAstGrepProjectInjections: the working directory's sgconfig.yml
// languageInjections make ast_grep and ast_edit search and rewrite CSS in
// styled-components templates, as tether ast-grep does; without the file
// the template is a plain string, and a template no injection names stays
// one.
func TestAstGrepProjectInjections(t *testing.T) {
	r, dir := structuralRun(t, tools.SurfaceDefault, map[string]string{"src/app.js": styledApp})
	grep := `{"pattern":"a { color: $C; }","selector":"declaration","language":"css"}`
	res := callResult(t, r, "ast_grep", grep)
	if txt := res.AllText(); strings.Contains(txt, "src/app.js:") {
		t.Fatalf("without sgconfig.yml the template matched:\n%s", txt)
	}
	if err := os.WriteFile(filepath.Join(dir, "sgconfig.yml"), []byte(styledConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	res = callResult(t, r, "ast_grep", grep)
	txt := res.AllText()
	if !strings.Contains(txt, "1 match") || !strings.Contains(txt, "src/app.js:2:3-2:14") {
		t.Errorf("want the one declaration in the styled template at src/app.js:2:3-2:14:\n%s", txt)
	}
	res, err := call(t, r, "ast_edit", `{"pattern":"a { color: red; }","selector":"declaration","rewrite":"color: blue;","language":"css"}`)
	if err != nil || !strings.Contains(res.AllText(), "(proposed) 1 replacement in 1 file") {
		t.Fatalf("ast_edit: %v\n%s", err, res.AllText())
	}
	if _, err := call(t, r, "resolve", `{"edit_id":"edit_1","action":"accept"}`); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "src/app.js"))
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(styledApp, "  color: red;", "  color: blue;", 1); string(got) != want {
		t.Errorf("src/app.js after the edit:\n%s\nwant\n%s", got, want)
	}
	// ops read them too
	res, err = call(t, r, "ast_edit", `{"language":"css","ops":[{"pattern":"a { padding: $P; }","selector":"declaration","rewrite":"margin: $P;"}]}`)
	if err != nil || !strings.Contains(res.AllText(), "(proposed) 1 replacement in 1 file") {
		t.Fatalf("ast_edit ops: %v\n%s", err, res.AllText())
	}
}

// TestAstGrepProjectInjectionsErrors: a bad languageInjections entry fails
// ast_grep and ast_edit with the error tether ast-grep gives, naming the
// entry and what to write; an sgconfig.yml linking outside the working
// directory is refused, not read.
func TestAstGrepProjectInjectionsErrors(t *testing.T) {
	bad := "languageInjections:\n- rule:\n    pattern: styled.$TAG`$CONTENT`\n  injected: css\n"
	r, dir := structuralRun(t, tools.SurfaceDefault, map[string]string{"src/app.js": styledApp, "sgconfig.yml": bad})
	want := "sgconfig.yml: languageInjections[0]: hostLanguage is missing: name the language of the files that hold the code"
	for tool, args := range map[string]string{
		"ast_grep": `{"pattern":"color: $C","language":"css"}`,
		"ast_edit": `{"pattern":"a { color: $C; }","selector":"declaration","rewrite":"x","language":"css"}`,
	} {
		_, err := call(t, r, tool, args)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s with a bad entry: %v, want it to say %q", tool, err, want)
		}
		if err != nil && strings.Contains(err.Error(), dir) {
			t.Errorf("%s error names the working directory's absolute path: %v", tool, err)
		}
	}
	outside := filepath.Join(t.TempDir(), "sgconfig.yml")
	if err := os.WriteFile(outside, []byte(styledConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "sgconfig.yml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "sgconfig.yml")); err != nil {
		t.Fatal(err)
	}
	_, err := call(t, r, "ast_grep", `{"pattern":"a { color: $C; }","selector":"declaration","language":"css"}`)
	if !errors.Is(err, fsutil.ErrOutside) || !strings.Contains(err.Error(), "sgconfig.yml") {
		t.Errorf("sgconfig.yml linking outside: %v, want an error naming it that wraps fsutil.ErrOutside", err)
	}
}
