package engine

import "context"
import "testing"

// TestWithSource: a tree over text of the same length and line breaks has
// the parsed tree's nodes, their texts the new text's; text that does not
// fit is refused.
func TestWithSource(t *testing.T) {
	e := newTestEngine(t, NewConfig())
	tree, err := e.Parse(context.Background(), mustLang("python"), []byte("def f():\n    #time g()\n    return 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	over := tree.WithSource([]byte("def f():\n    %time g()\n    return 1\n"))
	if over == nil || over.String() != tree.String() || over.Len() != tree.Len() {
		t.Fatalf("WithSource: %v", over)
	}
	for i := 0; i < over.Len(); i++ {
		if n := over.NodeAt(i); n.Kind() == "comment" && n.Text() != "%time g()" {
			t.Errorf("the comment's text is %q", n.Text())
		}
	}
	src := string(tree.Source())
	for name, bad := range map[string]string{
		"shorter":            src[:len(src)-1],
		"a line break moved": "def f(): \n   #time g()\n    return 1\n",
	} {
		if tree.WithSource([]byte(bad)) != nil {
			t.Errorf("WithSource of text %s fits", name)
		}
	}
}
