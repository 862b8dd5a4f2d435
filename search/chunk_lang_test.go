package search

import "reflect"
import "strings"
import "testing"

// TestSplitJS: TypeScript is cut before top-level declarations that follow
// a semicolon or a closing brace, and, with members, before each member of
// a top-level class and at its closing brace; strings, templates and their
// holes, regular expressions, comments, decorators and generic headers do
// not fool it; what it cannot read is parsed whole (nil).
func TestSplitJS(t *testing.T) {
	checkCuts(t, "splitJS", splitJS, []cutCase{
		{"statements", "import a from \"a\";\nconst x = 1;\nexport function f() {}\nlet y = 2\nlet z = 3;\n", false,
			[]cut{{at: 0, member: false}, {at: 19, member: false}, {at: 32, member: false}, {at: 55, member: false}, {at: 65, member: false}}},
		{"without semicolons", "import a from \"a\"\nimport b from 'b'\nexport const x = f(a)\nexport const y = 1\n", false,
			[]cut{{at: 0, member: false}, {at: 18, member: false}, {at: 36, member: false}}},
		{"decorators without a call", "const x = 1;\n@Dec\nexport class A {}\n@Dec.x\nclass B {}\n", false,
			[]cut{{at: 0, member: false}, {at: 13, member: false}, {at: 36, member: false}}},
		{"a decorator stays with its class", "import a from \"a\";\n@Entity()\nexport class A {}\n", false,
			[]cut{{at: 0, member: false}, {at: 19, member: false}}},
		{"import() is an expression", "f();\nimport(\"x\");\nimport.meta;\n", false, []cut{{at: 0, member: false}}},
		{"members", "class A<T extends {a: 1}> {\n  @Col()\n  x: T;\n  m() { return /}/; }\n  n = `${ {a: 1} }`;\n}\nf();\n", true,
			[]cut{{at: 0, member: false}, {at: 28, member: true}, {at: 45, member: true}, {at: 67, member: true}, {at: 88, member: false}, {at: 89, member: false}}},
		{"members without semicolons", "class A {\n  @Col\n  x = a\n    as any\n  y: string\n  z = f()\n  w = 1\n}\n", true,
			[]cut{{at: 0, member: false}, {at: 10, member: true}, {at: 36, member: true}, {at: 48, member: true}, {at: 66, member: false}, {at: 67, member: false}}},
		{"no members for a pattern that holds them", "class A {\n  x = 1;\n  m() {}\n}\n", false, []cut{{at: 0, member: false}}},
		{"inside a template", "const s = `\nexport const x = 1;\n`;\nexport const y = 2;\n", false, []cut{{at: 0, member: false}, {at: 35, member: false}}},
		{"inside a comment", "/*\nexport const x = 1;\n*/\nexport const y = 2;\n", false, []cut{{at: 0, member: false}, {at: 26, member: false}}},
		{"unterminated string", "const s = 'abc\nexport const y = 2;\n", false, nil},
		{"unbalanced", "function f() {\n", false, nil},
	})
}

// cutCase is a source, whether members may be cut, and the cuts wanted.
type cutCase struct {
	name    string
	src     string
	members bool
	want    []cut
}

// checkCuts fails for each case whose cuts by split (called name) differ.
func checkCuts(t *testing.T, name string, split splitter, cases []cutCase) {
	t.Helper()
	for _, tt := range cases {
		if got := split([]byte(tt.src), tt.members); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %s = %v, want %v", tt.name, name, got, tt.want)
		}
	}
}

// TestSplitPython: Python is cut before each statement at column 0 but
// the clauses that go on with the one before (else, except, ...) and a
// decorated definition's line; with members, before each statement of a
// top-level class's body but its first, and where the class ends; strings,
// brackets, continuations and comments at column 0 do not cut.
func TestSplitPython(t *testing.T) {
	checkCuts(t, "splitPython", splitPython, []cutCase{
		{"statements", "import os\nx = (1,\n2)\nif x:\n    pass\nelse:\n    pass\n@dec\ndef f():\n# a comment\n    return 1\n", false,
			[]cut{{at: 0, member: false}, {at: 10, member: false}, {at: 21, member: false}, {at: 51, member: false}}},
		{"strings", "s = '''\nx = 1\n'''\ny = \\\n  2\nz = 3\n", false, []cut{{at: 0, member: false}, {at: 18, member: false}, {at: 28, member: false}}},
		{"members", "class A(B):\n    '''doc'''\n    x = 1\n\n    @property\n    def p(self):\n        return 1\n    def q(self): pass\ny = 2\n", true,
			[]cut{{at: 0, member: false}, {at: 26, member: true}, {at: 37, member: true}, {at: 85, member: true}, {at: 107, member: false}}},
		{"unterminated", "s = 'abc\nx = 1\n", false, nil},
	})
}

// TestPyStatementCuts: for a pattern whose matches are simple statements,
// Python is cut into runs of statement lines at one indentation (blank
// lines in them), leaving out headers that end in a colon and decorators;
// a run at column 0 is a plain chunk, an indented one a statement chunk.
func TestPyStatementCuts(t *testing.T) {
	skip, stmt := skipAt, stmtAt
	checkStmtCuts(t, "pyStatementCuts", pyStatementCuts, []stmtCutCase{
		{"runs", "import os\n\ndef f(self):\n    x = 1\n\n    self.a = x\n    if x:\n        return x\n    return 0\n",
			[]cut{{at: 0}, skip(11), stmt(24), skip(50), stmt(60), stmt(77), skip(90)}},
		{"decorator and class", "@dec\nclass A:\n    b = 1\n", []cut{skip(0), stmt(14), skip(24)}},
		{"a string over lines", "x = '''\n'''\n", []cut{{at: 0}, skip(12)}},
		{"unterminated string", "s = 'abc\n", nil},
		{"no statement", "# only a comment\n", []cut{skip(0), skip(17)}},
	})
}

// TestJSStatementCuts: for a pattern that lies in one statement,
// TypeScript is cut around the statements that hold its tokens outside
// their bodies, going into function, arrow function, method and block
// bodies (a statement chunk each) and a class's members (a member chunk
// each); a header's statement on the next line stays with it; a body on
// one line, or one whose statement opens with a label (an object type
// read as a body), is not gone into; for a pattern without literals,
// tokens in comments, literals or longer words do not count; what the
// lexer cannot read is nil.
func TestJSStatementCuts(t *testing.T) {
	skip, stmt := skipAt, stmtAt
	at := strings.Index
	await := []string{"await"}
	suite := "describe(\"a\", () => {\n    it(\"b\", async () => {\n        const x = 1\n        await f(x)\n    })\n})\n"
	header := "function f() {\n    if (a)\n        await b()\n    c()\n}\n"
	outer := "const p = new Promise((r) => {\n    r(1)\n});\nf()\n"
	oneLine := "function f() { await a }\n"
	typed := "type F = () => {\n    await: number\n}\nfunction g() {\n    await x\n}\n"
	members := "class A<T extends {\n    a: 1\n}> {\n    x = 1\n    async m() {\n        await a\n    }\n}\n"
	field := "class A {\n    p = new Promise(f);\n    m() {}\n}\n"
	decorated := "class A {\n    @Dec()\n    p = new Promise(f)\n}\n"
	forAwait := "async function f() {\n    for await (const x of xs)\n        await x\n}\n"
	quiet := "describe(\"await\", () => { // await\n    await x\n}) /* await */\n"
	longer := "newPromise(() => {\n    new Promise(r)\n})\n"
	cases := []struct {
		name, src string
		tokens    []string
		want      []cut
		quiet     bool
	}{
		{"nested bodies", suite, await, []cut{skip(0), stmt(at(suite, "        await")), skip(at(suite, "    })"))}, false},
		{"a header's statement on the next line", header, await, []cut{skip(0), stmt(at(header, "    if")), skip(at(header, "    c()"))}, false},
		{"tokens outside the bodies", outer, []string{"Promise", "new"}, []cut{{at: 0}, skip(at(outer, "f()"))}, false},
		{"a body on one line", oneLine, await, []cut{{at: 0}, skip(len(oneLine))}, false},
		{"an object type read as a body", typed, await, []cut{{at: 0}, skip(at(typed, "function")), stmt(at(typed, "    await x")), skip(at(typed, "    await x") + len("    await x\n"))}, false},
		{"members", members, await, []cut{skip(0), stmt(at(members, "        await")), skip(at(members, "    }\n}"))}, false},
		{"a member", field, []string{"Promise", "new"}, []cut{skip(0), {at: at(field, "    p"), member: true}, skip(at(field, "    m()"))}, false},
		{"a decorator stays with its member", decorated, []string{"Promise", "new"}, []cut{skip(0), {at: at(decorated, "    @"), member: true}, skip(at(decorated, "}\n"))}, false},
		{"for await's header", forAwait, await, []cut{skip(0), stmt(at(forAwait, "    for")), skip(at(forAwait, "}\n"))}, false},
		{"in literals and comments", quiet, await, []cut{skip(0), stmt(at(quiet, "    await")), skip(at(quiet, "})"))}, true},
		{"in literals that count", quiet, await, []cut{{at: 0}, skip(len(quiet))}, false},
		{"in a longer word", longer, []string{"Promise", "new"}, []cut{skip(0), stmt(at(longer, "    new")), skip(at(longer, "})"))}, true},
		{"none", oneLine, []string{"zzz"}, []cut{skip(0), skip(len(oneLine))}, false},
		{"unterminated string", "const s = 'abc\nf()\n", await, nil, false},
		{"unbalanced", "function f() {\n", await, nil, false},
	}
	for _, tt := range cases {
		if got := jsStatementCuts([]byte(tt.src), tt.tokens, tt.quiet); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: jsStatementCuts = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}
