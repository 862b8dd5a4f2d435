package matcher

import (
	"strings"

	"github.com/tetherhq/tether/grammars"
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
	// sigil is written before a metavariable where the grammar wants a
	// variable that starts with it (PHP's "$": a property's, a
	// parameter's, a catch clause's name; see compileVariables), or, for
	// Ruby, a capital where it wants a constant (a class's or module's
	// name: "module CµM" stands for "module $M").
	sigil string
}

// newRung returns the ladder rung name that places a pattern between prefix
// and suffix.
func newRung(name, prefix, suffix string) rung {
	return rung{name: name, prefix: prefix, suffix: suffix}
}

// c-like scaffolds shared by several languages.
var (
	bare = newRung("declaration", "", "")
)

// langs holds the ladder and expando character per language id. The order of a
// ladder is statement, expression, member, declaration; languages whose files
// accept statements at top level start with the bare file. The rungs after
// those read constructs that only parse in their own context (clauses, arms,
// parameters, entries, attributes, types): they come last, so the first
// clean reading of a pattern those first rungs read stays what it is, and
// they add readings or read what nothing before them read.
var langs = map[string]*langSpec{
	"go": {expando: 'µ', importPath: ` "_"`, ladder: []rung{
		newRung("statement", "package _\nfunc _() {\n", "\n}\n"),
		newRung("expression", "package _\nvar _ = ", "\n"),
		newRung("member", "package _\ntype _ struct {\n", "\n}\n"),
		newRung("declaration", "package _\n", "\n"),
		newRung("file", "", ""),
		// a type alone: struct { $$$ }, map[$K]$V, []$T, chan $T
		newRung("type", "package _\nvar _ ", "\n"),
		// a switch's or select's clause alone: case $X:, default: $$$,
		// case $V := <-$C: $$$ (a clause both read is a switch's; "case $X:"
		// matches type switch and select clauses too, see anyClause)
		newRung("case clause", "package _\nfunc _() {\nswitch {\n", "}\n}\n"),
		newRung("select clause", "package _\nfunc _() {\nselect {\n", "}\n}\n"),
		// then members, parameters, results and entries
		newRung("type switch clause", "package _\nfunc _() {\nswitch _.(type) {\n", "}\n}\n"),
		newRung("interface member", "package _\ntype _ interface {\n", "\n}\n"),
		newRung("parameter", "package _\nfunc _(", ") {}\n"),
		newRung("result", "package _\nfunc _() ", " {}\n"),
		newRung("literal entry", "package _\nvar _ = _{", "}\n"),
	}},
	"python": {expando: 'µ', ladder: []rung{
		newRung("statement", "", ""),
		newRung("expression", "_ = ", ""),
		{name: "member", prefix: "class _:\n    ", indent: "    "},
		{name: "function body", prefix: "def _():\n    ", indent: "    "},
		// a decorator alone ("@$D", "@app.route($$$)") stands before a function
		newRung("decorator", "", "\ndef _():\n    pass\n"),
		// then clauses, arms, parameters and entries
		{name: "except clause", prefix: "try:\n    pass\n"},
		{name: "case clause", prefix: "match _:\n    ", indent: "    "},
		{name: "elif clause", prefix: "if _:\n    pass\n"},
		newRung("parameter", "def _(", "):\n    pass\n"),
		newRung("argument", "_(", ")\n"),
		newRung("dict entry", "_ = {", "}\n"),
		newRung("type", "def _(_: ", "):\n    pass\n"),
	}},
	"javascript": {expando: '$', ladder: append(append([]rung(nil), jsLadder...), jsxAttribute)},
	"typescript": {expando: '$', ladder: tsLadder},
	"tsx":        {expando: '$', ladder: tsxLadder},
	"rust": {expando: 'µ', ladder: []rung{
		newRung("statement", "fn _() {\n", "\n}\n"),
		newRung("expression", "const _: () = ", ";\n"),
		newRung("member", "impl _ {\n", "\n}\n"),
		bare,
		// then fields, variants, arms, types, parameters, attributes
		newRung("field", "struct _ {\n", "\n}\n"),
		newRung("variant", "enum _ {\n", "\n}\n"),
		newRung("match arm", "fn _() {\nmatch _ {\n", "\n}\n}\n"),
		newRung("type", "type _ = ", ";\n"),
		newRung("parameter", "fn _(", ") {}\n"),
		newRung("trait member", "trait _ {\n", "\n}\n"),
		newRung("attribute", "", "\nstruct _;\n"),
		newRung("field initializer", "const _: _ = _ {", "};\n"),
		newRung("type parameters", "fn _", "() {}\n"),
	}},
	"c": {expando: 'µ', ladder: []rung{
		newRung("statement", "void _() {\n", "\n}\n"),
		newRung("expression", "int _ = ", ";\n"),
		newRung("member", "struct _ {\n", "\n};\n"),
		bare,
		// then clauses, enumerators, parameters, types, initializers
		newRung("case clause", "void _() {\nswitch (0) {\n", "\n}\n}\n"),
		newRung("enumerator", "enum _ {\n", "\n};\n"),
		newRung("parameter", "void _(", ");\n"),
		newRung("initializer", "struct _ _ = {", "};\n"),
		// a parameter list alone ("(int $X)", "()"), as ast-grep reads it
		newRung("parameter list", "void _", ";\n"),
	}},
	"cpp": {expando: 'µ', ladder: []rung{
		newRung("statement", "void _() {\n", "\n}\n"),
		newRung("expression", "auto _ = ", ";\n"),
		newRung("member", "class _ {\n", "\n};\n"),
		bare,
		// then clauses, handlers, enumerators, parameters, types
		newRung("case clause", "void _() {\nswitch (0) {\n", "\n}\n}\n"),
		newRung("catch clause", "void _() {\ntry {}\n", "\n}\n"),
		newRung("enumerator", "enum _ {\n", "\n};\n"),
		newRung("parameter", "void _(", ");\n"),
		newRung("initializer", "_ _ = {", "};\n"),
		newRung("parameter list", "void _", ";\n"),
	}},
	"java": {expando: '$', ladder: []rung{
		newRung("statement", "class X_ { void x_() {\n", "\n} }\n"),
		newRung("expression", "class X_ { Object x_ = ", "; }\n"),
		newRung("member", "class X_ {\n", "\n}\n"),
		bare,
		// an annotation alone ("@Override", "@Test($$$)") stands before a method
		newRung("annotation", "class X_ {\n", "\nvoid x_() {} }\n"),
		// then clauses, constants, parameters, types
		newRung("catch clause", "class X_ { void x_() {\ntry {}\n", "\n} }\n"),
		newRung("case clause", "class X_ { void x_() {\nswitch (x_) {\n", "\n}\n} }\n"),
		newRung("enum constant", "enum X_ {\n", "\n}\n"),
		newRung("interface member", "interface X_ {\n", "\n}\n"),
		newRung("parameter", "class X_ { void x_(", ") {} }\n"),
		newRung("type", "class X_ { ", " x_; }\n"),
		newRung("parameter list", "class X_ { void x_", " {} }\n"),
	}},
	"dart": {expando: '$', ladder: []rung{
		newRung("statement", "void _() {\n", "\n}\n"),
		newRung("expression", "var _ = ", ";\n"),
		newRung("member", "class _ {\n", "\n}\n"),
		bare,
		// then clauses, annotations, parameters, types
		newRung("catch clause", "void _() {\ntry {}\n", "\n}\n"),
		newRung("case clause", "void _() {\nswitch (_) {\n", "\n}\n}\n"),
		newRung("annotation", "class _ {\n", "\nvoid _() {}\n}\n"),
		newRung("parameter", "void _(", ") {}\n"),
		newRung("named parameter", "void _({", "}) {}\n"),
		newRung("type", "", " _;\n"),
		newRung("enum constant", "enum _ {\n", "\n}\n"),
	}},
	"c_sharp": {expando: 'µ', stmtSuffix: "();", ladder: []rung{
		newRung("statement", "class X_ { void x_() {\n", "\n} }\n"),
		newRung("expression", "class X_ { object x_ = ", "; }\n"),
		newRung("member", "class X_ {\n", "\n}\n"),
		bare,
		// then clauses, arms, attributes, parameters, types
		newRung("catch clause", "class X_ { void x_() {\ntry {}\n", "\n} }\n"),
		newRung("case clause", "class X_ { void x_() {\nswitch (x_) {\n", "\n}\n} }\n"),
		newRung("switch arm", "class X_ { object x_ = x_ switch {\n", "\n}; }\n"),
		newRung("attribute", "class X_ {\n", "\nvoid x_() {} }\n"),
		newRung("interface member", "interface X_ {\n", "\n}\n"),
		newRung("enum member", "enum X_ {\n", "\n}\n"),
		newRung("parameter", "class X_ { void x_(", ") {} }\n"),
		newRung("type", "class X_ { ", " x_; }\n"),
		newRung("parameter list", "class X_ { void x_", " {} }\n"),
		newRung("type parameters", "class X_", " {}\n"),
	}},
	"kotlin": {expando: 'µ', forHeader: " in µ", ladder: []rung{
		newRung("statement", "fun _() {\n", "\n}\n"),
		newRung("expression", "val _ = ", "\n"),
		newRung("member", "class _ {\n", "\n}\n"),
		bare,
		// then entries, handlers, annotations, parameters, types
		newRung("when entry", "fun _() {\nwhen (_) {\n", "\n}\n}\n"),
		newRung("catch clause", "fun _() {\ntry {}\n", "\n}\n"),
		newRung("annotation", "", "\nfun _() {}\n"),
		newRung("parameter", "fun _(", ") {}\n"),
		newRung("type", "val _: ", " = _\n"),
		newRung("enum entry", "enum class _ {\n", "\n}\n"),
		newRung("type parameters", "fun ", " _() {}\n"),
		newRung("parameter list", "fun _", " {}\n"),
	}},
	"swift": {expando: 'µ', ladder: []rung{
		newRung("statement", "func _() {\n", "\n}\n"),
		newRung("expression", "let _ = ", "\n"),
		newRung("member", "class _ {\n", "\n}\n"),
		bare,
		// an attribute alone ("@objc", "@available($$$)") stands before a function
		newRung("attribute", "", "\nfunc _() {}\n"),
		// then protocol members, switch cases, catch clauses, enum
		// cases, parameters, types
		newRung("protocol member", "protocol _ {\n", "\n}\n"),
		newRung("case clause", "func _() {\nswitch _ {\n", "}\n}\n"),
		newRung("catch clause", "func _() {\ndo {\n}\n", "\n}\n"),
		newRung("enum case", "enum _ {\n", "\n}\n"),
		newRung("parameter", "func _(", ") {}\n"),
		newRung("type", "var _: ", "\n"),
	}},
	"scala": {expando: '$', ladder: []rung{
		newRung("statement", "object X_ {\ndef x_() = {\n", "\n}\n}\n"),
		newRung("expression", "object X_ {\nval x_ = ", "\n}\n"),
		newRung("member", "class X_ {\n", "\n}\n"),
		bare,
		// then case clauses, parameters, annotations, types, enum cases
		newRung("case clause", "object X_ {\nx_ match {\n", "\n}\n}\n"),
		newRung("parameter", "object X_ {\ndef x_(", ") = ()\n}\n"),
		newRung("annotation", "object X_ {\n", "\ndef x_() = ()\n}\n"),
		newRung("type", "type X_ = ", "\n"),
		newRung("enum case", "enum X_ {\n", "\n}\n"),
		newRung("catch clause", "object X_ {\ndef x_() = try x_\n", "\n}\n"),
	}},
	"php": {expando: 'µ', sigil: "$", ladder: []rung{
		newRung("statement", "<?php\nfunction _() {\n", "\n}\n"),
		newRung("expression", "<?php\n$_ = ", ";\n"),
		newRung("member", "<?php\nclass _ {\n", "\n}\n"),
		newRung("declaration", "<?php\n", "\n"),
		// then clauses, arms, enum cases, attributes, parameters,
		// entries, types
		newRung("catch clause", "<?php\ntry {\n}\n", "\n"),
		newRung("case clause", "<?php\nswitch ($_) {\n", "\n}\n"),
		newRung("enum case", "<?php\nenum _ {\n", "\n}\n"),
		newRung("attribute", "<?php\n", "\nfunction _() {}\n"),
		newRung("parameter", "<?php\nfunction _(", ") {}\n"),
		newRung("array entry", "<?php\n$_ = [", "];\n"),
		newRung("match arm", "<?php\n$_ = match ($_) {\n", "\n};\n"),
		newRung("type", "<?php\nfunction _(): ", " {}\n"),
	}},
	"ruby": {expando: 'µ', sigil: "C", ladder: []rung{
		newRung("statement", "", ""),
		newRung("expression", "_ = ", "\n"),
		newRung("member", "class X_\n", "\nend\n"),
		newRung("declaration", "def _\n", "\nend\n"),
		// then clauses, pairs, parameters
		newRung("rescue clause", "begin\n_\n", "\nend\n"),
		newRung("when clause", "case _\n", "\nend\n"),
		newRung("elsif clause", "if _\n_\n", "\nend\n"),
		newRung("hash entry", "_ = {", "}\n"),
		newRung("parameter", "def _(", ")\nend\n"),
	}},
	"bash": {expando: '$', ladder: []rung{
		newRung("statement", "", ""),
		newRung("declaration", "_() {\n", "\n}\n"),
		// then case items
		newRung("case item", "case _ in\n", "\nesac\n"),
	}},
	"lua": {expando: 'µ', ladder: []rung{
		newRung("statement", "", ""),
		newRung("expression", "local _ = ", "\n"),
		newRung("declaration", "function _()\n", "\nend\n"),
		// then table entries
		newRung("table entry", "local _ = {", "}\n"),
	}},
	"json": {expando: '$', quoted: true, ladder: []rung{newRung("value", "", ""), newRung("member", "{\n", "\n}\n"), newRung("element", "[\n", "\n]\n")}},
	"yaml": {expando: '$', ladder: []rung{newRung("document", "", "")}},
	"css": {expando: '_', ladder: []rung{
		newRung("rule", "", ""),
		newRung("declaration", "_ {\n", "\n}\n"),
		// then keyframe blocks
		newRung("keyframe", "@keyframes _ {\n", "\n}\n"),
	}},
	"html": {expando: 'z', ladder: []rung{
		newRung("document", "", ""),
		// then an attribute alone (class="$C"), which the document
		// reads as text
		newRung("attribute", "<x ", "></x>\n"),
	}},
	// Languages past ast-grep's first 26. Each reads the forms its files
	// hold at top level first, then the contexts a snippet needs.
	"elixir": {expando: 'µ', ladder: []rung{
		newRung("statement", "", ""),
		newRung("function body", "def _ do\n", "\nend\n"),
		// then clauses, arms and entries
		// " end" on the clause's line: a clause ending a line takes the newline
		newRung("case clause", "case _ do\n", " end\n"),
		newRung("map entry", "%{", "}\n"),
		newRung("keyword entry", "_(", ")\n"),
	}},
	"haskell": {expando: 'µ', ladder: []rung{
		newRung("declaration", "", ""),
		newRung("expression", "_ = ", "\n"),
		{name: "do statement", prefix: "_ = do\n  ", suffix: "\n", indent: "  "},
		// then alternatives, fields and types
		{name: "case alternative", prefix: "_ = case _ of\n  ", suffix: "\n", indent: "  "},
		newRung("record field", "data X_ = X_ { ", " }\n"),
		newRung("type", "_ :: ", "\n"),
	}},
	"hcl": {expando: 'µ', stmtSuffix: " = 0", ladder: []rung{
		newRung("body", "", ""),
		newRung("expression", "_ = ", "\n"),
		// then an object's entries
		newRung("object entry", "_ = {\n", "\n}\n"),
	}},
	"nix": {expando: '_', ladder: []rung{
		newRung("expression", "", ""),
		// then bindings of an attribute set or a let
		newRung("binding", "{\n", "\n}\n"),
		newRung("parameter", "{ ", " }: _\n"),
	}},
	"solidity": {expando: '$', ladder: []rung{
		newRung("statement", "contract X_ { function x_() public {\n", "\n} }\n"),
		newRung("expression", "contract X_ { function x_() public { x_(", "); } }\n"),
		newRung("member", "contract X_ {\n", "\n}\n"),
		bare,
		// then parameters and modifiers' uses
		newRung("parameter", "contract X_ { function x_(", ") public {} }\n"),
	}},
	"zig": {expando: '_', ladder: []rung{
		newRung("statement", "fn _() void {\n", "\n}\n"),
		newRung("expression", "const _ = ", ";\n"),
		newRung("member", "const _ = struct {\n", "\n};\n"),
		bare,
		// then switch prongs, parameters, field initializers
		newRung("switch prong", "const _ = switch (_) {\n", "\n};\n"),
		newRung("parameter", "fn _(", ") void {}\n"),
		newRung("field initializer", "const _ = _{ ", " };\n"),
	}},
	"markdown": {expando: '$', ladder: []rung{
		newRung("document", "", ""),
		// a heading or a table row reads only as a whole line
		newRung("line", "", "\n"),
	}},
	"toml":   {expando: '$', ladder: []rung{newRung("document", "", ""), newRung("inline table entry", "_ = { ", " }\n")}},
	"xml":    {expando: 'z', ladder: []rung{newRung("document", "", ""), newRung("attribute", "<x ", "/>\n")}},
	"make":   {expando: '$', ladder: []rung{newRung("makefile", "", "\n")}},
	"svelte": {expando: 'z', ladder: []rung{newRung("document", "", ""), newRung("attribute", "<x ", "></x>\n")}},
	// A Vue component's top level holds elements and its template, script
	// and style blocks; text and interpolations ({{ $X }}) read only inside
	// an element, and an attribute or directive (:title="$V", v-if="$C")
	// only in a start tag.
	"vue": {expando: 'z', ladder: []rung{
		newRung("component", "", ""),
		newRung("template", "<template>\n", "\n</template>\n"),
		newRung("attribute", "<x ", "></x>\n"),
	}},
	"elm": {expando: 'µ', ladder: []rung{
		newRung("declaration", "", ""),
		newRung("expression", "x_ =\n    ", "\n"),
		// then case branches, record fields, types
		{name: "case branch", prefix: "x_ =\n    case x_ of\n        ", suffix: "\n", indent: "        "},
		newRung("record field", "x_ = { ", " }\n"),
		newRung("type", "x_ : ", "\nx_ = x_\n"),
	}},
	"sql": {expando: '_', ladder: []rung{
		newRung("statement", "", ""),
		newRung("expression", "SELECT ", ";\n"),
		// then conditions, tables and column definitions
		newRung("condition", "SELECT _ FROM _ WHERE ", ";\n"),
		newRung("table", "SELECT _ FROM ", ";\n"),
		newRung("column definition", "CREATE TABLE _ (", ");\n"),
	}},
	"ocaml": {expando: '_', ladder: []rung{
		newRung("declaration", "", ""),
		newRung("expression", "let _ = ", "\n"),
		// then match cases, record fields, types
		newRung("match case", "let _ = match _ with\n", "\n"),
		newRung("record field", "type _ = { ", " }\n"),
		newRung("type", "type _ = ", "\n"),
	}},
	"julia": {expando: 'µ', ladder: []rung{
		newRung("statement", "", ""),
		newRung("function body", "function _()\n", "\nend\n"),
		// then members, arguments
		newRung("field", "struct X_\n", "\nend\n"),
		newRung("argument", "_(", ")\n"),
	}},
	"powershell": {expando: '$', ladder: []rung{
		newRung("statement", "", ""),
		// then hashtable entries, switch clauses, parameters
		newRung("hashtable entry", "@{\n", "\n}\n"),
		newRung("switch clause", "switch ($_) {\n", "\n}\n"),
		newRung("parameter", "param(", ")\n"),
	}},
	"objc": {expando: 'µ', ladder: []rung{
		newRung("statement", "void _() {\n", "\n}\n"),
		newRung("expression", "int _ = ", ";\n"),
		newRung("member", "struct _ {\n", "\n};\n"),
		bare,
		// then methods, interface members, clauses, parameters
		newRung("method", "@implementation X_\n", "\n@end\n"),
		newRung("interface member", "@interface X_\n", "\n@end\n"),
		newRung("case clause", "void _() {\nswitch (0) {\n", "\n}\n}\n"),
		newRung("parameter", "void _(", ");\n"),
	}},
	"groovy": {expando: '$', ladder: []rung{
		newRung("statement", "", ""),
		newRung("member", "class X_ {\n", "\n}\n"),
		// then parameters and annotations
		newRung("parameter", "def x_(", ") {}\n"),
		newRung("annotation", "", "\ndef x_() {}\n"),
	}},
	"scss": {expando: '_', ladder: []rung{
		newRung("rule", "", ""),
		newRung("declaration", "_ {\n", "\n}\n"),
		newRung("keyframe", "@keyframes _ {\n", "\n}\n"),
	}},
	"r": {expando: 'µ', ladder: []rung{
		newRung("statement", "", ""),
		// then arguments and parameters
		newRung("argument", "_(", ")\n"),
		newRung("parameter", "function(", ") _\n"),
	}},
	"perl": {expando: '$', ladder: []rung{
		newRung("statement", "", ""),
		newRung("sub body", "sub _ {\n", "\n}\n"),
		// then hash entries
		newRung("list entry", "my %_ = (", ");\n"),
	}},
	"verilog": {expando: '_', ladder: []rung{
		newRung("statement", "module _;\ninitial begin\n", "\nend\nendmodule\n"),
		newRung("expression", "module _;\nassign _ = ", ";\nendmodule\n"),
		newRung("module item", "module _;\n", "\nendmodule\n"),
		bare,
		// then ports and connections
		newRung("port", "module _(", ");\nendmodule\n"),
		newRung("connection", "module _;\n_ _(", ");\nendmodule\n"),
	}},
	"awk": {expando: '_', ladder: []rung{
		newRung("program", "", ""),
		newRung("statement", "{\n", "\n}\n"),
		newRung("expression", "{ _ = ", " }\n"),
	}},
}

var jsLadder = []rung{
	newRung("statement", "", ""),
	newRung("expression", "(", ")\n"),
	newRung("member", "class _ {\n", "\n}\n"),
	// a decorator alone ("@Component($$$)") stands before a class
	newRung("decorator", "", "\nclass _ {}\n"),
	// then clauses, entries, parameters
	newRung("case clause", "switch (_) {\n", "\n}\n"),
	newRung("catch clause", "try {}\n", "\n"),
	newRung("object entry", "({", "})\n"),
	newRung("parameter", "function _(", ") {}\n"),
	newRung("parameter list", "function _", " {}\n"),
}

// jsxAttribute reads a JSX attribute ("className={$C}") in an element, in
// JavaScript and TSX (TypeScript reads no JSX).
var jsxAttribute = newRung("jsx attribute", "(<_ ", " />)\n")

// tsLadder is TypeScript's: JavaScript's and its own types, interface
// members, enum members; tsxLadder is TSX's, with JSX attributes.
var (
	tsLadder = append(append([]rung(nil), jsLadder...),
		newRung("type", "let _: ", ";\n"),
		newRung("interface member", "interface _ {\n", "\n}\n"),
		newRung("enum member", "enum _ {\n", "\n}\n"),
		// a generic declaration's parameters ("<$T>" reads as type
		// arguments first)
		newRung("type parameters", "function _", "() {}\n"),
	)
	tsxLadder = append(append([]rung(nil), tsLadder...), jsxAttribute)
)

// bareSpec is the spec of a language langs does not list.
var bareSpec = &langSpec{expando: '$', ladder: []rung{bare}}

// langSpecFor returns l's spec; a language langs does not list gets a bare
// ladder with the '$' expando, so a grammar the table gains later still
// works. A compile asks once (newReadings) and the spec travels with its
// readings and patterns.
func langSpecFor(l *grammars.Language) *langSpec {
	if s, ok := langs[l.ID]; ok {
		return s
	}
	return bareSpec
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
