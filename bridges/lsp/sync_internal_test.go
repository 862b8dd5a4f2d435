package lsp

import "slices"
import "testing"

func TestLeadingIncludes(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"guarded header", "/* licence\n * text */\n#ifndef H\n#define H\n\n#include \"a.h\"   /* constants */\n#  include <b.h>\n// note\n#include_next \"c.h\"\nint x;\n#include \"late.h\"\n", []string{`"a.h"`, "<b.h>", `"c.h"`}},
		{"continued macro", "#define M(x) \\\n  x + 1\n#import \"m.h\"\n", []string{`"m.h"`}},
		{"code first", "int x;\n#include \"a.h\"\n", nil},
		{"comment then code on one line", "/* a\n*/ int x;\n#include \"a.h\"\n", nil},
		{"macro include", "#include HEADER\n", []string{"include HEADER"}},
	} {
		if got := leadingIncludes([]byte(c.text)); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	// A changed comment after an include is no change to the includes.
	a := leadingIncludes([]byte("#include \"a.h\" /* one */\n"))
	b := leadingIncludes([]byte("#include \"a.h\" /* two */\n"))
	if !slices.Equal(a, b) {
		t.Errorf("%q != %q", a, b)
	}
}
