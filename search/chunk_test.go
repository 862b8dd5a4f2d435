package search

import "reflect"
import "testing"

func TestSplitGo(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []int
	}{
		{"decls", "package p\n\nfunc a() {}\n\ntype T int\nvar v = 1\nconst c = 2\nfunc (T) m() {}\n", []int{0, 11, 24, 35, 45, 57}},
		{"inside a raw string", "package p\nvar s = `\nfunc x() {}\n`\nfunc y() {}\n", []int{0, 10, 34}},
		{"inside a block comment", "package p\n/*\nfunc x() {}\n*/\nfunc y() {}\n", []int{0, 28}},
		{"inside brackets", "package p\nvar (\nfunc_ = 1\n)\nvar f = func() {\nfunc x() {}\n}\n", []int{0, 10, 28}},
		{"line comment with a quote", "package p\n// don't\nfunc y() {}\n", []int{0, 19}},
		{"unterminated string", "package p\nvar s = \"abc\nfunc y() {}\n", nil},
		{"unbalanced", "package p\nfunc y() {\n", nil},
	}
	for _, tt := range tests {
		if got := splitGo([]byte(tt.src)); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: splitGo = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestGoStatementCuts: for a pattern whose matches are if or for
// statements, Go is cut around each outermost one (from the start of its
// line, else clauses included), and the rest is never parsed; a
// declaration holding one that does not start its line, or whose header
// holds a function literal, is a chunk of its own; a file without one
// parses nothing.
func TestGoStatementCuts(t *testing.T) {
	skip, stmt := skipAt, stmtAt
	checkStmtCuts(t, "goStatementCuts", func(src []byte) []cut { return goStatementCuts(src, []string{"if", "for"}) }, []stmtCutCase{
		{"one if", "package p\n\nfunc f() {\n\tif a {\n\t\tb()\n\t}\n\tx()\n}\n", []cut{skip(0), stmt(22), skip(38)}},
		{"else chain", "package p\n\nfunc f() {\n\tif a {\n\t} else if b {\n\t} else {\n\t}\n}\n", []cut{skip(0), stmt(22), skip(57)}},
		{"composite literal in the header", "package p\n\nfunc f() {\n\tfor _, x := range []int{1, 2} {\n\t}\n}\n", []cut{skip(0), stmt(22), skip(57)}},
		{"not first on its line", "package p\n\nfunc f() {\n\tswitch {\n\tcase x: if a { b() }\n\t}\n}\n\nfunc g() {\n\tif a {\n\t}\n}\n",
			[]cut{skip(0), {at: 11}, skip(60), stmt(71), skip(81)}},
		{"function literal in the header", "package p\n\nfunc f() {\n\tif func() bool { return a }() {\n\t}\n}\n", []cut{skip(0), {at: 11}, skip(60)}},
		{"none", "package p\n\nfunc f() {\n\tx()\n}\n", []cut{skip(0), skip(29)}},
		{"unterminated string", "package p\n\nvar s = \"abc\nfunc f() {}\n", nil},
	})
}

// skipAt and stmtAt are a skip cut and a statement cut at at.
func skipAt(at int) cut { return cut{at: at, skip: true} }
func stmtAt(at int) cut { return cut{at: at, stmt: true} }

// stmtCutCase is a source and the cuts wanted of it.
type stmtCutCase struct {
	name, src string
	want      []cut
}

// checkStmtCuts fails for each case whose cuts by split (called name)
// differ.
func checkStmtCuts(t *testing.T, name string, split func([]byte) []cut, cases []stmtCutCase) {
	t.Helper()
	for _, tt := range cases {
		if got := split([]byte(tt.src)); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %s = %+v, want %+v", tt.name, name, got, tt.want)
		}
	}
}
