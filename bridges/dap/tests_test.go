package dap_test

import "os/exec"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/bridges/dap"
import "github.com/tetherhq/tether/internal/testenv"

const goCalc = `package calc

func Add(a, b int) int { return a + b }
`

const goCalcTest = `package calc

import "testing"

func TestAdd(t *testing.T) {
	x := Add(40, 1)
	if x != 41 {
		t.Fatal(x)
	}
}

func TestSub(t *testing.T) {
	y := Add(50, -8)
	if y != 42 {
		t.Fatal(y)
	}
}
`

var goCalcFiles = map[string]string{"go.mod": "module calc\n\ngo 1.21\n", "calc/calc.go": goCalc, "calc/calc_test.go": goCalcTest}

// withBreakpoints writes files into a new root and returns a supervisor
// (closed with the test) with breakpoints at file's lines for conversation c1.
func withBreakpoints(t *testing.T, files map[string]string, file string, lines ...int) (*dap.Supervisor, string) {
	t.Helper()
	root := testenv.Workspace(t, files)
	sv := dap.NewSupervisor(dap.Config{})
	t.Cleanup(func() { sv.Close() })
	do(t, sv, "c1", root, request{Op: "breakpoints", File: file, Lines: lines})
	return sv, root
}

// stopsAt launches req and checks it stops at file:line, where name
// evaluates to want.
func stopsAt(t *testing.T, sv *dap.Supervisor, root string, req request, file string, line int, name, want string) *reply {
	t.Helper()
	l := do(t, sv, "c1", root, req)
	if l.Stop == nil || l.Stop.Line != line || filepath.Base(l.Stop.File) != file {
		t.Fatalf("launch %+v: want a stop at %s:%d, got\n%s", req, file, line, l)
	}
	ev := do(t, sv, "c1", root, request{Op: "evaluate", Expression: name})
	if ev.Value == nil || ev.Value.Value != want {
		t.Fatalf("%s = %+v, want %s", name, ev.Value, want)
	}
	return l
}

// TestLaunchGoTests: launch of a _test.go file runs that file's tests in
// delve's test mode (the old code handed delve the file and got "no
// packages to build"), and launch of a package with a test name runs only
// that test.
func TestLaunchGoTests(t *testing.T) {
	t.Parallel()
	testenv.RequireBinary(t, "dlv")
	testenv.RequireBinary(t, "go")
	sv, root := withBreakpoints(t, goCalcFiles, "calc/calc_test.go", 7, 14)

	l := stopsAt(t, sv, root, request{Op: "launch", Program: "calc/calc_test.go"}, "calc_test.go", 7, "x", "41")
	if !strings.Contains(l.Session, "go test -run ^(TestAdd|TestSub)$") {
		t.Errorf("the session does not say which tests run: %s", l.Session)
	}
	c := do(t, sv, "c1", root, request{Op: "continue"})
	if c.Stop == nil || c.Stop.Line != 14 {
		t.Fatalf("the file's second test did not run to its breakpoint:\n%s", c)
	}
	if c = do(t, sv, "c1", root, request{Op: "continue"}); c.Exited == nil || c.Exited.Code != 0 {
		t.Fatalf("the tests did not pass and end:\n%s", c)
	}
	do(t, sv, "c1", root, request{Op: "terminate"})

	// Only the named test runs: the first stop is in TestSub.
	stopsAt(t, sv, root, request{Op: "launch", Program: "calc", Test: "TestSub"}, "calc_test.go", 14, "y", "42")
	do(t, sv, "c1", root, request{Op: "terminate"})
}

// TestLaunchGoTestBinary: a test binary built by go test -c is Go's, so
// delve debugs it (the old code sent every ELF file to lldb, which refused
// it for want of a *.c marker), and test chooses the test it runs.
func TestLaunchGoTestBinary(t *testing.T) {
	t.Parallel()
	testenv.RequireBinary(t, "dlv")
	gobin := testenv.RequireBinary(t, "go")
	sv, root := withBreakpoints(t, goCalcFiles, "calc/calc_test.go", 14)
	cmd := exec.Command(gobin, "test", "-c", "-gcflags=all=-N -l", "-o", "calc.test", "./calc")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test -c: %v\n%s", err, out)
	}
	l := stopsAt(t, sv, root, request{Op: "launch", Program: "calc.test", Test: "TestSub"}, "calc_test.go", 14, "y", "42")
	if !strings.HasPrefix(l.Session, "delve session") || !strings.Contains(l.Session, "go test -run ^TestSub$") {
		t.Errorf("a Go test binary went to another adapter, or ran other tests: %s", l.Session)
	}
	do(t, sv, "c1", root, request{Op: "terminate"})
}

const pyCalcTest = `def add(a, b):
    return a + b


def test_add():
    x = add(40, 1)
    assert x == 41


def test_sub():
    y = add(50, -8)
    assert y == 42
`

// TestLaunchPytest: launch of a pytest file runs its tests under pytest
// (the old code ran the file as a script, which defines the tests and
// ends), and a test name runs that test alone.
func TestLaunchPytest(t *testing.T) {
	t.Parallel()
	if py := python(t); exec.Command(py, "-c", "import pytest").Run() != nil {
		testenv.Missing(t, py+" with pytest (python3-pytest)")
	}
	sv, root := withBreakpoints(t, map[string]string{"requirements.txt": "", "tests/test_calc.py": pyCalcTest}, "tests/test_calc.py", 7, 12)
	l := stopsAt(t, sv, root, request{Op: "launch", Program: "tests/test_calc.py"}, "test_calc.py", 7, "x", "41")
	if !strings.Contains(l.Session, "pytest tests/test_calc.py") {
		t.Errorf("the session does not say which tests run: %s", l.Session)
	}
	do(t, sv, "c1", root, request{Op: "terminate"})
	stopsAt(t, sv, root, request{Op: "launch", Program: "tests/test_calc.py", Test: "test_sub"}, "test_calc.py", 12, "y", "42")
	do(t, sv, "c1", root, request{Op: "terminate"})
}

// TestAdapterTableTestRunner: a user's adapter entry gives test and
// test_runner together, and only a runner tether knows.
func TestAdapterTableTestRunner(t *testing.T) {
	for in, want := range map[string]string{
		`[{"id":"x","commands":[["x"]],"test":{"mode":"test"}}]`:                            "give both or neither",
		`[{"id":"x","commands":[["x"]],"test_runner":"go"}]`:                                "give both or neither",
		`[{"id":"x","commands":[["x"]],"test":{"mode":"test"},"test_runner":"jest"}]`:       `unknown test_runner "jest"`,
		`[{"id":"x","commands":[["x"]],"test":{"module":"pytest"},"test_runner":"pytest"}]`: "",
	} {
		_, err := dap.LoadAdapters(strings.NewReader(in))
		if (want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
}
