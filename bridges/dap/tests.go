package dap

import "debug/buildinfo"
import "errors"
import "fmt"
import "os"
import "path/filepath"
import "regexp"
import "strings"
import "sync"

import "github.com/tetherhq/tether/bridges/dap/internal/nodeadapter"
import "github.com/tetherhq/tether/internal/fsutil"

// testRun is how a launch runs tests instead of a program: the values the
// adapter's Test template is expanded with, and how the session names it.
type testRun struct {
	program string   // "${program}": go: the package directory; pytest: the file or directory
	args    []string // "${args}": the selection, then the caller's arguments
	cwd     string   // "${cwd}"
	title   string   // "go test -run ^TestA$", "pytest a_test.py::test_a"
	// binary: a test binary already built runs with the adapter's Launch
	// template (delve's exec mode) and the selection as its arguments.
	binary bool
}

// AllTests is the test name that selects every test of the program.
const AllTests = "*"

// isTestFile reports whether program is a test file of a's runner: a Go
// _test.go file, or a pytest file (test_*.py, *_test.py).
func isTestFile(a Adapter, program string) bool {
	base := filepath.Base(program)
	switch a.TestRunner {
	case "go":
		return strings.HasSuffix(base, "_test.go")
	case "pytest":
		return strings.HasSuffix(base, ".py") && (strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py"))
	case "node":
		return nodeadapter.IsTestFile(base)
	}
	return false
}

// planTests says how a launch of program with test (a name, AllTests, or
// "") runs tests under a, whose project is root; nil when it runs the
// program itself (no test name, and not a test file).
func planTests(a Adapter, root, program, test string, progArgs []string) (*testRun, error) {
	if test == "" && !isTestFile(a, program) {
		return nil, nil
	}
	if a.Test == nil {
		return nil, fmt.Errorf("debug: launch: the %s adapter cannot launch tests; launch the program, or build a test binary and launch it", a.ID)
	}
	fi, err := os.Stat(program)
	if err != nil {
		return nil, fmt.Errorf("debug: launch: program %s does not exist; give a path relative to the working dir", program)
	}
	switch a.TestRunner {
	case "go":
		if !fi.IsDir() && filepath.Ext(program) != ".go" {
			// A test binary (go test -c): its tests, chosen by its flags.
			tr, err := planGoTests(root, program, true, test, progArgs)
			if err != nil {
				return nil, err
			}
			tr.program, tr.cwd, tr.binary = program, root, true
			return tr, nil
		}
		return planGoTests(root, program, fi.IsDir(), test, progArgs)
	case "pytest":
		return planPytest(root, program, fi.IsDir(), test, progArgs)
	case "node":
		return planNodeTests(program, fi.IsDir(), test, progArgs)
	}
	return nil, fmt.Errorf("debug: launch: the %s adapter has an unknown test runner %q", a.ID, a.TestRunner)
}

// goTestFunc finds a Go file's top-level test functions.
var goTestFunc = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^func (Test[A-Za-z0-9_]*)\(\w+ \*testing\.T\)`) })

// planGoTests runs a package's tests in delve's test mode: test (a name,
// "TestA/sub" for a subtest), or every test of a _test.go file, or with
// AllTests the whole package. go test runs them in the package directory.
func planGoTests(root, program string, isDir bool, test string, progArgs []string) (*testRun, error) {
	pkg := program
	if !isDir {
		pkg = filepath.Dir(program)
	}
	var pattern string
	switch {
	case test == AllTests:
	case test != "":
		var parts []string
		for _, p := range strings.Split(test, "/") {
			parts = append(parts, "^"+regexp.QuoteMeta(p)+"$")
		}
		pattern = strings.Join(parts, "/")
	default: // a _test.go file: its own tests
		// Read through the project's root: a test file outside it (or a
		// symbolic link leading out) is not read, so its test names are not
		// shown.
		ws, err := fsutil.NewRoot(root)
		if err != nil {
			return nil, fmt.Errorf("debug: launch: %w", err)
		}
		src, err := ws.ReadFile(program)
		if errors.Is(err, fsutil.ErrOutside) {
			return nil, fmt.Errorf("debug: launch: %s is outside the project %s, so its tests are not read: launch a test file inside it, or pass test (a test name, or %q)", program, root, AllTests)
		}
		if err != nil {
			return nil, fmt.Errorf("debug: launch: reading %s: %w", program, err)
		}
		var names []string
		for _, m := range goTestFunc().FindAllStringSubmatch(string(src), -1) {
			names = append(names, regexp.QuoteMeta(m[1]))
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("debug: launch: %s declares no Test functions; pass test (a test name, or %q for the package's tests)", program, AllTests)
		}
		pattern = "^(" + strings.Join(names, "|") + ")$"
	}
	tr := &testRun{program: pkg, cwd: pkg, title: "go test"}
	if pattern != "" {
		tr.args = []string{"-test.run", pattern}
		tr.title += " -run " + pattern
	}
	tr.args = append(tr.args, progArgs...)
	return tr, nil
}

// planPytest runs pytest in the project root on a file or directory: test
// names a test ("test_parse", "TestClass::test_parse") of a file, or keeps
// the tests of a directory whose names match it (pytest -k).
func planPytest(root, program string, isDir bool, test string, progArgs []string) (*testRun, error) {
	rel, err := filepath.Rel(root, program)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		rel = program
	}
	sel := []string{rel}
	switch {
	case test == "" || test == AllTests:
	case isDir:
		sel = append(sel, "-k", test)
	default:
		sel = []string{rel + "::" + test}
	}
	return &testRun{program: program, args: append(sel, progArgs...), cwd: root, title: "pytest " + strings.Join(sel, " ")}, nil
}

// isGoBinary reports whether p is an executable the Go toolchain built.
func isGoBinary(p string) bool {
	f, err := fsutil.OpenRegularFile(p)
	if err != nil {
		return false
	}
	defer f.Close()
	_, err = buildinfo.Read(f)
	return err == nil
}

// planNodeTests runs a test file's node:test tests in the one process node
// runs the file in (node --test would start a child process per file):
// test names one (or a regular expression's worth); AllTests or "" runs
// them all.
func planNodeTests(program string, isDir bool, test string, progArgs []string) (*testRun, error) {
	if isDir {
		return nil, fmt.Errorf("debug: launch: the node adapter runs one test file's tests; launch a test file (x.test.js) of %s", program)
	}
	tr := &testRun{program: program, cwd: filepath.Dir(program), title: "node:test " + filepath.Base(program)}
	if test != "" && test != AllTests {
		pattern := "^" + regexp.QuoteMeta(test) + "$"
		tr.args = []string{nodeadapter.TestNamePattern + pattern}
		tr.title += " --test-name-pattern " + pattern
	}
	tr.args = append(tr.args, progArgs...)
	return tr, nil
}
