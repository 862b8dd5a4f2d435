package matcher_test

import "context"
import "errors"
import "slices"
import "strings"
import "testing"

import "github.com/tetherhq/tether/engine/enginetest"
import "github.com/tetherhq/tether/matcher"

// TestMalformedPatternRefused: a pattern every reading of which has an
// ERROR or MISSING node (an unclosed call or block, a stray token), in
// every shipped language, is refused instead of searching and reading as
// "no matches": the error names the reading that gets furthest, the line
// and column of its first fault and the snippet around it (‸ where it
// broke), and says what to do (fix it, or write the context and pass
// selector). A "$$$" alone is refused too. A statement written without its
// ";" still compiles.
func TestMalformedPatternRefused(t *testing.T) {
	p := parser(t)
	refused := []struct{ lang, pattern, where string }{
		{"go", "errors.New($M", `as a statement (the reading that gets furthest) it breaks here: missing ")" at 1:14, the end of the pattern, here: "errors.New($M‸"`},
		{"go", "fmt.Errorf($F, $$$A", `missing ")" at 1:20, the end of the pattern, here: "fmt.Errorf($F, $$$A‸"`},
		{"python", "foo($X", `missing ")" at 1:7, the end of the pattern, here: "foo($X‸"`},
		{"python", "def (:", `cannot read "def (:" at 1:1, here: "‸def (:"`},
		{"javascript", "if ($X) {", `missing "}" at 1:10, the end of the pattern, here: "if ($X) {‸"`},
		{"javascript", "foo(,", `cannot read "foo(," at 1:1`},
		{"typescript", "function {", `cannot read "{" at 1:10, here: "function ‸{"`},
		{"tsx", "<div>{$X</div>", `at 1:1, here: "‸<div>{$X</div>"`},
		{"rust", "match $X { => }", `cannot read "=>" at 1:12, here: "match $X { ‸=> }"`},
		{"rust", "fn (", `missing ")" at 1:5`},
		{"c", "if ($X) {", `missing "}" at 1:10, the end of the pattern`},
		{"c", "int (", `missing ")" at 1:6`},
		{"cpp", "int (", `missing ")" at 1:6`},
		{"java", "if ($X) {", `missing "}" at 1:10, the end of the pattern`},
		{"java", "class {", `missing "}" at 1:8`},
		{"c_sharp", "class {", `cannot read "{" at 1:7, here: "class ‸{"`},
		{"c_sharp", "Foo($A,", `at 1:8, the end of the pattern, here: "Foo($A,‸"`},
		{"kotlin", "fun (", `missing ")" at 1:6`},
		{"swift", "func (", `cannot read "(" at 1:6`},
		{"scala", "def (", `cannot read "(" at 1:5`},
		{"php", "function (", `cannot read "(" at 1:10`},
		{"ruby", "def (", `cannot read "(" at 1:5`},
		{"lua", "function (", `at 1:1, here: "‸function ("`},
		{"bash", "if then fi", `at 1:1`},
		{"html", "<a", `at 1:3, the end of the pattern, here: "<a‸"`},
		{"css", "a { color:", `at 1:11, the end of the pattern`},
		{"json", `{"a": }`, `at 1:6, here: "{\"a\":‸ }"`},
		{"yaml", "a: [", `at 1:1`},
		{"dart", "class {", `cannot read "{" at 1:7, here: "class ‸{"`},
		{"elixir", "defmodule do", `missing "end" at 1:13, the end of the pattern`},
		{"haskell", "f = (", `cannot read "f = (" at 1:1`},
		{"hcl", "resource {", `missing "}" at 1:11, the end of the pattern`},
		{"nix", "let in", `at 1:7, the end of the pattern`},
		{"solidity", "function (", `missing ")" at 1:11, the end of the pattern`},
		{"zig", "fn (", `cannot read "fn (" at 1:1`},
		{"markdown", "a\x00b", `at 1:2`},
		{"toml", "[a", `cannot read "[a" at 1:1`},
		{"xml", "<a", `missing "/>" at 1:3, the end of the pattern`},
		{"make", "ifeq (", `cannot read "ifeq (" at 1:1`},
		{"vue", `<p v-if="$X"`, `missing "/>" at 1:13, the end of the pattern`},
		{"svelte", "{#if $X", `cannot read "{#if $X" at 1:1`},
		{"elm", "f = (", `missing ")" at 1:6, the end of the pattern`},
		{"sql", "SELECT FROM (", `cannot read "(" at 1:13`},
		{"ocaml", "let = (", `cannot read "let = (" at 1:1`},
		{"objc", "@interface (", `cannot read "(" at 1:12`},
		{"groovy", "class {", `cannot read "class {" at 1:1`},
		{"scss", "a { color:", `at 1:11, the end of the pattern`},
		{"r", "f <- function(", `cannot read "<- function(" at 1:3`},
		{"perl", "sub {", `missing "}" at 1:6, the end of the pattern`},
		{"verilog", "module (", `cannot read "(" at 1:8`},
		{"awk", "{ print (", `cannot read "{ print (" at 1:1`},
		{"julia", "f(", `missing ")" at 1:3, the end of the pattern`},
		{"powershell", "if ($X", `cannot read "if ($X" at 1:1`},
		{"apex", "if ($X", `missing ")" at 1:7, the end of the pattern`},
		{"soql", "SELECT FROM", `cannot read "FROM" at 1:8`},
		{"sosl", "FIND {", `cannot read "{" at 1:6`},
		{"bicep", "param (", `cannot read "(" at 1:7`},
		{"commonlisp", "(defun $N (", `cannot read "(defun $N (" at 1:1`},
		{"cuda", "$K<<<$G>>(", `cannot read "<<<$G>>(" at 1:3`},
		{"devicetree", "/ {", `cannot read "/ {" at 1:1`},
		{"elisp", "(defun $N (", `cannot read "(defun $N (" at 1:1`},
		{"embedded_template", "<%= $X", `cannot read "<%= $X" at 1:1`},
		{"gdscript", "func (", `cannot read "func (" at 1:1`},
		{"glsl", "uniform (", `cannot read "(" at 1:9`},
		{"kdl", "node {", `cannot read "node {" at 1:1`},
		{"openscad", "module (", `missing ")" at 1:9, the end of the pattern`},
		{"pascal", "begin (", `missing ")" at 1:8, the end of the pattern`},
		{"prisma", "model {", `cannot read "model {" at 1:1`},
		{"ron", "Some(", `missing ")" at 1:6, the end of the pattern`},
		{"thrift", "struct {", `cannot read "{" at 1:8`},
		{"tlaplus", "Init ==", `cannot read "==" at 1:6`},
		{"wgsl", "fn (", `at 1:5, the end of the pattern`},
		{"go", "$$$", `"$$$" alone`},
		{"python", "$$$ARGS", `"$$$ARGS" alone`},
	}
	langs := map[string]bool{}
	for _, tt := range refused {
		langs[tt.lang] = true
		_, err := matcher.Compile(context.Background(), p, enginetest.Language(t, tt.lang), tt.pattern)
		if !errors.Is(err, matcher.ErrUnparseable) || !strings.Contains(err.Error(), tt.where) {
			t.Errorf("%s %q: err = %v, want ErrUnparseable saying %q", tt.lang, tt.pattern, err, tt.where)
		} else if !strings.Contains(tt.where, "alone") && !strings.Contains(err.Error(), "or write the code around it as the pattern and pass selector (--selector KIND on the command line)") {
			t.Errorf("%s %q: %v does not say what to do next", tt.lang, tt.pattern, err)
		}
	}
	for _, l := range matcher.Languages() {
		if !langs[l] {
			t.Errorf("no malformed %s pattern in the table", l)
		}
	}
	accepted := []struct{ lang, pattern string }{
		{"java", "return $X"},
		{"c", "return $X"},
		{"java", "if ($X != null) $X.dispose()"},
		{"go", "f($$$)"},
	}
	for _, tt := range accepted {
		if _, err := matcher.Compile(context.Background(), p, enginetest.Language(t, tt.lang), tt.pattern); err != nil {
			t.Errorf("%s %q: %v", tt.lang, tt.pattern, err)
		}
	}
}

// TestEveryReading: a snippet with several clean readings is matched in
// each (a C "int $F;" is a local declaration and a struct field; a Java
// "private final $T $N;" a local and a field), each match says its reading,
// and a range two readings match is reported once.
func TestEveryReading(t *testing.T) {
	p := parser(t)
	tests := []struct {
		lang, file, pattern, src string
		want                     []string // text [reading]
	}{
		{"c", "a.c", "int $F;", "struct s {\n    int a;\n};\nvoid f(void) {\n    int n;\n}\n",
			[]string{"int a; [member]", "int n; [statement]"}},
		{"java", "A.java", "private final $T $N;", "class A {\n    private final int x;\n}\n",
			[]string{"private final int x; [member]"}},
		{"javascript", "a.js", "function $F() { $$$ }", "function f() {}\nconst g = function h() {};\n",
			[]string{"function f() {} [statement]", "function h() {} [expression]"}},
	}
	// a reading that took a keyword for a name (a Java constructor named
	// catch, a Ruby call of when) goes once a later one reads the keyword
	for _, tt := range []struct{ lang, pattern, want string }{
		{"java", "catch (IOException $E) { $$$B }", "catch clause"},
		{"ruby", "when $X then $Y", "when clause"},
		{"cpp", "catch (const $T &$E) { $$$B }", "catch clause"},
	} {
		pat, err := matcher.Compile(context.Background(), p, enginetest.Language(t, tt.lang), tt.pattern)
		if err != nil || strings.Join(pat.Contexts(), ",") != tt.want {
			t.Errorf("%s %q: readings %v, %v; want %s alone", tt.lang, tt.pattern, pat.Readings(), err, tt.want)
		}
	}
	for _, tt := range tests {
		res, err := matchSource(p, tt.file, tt.src, tt.pattern)
		if err != nil {
			t.Fatalf("%s %q: %v", tt.lang, tt.pattern, err)
		}
		requireClean(t, res.Pattern)
		var got []string
		for _, m := range res.Matches {
			got = append(got, m.Text+" ["+m.Context+"]")
		}
		if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("%s %q: matches %q, want %q (readings %q)", tt.lang, tt.pattern, got, tt.want, res.Pattern.Contexts())
		}
	}
}

// TestRungsRead: clauses, arms, parameters, entries, attributes and types
// read as themselves, in the rung made for them or in an earlier one that already reads them (the
// goldens m14_* cover them with a search, a match and a near-miss each).
func TestRungsRead(t *testing.T) {
	p := parser(t)
	tests := []struct{ lang, pattern, kind string }{
		{"go", "Close() error", "method_elem"},
		{"go", "case *$T:", "type_case"},
		{"go", "($T, error)", "parameter_list"},
		{"go", "Timeout: $V", "keyed_element"},
		{"python", "except $E as $N: $$$B", "except_clause"},
		{"python", "elif $C: $$$B", "elif_clause"},
		{"python", "$N: int", "typed_parameter"},
		{"rust", "$V = 1", "enum_variant"},
		{"rust", "$F: Vec<$T>", "field_declaration"},
		{"rust", "Some($V) if $V > 0 => $E", "match_arm"},
		{"rust", "fn $M(&self) -> $R;", "function_signature_item"},
		{"rust", "#[derive($$$D)]", "attribute_item"},
		{"rust", "Option<$T>", "generic_type"},
		{"javascript", "case $X: $$$B", "switch_case"},
		{"javascript", "catch ($E) { $$$B }", "catch_clause"},
		{"typescript", "$N?: string", "property_signature"},
		{"typescript", "$P: number;", "property_signature"},
		{"typescript", "$A | undefined", "union_type"},
		{"java", "RED(1) { void f() {} }", "enum_constant"},
		{"java", "catch (IOException $E) { $$$B }", "catch_clause"},
		{"c", "case $X:", "case_statement"},
		{"c", ".$F = $V", "initializer_pair"},
		{"cpp", "catch (const $T &$E) { $$$B }", "catch_clause"},
		{"c_sharp", "$P => \"none\"", "switch_expression_arm"},
		{"c_sharp", "[HttpGet($$$A)]", "attribute_list"},
		{"kotlin", "$X -> \"one\"", "when_entry"},
		{"ruby", "when $X then $Y", "when"},
		{"dart", "case $X:", "switch_label"},
		{"swift", "func $M() -> String", "protocol_function_declaration"},
		{"scala", "case Some($X) => $E", "case_clause"},
		{"lua", "name = $V", "field"},
		{"lua", "[$K] = $V", "field"},
		{"php", "private $T $name;", "property_declaration"},
		{"php", "catch (Exception $e) { $$$B }", "catch_clause"},
		{"php", "case $X:", "case_statement"},
		{"php", "default:", "default_statement"},
		{"php", "$X => null", "match_conditional_expression"},
		{"php", "'name' => $V", "array_element_initializer"},
		{"php", "case $C = 'H';", "enum_case"},
		{"php", "#[Route($$$A)]", "attribute_group"},
		{"php", "int $id", "simple_parameter"},
		{"php", "?$T", "optional_type"},
		{"swift", "case .failure($E): $$$B", "switch_entry"},
		{"swift", "default: $$$B", "switch_entry"},
		{"swift", "catch { $$$B }", "catch_block"},
		{"swift", "case $C(String)", "enum_entry"},
		{"swift", "$N: Int", "parameter"},
		{"swift", "[String: $V]", "dictionary_type"},
		{"scala", "$N: Int", "parameter"},
		{"scala", "@deprecated($$$A)", "annotation"},
		{"scala", "Option[$T]", "generic_type"},
		{"scala", "case Red", "enum_case_definitions"},
		{"scala", "catch { case $E: IOException => $B }", "catch_clause"},
		{"bash", "start) $$$B ;;", "case_item"},
		{"css", "50% { opacity: $V; }", "keyframe_block"},
		{"html", "class=\"$C\"", "attribute"},
		{"tsx", "className={$C}", "jsx_attribute"},
		{"javascript", "onClick={$H}", "jsx_attribute"},
	}
	for _, tt := range tests {
		pat, err := matcher.Compile(context.Background(), p, enginetest.Language(t, tt.lang), tt.pattern)
		if err != nil {
			t.Errorf("%s %q: %v", tt.lang, tt.pattern, err)
			continue
		}
		requireClean(t, pat)
		var roots []string
		for _, r := range pat.Readings() {
			roots = append(roots, r.String())
		}
		if !slices.ContainsFunc(roots, func(s string) bool { return strings.HasPrefix(s, "("+tt.kind+" ") }) {
			t.Errorf("%s %q: read as %q in %q, want a %s", tt.lang, tt.pattern, roots, pat.Contexts(), tt.kind)
		}
	}
}

// requireClean fails unless every reading pat searches came from a tree
// with no ERROR or MISSING node: no faulty reading is matched. The ladder
// and reading tests run it on each pattern they compile (Compile refuses
// such a pattern too, so the search goldens need not).
func requireClean(t testing.TB, pat *matcher.Pattern) {
	t.Helper()
	if pat == nil {
		return
	}
	for _, r := range pat.Readings() {
		if f := r.Fault(); f != "" {
			t.Errorf("%s %q: the %s reading %s came from a tree with %s", pat.Language(), pat.Source(), r.Context(), r.String(), f)
		}
	}
}

// TestMendedReadings: a reading whose only faults are a token missing
// after the pattern ("return $X" without its ";") or a metavariable the
// grammar cannot place where it stands ("match $X { $A }", "{ $$$ }"
// before a "}"), or an HTML element left open ("<a href="$U">") is read again with the token written in, the "$$$" taken
// out or the "$X" written as code the grammar places there, and its
// pattern is built from that clean tree: it is the same pattern as before
// and finds what ast-grep 0.51.1 finds (checked by hand with ast-grep run
// -p PATTERN -l LANG on these sources).
func TestMendedReadings(t *testing.T) {
	p := parser(t)
	java := "class A {\n  int x;\n  int f() { return x; }\n  void g(int a) { }\n  void h(int a, int b) { }\n" +
		"  void t() { try { f(); } catch (E e) { } try { f(); g(); } catch (E e) { } }\n}\nclass B {\n  int x;\n  int y;\n}\n"
	rust := "fn f(x: Option<i32>) -> i32 {\n    match x { Some(v) => v, None => 0 }\n}\nfn g(x: bool) -> i32 {\n    match x { _ => 1 }\n}\n" +
		"impl A { fn a() {} }\nimpl B { fn a() {} fn b() {} }\nstruct S { a: i32 }\nstruct T { a: i32, b: i32 }\n"
	kotlin := "data class P(val x: Int)\ndata class Q(val x: Int, val y: Int)\n"
	tests := []struct {
		lang, file, src, pattern, reading string
		want                              []string
	}{
		{"java", "A.java", java, "return $X", `(return_statement "return" $X)`, []string{"return x;"}},
		{"java", "A.java", java, "class $C { $X }", `(class_declaration "class" $C (class_body "{" $X "}"))`, nil},
		{"java", "A.java", java, "void $M($P) { }", `(method_declaration (void_type "void") $M (formal_parameters "(" $P ")") (block "{" "}"))`, []string{"void g(int a) { }"}},
		{"java", "A.java", java, "try { $S } catch (E e) { }", `(try_statement "try" (block "{" $S "}") (catch_clause "catch" "(" (catch_formal_parameter (catch_type (type_identifier "E")) (identifier "e")) ")" (block "{" "}")))`, []string{"try { f(); } catch (E e) { }"}},
		{"rust", "a.rs", rust, "match $X { $A }", `(match_expression "match" $X (match_block "{" $A "}"))`, []string{"match x { _ => 1 }"}},
		{"rust", "a.rs", rust, "match $X { $$$ }", `(match_expression "match" $X (match_block "{" $$$ "}"))`, []string{"match x { Some(v) => v, None => 0 }", "match x { _ => 1 }"}},
		{"rust", "a.rs", rust, "impl $T { $M }", `(impl_item "impl" $T (declaration_list "{" $M "}"))`, []string{"impl A { fn a() {} }"}},
		{"rust", "a.rs", rust, "struct $S { $F }", `(struct_item "struct" $S (field_declaration_list "{" $F "}"))`, []string{"struct S { a: i32 }"}},
		{"html", "a.html", "<p><a href=\"/\">home</a> <a class=\"x\">x</a></p>\n", `<a href="$U">`, `(start_tag "<" (tag_name "a") (attribute (attribute_name "href") "=" (quoted_attribute_value "\"" $U "\"")) ">")`, []string{`<a href="/">`}},
		{"kotlin", "a.kt", kotlin, "data class $C($P)", `(class_declaration (modifiers (class_modifier "data")) "class" $C (primary_constructor "(" $P ")"))`, []string{"data class P(val x: Int)"}},
	}
	for _, tt := range tests {
		res, err := matchSource(p, tt.file, tt.src, tt.pattern)
		if err != nil {
			t.Errorf("%s %q: %v", tt.lang, tt.pattern, err)
			continue
		}
		requireClean(t, res.Pattern)
		if got := res.Pattern.String(); got != tt.reading {
			t.Errorf("%s %q: reading %s, want %s", tt.lang, tt.pattern, got, tt.reading)
		}
		var got []string
		for _, m := range res.Matches {
			got = append(got, m.Text)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s %q: matches %q, want %q", tt.lang, tt.pattern, got, tt.want)
		}
	}
}
