package matcher

import (
	"sort"
	"strings"
)

// rung is one rung of a language's scaffold ladder: the pattern is placed
// between prefix and suffix (its lines after the first indented by indent) and
// parsed as a whole file.
type rung struct {
	name   string
	prefix string
	suffix string
	indent string
}

// langSpec is what the compiler needs to know about a language.
type langSpec struct {
	// expando replaces '$' in metavariables before parsing, so that $X lexes as
	// an identifier in languages where '$' cannot start one.
	expando rune
	// ladder is tried in order; the first context whose parse has no error wins.
	ladder []rung
	// quoted: the grammar has no identifiers (JSON), so a metavariable is
	// written into the pattern as a string and a string that holds exactly
	// one stands for it.
	quoted bool
	// stmtSuffix is written after a metavariable standing for statements
	// when the grammar cannot read it bare (default ";"); forHeader after the
	// "$$$" that is a for loop's whole header (default ";;"). See
	// withPlaceholders.
	stmtSuffix, forHeader string
	// importPath is written after the metavariable of "import $X" when the
	// grammar wants a path there (Go: "import µX" reads as a named import
	// missing its path); the import spec then stands for the metavariable.
	importPath string
}

func ctx(name, prefix, suffix string) rung {
	return rung{name: name, prefix: prefix, suffix: suffix}
}

// c-like scaffolds shared by several languages.
var (
	bare = ctx("declaration", "", "")
)

// langs holds the ladder and expando character per language id. The order of a
// ladder is statement, expression, member, declaration; languages whose files
// accept statements at top level start with the bare file.
var langs = map[string]langSpec{
	"go": {expando: 'µ', importPath: ` "_"`, ladder: []rung{
		ctx("statement", "package _\nfunc _() {\n", "\n}\n"),
		ctx("expression", "package _\nvar _ = ", "\n"),
		ctx("member", "package _\ntype _ struct {\n", "\n}\n"),
		ctx("declaration", "package _\n", "\n"),
		ctx("file", "", ""),
		// a type alone: struct { $$$ }, map[$K]$V, []$T, chan $T
		ctx("type", "package _\nvar _ ", "\n"),
		// a switch's or select's clause alone: case $X:, default: $$$,
		// case $V := <-$C: $$$ (a clause both read is a switch's; "case $X:"
		// matches type switch and select clauses too, see anyClause)
		ctx("case clause", "package _\nfunc _() {\nswitch {\n", "}\n}\n"),
		ctx("select clause", "package _\nfunc _() {\nselect {\n", "}\n}\n"),
	}},
	"python": {expando: 'µ', ladder: []rung{
		ctx("statement", "", ""),
		ctx("expression", "_ = ", ""),
		{name: "member", prefix: "class _:\n    ", indent: "    "},
		{name: "function body", prefix: "def _():\n    ", indent: "    "},
		// a decorator alone ("@$D", "@app.route($$$)") stands before a function
		ctx("decorator", "", "\ndef _():\n    pass\n"),
	}},
	"javascript": {expando: '$', ladder: jsLadder},
	"typescript": {expando: '$', ladder: jsLadder},
	"tsx":        {expando: '$', ladder: jsLadder},
	"rust": {expando: 'µ', ladder: []rung{
		ctx("statement", "fn _() {\n", "\n}\n"),
		ctx("expression", "const _: () = ", ";\n"),
		ctx("member", "impl _ {\n", "\n}\n"),
		bare,
	}},
	"c": {expando: 'µ', ladder: []rung{
		ctx("statement", "void _() {\n", "\n}\n"),
		ctx("expression", "int _ = ", ";\n"),
		ctx("member", "struct _ {\n", "\n};\n"),
		bare,
	}},
	"cpp": {expando: 'µ', ladder: []rung{
		ctx("statement", "void _() {\n", "\n}\n"),
		ctx("expression", "auto _ = ", ";\n"),
		ctx("member", "class _ {\n", "\n};\n"),
		bare,
	}},
	"java": {expando: '$', ladder: []rung{
		ctx("statement", "class X_ { void x_() {\n", "\n} }\n"),
		ctx("expression", "class X_ { Object x_ = ", "; }\n"),
		ctx("member", "class X_ {\n", "\n}\n"),
		bare,
		// an annotation alone ("@Override", "@Test($$$)") stands before a method
		ctx("annotation", "class X_ {\n", "\nvoid x_() {} }\n"),
	}},
	"dart": {expando: '$', ladder: []rung{
		ctx("statement", "void _() {\n", "\n}\n"),
		ctx("expression", "var _ = ", ";\n"),
		ctx("member", "class _ {\n", "\n}\n"),
		bare,
	}},
	"c_sharp": {expando: 'µ', stmtSuffix: "();", ladder: []rung{
		ctx("statement", "class X_ { void x_() {\n", "\n} }\n"),
		ctx("expression", "class X_ { object x_ = ", "; }\n"),
		ctx("member", "class X_ {\n", "\n}\n"),
		bare,
	}},
	"kotlin": {expando: 'µ', forHeader: " in µ", ladder: []rung{
		ctx("statement", "fun _() {\n", "\n}\n"),
		ctx("expression", "val _ = ", "\n"),
		ctx("member", "class _ {\n", "\n}\n"),
		bare,
	}},
	"swift": {expando: 'µ', ladder: []rung{
		ctx("statement", "func _() {\n", "\n}\n"),
		ctx("expression", "let _ = ", "\n"),
		ctx("member", "class _ {\n", "\n}\n"),
		bare,
		// an attribute alone ("@objc", "@available($$$)") stands before a function
		ctx("attribute", "", "\nfunc _() {}\n"),
	}},
	"scala": {expando: '$', ladder: []rung{
		ctx("statement", "object X_ {\ndef x_() = {\n", "\n}\n}\n"),
		ctx("expression", "object X_ {\nval x_ = ", "\n}\n"),
		ctx("member", "class X_ {\n", "\n}\n"),
		bare,
	}},
	"php": {expando: 'µ', ladder: []rung{
		ctx("statement", "<?php\nfunction _() {\n", "\n}\n"),
		ctx("expression", "<?php\n$_ = ", ";\n"),
		ctx("member", "<?php\nclass _ {\n", "\n}\n"),
		ctx("declaration", "<?php\n", "\n"),
	}},
	"ruby": {expando: 'µ', ladder: []rung{
		ctx("statement", "", ""),
		ctx("expression", "_ = ", "\n"),
		ctx("member", "class X_\n", "\nend\n"),
		ctx("declaration", "def _\n", "\nend\n"),
	}},
	"bash": {expando: '$', ladder: []rung{
		ctx("statement", "", ""),
		ctx("declaration", "_() {\n", "\n}\n"),
	}},
	"lua": {expando: 'µ', ladder: []rung{
		ctx("statement", "", ""),
		ctx("expression", "local _ = ", "\n"),
		ctx("declaration", "function _()\n", "\nend\n"),
	}},
	"json": {expando: '$', quoted: true, ladder: []rung{ctx("value", "", ""), ctx("member", "{\n", "\n}\n"), ctx("element", "[\n", "\n]\n")}},
	"yaml": {expando: '$', ladder: []rung{ctx("document", "", "")}},
	"css": {expando: '_', ladder: []rung{
		ctx("rule", "", ""),
		ctx("declaration", "_ {\n", "\n}\n"),
	}},
	"html": {expando: 'z', ladder: []rung{ctx("document", "", "")}},
}

var jsLadder = []rung{
	ctx("statement", "", ""),
	ctx("expression", "(", ")\n"),
	ctx("member", "class _ {\n", "\n}\n"),
	// a decorator alone ("@Component($$$)") stands before a class
	ctx("decorator", "", "\nclass _ {}\n"),
}

// langSpecFor returns the spec for a language id; unknown ids get a bare
// ladder with the '$' expando, so a grammar the table gains later still works.
func langSpecFor(id string) langSpec {
	if s, ok := langs[id]; ok {
		return s
	}
	return langSpec{expando: '$', ladder: []rung{bare}}
}

// Languages returns the ids of the languages that have a tuned context ladder.
func Languages() []string {
	ids := make([]string, 0, len(langs))
	for id := range langs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// contextNames lists a ladder's rung names for error messages.
func contextNames(l []rung) string {
	names := make([]string, len(l))
	for i, c := range l {
		names[i] = c.name
	}
	switch len(names) {
	case 1:
		return names[0]
	case 2:
		return names[0] + " or " + names[1]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// scaffold places the (already substituted) pattern text in c and returns the
// full source and the byte range the pattern occupies in it.
func (c rung) scaffold(p string) (src string, start, end int) {
	if c.indent != "" {
		p = strings.ReplaceAll(p, "\n", "\n"+c.indent)
	}
	return c.prefix + p + c.suffix, len(c.prefix), len(c.prefix) + len(p)
}
