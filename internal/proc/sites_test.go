package proc_test

import "go/ast"
import "go/parser"
import "go/token"
import "io/fs"
import "path/filepath"
import "strconv"
import "strings"
import "testing"

// TestEverySpawnGoesThroughProc: tether's own code starts no process with
// exec.Cmd's Start, Run, Output or CombinedOutput directly: a child started
// so has no parent-death signal and no owner mark, and would outlive a
// killed tether. Build tools, benchmarks and tests are exempt.
func TestEverySpawnGoesThroughProc(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	exempt := []string{"bench", "grammars/build", "engine/precompile", "scripts", "testdata", "internal/proc", ".deps"}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			for _, e := range exempt {
				if rel == e || strings.HasPrefix(rel, e+"/") {
					return filepath.SkipDir
				}
			}
			if strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		usesExec := false
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "os/exec" {
				usesExec = true
			}
		}
		if !usesExec {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 0 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			switch sel.Sel.Name {
			case "Start", "Run", "Output", "CombinedOutput":
				t.Errorf("%s: %s() in a file that uses os/exec: start processes with proc.Start or proc.Run", fset.Position(call.Pos()), sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
