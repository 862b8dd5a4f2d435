package search_test

import "github.com/tetherhq/tether/search"

var symeditCases = []symeditCase{
	{
		name: "go/replace-whole-with-doc", file: "a.go", path: "B",
		src:  "package p\n\n// A is first.\nfunc A() {}\n\n// B is second.\n// It has two lines.\nfunc B() int {\n\treturn 1\n}\n\n// C is third.\nfunc C() {}\n",
		edit: search.SymbolEdit{Action: search.SymbolReplace, Text: "// B is new.\nfunc B() int {\n\treturn 2\n}"},
		want: "package p\n\n// A is first.\nfunc A() {}\n\n// B is new.\nfunc B() int {\n\treturn 2\n}\n\n// C is third.\nfunc C() {}\n",
	},
	{
		name: "go/replace-body", file: "a.go", path: "T.M",
		src:  "package p\n\ntype T struct{}\n\n// M does.\nfunc (t *T) M() int {\n\treturn 1\n}\n",
		edit: search.SymbolEdit{Action: search.SymbolReplace, Body: true, Text: "x := 2\nreturn x"},
		want: "package p\n\ntype T struct{}\n\n// M does.\nfunc (t *T) M() int {\n\tx := 2\n\treturn x\n}\n",
	},
	{
		name: "go/insert-before-doc", file: "a.go", path: "B",
		src:  "package p\n\nfunc A() {}\n\n// B is.\nfunc B() {}\n",
		edit: search.SymbolEdit{Action: search.SymbolInsertBefore, Text: "func N() {}"},
		want: "package p\n\nfunc A() {}\n\nfunc N() {}\n\n// B is.\nfunc B() {}\n",
	},
	{
		name: "go/delete-type", file: "a.go", path: "T",
		src:  "package p\n\n// T is a type.\ntype T struct {\n\tA int\n}\n\nfunc F() {}\n",
		edit: search.SymbolEdit{Action: search.SymbolDelete},
		want: "package p\n\nfunc F() {}\n",
	},
	{
		name: "python/replace-decorated-method", file: "a.py", path: "Outer/Inner/m",
		src:  "class Outer:\n    class Inner:\n        @property\n        # note\n        def m(self):\n            return 1\n\n        def n(self):\n            pass\n",
		edit: search.SymbolEdit{Action: search.SymbolReplace, Text: "def m(self):\n    return 2\n"},
		want: "class Outer:\n    class Inner:\n        def m(self):\n            return 2\n\n        def n(self):\n            pass\n",
	},
	{
		name: "python/insert-after-method", file: "a.py", path: "C/a",
		src:  "class C:\n    def a(self):\n        pass\n\n    def b(self):\n        pass\n",
		edit: search.SymbolEdit{Action: search.SymbolInsertAfter, Text: "@staticmethod\ndef z():\n    return 0"},
		want: "class C:\n    def a(self):\n        pass\n\n    @staticmethod\n    def z():\n        return 0\n\n    def b(self):\n        pass\n",
	},
	{
		name: "python/overload-second-body", file: "a.py", path: "f#2",
		src:  "from typing import overload\n\n@overload\ndef f(x: int) -> int: ...\n@overload\ndef f(x: str) -> str: ...\ndef f(x):\n    return x\n",
		edit: search.SymbolEdit{Action: search.SymbolDelete},
		want: "from typing import overload\n\n@overload\ndef f(x: int) -> int: ...\ndef f(x):\n    return x\n",
	},
	{
		name: "python/replace-body-block", file: "a.py", path: "f",
		src:  "def f(x):\n    # first\n    return x\n\n\ndef g():\n    pass\n",
		edit: search.SymbolEdit{Action: search.SymbolReplace, Body: true, Text: "y = x + 1\nreturn y"},
		want: "def f(x):\n    y = x + 1\n    return y\n\n\ndef g():\n    pass\n",
	},
	{
		name: "ts/overload-signature", file: "a.ts", path: "f#1",
		src:  "export function f(a: string): string;\nexport function f(a: number): number;\nexport function f(a: any): any {\n  return a;\n}\n",
		edit: search.SymbolEdit{Action: search.SymbolDelete},
		want: "export function f(a: number): number;\nexport function f(a: any): any {\n  return a;\n}\n",
	},
	{
		name: "ts/decorated-method", file: "a.ts", path: "K/m",
		src:  "class K {\n  /** m does. */\n  @dec()\n  m(): number {\n    return 1;\n  }\n\n  n(): void {}\n}\n",
		edit: search.SymbolEdit{Action: search.SymbolReplace, Text: "m(): number {\n  return 2;\n}"},
		want: "class K {\n  m(): number {\n    return 2;\n  }\n\n  n(): void {}\n}\n",
	},
	{
		name: "ts/insert-before-exported", file: "a.ts", path: "B",
		src:  "/** A. */\nexport class A {}\n\n/** B. */\nexport class B {}\n",
		edit: search.SymbolEdit{Action: search.SymbolInsertBefore, Text: "export const X = 1;"},
		want: "/** A. */\nexport class A {}\n\nexport const X = 1;\n\n/** B. */\nexport class B {}\n",
	},
	{
		name: "rust/attributes-and-impl", file: "a.rs", path: "S/new",
		src:  "struct S;\n\nimpl S {\n    /// Makes one.\n    #[inline]\n    pub fn new() -> S {\n        S\n    }\n\n    fn other(&self) {}\n}\n",
		edit: search.SymbolEdit{Action: search.SymbolDelete},
		want: "struct S;\n\nimpl S {\n    fn other(&self) {}\n}\n",
	},
	{
		name: "rust/replace-body", file: "a.rs", path: "f",
		src:  "#[test]\nfn f() {\n    assert!(true);\n}\n",
		edit: search.SymbolEdit{Action: search.SymbolReplace, Body: true, Text: "let x = 1;\nassert_eq!(x, 1);"},
		want: "#[test]\nfn f() {\n    let x = 1;\n    assert_eq!(x, 1);\n}\n",
	},
	{
		name: "c/struct-and-function", file: "a.c", path: "point",
		src:  "/* A point. */\nstruct point {\n\tint x;\n};\n\n/* Adds. */\nint add(int a, int b)\n{\n\treturn a + b;\n}\n",
		edit: search.SymbolEdit{Action: search.SymbolDelete},
		want: "/* Adds. */\nint add(int a, int b)\n{\n\treturn a + b;\n}\n",
	},
	{
		name: "c/insert-after", file: "a.c", path: "add",
		src:  "int add(int a, int b)\n{\n\treturn a + b;\n}\n\nint sub(int a, int b);\n",
		edit: search.SymbolEdit{Action: search.SymbolInsertAfter, Text: "int mul(int a, int b)\n{\n\treturn a * b;\n}"},
		want: "int add(int a, int b)\n{\n\treturn a + b;\n}\n\nint mul(int a, int b)\n{\n\treturn a * b;\n}\n\nint sub(int a, int b);\n",
	},
}
