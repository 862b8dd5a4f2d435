package tools_test

import "fmt"
import "os"
import "path/filepath"
import "slices"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/tools"

// opsFiles is a small Go tree: two directories in paths, a test file the
// globs exclude, a directory outside paths and a file with a syntax error.
var opsFiles = map[string]string{
	"src/a.go":      "package p\n\nimport (\n\t\"errors\"\n\t\"io/ioutil\"\n)\n\nfunc a() error {\n\tb, _ := ioutil.ReadFile(\"a\")\n\tprintln(len(b))\n\treturn errors.New(\"a\")\n}\n",
	"src/b.go":      "package p\n\nimport \"errors\"\n\nfunc b() error {\n\tprintln(\"b\")\n\treturn errors.New(\"b\")\n}\n",
	"src/a_test.go": "package p\n\nimport \"errors\"\n\nvar errT = errors.New(\"test\")\n",
	"lib/c.go":      "package lib\n\nimport \"io/ioutil\"\n\nfunc c() []byte {\n\tb, _ := ioutil.ReadFile(\"c\")\n\treturn b\n}\n",
	"other/d.go":    "package other\n\nimport \"errors\"\n\nvar errD = errors.New(\"d\")\n",
	"src/broken.go": "package p\n\nimport \"errors\"\n\nvar errX = errors.New(\"x\")\n\nfunc broken( {\n}\n",
}

// opsArgs stages three rewrites (two patterns and a rule with an id and a
// fix) over paths and globs.
const opsArgs = `{"language":"go","paths":["src","lib"],"globs":["**/*.go","!**/*_test.go"],"ops":[
	{"pattern":"errors.New($M)","rewrite":"fmt.Errorf($M)"},
	{"pattern":"ioutil.ReadFile($F)","rewrite":"os.ReadFile($F)"},
	{"rule":{"id":"println-to-log","rule":{"pattern":"println($$$A)"},"fix":"log.Println($$$A)"}}]}`

func readOps(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	for name := range opsFiles {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		got[name] = string(b)
	}
	return got
}

// TestAstEditOps: three rewrites over paths and globs stage one edit; a
// file changed after staging rejects all of it (nothing written); staged
// again and accepted, every rewrite lands in the files the paths and globs
// choose and nowhere else, and the file with a syntax error is left out.
func TestAstEditOps(t *testing.T) {
	r, dir := structuralRun(t, tools.SurfaceDefault, opsFiles)
	res := callResult(t, r, "ast_edit", opsArgs)
	txt := res.AllText()
	testenv.WantAll(t, "ast_edit with ops", txt,
		`(proposed) 6 replacements in 3 files`, `edit_id "edit_1"`,
		"left out 1 file with syntax errors, not rewritten (first error at src/broken.go:7)",
		"--- a/src/a.go", "--- a/src/b.go", "--- a/lib/c.go",
		"+\tb, _ := os.ReadFile(\"a\")", "+\tlog.Println(len(b))", "+\treturn fmt.Errorf(\"b\")",
	)
	for _, not := range []string{"a_test.go", "other/d.go", "edit_2"} {
		if strings.Contains(txt, not) {
			t.Errorf("ast_edit with ops mentions %q:\n%s", not, txt)
		}
	}
	st, ok := res.Structured.(*tools.StagedDiff)
	if !ok || st.EditID != "edit_1" || st.Replacements != 6 || len(st.Files) != 3 {
		t.Fatalf("structured: %T %+v", res.Structured, res.Structured)
	}

	// drift after staging: the whole edit is refused, nothing written
	before := readOps(t, dir)
	drifted := before["lib/c.go"] + "\nvar extra = 1\n"
	if err := os.WriteFile(filepath.Join(dir, "lib/c.go"), []byte(drifted), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := call(t, r, "resolve", `{"edit_id":"edit_1","action":"accept"}`)
	if err == nil || !strings.Contains(err.Error(), "rejected, nothing written") || !strings.Contains(err.Error(), "lib/c.go") {
		t.Fatalf("resolve after drift: %v", err)
	}
	after := readOps(t, dir)
	before["lib/c.go"] = drifted
	for name, want := range before {
		if after[name] != want {
			t.Errorf("%s was written by a rejected edit:\n%s", name, after[name])
		}
	}
	callResult(t, r, "resolve", `{"edit_id":"edit_1","action":"discard"}`)

	// staged again over the drifted tree and accepted: all of it lands
	res = callResult(t, r, "ast_edit", opsArgs)
	if txt := res.AllText(); !strings.Contains(txt, `(proposed) 6 replacements in 3 files`) || !strings.Contains(txt, `"edit_2"`) {
		t.Fatalf("staging again:\n%s", txt)
	}
	callResult(t, r, "resolve", `{"edit_id":"edit_2","action":"accept"}`)
	got := readOps(t, dir)
	want := map[string][]string{
		"src/a.go": {"os.ReadFile(\"a\")", "log.Println(len(b))", "fmt.Errorf(\"a\")"},
		"src/b.go": {"log.Println(\"b\")", "fmt.Errorf(\"b\")"},
		"lib/c.go": {"os.ReadFile(\"c\")", "var extra = 1"},
	}
	for name, subs := range want {
		for _, sub := range subs {
			if !strings.Contains(got[name], sub) {
				t.Errorf("%s after accept lacks %q:\n%s", name, sub, got[name])
			}
		}
		if strings.Contains(got[name], "ioutil.ReadFile(") || strings.Contains(got[name], "errors.New(") || strings.Contains(got[name], "\tprintln(") {
			t.Errorf("%s after accept keeps an old call:\n%s", name, got[name])
		}
	}
	for _, name := range []string{"src/a_test.go", "other/d.go", "src/broken.go"} {
		if got[name] != opsFiles[name] {
			t.Errorf("%s changed though paths, globs or its syntax error leave it out:\n%s", name, got[name])
		}
	}
}

// TestAstEditOpsIncludeErrors: with include_errors the file with a syntax
// error is rewritten by the ops too.
func TestAstEditOpsIncludeErrors(t *testing.T) {
	r, dir := structuralRun(t, tools.SurfaceDefault, opsFiles)
	args := strings.Replace(opsArgs, `"language":"go"`, `"language":"go","include_errors":true`, 1)
	res := callResult(t, r, "ast_edit", args)
	if txt := res.AllText(); !strings.Contains(txt, "(proposed) 7 replacements in 4 files") || strings.Contains(txt, "left out") {
		t.Fatalf("ops with include_errors:\n%s", txt)
	}
	callResult(t, r, "resolve", `{"edit_id":"edit_1","action":"accept"}`)
	if b, _ := os.ReadFile(filepath.Join(dir, "src/broken.go")); !strings.Contains(string(b), `fmt.Errorf("x")`) {
		t.Errorf("broken.go with include_errors:\n%s", b)
	}
}

// TestAstEditOpsOverlap: two ops whose matches overlap refuse the edit,
// naming both (index and pattern, or rule id) and the file:line; nothing is
// staged.
func TestAstEditOpsOverlap(t *testing.T) {
	src := "package p\n\nfunc f(x int) int { return x }\nfunc g(x int) int { return x }\n\nvar (\n\ta = f(1)\n\tb = g(f(2))\n)\n"
	r, _ := structuralRun(t, tools.SurfaceDefault, map[string]string{"x/o.go": src})
	for _, c := range []struct {
		args string
		want []string
	}{
		{`{"language":"go","paths":["x"],"ops":[{"pattern":"f($A)","rewrite":"h($A)"},{"pattern":"g($B)","rewrite":"k($B)"}]}`,
			[]string{`ops[0] (pattern "f($A)")`, `ops[1] (pattern "g($B)")`, "x/o.go:8", "nothing staged"}},
		{`{"language":"go","path":"x/o.go","ops":[{"pattern":"f($A)","rewrite":"h($A)"},{"rule":{"id":"wrap-g","rule":{"pattern":"g($B)"},"fix":"k($B)"}}]}`,
			[]string{`ops[0] (pattern "f($A)")`, `ops[1] (rule "wrap-g")`, "x/o.go:8"}},
		{`{"language":"go","ops":[{"rule":{"pattern":"g($B)"},"rewrite":"k($B)"},{"pattern":"f(2)","rewrite":"f(0)"},{"pattern":"f(1)","rewrite":"f(3)"}]}`,
			[]string{`ops[0] (rule {"pattern":"g($B)"})`, `ops[1] (pattern "f(2)")`, "x/o.go:8"}},
	} {
		_, err := call(t, r, "ast_edit", c.args)
		if err == nil {
			t.Errorf("%s: overlapping ops were staged", c.args)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error lacks %q: %v", c.args, w, err)
			}
		}
	}
	if _, err := call(t, r, "resolve", `{"edit_id":"edit_1","action":"accept"}`); err == nil || !strings.Contains(err.Error(), "nothing is staged") {
		t.Errorf("a refused ops edit left something staged: %v", err)
	}
	// an op's rewrite naming what its pattern does not bind is said, op by op
	res := callResult(t, r, "ast_edit", `{"language":"go","ops":[{"pattern":"f(1)","rewrite":"f($Y)"}]}`)
	if txt := res.AllText(); !strings.Contains(txt, `an op's pattern does not bind what its rewrite names (ops[0] (pattern "f(1)"): $Y)`) {
		t.Errorf("unbound in an op:\n%s", txt)
	}
	callResult(t, r, "resolve", `{"edit_id":"edit_1","action":"discard"}`)
	// ops that do not overlap in the same file are combined
	res = callResult(t, r, "ast_edit", `{"language":"go","ops":[{"pattern":"f(1)","rewrite":"f(10)"},{"pattern":"f(2)","rewrite":"f(20)"}]}`)
	if txt := res.AllText(); !strings.Contains(txt, "(proposed) 2 replacements in 1 file") || !strings.Contains(txt, "+\tb = g(f(20))") {
		t.Errorf("two ops in one file:\n%s", txt)
	}
}

// TestAstEditOpsBadArgs: ops with pattern, an op without pattern or rule,
// a pattern op without rewrite, and a missing path each say what to do.
func TestAstEditOpsBadArgs(t *testing.T) {
	r, _ := structuralRun(t, tools.SurfaceDefault, opsFiles)
	for _, c := range []struct{ args, want string }{
		{`{"language":"go","pattern":"f()","rewrite":"g()","ops":[{"pattern":"f()","rewrite":"g()"}]}`, "give ops, or pattern/rule with rewrite, not both"},
		{`{"language":"go","ops":[{"pattern":"f()","rewrite":"g()"},{"rewrite":"g()"}]}`, "ops[1]"},
		{`{"language":"go","ops":[{"pattern":"f()"}]}`, `ops[0] (pattern "f()"): rewrite is required`},
		{`{"language":"go","paths":["src","nope"],"ops":[{"pattern":"f()","rewrite":"g()"}]}`, `path "nope" does not exist`},
		{`{"language":"go","ops":[{"pattern":"f(","rewrite":"g()"}]}`, `ops[0] (pattern "f(")`},
	} {
		_, err := call(t, r, "ast_edit", c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.args, err, c.want)
		}
	}
}

// TestAstGrepPathsGlobsStart: paths and globs choose the files as
// ast-grep's --globs do (the later glob wins), and start pages through the
// matches in the same order on every call.
func TestAstGrepPathsGlobsStart(t *testing.T) {
	r, _ := structuralRun(t, tools.SurfaceDefault, opsFiles)
	files := func(args string) []string {
		t.Helper()
		res := callResult(t, r, "ast_grep", args)
		st := res.Structured.(*tools.AstGrepResult)
		var got []string
		for _, m := range st.Matches {
			got = append(got, m.File)
		}
		return got
	}
	for _, c := range []struct {
		args string
		want []string
	}{
		{`{"pattern":"errors.New($M)","language":"go","paths":["src","lib"]}`, []string{"src/a.go", "src/a_test.go", "src/b.go", "src/broken.go"}},
		{`{"pattern":"errors.New($M)","language":"go","paths":["src","other"],"globs":["!**/*_test.go"]}`, []string{"other/d.go", "src/a.go", "src/b.go", "src/broken.go"}},
		// the later glob wins: the test file is excluded, then included again
		{`{"pattern":"errors.New($M)","language":"go","path":"src","globs":["!*_test.go","a_test.go"]}`, []string{"src/a_test.go"}},
		{`{"pattern":"errors.New($M)","language":"go","globs":["other/**","src/b.go"]}`, []string{"other/d.go", "src/b.go"}},
	} {
		got := files(c.args)
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: matches in %v, want %v", c.args, got, c.want)
		}
	}

	all := files(`{"pattern":"errors.New($M)","language":"go"}`)
	if len(all) != 5 {
		t.Fatalf("errors.New in %v, want 5 files", all)
	}
	var paged []string
	for start := 0; start < len(all); start += 2 {
		res := callResult(t, r, "ast_grep", map[string]any{"pattern": "errors.New($M)", "language": "go", "max_results": 2, "start": start})
		st := res.Structured.(*tools.AstGrepResult)
		for _, m := range st.Matches {
			paged = append(paged, m.File)
		}
		if next := start + 2; next < len(all) && !strings.Contains(res.AllText(), fmt.Sprintf("start %d shows the next", next)) {
			t.Errorf("page at %d does not say how to get the next:\n%s", start, res.AllText())
		}
	}
	if !slices.Equal(paged, all) {
		t.Errorf("pages %v differ from the whole list %v", paged, all)
	}
	if _, err := call(t, r, "ast_grep", `{"pattern":"f()","language":"go","globs":["!"]}`); err == nil || !strings.Contains(err.Error(), "glob") {
		t.Errorf("an empty exclude glob: %v", err)
	}
}
