package dap_test

import "go/ast"
import "go/parser"
import "go/token"
import "path/filepath"
import "testing"

import "github.com/tetherhq/tether/bridges/dap"

// launchedBy names, for each adapter this package's tests drive, the test
// that launches a program under it, stops at a breakpoint, inspects, steps
// and runs to the end.
var launchedBy = map[string]string{
	"delve": "TestDelve", "debugpy": "TestDebugpy", "lldb": "TestLLDB", "node": "TestNode",
	"xdebug": "TestXdebug", "chromium": "TestChromiumTypeScript", "rdbg": "TestRdbg", "perl": "TestPerl",
}

// TestTestedMarks: every row of DefaultAdapters is either driven by a test
// of this package (launchedBy names one that exists) or says why it is not
// (Adapter.Untested), never both, so the docs' "tested here" column is
// true.
func TestTestedMarks(t *testing.T) {
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]bool{}
	fset := token.NewFileSet()
	for _, f := range files {
		af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil {
				tests[fn.Name.Name] = true
			}
		}
	}
	for _, a := range dap.DefaultAdapters() {
		name, driven := launchedBy[a.ID]
		switch {
		case driven && a.Untested != "":
			t.Errorf("%s is marked untested (%s), yet %s drives it; drop the mark", a.ID, a.Untested, name)
		case driven && !tests[name]:
			t.Errorf("%s is said to be driven by %s, which this package does not have", a.ID, name)
		case !driven && a.Untested == "":
			t.Errorf("%s is marked tested, but no test here launches it: add one to launchedBy, or say why not in its Untested", a.ID)
		}
	}
}
