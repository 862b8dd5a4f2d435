package tools

import "context"
import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/engine/enginetest"

// TestSyntaxOf: the flat tree bridges/lsp's scans read is the engine's,
// node for node: kind, field, span, parent and children.
func TestSyntaxOf(t *testing.T) {
	e := enginetest.Engine(t)
	src := "package p\n\n// F adds.\nfunc F(a, b int) (int, error) {\n\tif a > b {\n\t\treturn a + b, nil\n\t}\n\treturn 0, nil\n}\n"
	tree, err := e.Parse(context.Background(), enginetest.Language(t, "go"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	s := syntaxOf(tree)
	if len(s.Nodes) != tree.Len() || s.Language != "go" || string(s.Source) != src {
		t.Fatalf("%d nodes of %s, want %d of go", len(s.Nodes), s.Language, tree.Len())
	}
	for i, got := range s.Nodes {
		n := tree.NodeAt(i)
		parent := -1
		if p, ok := n.Parent(); ok {
			parent = p.Index()
		}
		want := lsp.SyntaxNode{Kind: n.Kind(), Field: n.Field(), Named: n.IsNamed(), Start: int(n.StartByte()), End: int(n.EndByte()),
			Parent: parent, Descendants: n.DescendantCount(), Children: n.ChildCount()}
		if got != want {
			t.Errorf("node %d = %+v, want %+v", i, got, want)
		}
	}
}

// TestHeaderBranchLeftOut: which changes to a header lie in code that a
// check of the header alone leaves out.
func TestHeaderBranchLeftOut(t *testing.T) {
	e := enginetest.Engine(t)
	const h = "#ifndef WRAP\n#ifndef H_H\n#define H_H\nint a;\n#ifdef H_IMPL\nint b;\n#else\nint c;\n#endif\n#ifndef NO_D\nint d;\n#else\nint e;\n#endif\n#define HAVE_F\n#if defined(HAVE_F)\nint f;\n#endif\n#if FANCY > 1\nint g;\n#endif\n#if !defined(X)\nint h;\n#endif\n#endif\n#endif\n"
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "h.h"), []byte(h), 0o644); err != nil {
		t.Fatal(err)
	}
	sup, err := lsp.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer sup.Close()
	for decl, want := range map[string]string{"int a;": "", "int b;": "#ifdef H_IMPL", "int c;": "", "int d;": "", "int e;": "#else",
		"int f;": "", "int g;": "#if FANCY > 1", "int h;": ""} {
		at := strings.Index(h, decl)
		changed := func(old, now []byte) (oldR, nowR [][2]int) { return nil, [][2]int{{at, at + len(decl)}} }
		got := sup.HiddenHeaderChange(context.Background(), lspParser(e), changed, lsp.WrittenFile{Path: "h.h", Old: []byte{}})
		if want == "" && got != "" || want != "" && !strings.HasPrefix(got, "the change is under "+want+",") {
			t.Errorf("%s: %q, want it left out by %q", decl, got, want)
		}
	}
}
