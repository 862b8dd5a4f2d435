package internal_test

import "encoding/json"
import "go/parser"
import "go/token"
import "io"
import "os/exec"
import "path/filepath"
import "strings"
import "testing"

// TestEveryPackageHasADocComment checks that every package of the module,
// commands, benchmarks and test-only packages included, has a package
// comment in exactly one of its files (so `go doc` prints it, once), and
// that the comment says what the package imports or must not import, so the
// layering of docs/layout.md is stated where the code is read.
func TestEveryPackageHasADocComment(t *testing.T) {
	out, err := exec.Command("go", "list", "-e", "-json=ImportPath,Dir,Doc", "../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	n := 0
	for {
		var p struct{ ImportPath, Dir, Doc string }
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		if !strings.HasPrefix(p.ImportPath, mod) {
			continue
		}
		n++
		pkg := strings.TrimPrefix(p.ImportPath, mod)
		files, err := filepath.Glob(filepath.Join(p.Dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		var docs []string
		var text string
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.PackageClauseOnly|parser.ParseComments)
			if err != nil {
				t.Errorf("%s: %v", f, err)
				continue
			}
			if af.Doc != nil {
				docs = append(docs, filepath.Base(f))
				text = af.Doc.Text()
			}
		}
		switch {
		case len(docs) == 0 || p.Doc == "":
			t.Errorf("%s has no package comment: add a doc.go saying what it is for and what it must not import", pkg)
		case len(docs) > 1:
			t.Errorf("%s has a package comment in %d files (%s): keep one, in doc.go", pkg, len(docs), strings.Join(docs, ", "))
		case !strings.Contains(text, "import"):
			t.Errorf("%s: its package comment (%s) does not say what it imports or must not import", pkg, docs[0])
		}
	}
	if n < 20 {
		t.Fatalf("go list found only %d of tether's packages", n)
	}
}
