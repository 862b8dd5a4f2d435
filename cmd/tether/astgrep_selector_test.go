package main

import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"

// TestAstGrepCLISelectorAsPeer: --selector KIND takes the pattern as the
// code around the node to match, as ast-grep's does: tether prints the
// same JSON as the pinned ast-grep for fields, arms and clauses that only
// parse inside their construct, and names the kinds the pattern holds when
// it holds none of the selector's.
func TestAstGrepCLISelectorAsPeer(t *testing.T) {
	sg := testenv.RequireBinary(t, "ast-grep")
	dir := t.TempDir()
	files := map[string]string{
		"a.rs": "struct A {\n    xs: Vec<u8>,\n    n: usize,\n}\nstruct B { ys: Vec<u8> }\nfn f(o: Option<u8>) -> u8 {\n    match o {\n        Some(v) if v > 1 => v,\n        _ => 0,\n    }\n}\n",
		"a.go": "package p\n\ntype S struct {\n\tA int `json:\"a\"`\n\tB string\n}\n\nfunc f(c chan int) {\n\tselect {\n\tcase c <- 1:\n\tdefault:\n\t}\n}\n",
	}
	testenv.WriteFiles(t, dir, files)
	tests := []struct{ file, lang, pattern, selector string }{
		{"a.rs", "rust", "struct _S { $F: Vec<u8> }", "field_declaration"},
		{"a.rs", "rust", "match $X { Some($V) if $V > 1 => $V, _ => 0 }", "match_arm"},
		{"a.go", "go", "type _ struct { $F int `json:\"a\"` }", "field_declaration"},
		{"a.go", "go", "select { case $C <- 1: }", "communication_case"},
	}
	for _, tt := range tests {
		t.Run(tt.lang+" "+tt.selector, func(t *testing.T) {
			file := filepath.Join(dir, tt.file)
			args := []string{"-p", tt.pattern, "--selector", tt.selector, "-l", tt.lang, "--json=compact", file}
			want := peerRun(t, sg, args...)
			code, got, errOut := runCLI(t, args...)
			if code != 0 || got != want {
				t.Errorf("exit %d (%s)\nast-grep: %s\ntether:   %s", code, errOut, want, got)
			}
		})
	}
	code, _, errOut := runCLI(t, "-p", "struct _S { $F: Vec<u8> }", "--selector", "match_arm", "-l", "rust", filepath.Join(dir, "a.rs"))
	// ast-grep exits 8 too
	if code != exitInvalid || !strings.Contains(errOut, "no match_arm node") || !strings.Contains(errOut, "field_declaration") {
		t.Errorf("a selector the pattern does not hold: exit %d, %q; want 8 and the kinds it holds", code, errOut)
	}
}
