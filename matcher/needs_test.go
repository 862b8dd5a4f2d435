package matcher_test

import "context"
import "reflect"
import "sort"
import "strings"
import "testing"

import "github.com/tetherhq/tether/engine/enginetest"
import "github.com/tetherhq/tether/matcher"

// TestKindNeeds: a pattern needs the kinds of its nodes that are not
// metavariables, with the alternatives of Go's "case $X:", and not the tokens
// the matcher lets a $$$ take unchecked (the one right after it, and those
// that end a list after it).
func TestKindNeeds(t *testing.T) {
	p := parser(t)
	for _, tc := range []struct {
		lang, pattern string
		want          []string // each reading's clauses, "a|b" for alternatives, sorted, readings joined by " / "
	}{
		{"go", "$X++", []string{`++ inc_statement`}},
		{"go", "$F($$$A)", []string{`( argument_list call_expression`}},
		{"go", "f($A, $$$M, $Z)", []string{`( ) , argument_list call_expression identifier`}},
		{"go", "case $X:", []string{`: case expression_case|type_case|communication_case`}},
		{"go", "$A <- $B", []string{`<- send_statement`, `- < binary_expression unary_expression`}},
		{"python", "[$X, $$$]", []string{`, [ list`}},
		{"typescript", "$A | $B", []string{`binary_expression |`, `union_type |`}},
	} {
		pat, err := matcher.Compile(context.Background(), p, enginetest.Language(t, tc.lang), tc.pattern)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.lang, tc.pattern, err)
		}
		var got []string
		for _, r := range pat.NeededKinds() {
			var cs []string
			for _, c := range r {
				cs = append(cs, strings.Join(c, "|"))
			}
			sort.Strings(cs)
			got = append(got, strings.Join(cs, " "))
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %s: needs %q, want %q", tc.lang, tc.pattern, got, tc.want)
		}
	}
}
