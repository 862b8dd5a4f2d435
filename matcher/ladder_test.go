package matcher_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tetherhq/tether/matcher"
)

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
		{"html", "a.html", "<title>$T</title>", "<html><head><title>Hi</title></head></html>\n", "<title>Hi</title>"},
	}
	p := parser(t)
	for _, tt := range tests {
		t.Run(tt.lang, func(t *testing.T) {
			requireGrammar(t, p, tt.lang)
			file := filepath.Join(t.TempDir(), tt.file)
			if err := os.WriteFile(file, []byte(tt.src), 0o644); err != nil {
				t.Fatal(err)
			}
			s := matcher.NewSearcher(p, matcher.Config{})
			res, err := s.Search(context.Background(), matcher.Query{Pattern: tt.pattern, Paths: []string{file}})
			if err != nil {
				t.Fatal(err)
			}
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
