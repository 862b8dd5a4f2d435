package rule_test

import "errors"
import "strings"
import "testing"

import "github.com/tetherhq/tether/matcher"
import "github.com/tetherhq/tether/matcher/rule"

// TestSelectorKinds: a kind written as a selector matches what the rules
// it stands for match (ast-grep's esquery reference; the corpus in
// testdata/rules/reference compares them with ast-grep itself).
func TestSelectorKinds(t *testing.T) {
	const src = "test(123);\nfoo.bar(1, x);\nconst list = [1, 2, 3, 4, 5];\n"
	cases := []struct{ kind, want string }{
		{"call_expression > identifier", "test"},
		{"call_expression > member_expression > property_identifier", "bar"},
		{"call_expression identifier", "test foo x"},
		{"array > number:nth-child(2n+1)", "1 3 5"},
		{"array > number:nth-last-child(1)", "5"},
		{"array > number:nth-child(-n+2)", "1 2"},
		{"array > :nth-child(2 of number)", "2"},
		{"number + number", ""},
		{"number ~ number", "2 3 4 5"},
		{"arguments > :is(identifier, number)", "123 1 x"},
		{"arguments > identifier, array > number:nth-child(1)", "x 1"},
		{"expression_statement:has(> call_expression):not(:has(number))", ""},
		{"expression_statement:has(property_identifier)", "foo.bar(1, x);"},
		{"  arguments>number  ", "123 1"},
	}
	for _, c := range cases {
		t.Run(c.kind, func(t *testing.T) {
			got, err := run(t, "typescript", `{"kind":"`+c.kind+`"}`, src)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, " ") != c.want {
				t.Errorf("matches %q, want %q", got, c.want)
			}
		})
	}
}

// TestSelectorErrors: a selector ast-grep refuses is refused, saying where.
func TestSelectorErrors(t *testing.T) {
	cases := []struct{ kind, want string }{
		{"call_expression.foo", "class selectors (.name) are not supported"},
		{"call_expression:first-child(x)", "unknown pseudo-class :first-child"},
		{"call_expression:has identifier", "'(' must follow :has"},
		{"call_expression:has(identifier", "')' must close :has("},
		{"call_expression:has(identifier, number)", "')' must close :has("},
		{"nope > identifier", `"nope" is not a node kind`},
		{"identifier:nth-child(odd)", `position "" is not An+B`},
		{"identifier:nth-child(2n3)", `position "2n3" is not An+B`},
		{"call_expression $ identifier", `"$" cannot appear in a selector`},
		{"call_expression >", "a kind or a pseudo-class is missing before end"},
		{":not(number)", "rule: the rule can match a node of any kind"},
	}
	for _, c := range cases {
		t.Run(c.kind, func(t *testing.T) {
			_, err := run(t, "typescript", `{"kind":"`+c.kind+`"}`, "x")
			if err == nil || !errors.Is(err, rule.ErrInvalid) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "rule") {
				t.Errorf("err = %v, want rule.kind: ... %q", err, c.want)
			}
		})
	}
}

// TestNthPositions: nthChild's string positions are read as ast-grep reads
// An+B.
func TestNthPositions(t *testing.T) {
	const src = "const list = [1, 2, 3, 4, 5, 6, 7];\n"
	cases := []struct{ pos, want string }{
		{`"3"`, "3"},
		{`"n+5"`, "5 6 7"},
		{`"-n+2"`, "1 2"},
		{`"2n"`, "2 4 6"},
		{`"3n-1"`, "2 5"},
		{`" 2n + 1 "`, "1 3 5 7"},
		{`"-2n+5"`, "1 3 5"},
	}
	for _, c := range cases {
		t.Run(c.pos, func(t *testing.T) {
			got, err := run(t, "typescript", `{"kind":"number","nthChild":`+c.pos+`}`, src)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, " ") != c.want {
				t.Errorf("matches %q, want %q", got, c.want)
			}
		})
	}
	for _, bad := range []string{`"odd"`, `"n2"`, `"+-1"`, `"0"`, `0`, `"-3"`} {
		if _, err := run(t, "typescript", `{"kind":"number","nthChild":`+bad+`}`, src); !errors.Is(err, rule.ErrInvalid) {
			t.Errorf("nthChild %s: err = %v, want it refused", bad, err)
		}
	}
}

// TestRecursiveUtils: a util may name itself through a relational rule,
// as ast-grep allows; directly it is a cycle. Matching a util that leads
// back to itself forever (has, then inside) ends with ErrTooExpensive
// where ast-grep overflows its stack.
func TestRecursiveUtils(t *testing.T) {
	got, err := run(t, "typescript", `{"rule":{"kind":"variable_declarator","has":{"field":"value","matches":"num"}},
		"utils":{"num":{"any":[{"kind":"number"},{"kind":"parenthesized_expression","has":{"matches":"num"}}]}}}`,
		"const a = ((1)), b = ((x)), c = 2;")
	if err != nil || strings.Join(got, "|") != "a = ((1))|c = 2" {
		t.Errorf("recursive util: %q, %v", got, err)
	}
	_, err = run(t, "typescript", `{"rule":{"matches":"x"},"utils":{"x":{"kind":"identifier","not":{"matches":"x"}}}}`, "a")
	if err == nil || !strings.Contains(err.Error(), "utils form a cycle: x -> x") {
		t.Errorf("direct cycle: %v", err)
	}
	_, err = run(t, "typescript", `{"rule":{"kind":"lexical_declaration","matches":"loop"},
		"utils":{"loop":{"any":[{"kind":"string_fragment"},{"kind":"program","has":{"matches":"loop"}},{"kind":"lexical_declaration","inside":{"matches":"loop"}}]}}}`,
		"let s = 1;")
	if !errors.Is(err, matcher.ErrTooExpensive) || !strings.Contains(err.Error(), `util "loop"`) {
		t.Errorf("a util leading back to itself: err = %v, want ErrTooExpensive", err)
	}
}

// TestRangeCharacters: a range's columns count characters, as ast-grep's,
// and a position without a column matches any.
func TestRangeCharacters(t *testing.T) {
	const src = "let s = \"éé\"; s.len();\n"
	for _, r := range []string{
		`{"start":{"line":0,"column":14},"end":{"line":0,"column":21}}`,
		`{"start":{"line":0},"end":{"line":0,"column":21}}`,
	} {
		got, err := run(t, "typescript", `{"kind":"call_expression","range":`+r+`}`, src)
		if err != nil || strings.Join(got, "|") != "s.len()" {
			t.Errorf("range %s: %q, %v", r, got, err)
		}
	}
	if _, err := run(t, "typescript", `{"kind":"call_expression","range":{"start":{"line":1},"end":{"line":0}}}`, src); !errors.Is(err, rule.ErrInvalid) {
		t.Errorf("a range ending before its start: err = %v", err)
	}
}
