package tools_test

import "context"
import "encoding/json"
import "errors"
import "fmt"
import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/engine/enginetest"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/search/stage"
import "github.com/tetherhq/tether/tools"

func parseEngine(t *testing.T) *engine.Engine {
	t.Helper()
	return enginetest.Engine(t)
}

func structuralRun(t *testing.T, surface tools.Surface, files map[string]string) (*tools.Run, string) {
	t.Helper()
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, files)
	r := startRun(t, tools.Config{
		WorkDir: dir,
		Surface: surface,
		Policy:  tools.PolicyOf(tools.Allow),
		Search:  tools.SearchConfig{Parser: parseEngine(t)},
	})
	return r, dir
}

const goSrc = `package p

import "fmt"

func f(err error) error {
	if err != nil {
		return fmt.Errorf("open: %w", err)
	}
	return fmt.Errorf("done %d", 1)
}
`

func TestAstGrepRegisteredOnlyWithParser(t *testing.T) {
	// resolve is in every run: notebook_edit stages without a parser.
	for _, name := range toolNames(startRun(t, tools.Config{WorkDir: t.TempDir()})) {
		if strings.HasPrefix(name, "ast_") {
			t.Errorf("%s listed without a parser", name)
		}
	}
	plan, _ := structuralRun(t, tools.SurfacePlan, nil)
	if got := strings.Join(toolNames(plan), ","); !strings.Contains(got, "ast_grep") || strings.Contains(got, "ast_edit") || strings.Contains(got, "resolve") {
		t.Errorf("plan surface lists %s; want ast_grep but not ast_edit or resolve", got)
	}
	if _, err := call(t, plan, "ast_edit", `{"pattern":"x","rewrite":"y"}`); err == nil {
		t.Error("ast_edit callable on the plan surface")
	}
}

func TestAstGrepTool(t *testing.T) {
	r, _ := structuralRun(t, tools.SurfaceDefault, map[string]string{"a.go": goSrc, "sub/b.go": goSrc, "notes.txt": "fmt.Errorf(x)"})
	res := callResult(t, r, "ast_grep", `{"pattern":"fmt.Errorf($$$ARGS)","language":"go"}`)
	st := structured[*tools.AstGrepResult](t, res)
	if st.Total != 4 || st.Searched != 2 || len(st.Matches) != 4 {
		t.Errorf("total %d, searched %d, %d matches shown; want 4 in 2 files, all shown", st.Total, st.Searched, len(st.Matches))
	}
	if len(st.Languages) != 1 || st.Languages[0].Language != "go" || st.Languages[0].Context != "statement" {
		t.Errorf("languages = %+v, want go parsed as statement", st.Languages)
	}
	at := map[string]tools.AstGrepMatch{}
	for _, m := range st.Matches {
		at[fmt.Sprintf("%s:%d:%d-%d:%d", m.File, m.Start.Line, m.Start.Column, m.End.Line, m.End.Column)] = m
	}
	for _, want := range []string{"a.go:7:10-7:37", "sub/b.go:9:9-9:33"} {
		if _, ok := at[want]; !ok {
			t.Errorf("no match at %s: %v", want, at)
		}
	}
	if got := at["a.go:7:10-7:37"].Captures["$$$ARGS"]; got != `"open: %w", err` {
		t.Errorf("$$$ARGS = %q", got)
	}
	// The text says the same, and the summary leads.
	if txt := res.AllText(); !strings.HasPrefix(txt, "4 matches in 2 of 2 files searched") || !strings.Contains(txt, `$$$ARGS = "open: %w", err`) {
		t.Errorf("result text:\n%s", txt)
	}
	res = callResult(t, r, "ast_grep", `{"pattern":"fmt.Errorf($$$ARGS)","language":"go","max_results":1}`)
	if st := structured[*tools.AstGrepResult](t, res); st.Total != 4 || len(st.Matches) != 1 {
		t.Errorf("max_results 1: total %d, %d shown; want 4, 1", st.Total, len(st.Matches))
	}
	if !strings.Contains(res.AllText(), "1 of 4 matches shown (raise max_results") {
		t.Errorf("cut result:\n%s", res.AllText())
	}
	res = callResult(t, r, "ast_grep", `{"pattern":"panic($X)","path":"a.go"}`)
	if st := structured[*tools.AstGrepResult](t, res); st.Total != 0 || st.Searched != 1 || st.Matches == nil {
		t.Errorf("no-match result: total %d, searched %d, matches %v (want [], not null)", st.Total, st.Searched, st.Matches)
	}
	if !strings.HasPrefix(res.AllText(), "no matches in 1 file") {
		t.Errorf("no-match text:\n%s", res.AllText())
	}
	if _, err := call(t, r, "ast_grep", `{"pattern":"func (","language":"go"}`); err == nil || !strings.Contains(err.Error(), "does not parse as statement") {
		t.Errorf("unparseable pattern: %v", err)
	}
	if _, err := call(t, r, "ast_grep", `{"pattern":"f($X)","path":"../"}`); err == nil {
		t.Error("a path outside the working directory was searched")
	}
	// a directory of Go files alone: the language is inferred
	res = callResult(t, r, "ast_grep", `{"pattern":"fmt.Errorf($$$ARGS)"}`)
	if st := structured[*tools.AstGrepResult](t, res); st.Total != 4 || st.Searched != 2 || len(st.Languages) != 1 || st.Languages[0].Language != "go" {
		t.Errorf("directory search without language: total %d, searched %d, languages %+v", st.Total, st.Searched, st.Languages)
	}
}

func TestAstEditResolve(t *testing.T) {
	r, dir := structuralRun(t, tools.SurfaceDefault, map[string]string{"a.go": goSrc, "b.go": goSrc})
	res := callResult(t, r, "ast_edit", `{"pattern":"fmt.Errorf($$$ARGS)","rewrite":"errs.New($$$ARGS)","language":"go"}`)
	sd := structured[*tools.StagedDiff](t, res)
	if sd.EditID != "edit_1" || sd.Replacements != 4 || len(sd.Files) != 2 || sd.Files[0].Path != "a.go" || sd.Files[1].Path != "b.go" || sd.Files[0].Replacements != 2 {
		t.Errorf("staged = %+v", sd)
	}
	// The diff itself is text only.
	txt := res.AllText()
	for _, want := range []string{`call resolve with edit_id "edit_1"`, "--- a/a.go", `-		return fmt.Errorf("open: %w", err)`, `+		return errs.New("open: %w", err)`} {
		if !strings.Contains(txt, want) {
			t.Errorf("ast_edit result lacks %q:\n%s", want, txt)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a.go")); string(data) != goSrc {
		t.Fatal("ast_edit wrote a file")
	}
	res = callResult(t, r, "resolve", `{"edit_id":"edit_1","action":"accept"}`)
	fc := structured[*tools.FileChanges](t, res)
	if len(fc.Changed) != 2 || fc.Changed[0] != (tools.FileChange{Path: "a.go", Action: "updated"}) || fc.Changed[1] != (tools.FileChange{Path: "b.go", Action: "updated"}) {
		t.Errorf("accept: changed %+v", fc.Changed)
	}
	if !strings.HasPrefix(res.AllText(), "accepted edit_1: 4 replacements written") {
		t.Errorf("accept: %s", res.AllText())
	}
	data, _ := os.ReadFile(filepath.Join(dir, "b.go"))
	if strings.Contains(string(data), "fmt.Errorf") || !strings.Contains(string(data), `errs.New("done %d", 1)`) {
		t.Errorf("b.go after accept:\n%s", data)
	}
	if _, err := call(t, r, "resolve", `{"edit_id":"edit_1","action":"accept"}`); err == nil || !strings.Contains(err.Error(), "already accepted") {
		t.Errorf("second accept: %v", err)
	}

	// a file changed after staging rejects the whole change
	res = callResult(t, r, "ast_edit", `{"pattern":"errs.New($$$A)","rewrite":"fmt.Errorf($$$A)","language":"go"}`)
	if sd := structured[*tools.StagedDiff](t, res); sd.EditID != "edit_2" {
		t.Fatalf("second edit staged %q", sd.EditID)
	}
	os.WriteFile(filepath.Join(dir, "b.go"), []byte("package p\n"), 0o644)
	_, err := call(t, r, "resolve", `{"edit_id":"edit_2","action":"accept"}`)
	if err == nil || !strings.Contains(err.Error(), "b.go") || strings.Contains(err.Error(), "a.go") {
		t.Fatalf("stale accept: %v", err)
	}
	if real, _ := filepath.EvalSymlinks(dir); strings.Contains(err.Error(), dir) || strings.Contains(err.Error(), real) || !errors.Is(err, search.ErrStale) {
		t.Errorf("stale accept names files relative to the working directory and wraps search.ErrStale: %v", err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a.go")); !strings.Contains(string(data), "errs.New") {
		t.Error("a.go changed although the edit was rejected")
	}
	if _, err := call(t, r, "resolve", `{"edit_id":"edit_2","action":"discard"}`); err != nil {
		t.Fatal(err)
	}
	if _, err := call(t, r, "resolve", `{"edit_id":"edit_7","action":"accept"}`); err == nil || !errors.Is(err, err) || !strings.Contains(err.Error(), "unknown edit id") {
		t.Errorf("unknown id: %v", err)
	}
	res, err = call(t, r, "ast_edit", `{"pattern":"panic($X)","rewrite":"x","language":"go"}`)
	if err != nil || res.Structured != nil || !strings.Contains(res.AllText(), "nothing staged: no matches in 2 files") {
		t.Errorf("no-match edit: %v %+v %s", err, res.Structured, res.AllText())
	}
}

// TestAstEditNoChange: a rewrite that leaves every match as it was stages
// nothing and says why, instead of a bare match count.
func TestAstEditNoChange(t *testing.T) {
	r, _ := structuralRun(t, tools.SurfaceDefault, map[string]string{"a.go": goSrc})
	res, err := call(t, r, "ast_edit", `{"pattern":"fmt.Errorf($$$A)","rewrite":"fmt.Errorf($$$A)","language":"go"}`)
	if err != nil || !strings.Contains(res.AllText(), "nothing staged: the rewrite leaves all 2 matches as they are") {
		t.Errorf("no-op rewrite: %v %s", err, res.AllText())
	}
}

// TestAstGrepErrorsNameRelativePaths: an error about the search names
// paths as the results do, relative to the working directory (ast_edit still
// needs one language where the pattern parses in several).
func TestAstGrepErrorsNameRelativePaths(t *testing.T) {
	r, dir := structuralRun(t, tools.SurfaceDefault, map[string]string{"a.go": goSrc, "b.js": "f(1);\n", "sub/c.go": goSrc, "sub/d.js": "f(2);\n"})
	real, _ := filepath.EvalSymlinks(dir)
	for _, args := range []string{`{"pattern":"f($X)","rewrite":"g($X)"}`, `{"pattern":"f($X)","rewrite":"g($X)","path":"sub"}`} {
		_, err := call(t, r, "ast_edit", args)
		if err == nil || !strings.Contains(err.Error(), "several languages") || strings.Contains(err.Error(), dir) || strings.Contains(err.Error(), real) {
			t.Errorf("%s: %v", args, err)
		}
	}
}

// TestAstEditUnboundMetavariable: a metavariable of the rewrite that the
// pattern does not bind is replaced by nothing, as ast-grep does, and the
// result says which ones, so a misspelt name is not lost silently.
func TestAstEditUnboundMetavariable(t *testing.T) {
	r, _ := structuralRun(t, tools.SurfaceDefault, map[string]string{"a.go": goSrc})
	res := callResult(t, r, "ast_edit", `{"pattern":"fmt.Errorf($$$ARGS)","rewrite":"errs.New($$$ARG, $ARGS)","language":"go"}`)
	txt := res.AllText()
	for _, want := range []string{"+\t\treturn errs.New(, )", "$$$ARG, $ARGS (the pattern binds $$$ARGS)", "replaced by nothing"} {
		if !strings.Contains(txt, want) {
			t.Errorf("ast_edit result lacks %q:\n%s", want, txt)
		}
	}
}

// TestAstEditStagedEditsBounded: staged edits do not pile up in memory
// without end: past tools.AstEditMaxStaged the oldest unresolved one is
// dropped, the result staging the new one says so, and resolving the dropped
// one says what happened to it.
func TestAstEditStagedEditsBounded(t *testing.T) {
	r, _ := structuralRun(t, tools.SurfaceDefault, map[string]string{"a.go": goSrc})
	var last string
	for i := range tools.AstEditMaxStaged + 1 {
		res := callResult(t, r, "ast_edit", fmt.Sprintf(`{"pattern":"fmt.Errorf($$$A)","rewrite":"e%d($$$A)","language":"go"}`, i))
		last = res.AllText()
	}
	if !strings.Contains(last, `edit_1 was dropped`) {
		t.Errorf("staging past the bound does not say which edit it dropped:\n%s", last)
	}
	_, err := call(t, r, "resolve", `{"edit_id":"edit_1","action":"accept"}`)
	if !errors.Is(err, stage.ErrUnknownEdit) || !strings.Contains(err.Error(), "dropped") || !strings.Contains(err.Error(), "run ast_edit again") {
		t.Errorf("resolving a dropped edit: %v", err)
	}
	if _, err := call(t, r, "resolve", `{"edit_id":"edit_2","action":"discard"}`); err != nil {
		t.Errorf("edit_2 is still staged: %v", err)
	}
}

// TestAstGrepSelector: ast_grep and ast_edit take a selector (a node kind):
// the pattern is the code around it, and only that node is matched, so a
// Rust field that parses only inside a struct is found, and rewritten as a
// field, its indentation kept.
func TestAstGrepSelector(t *testing.T) {
	src := "struct A {\n    xs: Vec<u8>,\n    n: usize,\n}\n\nstruct B {\n    ys: Vec<String>,\n}\n"
	r, dir := structuralRun(t, tools.SurfaceDefault, map[string]string{"a.rs": src})
	res := callResult(t, r, "ast_grep", `{"pattern":"struct _S { $F: Vec<$T> }","selector":"field_declaration","language":"rust"}`)
	st := structured[*tools.AstGrepResult](t, res)
	var got []string
	for _, m := range st.Matches {
		got = append(got, fmt.Sprintf("%s:%d:%d-%d:%d $T=%s", m.File, m.Start.Line, m.Start.Column, m.End.Line, m.End.Column, m.Captures["$T"]))
	}
	if want := "a.rs:2:5-2:16 $T=u8; a.rs:7:5-7:20 $T=String"; st.Total != 2 || strings.Join(got, "; ") != want {
		t.Errorf("matches (total %d) = %s, want %s", st.Total, strings.Join(got, "; "), want)
	}
	if txt := res.AllText(); !strings.Contains(txt, "parsed as selector field_declaration") {
		t.Errorf("the text does not say how the pattern was read:\n%s", txt)
	}
	if _, err := call(t, r, "ast_grep", `{"pattern":"struct _S { $F: Vec<$T> }","selector":"match_arm","language":"rust"}`); err == nil || !strings.Contains(err.Error(), "no match_arm node") {
		t.Errorf("a selector the pattern does not hold: %v", err)
	}
	res = callResult(t, r, "ast_edit", `{"pattern":"struct _S { $F: Vec<$T> }","selector":"field_declaration","rewrite":"$F: Box<[$T]>","language":"rust"}`)
	if sd := structured[*tools.StagedDiff](t, res); sd.EditID != "edit_1" || sd.Replacements != 2 {
		t.Fatalf("ast_edit staged %+v", sd)
	}
	if _, err := call(t, r, "resolve", `{"edit_id":"edit_1","action":"accept"}`); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, "a.rs"))
	want := "struct A {\n    xs: Box<[u8]>,\n    n: usize,\n}\n\nstruct B {\n    ys: Box<[String]>,\n}\n"
	if string(after) != want {
		t.Errorf("after the rewrite:\n%s\nwant:\n%s", after, want)
	}
}

// TestAstGrepEveryReading: a pattern with several readings is searched in
// each, and the result says which reading each match is of (a C "int $F;"
// is a struct field and a local).
func TestAstGrepEveryReading(t *testing.T) {
	r, _ := structuralRun(t, tools.SurfaceDefault, map[string]string{"a.c": "struct s {\n    int a;\n};\nvoid f(void) {\n    int n;\n}\n"})
	res := callResult(t, r, "ast_grep", `{"pattern":"int $F;","language":"c"}`)
	txt := res.AllText()
	for _, want := range []string{"2 matches", "parsed as statement and as member", "a.c:2:5-2:11 (as member)", "a.c:5:5-5:11 (as statement)"} {
		if !strings.Contains(txt, want) {
			t.Errorf("result lacks %q:\n%s", want, txt)
		}
	}
}

// TestWriteToolsRefuseBadText: ast_edit and lsp_rename, write-tier tools as
// write and edit are, refuse invalid UTF-8 and lone surrogate escapes in their
// arguments instead of staging or renaming with U+FFFD in their place (an
// ast_edit rewrite holding \ud800 or a 0xff byte was proposed, and resolve
// accept would have written U+FFFD the caller never sent).
func TestWriteToolsRefuseBadText(t *testing.T) {
	r, dir := structuralRun(t, tools.SurfaceDefault, map[string]string{"a.go": goSrc})
	for _, c := range []struct{ args, want string }{
		{`{"pattern":"fmt.Errorf($$$A)","rewrite":"errs.New(\"\ud800\", $$$A)","language":"go"}`, `rewrite holds a lone surrogate (\ud800`},
		{`{"pattern":"fmt.Errorf($$$A)","rewrite":"errs.New(\"` + "\xff" + `\", $$$A)","language":"go"}`, "rewrite holds invalid UTF-8 (byte 0xff"},
		{`{"pattern":"fmt.Errorf($$$A)","rewrite":"errs.New(\"` + "\xed\xa0\x80" + `\", $$$A)","language":"go"}`, "rewrite holds invalid UTF-8 (byte 0xed"},
		{`{"pattern":"fmt.Errorf(\"\udc00\", $$$A)","rewrite":"x","language":"go"}`, `pattern holds a lone surrogate (\udc00`},
	} {
		res, err := call(t, r, "ast_edit", c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "Nothing was written") {
			t.Errorf("ast_edit %s: want an error containing %q, got %v %s", c.args, c.want, err, res.AllText())
		}
	}
	if _, err := call(t, r, "resolve", `{"edit_id":"edit_1","action":"accept"}`); err == nil {
		t.Error("a refused ast_edit staged an edit")
	}
	if got := testenv.ReadText(t, filepath.Join(dir, "a.go")); got != goSrc {
		t.Errorf("a.go changed:\n%s", got)
	}

	lr, _ := lspRun(t)
	_, err := lr.Call(context.Background(), "lsp_rename", json.RawMessage(`{"file":"use.go","line":4,"symbol":"Big","new_name":"Large\ud800"}`), tools.FromModel)
	if err == nil || !strings.Contains(err.Error(), "new_name holds") {
		t.Errorf("lsp_rename to a name holding a lone surrogate: want it refused as bad text, got %v", err)
	}
}

// TestAstEditKeepsMeaning: a rewrite whose text the code around it would
// bind differently (`!x.is_empty()` to `!x.len() == 0`, a bitwise NOT in
// Rust) is staged in parentheses, and the result says which; the same holds
// for several ops staged as one edit.
func TestAstEditKeepsMeaning(t *testing.T) {
	const src = "fn f(&self) -> bool {\n    !self.pre.is_empty() && self.post.is_empty()\n}\n"
	r, dir := structuralRun(t, tools.SurfaceDefault, map[string]string{"lib.rs": src})
	for _, tc := range []struct{ name, args string }{
		{"rewrite", `{"pattern":"$E.is_empty()","rewrite":"$E.len() == 0","language":"rust"}`},
		{"ops", `{"ops":[{"pattern":"$E.is_empty()","rewrite":"$E.len() == 0"}],"language":"rust"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := callResult(t, r, "ast_edit", tc.args)
			txt := res.AllText()
			testenv.WantAll(t, "ast_edit result", txt,
				"+    !(self.pre.len() == 0) && self.post.len() == 0",
				"note: 1 replacement put in parentheses",
				"lib.rs:2: (self.pre.len() == 0)",
			)
		})
	}
	if _, err := call(t, r, "resolve", `{"edit_id":"edit_1","action":"accept"}`); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "lib.rs")); !strings.Contains(string(data), "!(self.pre.len() == 0) && self.post.len() == 0") {
		t.Errorf("lib.rs after accept:\n%s", data)
	}
}
