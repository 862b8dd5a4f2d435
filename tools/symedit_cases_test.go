package tools_test

var symbolCases = []symbolCase{
	{name: "go", bin: "gopls", file: "shapes.go", files: map[string]string{
		"go.mod": goMod,
		"shapes.go": "package p\n\n// Shape is a shape.\ntype Shape interface {\n\tArea() float64\n}\n\n" +
			"// Square is a square.\ntype Square struct {\n\tSide float64\n}\n\n" +
			"// Area is the square's area.\nfunc (s *Square) Area() float64 {\n\treturn s.Side * s.Side\n}\n\n" +
			"// Unused is not used.\nfunc Unused() int {\n\treturn 1\n}\n",
		"use.go": "package p\n\nfunc total(ss []Shape) float64 {\n\tt := 0.0\n\tfor _, s := range ss {\n\t\tt += s.Area()\n\t}\n\treturn t + (&Square{Side: 1}).Area()\n}\n",
	}, steps: []symStep{
		{args: map[string]any{"symbol": "Square/Area", "action": "delete"}, refused: []string{"use.go:8", "the language server's references"}},
		{args: map[string]any{"symbol": "p.Unused", "action": "replace", "body": true, "text": "return 2"}, via: "the language server",
			has: []string{"// Unused is not used.\nfunc Unused() int {\n\treturn 2\n}\n"}},
		{args: map[string]any{"symbol": "Square", "action": "replace", "text": "// Square has sides.\ntype Square struct {\n\tSide float64\n\tName string\n}"}, via: "the language server",
			has:   []string{"}\n\n// Square has sides.\ntype Square struct {\n\tSide float64\n\tName string\n}\n\n// Area is"},
			lacks: []string{"// Square is a square."}},
		{args: map[string]any{"symbol": "(*Square).Area", "action": "insert_before", "text": "// Perimeter is the square's perimeter.\nfunc (s *Square) Perimeter() float64 {\n\treturn 4 * s.Side\n}"}, via: "the language server",
			has: []string{"}\n\n// Perimeter is the square's perimeter.\nfunc (s *Square) Perimeter() float64 {\n\treturn 4 * s.Side\n}\n\n// Area is the square's area.\nfunc (s *Square) Area"}},
		{args: map[string]any{"symbol": "Unused", "action": "delete"}, via: "the language server",
			has: []string{"return s.Side * s.Side\n}\n"}, lacks: []string{"Unused"}},
		{args: map[string]any{"symbol": "Circle", "action": "delete"}, refused: []string{"no such symbol", "Shape (line 4)", "Square (line 9)"}},
	}},
	{name: "python", bin: "pyright-langserver", file: "models.py", files: map[string]string{
		"pyproject.toml": "[project]\nname = \"p\"\nversion = \"0.1.0\"\n",
		"models.py": "from typing import overload\n\n\nclass Outer:\n    \"\"\"Outer.\"\"\"\n\n    class Inner:\n" +
			"        @staticmethod\n        # helper note\n        def helper(x: int) -> int:\n            return x\n\n" +
			"        def other(self) -> None:\n            pass\n\n\n" +
			"@overload\ndef conv(x: int) -> int: ...\n@overload\ndef conv(x: str) -> str: ...\ndef conv(x):\n    return x\n",
		"use.py": "from models import Outer\n\nprint(Outer.Inner.helper(1))\n",
	}, steps: []symStep{
		{args: map[string]any{"symbol": "Outer/Inner/helper", "action": "delete"}, refused: []string{"use.py:3", "the language server's references"}},
		{args: map[string]any{"symbol": "Outer/Inner/helper", "action": "replace", "text": "@staticmethod\ndef helper(x: int) -> int:\n    return x + 1\n"}, via: "the language server",
			has:   []string{"    \"\"\"Outer.\"\"\"\n\n    class Inner:\n        @staticmethod\n        def helper(x: int) -> int:\n            return x + 1\n\n        def other(self) -> None:"},
			lacks: []string{"# helper note", "@staticmethod\n        @staticmethod"}},
		{args: map[string]any{"symbol": "conv", "action": "delete"}, refused: []string{"conv (line 17), conv (line 19), conv (line 20)", "conv#2"}},
		{args: map[string]any{"symbol": "conv#3", "action": "replace", "body": true, "text": "return x if x else x"}, via: "the language server",
			has: []string{"def conv(x):\n    return x if x else x\n"}},
		{args: map[string]any{"symbol": "Outer/Inner", "action": "insert_after", "text": "class Other:\n    pass"}, via: "the language server",
			has: []string{"            pass\n\n    class Other:\n        pass\n\n\n@overload"}},
	}},
	{name: "typescript", bin: "typescript-language-server", file: "src/shapes.ts", files: map[string]string{
		"package.json":  `{"name":"p","version":"1.0.0"}`,
		"tsconfig.json": `{"compilerOptions":{"strict":true,"experimentalDecorators":true},"include":["src"]}`,
		"src/shapes.ts": "/** Formats a value. */\nexport function fmt(v: string): string;\nexport function fmt(v: number): string;\n" +
			"export function fmt(v: any): string {\n  return String(v);\n}\n\n" +
			"export class Box {\n  /** The width. */\n  @logged\n  width(): number {\n    return 1;\n  }\n\n  height(): number {\n    return 2;\n  }\n}\n\n" +
			"function logged(t: any, k: string, d?: any): any {\n  return d;\n}\n",
		"src/use.ts": "import { fmt, Box } from \"./shapes\";\n\nconsole.log(fmt(1), new Box().width());\n",
	}, steps: []symStep{
		{args: map[string]any{"symbol": "Box/width", "action": "delete"}, refused: []string{"src/use.ts:3", "the language server's references"}},
		{args: map[string]any{"symbol": "fmt", "action": "replace", "body": true, "text": "return `${v}`;"}, refused: []string{"fmt (line 2), fmt (line 3), fmt (line 4)"}},
		{args: map[string]any{"symbol": "fmt#3", "action": "replace", "body": true, "text": "return `${v}`;"}, via: "the language server",
			has: []string{"export function fmt(v: any): string {\n  return `${v}`;\n}\n"}},
		{args: map[string]any{"symbol": "fmt#1", "action": "replace", "body": true, "text": "return v;"}, refused: []string{"has none to replace"}},
		{args: map[string]any{"symbol": "Box/width", "action": "replace", "text": "width(): number {\n  return 3;\n}"}, via: "the language server",
			has:   []string{"export class Box {\n  width(): number {\n    return 3;\n  }\n\n  height(): number {"},
			lacks: []string{"@logged", "/** The width. */"}},
		{args: map[string]any{"symbol": "Box/height", "action": "insert_before", "text": "depth(): number {\n  return 0;\n}"}, via: "the language server",
			has: []string{"    return 3;\n  }\n\n  depth(): number {\n    return 0;\n  }\n\n  height(): number {"}},
	}},
	{name: "rust", file: "src/lib.rs", files: map[string]string{
		"Cargo.toml": "[package]\nname = \"p\"\nversion = \"0.1.0\"\n",
		"src/lib.rs": "mod other;\n\n/// A counter.\n#[derive(Debug)]\npub struct Counter {\n    n: u32,\n}\n\n" +
			"impl Counter {\n    /// Makes one.\n    #[inline]\n    pub fn new() -> Counter {\n        Counter { n: 0 }\n    }\n\n" +
			"    pub fn bump(&mut self) {\n        self.n += 1;\n    }\n}\n",
		"src/other.rs": "use crate::Counter;\n\npub fn make() -> Counter {\n    Counter::new()\n}\n",
	}, steps: []symStep{
		{args: map[string]any{"symbol": "Counter/new", "action": "delete"}, refused: []string{"src/other.rs:4", "identifiers named new in the parsed trees of", "no language server runs"}},
		{args: map[string]any{"symbol": "Counter/bump", "action": "replace", "body": true, "text": "self.n += 2;"}, via: "the tree-sitter grammar (no language server runs for the file)",
			has: []string{"    pub fn bump(&mut self) {\n        self.n += 2;\n    }\n}\n"}},
		{args: map[string]any{"symbol": "Counter/new", "action": "delete", "force": true}, via: "the tree-sitter grammar",
			has:   []string{"impl Counter {\n    pub fn bump"},
			lacks: []string{"#[inline]", "/// Makes one.", "fn new"}},
		{args: map[string]any{"symbol": "Counter", "action": "insert_before", "text": "/// A limit.\npub const LIMIT: u32 = 9;"}, via: "the tree-sitter grammar",
			has: []string{"mod other;\n\n/// A limit.\npub const LIMIT: u32 = 9;\n\n/// A counter.\n#[derive(Debug)]\npub struct Counter"}},
	}},
	{name: "c", bin: "clangd", file: "util.c", files: map[string]string{
		"util.h": "int add(int a, int b);\n",
		"util.c": "#include \"util.h\"\n\n/* Adds two numbers. */\nint add(int a, int b)\n{\n\treturn a + b;\n}\n\n" +
			"/* Not used. */\nstatic int unused(void)\n{\n\treturn 0;\n}\n",
		"main.c": "#include \"util.h\"\n\nint main(void) { return add(1, 2); }\n",
	}, steps: []symStep{
		{args: map[string]any{"symbol": "add", "action": "delete"}, refused: []string{"main.c:3", "the language server"}},
		{args: map[string]any{"symbol": "add", "action": "replace", "body": true, "text": "return b + a;"}, via: "the language server",
			has: []string{"/* Adds two numbers. */\nint add(int a, int b)\n{\n\treturn b + a;\n}\n"}},
		{args: map[string]any{"symbol": "unused", "action": "delete"}, via: "the language server",
			has: []string{"\treturn b + a;\n}\n"}, lacks: []string{"Not used", "unused"}},
	}},
}
