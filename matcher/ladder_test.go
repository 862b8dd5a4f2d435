package matcher_test

import "context"
import "errors"
import "reflect"
import "strings"
import "testing"

import "github.com/tetherhq/tether/engine/enginetest"
import "github.com/tetherhq/tether/matcher"

// TestEveryLanguageLadder: each shipped language's ladder compiles a simple
// pattern and finds it, so $X works in every grammar (the eight main
// languages have their own golden cases).
func TestEveryLanguageLadder(t *testing.T) {
	tests := []struct {
		lang, file, pattern, src, want string
	}{
		{"cpp", "a.cpp", "foo($A)", "int main() { foo(1); std::vector<int> v; }\n", "foo(1)"},
		{"c_sharp", "a.cs", "Console.WriteLine($A)", "class A { void F() { Console.WriteLine(1); } }\n", "Console.WriteLine(1)"},
		{"kotlin", "a.kt", "println($A)", "fun main() { println(1) }\n", "println(1)"},
		{"swift", "a.swift", "print($A)", "func f() { print(1) }\n", "print(1)"},
		{"scala", "a.scala", "println($A)", "object A { def f() = { println(1) } }\n", "println(1)"},
		{"php", "a.php", "strlen($A)", "<?php\nfunction f($s) { return strlen($s); }\n", "strlen($s)"},
		{"ruby", "a.rb", "puts($A)", "def f\n  puts(1)\nend\n", "puts(1)"},
		{"lua", "a.lua", "print($A)", "local function f()\n  print(1)\nend\n", "print(1)"},
		{"bash", "a.sh", "echo $A", "f() {\n  echo hi\n}\n", "echo hi"},
		{"tsx", "a.tsx", "<b>{$X}</b>", "const a = <b>{name}</b>;\n", "<b>{name}</b>"},
		{"yaml", "a.yaml", "image: $V", "services:\n  web:\n    image: nginx\n", "image: nginx"},
		{"css", "a.css", "color: $V", "a { color: red; }\n", "color: red;"},
		{"json", "a.json", `"name": $V`, "{\"name\": \"x\", \"n\": 1}\n", `"name": "x"`},
		{"python", "a.py", "@$D", "@app.route(\"/\")\ndef index():\n    pass\n", "@app.route(\"/\")"},
		{"html", "a.html", "<title>$T</title>", "<html><head><title>Hi</title></head></html>\n", "<title>Hi</title>"},
		{"elixir", "a.ex", "IO.puts($X)", "def f do\n  IO.puts(1)\nend\n", "IO.puts(1)"},
		{"haskell", "a.hs", "putStrLn $X", "main = putStrLn \"a\"\n", "putStrLn \"a\""},
		{"hcl", "a.tf", "source = $S", "module \"m\" {\n  source = \"./m\"\n}\n", "source = \"./m\""},
		{"nix", "a.nix", "import $P", "let a = import ./a.nix; in a\n", "import ./a.nix"},
		{"solidity", "a.sol", "require($C)", "contract C { function f() public { require(ok); } }\n", "require(ok)"},
		{"zig", "a.zig", "foo($A)", "fn f() void {\n    foo(1);\n}\n", "foo(1)"},
		{"markdown", "a.md", "- $I", "# T\n\n- one\n", "- one\n"},
		{"toml", "a.toml", "name = $V", "[package]\nname = \"a\"\n", "name = \"a\""},
		{"xml", "a.xml", "<name>$N</name>", "<p><name>a</name></p>\n", "<name>a</name>"},
		{"make", "Makefile", "CC = $V", "CC = gcc\n", "CC = gcc\n"},
		{"svelte", "a.svelte", "<h1>$T</h1>", "<h1>hi</h1>\n", "<h1>hi</h1>"},
		{"vue", "a.vue", "<h1>$T</h1>", "<template>\n  <h1>hi</h1>\n</template>\n", "<h1>hi</h1>"},
		{"elm", "A.elm", "foo $X", "module A exposing (..)\n\n\nf =\n    foo 1\n", "foo 1"},
		{"sql", "a.sql", "COUNT($X)", "SELECT COUNT(id) FROM t;\n", "COUNT(id)"},
		{"ocaml", "a.ml", "print_endline $X", "let () = print_endline \"a\"\n", "print_endline \"a\""},
		{"julia", "a.jl", "println($X)", "function f()\n    println(1)\nend\n", "println(1)"},
		{"objc", "a.m", "NSLog($A)", "void f(void) { NSLog(@\"a\"); }\n", "NSLog(@\"a\")"},
		{"powershell", "a.ps1", "Write-Output $X", "Write-Output $a\n", "Write-Output $a"},
		{"groovy", "a.groovy", "println($X)", "println(1)\n", "println(1)"},
		{"scss", "a.scss", "color: $V", ".a { color: red; }\n", "color: red;"},
		{"r", "a.r", "library($P)", "library(dplyr)\n", "library(dplyr)"},
		{"perl", "a.pl", "die($X)", "die(\"a\");\n", "die(\"a\")"},
		{"verilog", "a.v", "assign $L = $R;", "module m(input a, output b);\n  assign b = a;\nendmodule\n", "assign b = a;"},
		{"awk", "a.awk", "print $X", "{ print $1 }\n", "print $1"},
		{"apex", "A.cls", "System.debug($X)", "class A { void f() { System.debug(1); } }\n", "System.debug(1)"},
		{"soql", "a.soql", "SELECT Id FROM $T", "SELECT Id FROM Account\n", "SELECT Id FROM Account"},
		{"sosl", "a.sosl", "RETURNING $$$R", "FIND {a} IN ALL FIELDS RETURNING Account(Id)\n", "RETURNING Account(Id)"},
		{"bicep", "a.bicep", "param $N string", "param location string\n", "param location string"},
		{"commonlisp", "a.lisp", "(print $X)", "(defun f () (print 1))\n", "(print 1)"},
		{"cuda", "a.cu", "cudaFree($X)", "void f(float *a) { cudaFree(a); }\n", "cudaFree(a)"},
		{"devicetree", "a.dts", "status = \"okay\";", "/ {\n\tn { status = \"okay\"; };\n};\n", "status = \"okay\";"},
		{"elisp", "a.el", "(message $X)", "(defun f () (message \"a\"))\n", "(message \"a\")"},
		{"embedded_template", "a.erb", "<%= $X %>", "<p><%= name %></p>\n", "<%= name %>"},
		{"gdscript", "a.gd", "print($X)", "func f():\n\tprint(1)\n", "print(1)"},
		{"glsl", "a.frag", "normalize($X)", "void main() { vec3 n = normalize(v); }\n", "normalize(v)"},
		{"kdl", "a.kdl", "name $N", "package {\n    name \"a\"\n}\n", "name \"a\"\n"},
		{"openscad", "a.scad", "cube($X);", "cube(1);\n", "cube(1);"},
		{"pascal", "a.pas", "WriteLn($X)", "program A;\nbegin\n  WriteLn(1);\nend.\n", "WriteLn(1)"},
		{"prisma", "a.prisma", "$F String @unique", "model U {\n  email String @unique\n}\n", "email String @unique"},
		{"ron", "a.ron", "Some($X)", "Config(a: Some(1))\n", "Some(1)"},
		{"thrift", "a.thrift", "const i32 $N = $V", "const i32 MAX = 3\n", "const i32 MAX = 3"},
		{"tlaplus", "a.tla", "UNCHANGED $X", "---- MODULE A ----\nNext == UNCHANGED x\n====\n", "UNCHANGED x"},
		{"wgsl", "a.wgsl", "return $X;", "fn f() -> f32 {\n    return 1.0;\n}\n", "return 1.0;"},
	}
	p := parser(t)
	for _, tt := range tests {
		t.Run(tt.lang, func(t *testing.T) {
			enginetest.RequireLoads(t, tt.lang)
			res, err := matchSource(p, tt.file, tt.src, tt.pattern)
			if err != nil {
				t.Fatal(err)
			}
			requireClean(t, res.Pattern)
			if len(res.Matches) == 0 || res.Matches[0].Text != tt.want {
				var got []string
				for _, m := range res.Matches {
					got = append(got, m.Text)
				}
				t.Errorf("%s in %q: matches %q, want first %q (pattern %s)", tt.pattern, tt.src, got, tt.want, res.Pattern)
			}
		})
	}
}

// TestStatementPlaceholders: metavariables standing where the grammar needs
// a statement or a loop header it cannot read from a bare name (C# takes no
// identifier as a statement; no C-like grammar takes "for ($$$)") still
// compile, and match every statement or header they stand for.
func TestStatementPlaceholders(t *testing.T) {
	type want struct{ text, binds string }
	tests := []struct {
		lang, file, pattern, src string
		want                     []want
	}{
		{"c_sharp", "a.cs", "while ($C) $S",
			"class A { void M() {\n  while (ok) Step();\n  while (ok) { Step(); }\n  while (go) if (x) Y();\n} }\n",
			[]want{{"while (ok) Step();", "$C=ok $S=Step();"}, {"while (ok) { Step(); }", "$C=ok $S={ Step(); }"}, {"while (go) if (x) Y();", "$C=go $S=if (x) Y();"}}},
		{"c_sharp", "a.cs", "if ($C) $S else $T",
			"class A { void M() {\n  if (a) X(); else Y();\n  if (b) { X(); } else if (c) Y();\n  if (d) X();\n} }\n",
			[]want{{"if (a) X(); else Y();", "$C=a $S=X(); $T=Y();"}, {"if (b) { X(); } else if (c) Y();", "$C=b $S={ X(); } $T=if (c) Y();"}}},
		{"c_sharp", "a.cs", "if ($C) { $$$B }",
			"class A { void M() {\n  if (a) { F(); G(); }\n  if (b) { }\n  if (c) H();\n} }\n",
			[]want{{"if (a) { F(); G(); }", "$$$B=F(); G(); $C=a"}, {"if (b) { }", "$$$B= $C=b"}}},
		{"c_sharp", "a.cs", "foreach (var $K in $C) { $$$ }",
			"class A { void M() {\n  foreach (var k in ks) { Use(k); }\n  foreach (int k in ks) { Use(k); }\n} }\n",
			[]want{{"foreach (var k in ks) { Use(k); }", "$C=ks $K=k"}}},
		{"c_sharp", "a.cs", "for ($$$H) { $$$ }",
			"class A { void M() {\n  for (int i = 0; i < n; i++) { Use(i); }\n  foreach (var k in ks) { Use(k); }\n} }\n",
			[]want{{"for (int i = 0; i < n; i++) { Use(i); }", "$$$H=int i = 0; i < n; i++"}}},
		{"javascript", "a.js", "for ($$$) { $$$ }",
			"for (let i = 0; i < n; i++) { use(i); }\nfor (const k of ks) { use(k); }\nfor (;;) {}\n",
			[]want{{"for (let i = 0; i < n; i++) { use(i); }", ""}, {"for (;;) {}", ""}}},
		{"typescript", "a.ts", "for ($$$H) { $$$B }",
			"for (let i: number = 0; i < n; i++) { use(i); }\n",
			[]want{{"for (let i: number = 0; i < n; i++) { use(i); }", "$$$B=use(i); $$$H=let i: number = 0; i < n; i++"}}},
		{"java", "A.java", "for ($$$) { $$$ }",
			"class A { void m() {\n  for (int i = 0; i < n; i++) { use(i); }\n  for (String k : ks) { use(k); }\n} }\n",
			[]want{{"for (int i = 0; i < n; i++) { use(i); }", ""}}},
		{"kotlin", "a.kt", "for ($$$H) { $$$ }",
			"fun m() {\n  for (i in 0 until n) { use(i) }\n  while (ok) { step() }\n}\n",
			[]want{{"for (i in 0 until n) { use(i) }", "$$$H=i in 0 until n"}}},
		{"cpp", "a.cpp", "for ($$$) { $$$ }",
			"void m() {\n  for (int i = 0; i < n; i++) { use(i); }\n  for (auto& x : v) { use(x); }\n}\n",
			[]want{{"for (int i = 0; i < n; i++) { use(i); }", ""}}},
		{"dart", "a.dart", "while ($C) { $$$ }",
			"void m() {\n  while (ok) { step(); }\n  if (ok) { step(); }\n}\n",
			[]want{{"while (ok) { step(); }", "$C=ok"}}},
		{"dart", "a.dart", "if ($C) { $$$B }",
			"void m() {\n  while (ok) { step(); }\n  if (ok) { step(); more(); }\n}\n",
			[]want{{"if (ok) { step(); more(); }", "$$$B=step(); more(); $C=ok"}}},
		{"json", "a.json", "{$$$}",
			"{\"a\": {\"b\": 1}, \"c\": [{}]}\n",
			[]want{{"{\"a\": {\"b\": 1}, \"c\": [{}]}", ""}, {"{\"b\": 1}", ""}, {"{}", ""}}},
		{"json", "a.json", "{\"name\": $N, $$$R}",
			"{\"name\": \"x\", \"version\": \"1\", \"deps\": {\"name\": 2}}\n",
			[]want{{"{\"name\": \"x\", \"version\": \"1\", \"deps\": {\"name\": 2}}", "$N=\"x\" $$$R=\"version\": \"1\", \"deps\": {\"name\": 2}"}}}, // a "," must be there, as in f($A, $$$R)
		{"swift", "a.swift", "@$A",
			"@objc class A {}\n@available(iOS 13, *)\nfunc f() {}\n",
			[]want{{"@objc", "$A=objc"}, {"@available(iOS 13, *)", "$A=available"}}},
		{"go", "a.go", "import $X",
			"package p\n\nimport (\n\t\"fmt\"\n)\n\nimport \"os\"\n",
			[]want{{"import (\n\t\"fmt\"\n)", "$X=(\n\t\"fmt\"\n)"}, {"import \"os\"", "$X=\"os\""}}},
		{"go", "a.go", "import $$$",
			"package p\n\nimport (\n\t\"fmt\"\n)\n\nimport \"os\"\n",
			[]want{{"import (\n\t\"fmt\"\n)", ""}, {"import \"os\"", ""}}},
		{"c", "a.c", "for ($$$) { $$$ }",
			"void m() {\n  for (int i = 0; i < n; i++) { use(i); }\n  while (ok) { step(); }\n}\n",
			[]want{{"for (int i = 0; i < n; i++) { use(i); }", ""}}},
	}
	p := parser(t)
	for _, tt := range tests {
		t.Run(tt.lang+"/"+tt.pattern, func(t *testing.T) {
			enginetest.RequireLoads(t, tt.lang)
			res, err := matchSource(p, tt.file, tt.src, tt.pattern)
			if err != nil {
				t.Fatal(err)
			}
			requireClean(t, res.Pattern)
			var got []want
			for _, m := range res.Matches {
				var bs []string
				for _, b := range m.Bindings {
					sig := "$"
					if b.Multi {
						sig = "$$$"
					}
					bs = append(bs, sig+b.Name+"="+b.Text)
				}
				got = append(got, want{m.Text, strings.Join(bs, " ")})
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%s (%s)\ngot  %q\nwant %q", tt.pattern, res.Pattern, got, tt.want)
			}
		})
	}
}

// TestLowercaseMetavariableHint: "$x" is no metavariable; where "$" cannot
// start a name, the unparseable-pattern error says to write "$X".
func TestLowercaseMetavariableHint(t *testing.T) {
	p := parser(t)
	for _, lang := range []string{"python", "go"} {
		_, err := matcher.Compile(context.Background(), p, enginetest.Language(t, lang), "foo($x, $args)")
		if !errors.Is(err, matcher.ErrUnparseable) || !strings.Contains(err.Error(), "metavariable names are upper case ($X, $$$ARGS): $x is not one") {
			t.Errorf("%s: %v", lang, err)
		}
	}
	if _, err := matcher.Compile(context.Background(), p, enginetest.Language(t, "php"), "foo($x)"); err != nil {
		t.Errorf("php: $x is a variable: %v", err)
	}
}
