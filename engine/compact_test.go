package engine

import "context"
import "os"
import "path/filepath"
import "runtime"
import "strings"
import "testing"
import "unsafe"

import "github.com/tetherhq/tether/grammars"

type record struct {
	start, end   Point
	parent, next int32
	nchild       uint32
}

// TestCompactTreeAgreesWithShim parses every language's fixtures (ok and
// broken, so ERROR and MISSING nodes are covered, CRLF and multi-byte text
// in some) and a few large Go files, and checks that what the 16-byte table
// derives (points from line starts, parent by descent, next sibling from the
// parent's end, child count by counting) is what the shim recorded.
func TestCompactTreeAgreesWithShim(t *testing.T) {
	if s := unsafe.Sizeof(node{}); s != NodeBytes {
		t.Fatalf("node is %d bytes, NodeBytes says %d", s, NodeBytes)
	}
	e := newTestEngine(t, NewConfig())
	var files []string
	fx, _ := filepath.Glob(filepath.Join("..", "testdata", "parse", "*", "*"))
	files = append(files, fx...)
	for _, f := range []string{"go/parser/parser.go", "net/http/server.go", "unicode/tables.go"} {
		files = append(files, filepath.Join(runtime.GOROOT(), "src", filepath.FromSlash(f)))
	}
	var recs []record
	testHookRecord = func(i int, start, end Point, parent, next int32, nchild uint32) {
		recs = append(recs, record{start, end, parent, next, nchild})
	}
	defer func() { testHookRecord = nil }()
	checked := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		l, ok := grammars.ForPath(strings.TrimSuffix(f, ".txt"))
		if !ok {
			t.Fatalf("%s: no language", f)
		}
		recs = recs[:0]
		tree, err := e.Parse(context.Background(), l, src)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(recs) != tree.Len() {
			t.Fatalf("%s: %d records, %d nodes", f, len(recs), tree.Len())
		}
		// every handle reached by walking equals the one NodeAt builds
		var walked []Node
		tree.Root().Walk(func(n Node) bool { walked = append(walked, n); return true })
		if len(walked) != tree.Len() {
			t.Fatalf("%s: walked %d of %d nodes", f, len(walked), tree.Len())
		}
		for i, r := range recs {
			n := tree.NodeAt(i)
			if n != walked[i] {
				t.Fatalf("%s: node %d: NodeAt %+v, Walk %+v", f, i, n, walked[i])
			}
			rg := n.Range()
			if rg.StartPoint != r.start || rg.EndPoint != r.end {
				t.Fatalf("%s: node %d (%s): points %v-%v, shim %v-%v", f, i, n.Kind(), rg.StartPoint, rg.EndPoint, r.start, r.end)
			}
			p, ok := n.Parent()
			if got := int32(-1); ok {
				got = int32(p.Index())
				if got != r.parent {
					t.Fatalf("%s: node %d: parent %d, shim %d", f, i, got, r.parent)
				}
			} else if r.parent != -1 {
				t.Fatalf("%s: node %d: no parent, shim %d", f, i, r.parent)
			}
			next := int32(-1)
			if s, ok := n.NextSibling(); ok {
				next = int32(s.Index())
			}
			if next != r.next {
				t.Fatalf("%s: node %d: next %d, shim %d", f, i, next, r.next)
			}
			if c := n.ChildCount(); uint32(c) != r.nchild {
				t.Fatalf("%s: node %d: %d children, shim %d", f, i, c, r.nchild)
			}
			checked++
		}
		if f == files[len(files)-1] {
			t.Logf("%s: %d nodes, %d source bytes, %.1f bytes a node held in all", filepath.Base(f), tree.Len(), len(src), float64(tree.MemoryBytes())/float64(tree.Len()))
		}
	}
	t.Logf("%d nodes in %d files agree", checked, len(files))
}
