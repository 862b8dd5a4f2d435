package lsp_test

import "fmt"
import "strings"
import "testing"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/internal/testenv"

// itemAt reports whether items has one named name declared at path:line,
// and returns it.
func itemAt(items []lsp.HierarchyItem, name, path string, line int) (lsp.HierarchyItem, bool) {
	for _, it := range items {
		if it.Name == name && it.Location.Path == path && it.Location.Line == line {
			return it, true
		}
	}
	return lsp.HierarchyItem{}, false
}

func itemStrings(items []lsp.HierarchyItem) string {
	var b strings.Builder
	for _, it := range items {
		fmt.Fprintf(&b, "%s %s %s:%d calls %v\n", it.Kind, it.Name, it.Location.Path, it.Location.Line, it.Calls)
	}
	return b.String()
}

// TestHierarchy: call_hierarchy's callers and callees, and type_hierarchy's
// supertypes and subtypes, from each real server that offers them, with the
// call sites in the right file; a server without type hierarchies says so
// and what to use instead.
func TestHierarchy(t *testing.T) {
	type want struct {
		name, path string
		line       int
		call       string // "path:line" of a call site, "" for types
	}
	type hcase struct {
		what string // incoming, outgoing, supertypes, subtypes
		pos  lsp.Position
		want []want
		err  string
	}
	for _, peer := range []struct {
		bin, project string
		cases        []hcase
	}{
		{"gopls", "goproj", []hcase{
			{lsp.Incoming, lsp.Position{File: "shapes.go", Line: 17, Symbol: "Total"}, []want{{"Sum", "use.go", 10, "use.go:11"}}, ""},
			{lsp.Outgoing, lsp.Position{File: "use.go", Line: 10, Symbol: "Sum"}, []want{{"Big", "use.go", 4, "use.go:11"}, {"Total", "shapes.go", 17, "use.go:11"}}, ""},
			{lsp.Supertypes, lsp.Position{File: "shapes.go", Line: 9, Symbol: "Square"}, []want{{"Shape", "shapes.go", 4, ""}}, ""},
			{lsp.Subtypes, lsp.Position{File: "shapes.go", Line: 4, Symbol: "Shape"}, []want{{"Square", "shapes.go", 9, ""}}, ""},
		}},
		{"pyright-langserver", "pyproj", []hcase{
			{lsp.Incoming, lsp.Position{File: "pkg/shapes.py", Line: 21, Symbol: "total"}, []want{{"run", "app.py", 9, "app.py:11"}}, ""},
			{lsp.Outgoing, lsp.Position{File: "app.py", Line: 9, Symbol: "run"}, []want{{"big", "app.py", 4, "app.py:10"}, {"total", "pkg/shapes.py", 21, "app.py:11"}}, ""},
			{lsp.Supertypes, lsp.Position{File: "pkg/shapes.py", Line: 11, Symbol: "Square"}, nil,
				"pyright does not offer type hierarchies (no typeHierarchyProvider in its capabilities), so this cannot be answered for python files; use implementation instead"},
		}},
		{"typescript-language-server", "tsproj", []hcase{
			{lsp.Incoming, lsp.Position{File: "src/shapes.ts", Line: 16, Symbol: "total"}, []want{{"run", "src/app.ts", 8, "src/app.ts:10"}}, ""},
			{lsp.Outgoing, lsp.Position{File: "src/app.ts", Line: 8, Symbol: "run"}, []want{{"big", "src/app.ts", 3, "src/app.ts:9"}, {"total", "src/shapes.ts", 16, "src/app.ts:10"}}, ""},
			{lsp.Subtypes, lsp.Position{File: "src/shapes.ts", Line: 2, Symbol: "Shape"}, nil,
				"typescript-language-server does not offer type hierarchies"},
		}},
	} {
		t.Run(peer.bin, func(t *testing.T) {
			_, s := peerProject(t, peer.bin, peer.project)
			ctx := ctxT(t)
			for _, tc := range peer.cases {
				t.Run(tc.what, func(t *testing.T) {
					var h *lsp.Hierarchy
					var err error
					if tc.what == lsp.Incoming || tc.what == lsp.Outgoing {
						h, err = s.CallHierarchy(ctx, tc.pos, tc.what, 0)
					} else {
						h, err = s.TypeHierarchy(ctx, tc.pos, tc.what, 0)
					}
					if tc.err != "" {
						if err == nil || !strings.Contains(err.Error(), tc.err) {
							t.Fatalf("want an error containing %q, got %v", tc.err, err)
						}
						return
					}
					if err != nil {
						t.Fatal(err)
					}
					if len(h.Of) != 1 || !strings.Contains(tc.pos.Symbol, h.Of[0].Name) {
						t.Errorf("prepared %+v, want the item %s", h.Of, tc.pos.Symbol)
					}
					for _, w := range tc.want {
						it, ok := itemAt(h.Items, w.name, w.path, w.line)
						if !ok {
							t.Errorf("%s: no %s at %s:%d in\n%s", tc.what, w.name, w.path, w.line, itemStrings(h.Items))
							continue
						}
						if w.call == "" {
							continue
						}
						found := false
						for _, c := range it.Calls {
							found = found || fmt.Sprintf("%s:%d", c.Path, c.Line) == w.call
						}
						if !found || it.CallCount != len(it.Calls) {
							t.Errorf("%s %s: calls %v (count %d), want one at %s", tc.what, w.name, it.Calls, it.CallCount, w.call)
						}
					}
					if h.Total != len(h.Items) {
						t.Errorf("total %d, %d items", h.Total, len(h.Items))
					}
				})
			}
		})
	}
}

// TestCallHierarchyBounded: 56 callers are listed 50 to a page with the
// total, start pages on, and a caller's 12 call sites are cut at
// MaxCallSites with the count (gopls).
func TestCallHierarchyBounded(t *testing.T) {
	testenv.RequireBinary(t, "gopls")
	var b strings.Builder
	b.WriteString("package p\n\n")
	for i := range 55 {
		fmt.Fprintf(&b, "func C%02d() { F() }\n", i)
	}
	b.WriteString("func Many() {\n" + strings.Repeat("\tF()\n", 12) + "}\n")
	dir := testenv.Workspace(t, map[string]string{
		"go.mod":     "module example.com/p\n\ngo 1.22\n",
		"f.go":       "package p\n\n// F is called from everywhere.\nfunc F() {}\n",
		"callers.go": b.String(),
	})
	s := newSupervisor(t, dir)
	ctx := ctxT(t)
	pos := lsp.Position{File: "f.go", Line: 4, Symbol: "F"}
	h, err := s.CallHierarchy(ctx, pos, lsp.Incoming, 0)
	if err != nil {
		t.Fatal(err)
	}
	if h.Total != 56 || len(h.Items) != lsp.MaxHierarchy || h.Start != 0 {
		t.Fatalf("first page: total %d, %d items, start %d; want 56, %d, 0", h.Total, len(h.Items), h.Start, lsp.MaxHierarchy)
	}
	h, err = s.CallHierarchy(ctx, pos, lsp.Incoming, lsp.MaxHierarchy)
	if err != nil {
		t.Fatal(err)
	}
	if h.Total != 56 || len(h.Items) != 6 || h.Start != lsp.MaxHierarchy {
		t.Fatalf("second page: total %d, %d items, start %d; want 56, 6, %d", h.Total, len(h.Items), h.Start, lsp.MaxHierarchy)
	}
	many, ok := itemAt(h.Items, "Many", "callers.go", 58)
	if !ok {
		t.Fatalf("Many not on the second page:\n%s", itemStrings(h.Items))
	}
	if many.CallCount != 12 || len(many.Calls) != lsp.MaxCallSites || many.Calls[0].Line != 59 {
		t.Errorf("Many: %d calls listed, count %d, first %v; want %d, 12, line 59", len(many.Calls), many.CallCount, many.Calls[0], lsp.MaxCallSites)
	}
	if _, err := s.CallHierarchy(ctx, pos, "up", 0); err == nil || !strings.Contains(err.Error(), `direction "up": use incoming (the callers) or outgoing (the callees)`) {
		t.Errorf("bad direction: %v", err)
	}
}
