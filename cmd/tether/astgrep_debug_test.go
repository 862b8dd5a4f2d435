package main

import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"

// TestAstGrepCLIDebugQuery: --debug-query[=pattern|ast|cst|sexp] prints
// each reading of the pattern, the context rung it came from and its tree
// to stderr, as the pinned ast-grep prints its pattern's, then searches as
// usual; it needs -l, refuses an unknown format, and a pattern with no
// clean reading is refused saying where it broke.
func TestAstGrepCLIDebugQuery(t *testing.T) {
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{
		"A.java": "class A {\n  int f() { return x; }\n}\n",
		"a.c":    "struct s {\n  int a;\n};\nvoid f(void) {\n  int n;\n}\n",
	})
	java, c := filepath.Join(dir, "A.java"), filepath.Join(dir, "a.c")
	tests := []struct {
		args       []string
		debug, out string
	}{
		{[]string{"-p", "return $X", "-l", "java", "--debug-query", java},
			"Debug Pattern:\nreading 1 of 1, statement:\n  return_statement\n    return\n    MetaVar $X\n\n",
			java + ":2:  int f() { return x; }\n"},
		{[]string{"-p", "return $X", "-l", "java", "--debug-query=ast", java},
			"Debug AST:\nreading 1 of 1, statement:\n  return_statement (0,0)-(0,10)\n    identifier (0,7)-(0,9)\n\n", ""},
		// the ";" the pattern did not write is in the tree it was read
		// from, not in the pattern
		{[]string{"-p", "return $X", "-l", "java", "--debug-query=cst", java},
			"Debug CST:\nreading 1 of 1, statement:\n  return_statement (0,0)-(0,10)\n    return (0,0)-(0,6)\n    identifier (0,7)-(0,9)\n    ; (0,9)-(0,10)\n\n", ""},
		{[]string{"-p", "return $X", "-l", "java", "--debug-query=sexp", java},
			"Debug Sexp:\nreading 1 of 1, statement:\n  (return_statement (identifier))\n\n", ""},
		{[]string{"-p", "int $F;", "-l", "c", "--debug-query", c},
			"Debug Pattern:\nreading 1 of 2, statement:\n  declaration\n    primitive_type int\n    MetaVar $F\n    ;\n" +
				"reading 2 of 2, member:\n  field_declaration\n    primitive_type int\n    MetaVar $F\n    ;\n\n",
			c + ":2:  int a;\n" + c + ":5:  int n;\n"},
		// positions are in the pattern as written ($F, not the µF Rust reads)
		{[]string{"-p", "trait _ { fn $F(x: i32); }", "-l", "rust", "--debug-query=ast", "--selector", "function_signature_item", dir},
			"Debug AST:\nreading 1 of 1, selector function_signature_item:\n  function_signature_item (0,10)-(0,24)\n    name: identifier (0,13)-(0,15)\n    parameters: parameters (0,15)-(0,23)\n      parameter (0,16)-(0,22)\n        pattern: identifier (0,16)-(0,17)\n        type: primitive_type (0,19)-(0,22)\n\n", ""},
	}
	for _, tt := range tests {
		_, out, errOut := runCLI(t, tt.args...)
		if !strings.HasPrefix(errOut, tt.debug) {
			t.Errorf("%q: stderr\n%s\nwant it to start with\n%s", tt.args, errOut, tt.debug)
		}
		if tt.out != "" && out != tt.out {
			t.Errorf("%q: the search after it printed\n%s\nwant\n%s", tt.args, out, tt.out)
		}
	}
	refused := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-p", "return $X", "--debug-query", java}, 2, "--debug-query needs the language: pass -l LANG"},
		{[]string{"-p", "return $X", "-l", "java", "--debug-query=tree", java}, 2, "--debug-query=tree: give pattern, ast, cst, sexp"},
		{[]string{"-p", "foo($A", "-l", "java", "--debug-query", java}, exitInvalid, `missing ")" at 1:7, the end of the pattern, here: "foo($A‸"`},
	}
	for _, tt := range refused {
		code, out, errOut := runCLI(t, tt.args...)
		if code != tt.code || out != "" || !strings.Contains(errOut, tt.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d and %q", tt.args, code, out, errOut, tt.code, tt.want)
		}
	}
}
