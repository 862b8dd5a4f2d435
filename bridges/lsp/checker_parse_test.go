package lsp

import "strings"
import "testing"

// TestParseCheckerLines: each checker's line format becomes one finding with
// its severity and code (rustc's short format had its code left in the
// message; dart analyze's format was not read at all; pyright's rule stayed
// in the message, so findings could not be counted by code).
func TestParseCheckerLines(t *testing.T) {
	cases := []struct{ checker, line, want string }{
		{"go vet", "vet: ./a.go:5:17: too many arguments in call to f", "a.go:5:17: error: too many arguments in call to f"},
		{"tsc", "src/a.ts(3,5): error TS2322: Type 'number' is not assignable to type 'string'.",
			"src/a.ts:3:5: error: Type 'number' is not assignable to type 'string'. [TS2322]"},
		{"pyright", "  /w/a.py:1:10 - error: Type \"Literal['a']\" is not assignable (reportAssignmentType)",
			"a.py:1:10: error: Type \"Literal['a']\" is not assignable [reportAssignmentType]"},
		{"pyright, rule on the continuation line", "  /w/a.py:2:6 - error: Cannot access attribute \"x\" for class \"B\"\n    Attribute \"x\" is unknown (reportAttributeAccessIssue)",
			"a.py:2:6: error: Cannot access attribute \"x\" for class \"B\"\n  Attribute \"x\" is unknown [reportAttributeAccessIssue]"},
		{"go vet, a parenthesis that is no rule", "vet: ./a.go:5:17: not enough arguments in call to f\n\thave ()\n\twant (int)",
			"a.go:5:17: error: not enough arguments in call to f\n  have ()\n  want (int)"},
		{"cargo check --message-format=short", "src/main.rs:1:37: error[E0308]: mismatched types: expected `i32`, found `&str`",
			"src/main.rs:1:37: error: mismatched types: expected `i32`, found `&str` [E0308]"},
		{"cargo check --message-format=short", "src/main.rs:1:17: warning: unused variable: `x`",
			"src/main.rs:1:17: warning: unused variable: `x`"},
		{"dart analyze", "  error - lib/main.dart:3:22 - A value of type 'String' can't be assigned to a variable of type 'int'. - invalid_assignment",
			"lib/main.dart:3:22: error: A value of type 'String' can't be assigned to a variable of type 'int'. [invalid_assignment]"},
		{"dart analyze", "   info - lib/main.dart:5:3 - Don't invoke 'print' in production code. - avoid_print",
			"lib/main.dart:5:3: info: Don't invoke 'print' in production code. [avoid_print]"},
	}
	for _, tc := range cases {
		t.Run(tc.checker, func(t *testing.T) {
			s := &Supervisor{workdir: "/w"}
			rep := &CheckReport{}
			s.parseCheckerOutput(rep, tc.line+"\n", "/w")
			var got []string
			for _, d := range rep.Items {
				got = append(got, d.String())
			}
			if strings.Join(got, "\n") != tc.want {
				t.Fatalf("%q\ngot  %q\nwant %q (unparsed %q)", tc.line, got, tc.want, rep.Unparsed)
			}
		})
	}
}
