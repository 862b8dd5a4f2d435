package search

import "strings"
import "testing"

import "github.com/tetherhq/tether/matcher"

func TestDiff(t *testing.T) {
	old := []byte("a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn\no\np\n")
	reps := []matcher.Edit{{Start: 2, End: 3, Text: "B1\nB2"}, {Start: 28, End: 29, Text: "O"}}
	c := FileChange{Path: "x.go", Old: old, New: matcher.Apply(old, reps), Replacements: 2}
	p := &Plan{Changes: []FileChange{c}, Replacements: 2}
	want := `--- a/x.go
+++ b/x.go
@@ -1,5 +1,6 @@
 a
-b
+B1
+B2
 c
 d
 e
@@ -12,5 +13,5 @@
 l
 m
 n
-o
+O
 p
`
	if got := p.Diff(0); got != want {
		t.Errorf("diff:\n%s\nwant:\n%s", got, want)
	}
	if got := p.Diff(4); !strings.HasSuffix(got, "... diff cut: 13 more lines\n") {
		t.Errorf("cut diff:\n%s", got)
	}
}
