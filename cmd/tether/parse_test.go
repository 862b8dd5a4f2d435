package main

import "bytes"
import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/engine/enginetest"

func TestParseCommand(t *testing.T) {
	enginetest.RequireGrammars(t, "go", "python")
	dir := t.TempDir()
	good := filepath.Join(dir, "good.go")
	bad := filepath.Join(dir, "bad.py")
	os.WriteFile(good, []byte("package main\n\nfunc main() {}\n"), 0o644)
	os.WriteFile(bad, []byte("def f(:\n  pass\n"), 0o644)
	for _, c := range []struct {
		args      []string
		code      int
		out, errs string
	}{
		{[]string{"parse", good}, 0, "(source_file (package_clause (package_identifier)) (function_declaration name: (identifier) parameters: (parameter_list) body: (block)))\n", ""},
		{[]string{"parse", "-outline", good}, 0, "(source_file [0, 0] - [3, 0]\n" +
			"  (package_clause [0, 0] - [0, 12]\n" +
			"    (package_identifier [0, 8] - [0, 12]))\n" +
			"  (function_declaration [2, 0] - [2, 14]\n" +
			"    name: (identifier [2, 5] - [2, 9])\n" +
			"    parameters: (parameter_list [2, 9] - [2, 11])\n" +
			"    body: (block [2, 12] - [2, 14])))\n", ""},
		{[]string{"parse", "-outline", "-no-ranges", good}, 0, "(source_file\n  (package_clause\n    (package_identifier))\n" +
			"  (function_declaration\n    name: (identifier)\n    parameters: (parameter_list)\n    body: (block)))\n", ""},
		{[]string{"parse", "-outline", "-no-ranges", "-cst", good}, 0, "(source_file\n  (package_clause\n    (\"package\")\n    (package_identifier))\n" +
			"  (function_declaration\n    (\"func\")\n    name: (identifier)\n    parameters: (parameter_list\n      (\"(\")\n      (\")\"))\n    body: (block\n      (\"{\")\n      (\"}\"))))\n", ""},
		{[]string{"parse", "-outline", bad}, 1, "(module [0, 0] - [2, 0]", "bad.py:1:"},
		{[]string{"parse", bad}, 1, "(module", "bad.py:1:"},
		{[]string{"parse", "-l", "python", good}, 1, "(module", "syntax error"},
		{[]string{"parse", good, bad}, 1, "# " + good, ""},
		{[]string{"parse", filepath.Join(dir, "x.unknown")}, 2, "", "pass -l LANG"},
		{[]string{"parse", "-l", "cobol", good}, 2, "", "unknown language"},
		{[]string{"parse", filepath.Join(dir, "nope.go")}, 2, "", "no such file"},
		{[]string{"parse"}, 2, "", "usage:"},
		{[]string{"languages"}, 0, "tree-sitter-go@0.25.0", ""},
		{[]string{"languages"}, 0, " C# ", ""}, // the manifest's name
	} {
		var stdout, stderr bytes.Buffer
		code := dispatch(c.args, &stdout, &stderr)
		if code != c.code || !strings.Contains(stdout.String(), c.out) || !strings.Contains(stderr.String(), c.errs) {
			t.Errorf("tether %s: exit %d (want %d)\nstdout: %s\nstderr: %s", strings.Join(c.args, " "), code, c.code, stdout.String(), stderr.String())
		}
	}
}
