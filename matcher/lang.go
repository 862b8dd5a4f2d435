package matcher

import "slices"
import "strings"
import "sync"

import "github.com/tetherhq/tether/grammars"

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

// expandos lists the languages by the character that replaces '$' in their
// metavariables (langSpec.expando).
var expandos = map[rune][]string{
	'µ': {"go", "python", "rust", "c", "cpp", "c_sharp", "kotlin", "swift", "php", "ruby", "lua", "elixir", "haskell", "hcl", "elm", "julia", "objc", "r", "cuda", "glsl", "ron"},
	'$': {"javascript", "typescript", "tsx", "java", "dart", "scala", "bash", "json", "yaml", "solidity", "markdown", "toml", "make", "powershell", "groovy", "perl", "apex", "commonlisp", "elisp", "embedded_template", "kdl", "prisma"},
	'_': {"css", "nix", "zig", "sql", "ocaml", "scss", "verilog", "awk", "bicep", "devicetree", "gdscript", "openscad", "pascal", "thrift", "tlaplus", "wgsl"},
	'z': {"html", "xml", "svelte", "vue", "soql", "sosl"},
}

// langExtras holds what a language's spec sets besides its expando and its
// ladder.
var langExtras = map[string]langSpec{
	"go":      {importPath: ` "_"`},
	"c_sharp": {stmtSuffix: "();"},
	"kotlin":  {forHeader: " in µ"},
	"php":     {sigil: "$"},
	"ruby":    {sigil: "C"},
	"json":    {quoted: true},
	"hcl":     {stmtSuffix: " = 0"},
}

// langSpecs holds the specs built so far (specOf), by language id.
var langSpecs sync.Map

// ladderGroups lists, for a language whose ladder joins groups of
// ladderRows, those groups in order; any other language's ladder is the
// rows of its own id.
var ladderGroups = map[string][]string{
	"javascript": {"js", "jsx"},
	"typescript": {"js", "ts"},
	"tsx":        {"js", "ts", "jsx"},
}

// ladderRows holds every language's ladder, rung by rung: a language id
// (or a group of ladderGroups), then the rung's name, prefix, suffix and
// indent. The order of a ladder is statement, expression, member,
// declaration; languages whose files accept statements at top level start
// with the bare file. The rungs after those read constructs that only parse
// in their own context (clauses, arms, parameters, entries, attributes,
// types): they come last, so the first clean reading of a pattern those
// first rungs read stays what it is, and they add readings or read what
// nothing before them read.
var ladderRows = []struct{ lang, name, prefix, suffix, indent string }{
	{"go", "statement", "package _\nfunc _() {\n", "\n}\n", ""},
	{"go", "expression", "package _\nvar _ = ", "\n", ""},
	{"go", "member", "package _\ntype _ struct {\n", "\n}\n", ""},
	{"go", "declaration", "package _\n", "\n", ""},
	{"go", "file", "", "", ""},
	// a type alone: struct { $$$ }, map[$K]$V, []$T, chan $T
	{"go", "type", "package _\nvar _ ", "\n", ""},
	// a switch's or select's clause alone: case $X:, default: $$$,
	// case $V := <-$C: $$$ (a clause both read is a switch's; "case $X:"
	// matches type switch and select clauses too, see anyClause)
	{"go", "case clause", "package _\nfunc _() {\nswitch {\n", "}\n}\n", ""},
	{"go", "select clause", "package _\nfunc _() {\nselect {\n", "}\n}\n", ""},
	// then members, parameters, results and entries
	{"go", "type switch clause", "package _\nfunc _() {\nswitch _.(type) {\n", "}\n}\n", ""},
	{"go", "interface member", "package _\ntype _ interface {\n", "\n}\n", ""},
	{"go", "parameter", "package _\nfunc _(", ") {}\n", ""},
	{"go", "result", "package _\nfunc _() ", " {}\n", ""},
	{"go", "literal entry", "package _\nvar _ = _{", "}\n", ""},

	{"python", "statement", "", "", ""},
	{"python", "expression", "_ = ", "", ""},
	{"python", "member", "class _:\n    ", "", "    "},
	{"python", "function body", "def _():\n    ", "", "    "},
	// a decorator alone ("@$D", "@app.route($$$)") stands before a function
	{"python", "decorator", "", "\ndef _():\n    pass\n", ""},
	// then clauses, arms, parameters and entries
	{"python", "except clause", "try:\n    pass\n", "", ""},
	{"python", "case clause", "match _:\n    ", "", "    "},
	{"python", "elif clause", "if _:\n    pass\n", "", ""},
	{"python", "parameter", "def _(", "):\n    pass\n", ""},
	{"python", "argument", "_(", ")\n", ""},
	{"python", "dict entry", "_ = {", "}\n", ""},
	{"python", "type", "def _(_: ", "):\n    pass\n", ""},

	{"rust", "statement", "fn _() {\n", "\n}\n", ""},
	{"rust", "expression", "const _: () = ", ";\n", ""},
	{"rust", "member", "impl _ {\n", "\n}\n", ""},
	{"rust", "declaration", "", "", ""},
	// then fields, variants, arms, types, parameters, attributes
	{"rust", "field", "struct _ {\n", "\n}\n", ""},
	{"rust", "variant", "enum _ {\n", "\n}\n", ""},
	{"rust", "match arm", "fn _() {\nmatch _ {\n", "\n}\n}\n", ""},
	{"rust", "type", "type _ = ", ";\n", ""},
	{"rust", "parameter", "fn _(", ") {}\n", ""},
	{"rust", "trait member", "trait _ {\n", "\n}\n", ""},
	{"rust", "attribute", "", "\nstruct _;\n", ""},
	{"rust", "field initializer", "const _: _ = _ {", "};\n", ""},
	{"rust", "type parameters", "fn _", "() {}\n", ""},

	{"c", "statement", "void _() {\n", "\n}\n", ""},
	{"c", "expression", "int _ = ", ";\n", ""},
	{"c", "member", "struct _ {\n", "\n};\n", ""},
	{"c", "declaration", "", "", ""},
	// then clauses, enumerators, parameters, types, initializers
	{"c", "case clause", "void _() {\nswitch (0) {\n", "\n}\n}\n", ""},
	{"c", "enumerator", "enum _ {\n", "\n};\n", ""},
	{"c", "parameter", "void _(", ");\n", ""},
	{"c", "initializer", "struct _ _ = {", "};\n", ""},
	// a parameter list alone ("(int $X)", "()"), as ast-grep reads it
	{"c", "parameter list", "void _", ";\n", ""},

	{"cpp", "statement", "void _() {\n", "\n}\n", ""},
	{"cpp", "expression", "auto _ = ", ";\n", ""},
	{"cpp", "member", "class _ {\n", "\n};\n", ""},
	{"cpp", "declaration", "", "", ""},
	// then clauses, handlers, enumerators, parameters, types
	{"cpp", "case clause", "void _() {\nswitch (0) {\n", "\n}\n}\n", ""},
	{"cpp", "catch clause", "void _() {\ntry {}\n", "\n}\n", ""},
	{"cpp", "enumerator", "enum _ {\n", "\n};\n", ""},
	{"cpp", "parameter", "void _(", ");\n", ""},
	{"cpp", "initializer", "_ _ = {", "};\n", ""},
	{"cpp", "parameter list", "void _", ";\n", ""},

	{"java", "statement", "class X_ { void x_() {\n", "\n} }\n", ""},
	{"java", "expression", "class X_ { Object x_ = ", "; }\n", ""},
	{"java", "member", "class X_ {\n", "\n}\n", ""},
	{"java", "declaration", "", "", ""},
	// an annotation alone ("@Override", "@Test($$$)") stands before a method
	{"java", "annotation", "class X_ {\n", "\nvoid x_() {} }\n", ""},
	// then clauses, constants, parameters, types
	{"java", "catch clause", "class X_ { void x_() {\ntry {}\n", "\n} }\n", ""},
	{"java", "case clause", "class X_ { void x_() {\nswitch (x_) {\n", "\n}\n} }\n", ""},
	{"java", "enum constant", "enum X_ {\n", "\n}\n", ""},
	{"java", "interface member", "interface X_ {\n", "\n}\n", ""},
	{"java", "parameter", "class X_ { void x_(", ") {} }\n", ""},
	{"java", "type", "class X_ { ", " x_; }\n", ""},
	{"java", "parameter list", "class X_ { void x_", " {} }\n", ""},

	{"dart", "statement", "void _() {\n", "\n}\n", ""},
	{"dart", "expression", "var _ = ", ";\n", ""},
	{"dart", "member", "class _ {\n", "\n}\n", ""},
	{"dart", "declaration", "", "", ""},
	// then clauses, annotations, parameters, types
	{"dart", "catch clause", "void _() {\ntry {}\n", "\n}\n", ""},
	{"dart", "case clause", "void _() {\nswitch (_) {\n", "\n}\n}\n", ""},
	{"dart", "annotation", "class _ {\n", "\nvoid _() {}\n}\n", ""},
	{"dart", "parameter", "void _(", ") {}\n", ""},
	{"dart", "named parameter", "void _({", "}) {}\n", ""},
	{"dart", "type", "", " _;\n", ""},
	{"dart", "enum constant", "enum _ {\n", "\n}\n", ""},

	{"c_sharp", "statement", "class X_ { void x_() {\n", "\n} }\n", ""},
	{"c_sharp", "expression", "class X_ { object x_ = ", "; }\n", ""},
	{"c_sharp", "member", "class X_ {\n", "\n}\n", ""},
	{"c_sharp", "declaration", "", "", ""},
	// then clauses, arms, attributes, parameters, types
	{"c_sharp", "catch clause", "class X_ { void x_() {\ntry {}\n", "\n} }\n", ""},
	{"c_sharp", "case clause", "class X_ { void x_() {\nswitch (x_) {\n", "\n}\n} }\n", ""},
	{"c_sharp", "switch arm", "class X_ { object x_ = x_ switch {\n", "\n}; }\n", ""},
	{"c_sharp", "attribute", "class X_ {\n", "\nvoid x_() {} }\n", ""},
	{"c_sharp", "interface member", "interface X_ {\n", "\n}\n", ""},
	{"c_sharp", "enum member", "enum X_ {\n", "\n}\n", ""},
	{"c_sharp", "parameter", "class X_ { void x_(", ") {} }\n", ""},
	{"c_sharp", "type", "class X_ { ", " x_; }\n", ""},
	{"c_sharp", "parameter list", "class X_ { void x_", " {} }\n", ""},
	{"c_sharp", "type parameters", "class X_", " {}\n", ""},

	{"kotlin", "statement", "fun _() {\n", "\n}\n", ""},
	{"kotlin", "expression", "val _ = ", "\n", ""},
	{"kotlin", "member", "class _ {\n", "\n}\n", ""},
	{"kotlin", "declaration", "", "", ""},
	// then entries, handlers, annotations, parameters, types
	{"kotlin", "when entry", "fun _() {\nwhen (_) {\n", "\n}\n}\n", ""},
	{"kotlin", "catch clause", "fun _() {\ntry {}\n", "\n}\n", ""},
	{"kotlin", "annotation", "", "\nfun _() {}\n", ""},
	{"kotlin", "parameter", "fun _(", ") {}\n", ""},
	{"kotlin", "type", "val _: ", " = _\n", ""},
	{"kotlin", "enum entry", "enum class _ {\n", "\n}\n", ""},
	{"kotlin", "type parameters", "fun ", " _() {}\n", ""},
	{"kotlin", "parameter list", "fun _", " {}\n", ""},

	{"swift", "statement", "func _() {\n", "\n}\n", ""},
	{"swift", "expression", "let _ = ", "\n", ""},
	{"swift", "member", "class _ {\n", "\n}\n", ""},
	{"swift", "declaration", "", "", ""},
	// an attribute alone ("@objc", "@available($$$)") stands before a function
	{"swift", "attribute", "", "\nfunc _() {}\n", ""},
	// then protocol members, switch cases, catch clauses, enum
	// cases, parameters, types
	{"swift", "protocol member", "protocol _ {\n", "\n}\n", ""},
	{"swift", "case clause", "func _() {\nswitch _ {\n", "}\n}\n", ""},
	{"swift", "catch clause", "func _() {\ndo {\n}\n", "\n}\n", ""},
	{"swift", "enum case", "enum _ {\n", "\n}\n", ""},
	{"swift", "parameter", "func _(", ") {}\n", ""},
	{"swift", "type", "var _: ", "\n", ""},

	{"scala", "statement", "object X_ {\ndef x_() = {\n", "\n}\n}\n", ""},
	{"scala", "expression", "object X_ {\nval x_ = ", "\n}\n", ""},
	{"scala", "member", "class X_ {\n", "\n}\n", ""},
	{"scala", "declaration", "", "", ""},
	// then case clauses, parameters, annotations, types, enum cases
	{"scala", "case clause", "object X_ {\nx_ match {\n", "\n}\n}\n", ""},
	{"scala", "parameter", "object X_ {\ndef x_(", ") = ()\n}\n", ""},
	{"scala", "annotation", "object X_ {\n", "\ndef x_() = ()\n}\n", ""},
	{"scala", "type", "type X_ = ", "\n", ""},
	{"scala", "enum case", "enum X_ {\n", "\n}\n", ""},
	{"scala", "catch clause", "object X_ {\ndef x_() = try x_\n", "\n}\n", ""},

	{"php", "statement", "<?php\nfunction _() {\n", "\n}\n", ""},
	{"php", "expression", "<?php\n$_ = ", ";\n", ""},
	{"php", "member", "<?php\nclass _ {\n", "\n}\n", ""},
	{"php", "declaration", "<?php\n", "\n", ""},
	// then clauses, arms, enum cases, attributes, parameters,
	// entries, types
	{"php", "catch clause", "<?php\ntry {\n}\n", "\n", ""},
	{"php", "case clause", "<?php\nswitch ($_) {\n", "\n}\n", ""},
	{"php", "enum case", "<?php\nenum _ {\n", "\n}\n", ""},
	{"php", "attribute", "<?php\n", "\nfunction _() {}\n", ""},
	{"php", "parameter", "<?php\nfunction _(", ") {}\n", ""},
	{"php", "array entry", "<?php\n$_ = [", "];\n", ""},
	{"php", "match arm", "<?php\n$_ = match ($_) {\n", "\n};\n", ""},
	{"php", "type", "<?php\nfunction _(): ", " {}\n", ""},

	{"ruby", "statement", "", "", ""},
	{"ruby", "expression", "_ = ", "\n", ""},
	{"ruby", "member", "class X_\n", "\nend\n", ""},
	{"ruby", "declaration", "def _\n", "\nend\n", ""},
	// then clauses, pairs, parameters
	{"ruby", "rescue clause", "begin\n_\n", "\nend\n", ""},
	{"ruby", "when clause", "case _\n", "\nend\n", ""},
	{"ruby", "elsif clause", "if _\n_\n", "\nend\n", ""},
	{"ruby", "hash entry", "_ = {", "}\n", ""},
	{"ruby", "parameter", "def _(", ")\nend\n", ""},

	{"bash", "statement", "", "", ""},
	{"bash", "declaration", "_() {\n", "\n}\n", ""},
	// then case items
	{"bash", "case item", "case _ in\n", "\nesac\n", ""},

	{"lua", "statement", "", "", ""},
	{"lua", "expression", "local _ = ", "\n", ""},
	{"lua", "declaration", "function _()\n", "\nend\n", ""},
	// then table entries
	{"lua", "table entry", "local _ = {", "}\n", ""},

	{"json", "value", "", "", ""},
	{"json", "member", "{\n", "\n}\n", ""},
	{"json", "element", "[\n", "\n]\n", ""},

	{"yaml", "document", "", "", ""},

	{"css", "rule", "", "", ""},
	{"css", "declaration", "_ {\n", "\n}\n", ""},
	// then keyframe blocks
	{"css", "keyframe", "@keyframes _ {\n", "\n}\n", ""},

	{"html", "document", "", "", ""},
	// then an attribute alone (class="$C"), which the document
	// reads as text
	{"html", "attribute", "<x ", "></x>\n", ""},

	// Languages past ast-grep's first 26. Each reads the forms its files
	// hold at top level first, then the contexts a snippet needs.

	{"elixir", "statement", "", "", ""},
	{"elixir", "function body", "def _ do\n", "\nend\n", ""},
	// then clauses, arms and entries
	// " end" on the clause's line: a clause ending a line takes the newline
	{"elixir", "case clause", "case _ do\n", " end\n", ""},
	{"elixir", "map entry", "%{", "}\n", ""},
	{"elixir", "keyword entry", "_(", ")\n", ""},

	{"haskell", "declaration", "", "", ""},
	{"haskell", "expression", "_ = ", "\n", ""},
	{"haskell", "do statement", "_ = do\n  ", "\n", "  "},
	// then alternatives, fields and types
	{"haskell", "case alternative", "_ = case _ of\n  ", "\n", "  "},
	{"haskell", "record field", "data X_ = X_ { ", " }\n", ""},
	{"haskell", "type", "_ :: ", "\n", ""},

	{"hcl", "body", "", "", ""},
	{"hcl", "expression", "_ = ", "\n", ""},
	// then an object's entries
	{"hcl", "object entry", "_ = {\n", "\n}\n", ""},

	{"nix", "expression", "", "", ""},
	// then bindings of an attribute set or a let
	{"nix", "binding", "{\n", "\n}\n", ""},
	{"nix", "parameter", "{ ", " }: _\n", ""},

	{"solidity", "statement", "contract X_ { function x_() public {\n", "\n} }\n", ""},
	{"solidity", "expression", "contract X_ { function x_() public { x_(", "); } }\n", ""},
	{"solidity", "member", "contract X_ {\n", "\n}\n", ""},
	{"solidity", "declaration", "", "", ""},
	// then parameters and modifiers' uses
	{"solidity", "parameter", "contract X_ { function x_(", ") public {} }\n", ""},

	{"zig", "statement", "fn _() void {\n", "\n}\n", ""},
	{"zig", "expression", "const _ = ", ";\n", ""},
	{"zig", "member", "const _ = struct {\n", "\n};\n", ""},
	{"zig", "declaration", "", "", ""},
	// then switch prongs, parameters, field initializers
	{"zig", "switch prong", "const _ = switch (_) {\n", "\n};\n", ""},
	{"zig", "parameter", "fn _(", ") void {}\n", ""},
	{"zig", "field initializer", "const _ = _{ ", " };\n", ""},

	{"markdown", "document", "", "", ""},
	// a heading or a table row reads only as a whole line
	{"markdown", "line", "", "\n", ""},

	{"toml", "document", "", "", ""},
	{"toml", "inline table entry", "_ = { ", " }\n", ""},

	{"xml", "document", "", "", ""},
	{"xml", "attribute", "<x ", "/>\n", ""},

	{"make", "makefile", "", "\n", ""},

	{"svelte", "document", "", "", ""},
	{"svelte", "attribute", "<x ", "></x>\n", ""},

	// A Vue component's top level holds elements and its template, script
	// and style blocks; text and interpolations ({{ $X }}) read only inside
	// an element, and an attribute or directive (:title="$V", v-if="$C")
	// only in a start tag.

	{"vue", "component", "", "", ""},
	{"vue", "template", "<template>\n", "\n</template>\n", ""},
	{"vue", "attribute", "<x ", "></x>\n", ""},

	{"elm", "declaration", "", "", ""},
	{"elm", "expression", "x_ =\n    ", "\n", ""},
	// then case branches, record fields, types
	{"elm", "case branch", "x_ =\n    case x_ of\n        ", "\n", "        "},
	{"elm", "record field", "x_ = { ", " }\n", ""},
	{"elm", "type", "x_ : ", "\nx_ = x_\n", ""},

	{"sql", "statement", "", "", ""},
	{"sql", "expression", "SELECT ", ";\n", ""},
	// then conditions, tables and column definitions
	{"sql", "condition", "SELECT _ FROM _ WHERE ", ";\n", ""},
	{"sql", "table", "SELECT _ FROM ", ";\n", ""},
	{"sql", "column definition", "CREATE TABLE _ (", ");\n", ""},

	{"ocaml", "declaration", "", "", ""},
	{"ocaml", "expression", "let _ = ", "\n", ""},
	// then match cases, record fields, types
	{"ocaml", "match case", "let _ = match _ with\n", "\n", ""},
	{"ocaml", "record field", "type _ = { ", " }\n", ""},
	{"ocaml", "type", "type _ = ", "\n", ""},

	{"julia", "statement", "", "", ""},
	{"julia", "function body", "function _()\n", "\nend\n", ""},
	// then members, arguments
	{"julia", "field", "struct X_\n", "\nend\n", ""},
	{"julia", "argument", "_(", ")\n", ""},

	{"powershell", "statement", "", "", ""},
	// then hashtable entries, switch clauses, parameters
	{"powershell", "hashtable entry", "@{\n", "\n}\n", ""},
	{"powershell", "switch clause", "switch ($_) {\n", "\n}\n", ""},
	{"powershell", "parameter", "param(", ")\n", ""},

	{"objc", "statement", "void _() {\n", "\n}\n", ""},
	{"objc", "expression", "int _ = ", ";\n", ""},
	{"objc", "member", "struct _ {\n", "\n};\n", ""},
	{"objc", "declaration", "", "", ""},
	// then methods, interface members, clauses, parameters
	{"objc", "method", "@implementation X_\n", "\n@end\n", ""},
	{"objc", "interface member", "@interface X_\n", "\n@end\n", ""},
	{"objc", "case clause", "void _() {\nswitch (0) {\n", "\n}\n}\n", ""},
	{"objc", "parameter", "void _(", ");\n", ""},

	{"groovy", "statement", "", "", ""},
	{"groovy", "member", "class X_ {\n", "\n}\n", ""},
	// then parameters and annotations
	{"groovy", "parameter", "def x_(", ") {}\n", ""},
	{"groovy", "annotation", "", "\ndef x_() {}\n", ""},

	{"scss", "rule", "", "", ""},
	{"scss", "declaration", "_ {\n", "\n}\n", ""},
	{"scss", "keyframe", "@keyframes _ {\n", "\n}\n", ""},

	{"r", "statement", "", "", ""},
	// then arguments and parameters
	{"r", "argument", "_(", ")\n", ""},
	{"r", "parameter", "function(", ") _\n", ""},

	{"perl", "statement", "", "", ""},
	{"perl", "sub body", "sub _ {\n", "\n}\n", ""},
	// then hash entries
	{"perl", "list entry", "my %_ = (", ");\n", ""},

	{"verilog", "statement", "module _;\ninitial begin\n", "\nend\nendmodule\n", ""},
	{"verilog", "expression", "module _;\nassign _ = ", ";\nendmodule\n", ""},
	{"verilog", "module item", "module _;\n", "\nendmodule\n", ""},
	{"verilog", "declaration", "", "", ""},
	// then ports and connections
	{"verilog", "port", "module _(", ");\nendmodule\n", ""},
	{"verilog", "connection", "module _;\n_ _(", ");\nendmodule\n", ""},

	{"awk", "program", "", "", ""},
	{"awk", "statement", "{\n", "\n}\n", ""},
	{"awk", "expression", "{ _ = ", " }\n", ""},

	{"apex", "statement", "class X_ { void x_() {\n", "\n} }\n", ""},
	{"apex", "expression", "class X_ { Object x_ = ", "; }\n", ""},
	{"apex", "member", "class X_ {\n", "\n}\n", ""},
	{"apex", "declaration", "", "", ""},
	// then annotations, parameters
	{"apex", "annotation", "class X_ {\n", "\nvoid x_() {} }\n", ""},
	{"apex", "parameter", "class X_ { void x_(", ") {} }\n", ""},

	{"soql", "query", "", "", ""},
	// then clauses, conditions and fields
	{"soql", "clause", "SELECT Id FROM X ", "\n", ""},
	{"soql", "condition", "SELECT Id FROM X WHERE ", "\n", ""},
	{"soql", "field", "SELECT ", " FROM X\n", ""},

	{"sosl", "query", "", "", ""},
	// then clauses after FIND
	{"sosl", "clause", "FIND {x_} IN ALL FIELDS ", "\n", ""},
	{"sosl", "returned object", "FIND {x_} IN ALL FIELDS RETURNING ", "\n", ""},

	{"bicep", "declaration", "", "", ""},
	{"bicep", "expression", "var x_ = ", "\n", ""},
	// then object properties
	{"bicep", "object property", "var x_ = {\n", "\n}\n", ""},

	{"commonlisp", "form", "", "", ""},

	{"cuda", "statement", "void _() {\n", "\n}\n", ""},
	{"cuda", "expression", "auto _ = ", ";\n", ""},
	{"cuda", "member", "class _ {\n", "\n};\n", ""},
	{"cuda", "declaration", "", "", ""},
	// then parameters
	{"cuda", "parameter", "void _(", ");\n", ""},

	{"devicetree", "document", "", "", ""},
	// then a node's properties and children
	{"devicetree", "node body", "/ {\n", "\n};\n", ""},

	{"elisp", "form", "", "", ""},

	{"embedded_template", "template", "", "", ""},

	{"gdscript", "statement", "", "", ""},
	{"gdscript", "function body", "func _():\n\t", "\n", "\t"},
	// then arguments
	{"gdscript", "argument", "_(", ")\n", ""},

	{"glsl", "statement", "void _() {\n", "\n}\n", ""},
	{"glsl", "expression", "float _ = ", ";\n", ""},
	{"glsl", "member", "struct _ {\n", "\n};\n", ""},
	{"glsl", "declaration", "", "", ""},
	// then parameters
	{"glsl", "parameter", "void _(", ");\n", ""},

	{"kdl", "document", "", "", ""},

	{"openscad", "statement", "", "", ""},
	{"openscad", "expression", "_x = ", ";\n", ""},
	// then arguments
	{"openscad", "argument", "_x(", ");\n", ""},

	{"pascal", "statement", "program X_;\nbegin\n", "\nend.\n", ""},
	{"pascal", "expression", "program X_;\nbegin\nX_ := ", ";\nend.\n", ""},
	{"pascal", "declaration", "program X_;\n", "\nbegin\nend.\n", ""},
	{"pascal", "program", "", "", ""},

	{"prisma", "declaration", "", "", ""},
	// then fields and attributes of a model
	{"prisma", "field", "model X_ {\n", "\n}\n", ""},
	{"prisma", "key value", "datasource x_ {\n", "\n}\n", ""},

	{"ron", "value", "", "", ""},
	// then struct fields and map entries
	{"ron", "field", "X_(\n", "\n)\n", ""},
	{"ron", "map entry", "{\n", "\n}\n", ""},

	{"thrift", "definition", "", "", ""},
	// then fields, functions and enum values
	{"thrift", "field", "struct X_ {\n", "\n}\n", ""},
	{"thrift", "function", "service X_ {\n", "\n}\n", ""},
	{"thrift", "enum value", "enum X_ {\n", "\n}\n", ""},

	{"tlaplus", "unit", "---- MODULE X_ ----\n", "\n====\n", ""},
	{"tlaplus", "expression", "---- MODULE X_ ----\nX_ == ", "\n====\n", ""},

	{"wgsl", "statement", "fn x_() {\n", "\n}\n", ""},
	{"wgsl", "expression", "const x_ = ", ";\n", ""},
	{"wgsl", "declaration", "", "", ""},
	// then struct members
	{"wgsl", "member", "struct X_ {\n", "\n};\n", ""},

	// JavaScript's ladder, which TypeScript's and TSX's start with
	{"js", "statement", "", "", ""},
	{"js", "expression", "(", ")\n", ""},
	{"js", "member", "class _ {\n", "\n}\n", ""},
	// a decorator alone ("@Component($$$)") stands before a class
	{"js", "decorator", "", "\nclass _ {}\n", ""},
	// then clauses, entries, parameters
	{"js", "case clause", "switch (_) {\n", "\n}\n", ""},
	{"js", "catch clause", "try {}\n", "\n", ""},
	{"js", "object entry", "({", "})\n", ""},
	{"js", "parameter", "function _(", ") {}\n", ""},
	{"js", "parameter list", "function _", " {}\n", ""},

	// TypeScript's own: types, interface members, enum members
	{"ts", "type", "let _: ", ";\n", ""},
	{"ts", "interface member", "interface _ {\n", "\n}\n", ""},
	{"ts", "enum member", "enum _ {\n", "\n}\n", ""},
	// a generic declaration's parameters ("<$T>" reads as type
	// arguments first)
	{"ts", "type parameters", "function _", "() {}\n", ""},

	// a JSX attribute ("className={$C}") in an element, in JavaScript and
	// TSX (TypeScript reads no JSX)
	{"jsx", "jsx attribute", "(<_ ", " />)\n", ""},
}

// specOf returns the spec of the language id, built from expandos,
// langExtras and ladderRows on its first use (a search compiles for one
// language or two; building all of them was a tenth of a millisecond of
// every process's start); false when expandos does not list it.
func specOf(id string) (*langSpec, bool) {
	if s, ok := langSpecs.Load(id); ok {
		return s.(*langSpec), true
	}
	var expando rune
	for e, ids := range expandos {
		if slices.Contains(ids, id) {
			expando = e
			break
		}
	}
	if expando == 0 {
		return nil, false
	}
	s := langExtras[id]
	s.expando = expando
	groups, ok := ladderGroups[id]
	if !ok {
		groups = []string{id}
	}
	for _, g := range groups {
		for _, r := range ladderRows {
			if r.lang == g {
				s.ladder = append(s.ladder, rung{name: r.name, prefix: r.prefix, suffix: r.suffix, indent: r.indent})
			}
		}
	}
	got, _ := langSpecs.LoadOrStore(id, &s)
	return got.(*langSpec), true
}

// bareSpec is the spec of a language expandos does not list.
var bareSpec = &langSpec{expando: '$', ladder: []rung{newRung("declaration", "", "")}}

// langSpecFor returns l's spec; a language expandos does not list gets a bare
// ladder with the '$' expando, so a grammar the table gains later still
// works. A compile asks once (newReadings) and the spec travels with its
// readings and patterns.
//
// A custom language (grammars.NewCustom) gets the bare ladder with its own
// expando (its project's expandoChar).
func langSpecFor(l *grammars.Language) *langSpec {
	if l.Custom != nil {
		return &langSpec{expando: l.Custom.Expando, ladder: bareSpec.ladder}
	}
	if s, ok := specOf(l.ID); ok {
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
