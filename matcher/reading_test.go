package matcher_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tetherhq/tether/matcher"
)

// TestMalformedPatternRefused: a pattern every reading of which has an
// ERROR or MISSING node (an unclosed call or block) is refused, saying
// where it broke, instead of searching and reading as "no matches"; a "$$$"
// alone is refused too. A statement written without its ";" still compiles.
func TestMalformedPatternRefused(t *testing.T) {
	p := parser(t)
	refused := []struct{ lang, pattern, where string }{
		{"go", "errors.New($M", `missing ")" at 1:14, the end of the pattern`},
		{"go", "fmt.Errorf($F, $$$A", `missing ")" at 1:20, the end of the pattern`},
		{"java", "if ($X) {", `missing "}" at 1:10, the end of the pattern`},
		{"javascript", "if ($X) {", `missing "}" at 1:10, the end of the pattern`},
		{"c", "if ($X) {", `missing "}" at 1:10, the end of the pattern`},
		{"python", "foo($X", `at 1:`},
		{"go", "$$$", `"$$$" alone`},
		{"python", "$$$ARGS", `"$$$ARGS" alone`},
	}
	for _, tt := range refused {
		_, err := matcher.Compile(context.Background(), p, tt.lang, tt.pattern)
		if !errors.Is(err, matcher.ErrUnparseable) || !strings.Contains(err.Error(), tt.where) {
			t.Errorf("%s %q: err = %v, want ErrUnparseable saying %q", tt.lang, tt.pattern, err, tt.where)
		}
	}
	accepted := []struct{ lang, pattern string }{
		{"java", "return $X"},
		{"c", "return $X"},
		{"java", "if ($X != null) $X.dispose()"},
		{"go", "f($$$)"},
	}
	for _, tt := range accepted {
		if _, err := matcher.Compile(context.Background(), p, tt.lang, tt.pattern); err != nil {
			t.Errorf("%s %q: %v", tt.lang, tt.pattern, err)
		}
	}
	// the search refuses it too, instead of "no matches in 1 file"
	file := filepath.Join(t.TempDir(), "a.go")
	if err := os.WriteFile(file, []byte("package p\n\nimport \"errors\"\n\nvar e = errors.New(\"x\")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := matcher.NewSearcher(p, matcher.Config{}).Search(context.Background(), matcher.Query{Pattern: "errors.New($M", Paths: []string{file}})
	if !errors.Is(err, matcher.ErrUnparseable) {
		t.Errorf("search for errors.New($M: %v, %v; want ErrUnparseable", res, err)
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
		pat, err := matcher.Compile(context.Background(), p, tt.lang, tt.pattern)
		if err != nil || strings.Join(pat.Contexts(), ",") != tt.want {
			t.Errorf("%s %q: readings %v, %v; want %s alone", tt.lang, tt.pattern, pat.Readings(), err, tt.want)
		}
	}
	for _, tt := range tests {
		file := filepath.Join(t.TempDir(), tt.file)
		if err := os.WriteFile(file, []byte(tt.src), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := matcher.NewSearcher(p, matcher.Config{}).Search(context.Background(), matcher.Query{Pattern: tt.pattern, Paths: []string{file}})
		if err != nil {
			t.Fatalf("%s %q: %v", tt.lang, tt.pattern, err)
		}
		var got []string
		for _, m := range res.Matches {
			got = append(got, m.Text+" ["+m.Context+"]")
		}
		if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("%s %q: matches %q, want %q (readings %q)", tt.lang, tt.pattern, got, tt.want, res.Pattern.Contexts())
		}
	}
}

// TestRungsRead: the constructs issue 14 names read as themselves, in the
// rung made for them or in an earlier one that already reads them (the
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
	}
	for _, tt := range tests {
		pat, err := matcher.Compile(context.Background(), p, tt.lang, tt.pattern)
		if err != nil {
			t.Errorf("%s %q: %v", tt.lang, tt.pattern, err)
			continue
		}
		var roots []string
		for _, r := range pat.Readings() {
			roots = append(roots, r.String())
		}
		if !slices.ContainsFunc(roots, func(s string) bool { return strings.HasPrefix(s, "("+tt.kind+" ") }) {
			t.Errorf("%s %q: read as %q in %q, want a %s", tt.lang, tt.pattern, roots, pat.Contexts(), tt.kind)
		}
	}
}
