package engine_test

import "context"
import "errors"
import "fmt"
import "os"
import "path/filepath"
import "strings"
import "sync"
import "testing"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/engine/enginetest"
import "github.com/tetherhq/tether/grammars"

func fixtures(t *testing.T, id string) (ok, broken string) {
	t.Helper()
	dir := filepath.Join("..", "testdata", "parse", id)
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("no fixtures for %s: %v", id, err)
	}
	for _, e := range ents {
		name := strings.TrimSuffix(e.Name(), ".txt")
		switch strings.TrimSuffix(name, filepath.Ext(name)) {
		case "ok":
			ok = filepath.Join(dir, e.Name())
		case "broken":
			broken = filepath.Join(dir, e.Name())
		}
	}
	if ok == "" || broken == "" {
		t.Fatalf("%s needs ok.EXT and broken.EXT fixtures", dir)
	}
	return ok, broken
}

// TestFixtures parses every shipped language's fixtures: ok.EXT has no ERROR
// or MISSING node, broken.EXT reports one. The language comes from the
// fixture's extension, so the extension table is exercised too.
func TestFixtures(t *testing.T) {
	ctx := context.Background()
	for _, l := range grammars.All() {
		t.Run(l.ID, func(t *testing.T) {
			e := enginetest.Engine(t, l.ID)
			okFile, brokenFile := fixtures(t, l.ID)
			for _, c := range []struct {
				file      string
				wantError bool
			}{{okFile, false}, {brokenFile, true}} {
				src, err := os.ReadFile(c.file)
				if err != nil {
					t.Fatal(err)
				}
				lang, ok := grammars.ForPath(strings.TrimSuffix(c.file, ".txt"))
				if !ok || lang.ID != l.ID {
					t.Fatalf("ForPath(%s) = %v, %v; want %s", c.file, lang, ok, l.ID)
				}
				tree, err := e.Parse(ctx, lang, src)
				if err != nil {
					t.Fatalf("%s: %v", c.file, err)
				}
				if tree.Language() != l.ID {
					t.Errorf("Language() = %q", tree.Language())
				}
				if got := tree.HasError(); got != c.wantError {
					t.Errorf("%s: HasError = %v, want %v\n%s", c.file, got, c.wantError, tree)
				}
				checkInvariants(t, tree)
				if !c.wantError && tree.Len() < 20 {
					t.Errorf("%s: only %d nodes", c.file, tree.Len())
				}
			}
		})
	}
}

// checkInvariants checks the flat table's structure against itself: parent,
// sibling and subtree links agree, ranges nest, and HasError agrees with the
// ERROR and MISSING nodes below.
func checkInvariants(t *testing.T, tree *engine.Tree) {
	t.Helper()
	root := tree.Root()
	if _, ok := root.Parent(); ok {
		t.Fatal("root has a parent")
	}
	if root.StartByte() > root.EndByte() || int(root.EndByte()) > len(tree.Source()) {
		t.Fatalf("root range %v outside source of %d bytes", root.Range(), len(tree.Source()))
	}
	if root.DescendantCount() != tree.Len()-1 {
		t.Fatalf("root has %d descendants, tree has %d nodes", root.DescendantCount(), tree.Len())
	}
	for i := 0; i < tree.Len(); i++ {
		n := tree.NodeAt(i)
		// Only an anonymous token may have an empty name (Go's NUL token is
		// "\0", which C reads as "").
		if n.Kind() == "" && n.IsNamed() {
			t.Fatalf("node %d has no kind (id %d)", i, n.KindID())
		}
		kids := n.Children()
		if len(kids) != n.ChildCount() {
			t.Fatalf("node %d (%s): %d children listed, count %d", i, n.Kind(), len(kids), n.ChildCount())
		}
		subtreeErr := n.IsError() || n.IsMissing()
		for j, c := range kids {
			p, ok := c.Parent()
			if !ok || p.Index() != i {
				t.Fatalf("child %d of node %d has parent %d", j, i, p.Index())
			}
			r, cr := n.Range(), c.Range()
			if cr.StartByte < r.StartByte || cr.EndByte > r.EndByte {
				t.Fatalf("child %s %v outside parent %s %v", c.Kind(), cr, n.Kind(), r)
			}
			if c2, _ := n.Child(j); c2.Index() != c.Index() {
				t.Fatalf("Child(%d) disagrees with Children", j)
			}
			subtreeErr = subtreeErr || c.HasError()
		}
		if subtreeErr && !n.HasError() {
			t.Fatalf("node %d (%s) has an error below but HasError is false", i, n.Kind())
		}
		if f := n.Field(); f != "" {
			p, _ := n.Parent()
			if c, ok := p.ChildByField(f); !ok || c.Field() != f {
				t.Fatalf("ChildByField(%q) not found under %s", f, p.Kind())
			}
		}
		if n.Range().StartPoint.Row > n.Range().EndPoint.Row {
			t.Fatalf("node %d: start row after end row", i)
		}
	}
}

// TestSExpression checks the printer against the tree-sitter CLI's
// S-expression for the same Go source (tree-sitter parse --cst off, one line).
func TestSExpression(t *testing.T) {
	e := enginetest.Engine(t, "go")
	src := "package main\n\nfunc main() {\n\tx := f(1, \"a\") // c\n}\n"
	tree, err := e.Parse(context.Background(), enginetest.Language(t, "go"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := `(source_file (package_clause (package_identifier)) (function_declaration name: (identifier) parameters: (parameter_list) body: (block (statement_list (short_var_declaration left: (expression_list (identifier)) right: (expression_list (call_expression function: (identifier) arguments: (argument_list (int_literal) (interpreted_string_literal (interpreted_string_literal_content)))))) (comment)))))`
	if got := tree.String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// MISSING nodes print as the CLI prints them.
	tree, err = e.Parse(context.Background(), enginetest.Language(t, "go"), []byte("package main\nvar x = f(1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := tree.String(); !strings.Contains(got, `(MISSING ")")`) && !strings.Contains(got, "(ERROR") {
		t.Errorf("broken source shows neither MISSING nor ERROR: %s", got)
	}
	if !tree.HasError() {
		t.Error("HasError = false for broken source")
	}
}

func TestTreeAPI(t *testing.T) {
	e := enginetest.Engine(t, "python")
	src := []byte("def f(a, b=2):\n    return a + b\n")
	tree, err := e.Parse(context.Background(), enginetest.Language(t, "py"), src)
	if err != nil {
		t.Fatal(err)
	}
	fn, ok := tree.Root().FirstChild()
	if !ok || fn.Kind() != "function_definition" || !fn.IsNamed() {
		t.Fatalf("first child = %s", fn.Kind())
	}
	name, ok := fn.ChildByField("name")
	if !ok || name.Text() != "f" || name.Field() != "name" {
		t.Fatalf("name field = %q %v", name.Text(), ok)
	}
	if r := name.Range(); r.StartPoint != (engine.Point{Row: 0, Column: 4}) || r.EndPoint != (engine.Point{Row: 0, Column: 5}) {
		t.Errorf("name range = %+v", r)
	}
	var kinds []string
	for _, c := range fn.Children() {
		kinds = append(kinds, c.Kind())
	}
	if got := strings.Join(kinds, " "); got != "def identifier parameters : block" {
		t.Errorf("children = %s", got)
	}
	var named []string
	for _, c := range fn.NamedChildren() {
		named = append(named, c.Kind())
	}
	if got := strings.Join(named, " "); got != "identifier parameters block" {
		t.Errorf("named children = %s", got)
	}
	var ret engine.Node
	tree.Root().Walk(func(n engine.Node) bool {
		if n.Kind() == "return_statement" {
			ret = n
			return false
		}
		return true
	})
	if ret.Text() != "return a + b" {
		t.Errorf("return statement text = %q", ret.Text())
	}
	if p, _ := ret.Parent(); p.Kind() != "block" {
		t.Errorf("return's parent = %s", p.Kind())
	}
}

func TestErrors(t *testing.T) {
	e := enginetest.Engine(t, "go")
	ctx := context.Background()
	if _, err := e.Parse(ctx, nil, []byte("x")); !errors.Is(err, engine.ErrUnknownLanguage) {
		t.Errorf("no language: %v", err)
	}
	if err := e.Precompile(ctx, "cobol"); !errors.Is(err, engine.ErrUnknownLanguage) || !strings.Contains(err.Error(), "shipped: ") {
		t.Errorf("unknown language: %v", err)
	}
	// Precompile takes a file name, the language of its extension.
	if err := e.Precompile(ctx, "main.go"); err != nil {
		t.Errorf("by file name: %v", err)
	}
	p := e.NewParser(engine.Limits{MaxSource: 10})
	defer p.Close(ctx)
	if _, err := p.Parse(ctx, enginetest.Language(t, "go"), []byte("package main\n")); !errors.Is(err, engine.ErrTooLarge) {
		t.Errorf("too large: %v", err)
	}
	// Empty source is a valid parse.
	if tree, err := e.Parse(ctx, enginetest.Language(t, "go"), nil); err != nil || tree.Len() != 1 || tree.HasError() {
		t.Errorf("empty source: %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := e.Parse(cancelled, enginetest.Language(t, "go"), []byte("package main\n")); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}

// TestHammer parses eight languages from eight goroutines at once, many times
// each, on one shared engine, and checks every tree equals the first one.
// Run it with -race.
func TestHammer(t *testing.T) {
	langs := []string{"go", "python", "javascript", "rust", "c", "java", "json", "yaml"}
	e := enginetest.Engine(t, langs...)
	ctx := context.Background()
	p := e.NewParser(engine.Limits{Instances: 2})
	defer p.Close(ctx)
	iters := 12
	if testing.Short() {
		iters = 4
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(langs)*2)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			id := langs[i%len(langs)]
			lang, _ := grammars.Lookup(id)
			okFile, _ := fixtures(t, id)
			src, err := os.ReadFile(okFile)
			if err != nil {
				errs <- err
				return
			}
			var want string
			for j := 0; j < iters; j++ {
				pr := p
				if j%3 == 0 {
					pr = nil // the engine's own tenant too
				}
				var tree *engine.Tree
				if pr == nil {
					tree, err = e.Parse(ctx, lang, src)
				} else {
					tree, err = pr.Parse(ctx, lang, src)
				}
				if err != nil {
					errs <- fmt.Errorf("%s: %w", id, err)
					return
				}
				got := tree.String()
				if j == 0 {
					want = got
				} else if got != want {
					errs <- fmt.Errorf("%s: tree %d differs", id, j)
					return
				}
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// FuzzParse feeds arbitrary bytes to a few grammars with different external
// scanners: every parse must succeed (no trap, no lost instance) and produce a
// table whose links and ranges agree.
func FuzzParse(f *testing.F) {
	langs := []string{"go", "python", "javascript", "yaml", "html"}
	for i, id := range langs {
		paths, _ := filepath.Glob(filepath.Join("..", "testdata", "parse", id, "*"))
		for _, p := range paths {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(uint8(i), b)
			}
		}
	}
	f.Add(uint8(0), []byte("\xff\xfe\x00 package"))
	f.Fuzz(func(t *testing.T, which uint8, src []byte) {
		e := enginetest.Engine(t, langs...)
		id := langs[int(which)%len(langs)]
		tree, err := e.Parse(context.Background(), enginetest.Language(t, id), src)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		checkInvariants(t, tree)
		_ = tree.String()
	})
}
