package tools_test

import "encoding/json"
import "slices"
import "strings"
import "testing"

import "github.com/tetherhq/tether/engine/enginetest"
import "github.com/tetherhq/tether/matcher"
import "github.com/tetherhq/tether/tools"

// treeLangs are the sources the ast_tree tests run in each language: a
// file with a method call, a pattern that reads as a bare call (or a
// statement) and so misses it, and one that matches.
var treeLangs = []struct {
	lang, file, src string
	// miss is a pattern that matches nothing in src, hint the kind of
	// its hint; hit matches once, on line hitLine
	miss, hint, rootKind string
	hit                  string
	hitLine              int
	// call is the kind of a call
	call string
}{
	{"go", "a.go", "package p\n\nfunc f(o T) {\n\to.run(1)\n\tx := load(2)\n\t_ = x\n}\n", "run($A)", "function_call", "call_expression", "load($A)", 5, "call_expression"},
	{"python", "a.py", "def f(o):\n    o.run(1)\n    x = load(2)\n    return x\n", "run($A)", "function_call", "call", "load($A)", 3, "call"},
	{"typescript", "a.ts", "function f(o: T) {\n  o.run(1);\n  return load(2);\n}\n", "load($A);", "statement", "expression_statement", "load($A)", 3, "call_expression"},
	{"rust", "a.rs", "fn f(o: T) -> u32 {\n    o.run(1);\n    load(2)\n}\n", "run($A)", "function_call", "call_expression", "load($A)", 3, "call_expression"},
}

// TestAstTreePatternReading asks ast_tree how each language reads a
// pattern: its context, root kind, metavariables and tree.
func TestAstTreePatternReading(t *testing.T) {
	enginetest.RequireGrammars(t, "go", "python", "typescript", "rust")
	r, _ := structuralRun(t, tools.SurfacePlan, nil)
	for _, c := range treeLangs {
		t.Run(c.lang, func(t *testing.T) {
			res := callResult(t, r, "ast_tree", map[string]any{"language": c.lang, "pattern": c.miss})
			out := structured[*tools.AstTreeResult](t, res)
			if len(out.Readings) == 0 || out.Test != nil || out.Tree != nil {
				t.Fatalf("a pattern alone gives its readings only: %+v", out)
			}
			rd := out.Readings[0]
			if rd.Context != "statement" || !slices.Equal(rd.Roots, []string{c.rootKind}) || !slices.Equal(rd.Metavariables, []string{"$A"}) {
				t.Errorf("reading = %+v, want statement, root %s, $A", rd.PatternReading, c.rootKind)
			}
			nodes := rd.Tree.Nodes
			if len(nodes) == 0 || nodes[0].Kind != c.rootKind || nodes[0].Depth != 0 || nodes[0].Range != "1:1-1:"+itoa(len(c.miss)+1) {
				t.Fatalf("the tree starts at the root, placed in the pattern: %+v", nodes)
			}
			if !slices.ContainsFunc(nodes, func(n matcher.SyntaxNode) bool { return n.Text == "$A" && !n.Anonymous }) {
				t.Errorf("the metavariable's leaf shows as written: %+v", nodes)
			}
			if slices.ContainsFunc(nodes, func(n matcher.SyntaxNode) bool { return n.Anonymous }) {
				t.Errorf("anonymous nodes without cst: %+v", nodes)
			}
			cst := structured[*tools.AstTreeResult](t, callResult(t, r, "ast_tree", map[string]any{"language": c.lang, "pattern": c.miss, "cst": true}))
			if !slices.ContainsFunc(cst.Readings[0].Tree.Nodes, func(n matcher.SyntaxNode) bool { return n.Anonymous && n.Kind == "(" }) {
				t.Errorf("cst lists the anonymous (: %+v", cst.Readings[0].Tree.Nodes)
			}
		})
	}
}

// TestAstTreeSnippetTest runs patterns and a rule against code given as
// text, in each language: a match with its captures, and a miss with how
// the pattern was read, the candidates in the code and the code's tree.
func TestAstTreeSnippetTest(t *testing.T) {
	enginetest.RequireGrammars(t, "go", "python", "typescript", "rust")
	r, _ := structuralRun(t, tools.SurfacePlan, nil)
	for _, c := range treeLangs {
		t.Run(c.lang, func(t *testing.T) {
			hit := structured[*tools.AstTreeResult](t, callResult(t, r, "ast_tree", map[string]any{"language": c.lang, "pattern": c.hit, "code": c.src}))
			if hit.Test == nil || hit.Test.Total != 1 || len(hit.Test.Matches) != 1 || hit.Tree != nil {
				t.Fatalf("test of %s: %+v", c.hit, hit)
			}
			if m := hit.Test.Matches[0]; m.File != "snippet" || m.Start.Line != c.hitLine || m.Captures["$A"] != "2" || hit.Test.NoMatch != nil {
				t.Errorf("match = %+v, want snippet:%d with $A = 2", m, c.hitLine)
			}
			miss := structured[*tools.AstTreeResult](t, callResult(t, r, "ast_tree", map[string]any{"language": c.lang, "pattern": c.miss, "code": c.src}))
			if miss.Test == nil || miss.Test.Total != 0 || miss.Test.NoMatch == nil || miss.Tree == nil {
				t.Fatalf("test of %s: %+v", c.miss, miss)
			}
			nm := miss.Test.NoMatch
			if nm.RootKind != c.rootKind || nm.Parsed != 1 || !slices.ContainsFunc(nm.Hints, func(h matcher.Hint) bool { return h.Kind == c.hint }) {
				t.Errorf("no match = %+v, want root %s and a %s hint", nm, c.rootKind, c.hint)
			}
			if nm.Candidates == 0 && c.hint != "statement" {
				t.Errorf("the code holds calls, counted: %+v", nm)
			}
			if miss.Tree.Total == 0 || miss.Tree.Nodes[0].Depth != 0 {
				t.Errorf("the code's tree comes with a miss: %+v", miss.Tree)
			}
			// the hint's pattern matches the code
			for _, h := range nm.Hints {
				if h.Pattern == "" {
					continue
				}
				again := structured[*tools.AstTreeResult](t, callResult(t, r, "ast_tree", map[string]any{"language": c.lang, "pattern": h.Pattern, "code": c.src}))
				if again.Test.Total == 0 {
					t.Errorf("the hint's pattern %q matches nothing either", h.Pattern)
				}
			}
			rule := map[string]any{"kind": c.call, "has": map[string]any{"regex": "^load$", "stopBy": "end"}}
			ruled := structured[*tools.AstTreeResult](t, callResult(t, r, "ast_tree", map[string]any{"language": c.lang, "rule": rule, "code": c.src}))
			if ruled.Test == nil || ruled.Test.Total != 1 || ruled.Test.Matches[0].Start.Line != c.hitLine || ruled.Test.NoMatch != nil {
				t.Errorf("rule test: %+v", ruled.Test)
			}
		})
	}
}

// TestAstTreeCode lists a snippet's and a file's trees in each language,
// paged and by lines.
func TestAstTreeCode(t *testing.T) {
	enginetest.RequireGrammars(t, "go", "python", "typescript", "rust")
	files := map[string]string{}
	for _, c := range treeLangs {
		files[c.file] = c.src
	}
	r, _ := structuralRun(t, tools.SurfacePlan, files)
	for _, c := range treeLangs {
		t.Run(c.lang, func(t *testing.T) {
			code := structured[*tools.AstTreeResult](t, callResult(t, r, "ast_tree", map[string]any{"language": c.lang, "code": c.src}))
			file := structured[*tools.AstTreeResult](t, callResult(t, r, "ast_tree", map[string]any{"path": c.file}))
			if code.Tree == nil || file.Tree == nil || code.Tree.Total != file.Tree.Total || file.Language != c.lang {
				t.Fatalf("code and file trees differ: %+v\n%+v", code.Tree, file.Tree)
			}
			all := file.Tree.Nodes
			if all[0].Depth != 0 || all[0].Range != "1:1-"+itoa(strings.Count(c.src, "\n")+1)+":1" {
				t.Errorf("root = %+v", all[0])
			}
			// two pages make the whole list
			res := callResult(t, r, "ast_tree", map[string]any{"path": c.file, "max_nodes": 5})
			p1 := structured[*tools.AstTreeResult](t, res)
			p2 := structured[*tools.AstTreeResult](t, callResult(t, r, "ast_tree", map[string]any{"path": c.file, "max_nodes": 1000, "start": 5}))
			if got := append(p1.Tree.Nodes, p2.Tree.Nodes...); !jsonEqual(got, all) || p2.Tree.Start != 5 {
				t.Errorf("pages 0-5 and 5- are not the tree")
			}
			if len(p1.More) != 1 || !strings.Contains(p1.More[0], "start 5 shows the next") {
				t.Errorf("a page says how to get the rest: %q", p1.More)
			}
			// the hit's line: its nodes and their ancestors
			lines := structured[*tools.AstTreeResult](t, callResult(t, r, "ast_tree", map[string]any{"path": c.file, "from_line": c.hitLine, "to_line": c.hitLine, "cst": true}))
			var kinds []string
			for _, n := range lines.Tree.Nodes {
				if n.Start.Row+1 > uint32(c.hitLine) || n.End.Row+1 < uint32(c.hitLine) {
					t.Errorf("node %+v is not on line %d", n, c.hitLine)
				}
				kinds = append(kinds, n.Kind)
			}
			if !slices.Contains(kinds, "(") || !slices.Contains(kinds, c.rootKind) && c.rootKind != "expression_statement" || lines.Tree.Nodes[0].Depth != 0 {
				t.Errorf("line %d's nodes: %v", c.hitLine, kinds)
			}
		})
	}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, "give pattern"},
		{map[string]any{"code": "x", "path": "a.go"}, "not both"},
		{map[string]any{"code": "x"}, "pass language"},
		{map[string]any{"rule": map[string]any{"kind": "call"}, "language": "python"}, "give code"},
		{map[string]any{"path": "a.unknown"}, "no grammar"},
		{map[string]any{"path": "nope.go"}, "nope.go"},
		{map[string]any{"path": "a.go", "from_line": 5, "to_line": 2}, "from_line 5 is after to_line 2"},
		{map[string]any{"language": "go", "pattern": "if $A {"}, "does not parse"},
	} {
		if _, err := call(t, r, "ast_tree", c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want %q", c.args, err, c.want)
		}
	}
}

// TestAstGrepNoMatch searches files in each language with a pattern that
// misses: the result says how it was read, counts its root kind in the
// files, names the nearest miss and hints; a match and a search of no
// files carry none of it.
func TestAstGrepNoMatch(t *testing.T) {
	enginetest.RequireGrammars(t, "go", "python", "typescript", "rust")
	files := map[string]string{}
	for _, c := range treeLangs {
		files["src/"+c.file] = c.src
	}
	files["empty/README"] = "nothing\n"
	r, _ := structuralRun(t, tools.SurfacePlan, files)
	for _, c := range treeLangs {
		t.Run(c.lang, func(t *testing.T) {
			res := callResult(t, r, "ast_grep", map[string]any{"language": c.lang, "pattern": c.miss, "path": "src"})
			out := structured[*tools.AstGrepResult](t, res)
			nm := out.NoMatch
			if out.Total != 0 || out.Searched != 1 || nm == nil {
				t.Fatalf("want no match with a hint: %+v", out)
			}
			if nm.RootKind != c.rootKind || nm.Reading.Context != "statement" || !slices.ContainsFunc(nm.Hints, func(h matcher.Hint) bool { return h.Kind == c.hint }) {
				t.Errorf("no match = %+v", nm)
			}
			if c.hint == "function_call" && (nm.Candidates != 2 || nm.Parsed != 1 || nm.Nearest == nil || nm.Nearest.Path != "src/"+c.file) {
				t.Errorf("two calls in the one file parsed, the nearest named: %+v %+v", nm, nm.Nearest)
			}
			if !strings.Contains(res.AllText(), "the pattern was read as statement ("+c.rootKind+")") {
				t.Errorf("the summary says how the pattern was read:\n%s", res.AllText())
			}
			hit := structured[*tools.AstGrepResult](t, callResult(t, r, "ast_grep", map[string]any{"language": c.lang, "pattern": c.hit, "path": "src"}))
			if hit.Total != 1 || hit.NoMatch != nil {
				t.Errorf("a match has no no_match: %+v", hit)
			}
			none := callResult(t, r, "ast_grep", map[string]any{"language": c.lang, "pattern": c.miss, "path": "empty"})
			if out := structured[*tools.AstGrepResult](t, none); out.NoMatch != nil || out.Searched != 0 || !strings.Contains(none.AllText(), "not searched") {
				t.Errorf("nothing searched is not a miss: %+v\n%s", out, none.AllText())
			}
		})
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
