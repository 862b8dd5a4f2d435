package main

import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/engine/enginetest"

// TestAstGrepNoMatchHint: tether ast-grep that looks and finds nothing
// exits 1 and says on stderr how the pattern was read, what of its root
// kind the files hold and what to try; one with nothing to look at says
// "not searched" instead.
func TestAstGrepNoMatchHint(t *testing.T) {
	enginetest.RequireGrammars(t, "go")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("package p\n\nfunc f(o T) {\n\to.run(1)\n}\n"), 0o644)
	os.Mkdir(filepath.Join(dir, "empty"), 0o755)
	code, out, errs := runCLI(t, "-p", "run($A)", "-l", "go", dir)
	if code != 1 || out != "" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	for _, want := range []string{"no matches in 1 file (the pattern was read as statement (call_expression)", "1 call_expression node in the 1 file parsed",
		"the nearest miss at " + filepath.Join(dir, "a.go") + ":4:2: o.run(1)", "(try $_.run($A))"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	code, _, errs = runCLI(t, "-p", "run($A)", "-l", "go", filepath.Join(dir, "empty"))
	if code != 1 || !strings.Contains(errs, "not searched") || strings.Contains(errs, "read as") {
		t.Errorf("nothing to search: exit %d\n%s", code, errs)
	}
}
