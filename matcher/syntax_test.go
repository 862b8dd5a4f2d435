package matcher_test

import "bytes"
import "context"
import "encoding/json"
import "slices"
import "testing"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/engine/enginetest"
import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/matcher"

// syntaxSources are clean sources in each language the tests read.
var syntaxSources = map[string]string{
	"go":         "package p\n\nfunc f(o T) int {\n\to.run(1)\n\treturn load(2)\n}\n",
	"python":     "def f(o):\n    o.run(1)\n    return load(2)\n",
	"typescript": "function f(o: T): number {\n  o.run(1);\n  return load(2);\n}\n",
	"rust":       "fn f(o: T) -> u32 {\n    o.run(1);\n    load(2)\n}\n",
}

// TestSyntaxOutlineIsTreeSitters: the outline WriteSyntax prints (tether
// parse -outline) is the tree-sitter CLI's, as engine's Outline prints it,
// and a node's JSON row reads back as the node.
func TestSyntaxOutlineIsTreeSitters(t *testing.T) {
	p := parser(t)
	for lang, src := range syntaxSources {
		t.Run(lang, func(t *testing.T) {
			enginetest.RequireGrammars(t, lang)
			l, _ := grammars.Lookup(lang)
			tree, err := p.Parse(context.Background(), l, []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			syn := matcher.SyntaxOf([]engine.Node{tree.Root()}, matcher.SyntaxOptions{})
			var b bytes.Buffer
			if err := matcher.WriteSyntax(&b, syn.Nodes, matcher.SyntaxOutline); err != nil {
				t.Fatal(err)
			}
			if want := tree.Root().Outline(true) + "\n"; b.String() != want {
				t.Errorf("outline:\n%s\nwant:\n%s", b.String(), want)
			}
			cst := matcher.SyntaxOf([]engine.Node{tree.Root()}, matcher.SyntaxOptions{All: true})
			if cst.Total <= syn.Total || cst.Total != tree.Len() {
				t.Errorf("cst lists %d nodes, the ast %d, the tree holds %d", cst.Total, syn.Total, tree.Len())
			}
			js, _ := json.Marshal(cst.Nodes)
			var back []matcher.SyntaxNode
			if err := json.Unmarshal(js, &back); err != nil {
				t.Fatal(err)
			}
			for i := range back {
				back[i].Text = cst.Nodes[i].Text
			}
			if !slices.Equal(back, cst.Nodes) {
				t.Errorf("the rows do not read back")
			}
		})
	}
}

// TestPatternHints reads patterns that miss what they seem to mean, in
// each language: their reading and the hint that says why.
func TestPatternHints(t *testing.T) {
	p := parser(t)
	for _, c := range []struct {
		lang, pattern      string
		context, root      string
		vars               []string
		hint, hintsPattern string
	}{
		{"go", "fmt.Println($A)", "statement", "call_expression", []string{"$A"}, "method_call", "$_.Println($A)"},
		{"go", "run($$$ARGS)", "statement", "call_expression", []string{"$$$ARGS"}, "function_call", "$_.run($$$ARGS)"},
		{"go", "[]byte($A)", "statement", "type_conversion_expression", []string{"$A"}, "conversion", ""},
		{"go", "foo(,)", "interface member", "method_elem", nil, "context", ""},
		{"python", "run($A)", "statement", "call", []string{"$A"}, "function_call", "$_.run($A)"},
		{"python", "os.path.join($A)", "statement", "call", []string{"$A"}, "", ""},
		{"typescript", "load($A);", "statement", "expression_statement", []string{"$A"}, "statement", "load($A)"},
		{"typescript", "console.log($A)", "statement", "call_expression", []string{"$A"}, "method_call", "$_.log($A)"},
		{"rust", "load($A);", "statement", "expression_statement", []string{"$A"}, "statement", "load($A)"},
		{"rust", "run($A)", "statement", "call_expression", []string{"$A"}, "function_call", "$_.run($A)"},
	} {
		t.Run(c.lang+"/"+c.pattern, func(t *testing.T) {
			enginetest.RequireGrammars(t, c.lang)
			l, _ := grammars.Lookup(c.lang)
			pat, err := matcher.Compile(context.Background(), p, l, c.pattern)
			if err != nil {
				t.Fatal(err)
			}
			r := pat.Reading()
			if r.Context != c.context || !slices.Equal(r.Roots, []string{c.root}) || !slices.Equal(r.Metavariables, c.vars) || pat.RootKind() != c.root {
				t.Errorf("reading = %+v (root kind %q), want %s %s %v", r, pat.RootKind(), c.context, c.root, c.vars)
			}
			hints := pat.Hints()
			i := slices.IndexFunc(hints, func(h matcher.Hint) bool { return h.Kind == c.hint })
			switch {
			case c.hint == "" && len(hints) > 0:
				t.Errorf("hints = %+v, want none", hints)
			case c.hint != "" && i < 0:
				t.Errorf("hints = %+v, want %s", hints, c.hint)
			case c.hint != "" && hints[i].Pattern != c.hintsPattern:
				t.Errorf("hint's pattern = %q, want %q", hints[i].Pattern, c.hintsPattern)
			}
			tree := pat.Tree(matcher.SyntaxOptions{})
			if len(tree.Nodes) == 0 || tree.Nodes[0].Kind != c.root || tree.Nodes[0].Start != (engine.Point{}) {
				t.Errorf("the pattern's tree starts at its root, at 0:0: %+v", tree.Nodes)
			}
		})
	}
}

// TestMatcherCandidates: Find counts the nodes of the pattern's root kind
// it compared, and names the one that came nearest when none matched.
func TestMatcherCandidates(t *testing.T) {
	p := parser(t)
	for lang, src := range syntaxSources {
		t.Run(lang, func(t *testing.T) {
			enginetest.RequireGrammars(t, lang)
			l, _ := grammars.Lookup(lang)
			tree, _ := p.Parse(context.Background(), l, []byte(src))
			pat, err := matcher.Compile(context.Background(), p, l, "load($A, $B)")
			if err != nil {
				t.Fatal(err)
			}
			m := matcher.NewMatcher(pat)
			ms, err := m.Find(context.Background(), tree)
			if err != nil || len(ms) != 0 {
				t.Fatalf("%v %v", ms, err)
			}
			n, near, work := m.Candidates()
			if n != 2 || work == 0 || near.Text() != "load(2)" {
				t.Errorf("candidates %d, nearest %q (%d steps): want 2, load(2)", n, near.Text(), work)
			}
		})
	}
}
