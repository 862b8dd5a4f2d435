package engine

import "context"
import "errors"
import "testing"

// TestEncodeRoundTrip: a decoded tree is the parsed one, node for node.
func TestEncodeRoundTrip(t *testing.T) {
	ctx := context.Background()
	e := newTestEngine(t, NewConfig())
	for lang, src := range map[string]string{
		"go":     "package a\n\nfunc f(x int) error {\n\tif x > 0 { return nil }\n\treturn g(x, \"é\")\n}\n",
		"python": "def f(x):\n    return [y for y in x if y]\n\nclass C(:\n",
	} {
		tree, err := e.Parse(ctx, mustLang(lang), []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		data, _ := tree.AppendBinary(nil)
		got, err := e.DecodeTree(ctx, mustLang(lang), []byte(src), data)
		if err != nil {
			t.Fatalf("%s: %v", lang, err)
		}
		if got.String() != tree.String() || got.Len() != tree.Len() || got.HasError() != tree.HasError() {
			t.Fatalf("%s: decoded %s, parsed %s", lang, got, tree)
		}
		for i := 0; i < tree.Len(); i++ {
			a, b := tree.NodeAt(i), got.NodeAt(i)
			if a.Range() != b.Range() || a.Kind() != b.Kind() || a.Field() != b.Field() || a.IsNamed() != b.IsNamed() || a.ChildCount() != b.ChildCount() {
				t.Fatalf("%s: node %d differs", lang, i)
			}
		}
		if _, err := e.DecodeTree(ctx, mustLang(lang), []byte(src+" "), data); !errors.Is(err, ErrBadTree) {
			t.Errorf("%s: decoded for another source: %v", lang, err)
		}
	}
}

// TestDecodeNeverTrustsData: every single-byte change and every truncation of
// an encoded tree either fails with ErrBadTree or decodes to a tree that can be
// walked, navigated and printed without a panic.
func TestDecodeNeverTrustsData(t *testing.T) {
	ctx := context.Background()
	e := newTestEngine(t, NewConfig())
	src := []byte("package a\n\nfunc f() { g(1, \"x\") }\n")
	tree, err := e.Parse(ctx, mustLang("go"), src)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := tree.AppendBinary(nil)
	try := func(d []byte) {
		got, err := e.DecodeTree(ctx, mustLang("go"), src, d)
		if err != nil {
			if !errors.Is(err, ErrBadTree) {
				t.Fatalf("error does not wrap ErrBadTree: %v", err)
			}
			return
		}
		_ = got.String()
		_ = got.Root().Outline(true)
		got.Root().Walk(func(n Node) bool {
			_, _ = n.Parent()
			_ = n.Text()
			_ = n.Range()
			_ = n.Children()
			return true
		})
	}
	for i := range data {
		for _, x := range []byte{0x01, 0x80, 0xFF} {
			d := append([]byte(nil), data...)
			d[i] ^= x
			try(d)
		}
		try(data[:i])
	}
}
