package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/tetherhq/tether/engine/enginetest"
)

// TestAffectedHelpers: what ranks a file last (a build's output) and what
// makes a file an includer of a written header.
func TestAffectedHelpers(t *testing.T) {
	for rel, want := range map[string]bool{
		"build/modern/utils.js": true, "dist/index.d.ts": true, "src/types.d.ts": true, "pkg/out/x.py": true,
		"src/utils.ts": false, "src/__tests__/utils.ts": false, "builder/x.go": false, "lib/x.c": false,
	} {
		if got := generatedPath(rel); got != want {
			t.Errorf("generatedPath(%q) = %v, want %v", rel, got, want)
		}
	}
	for src, want := range map[string]bool{
		"#include \"h.h\"\n":            true,
		"  #  include <dir/h.h>\n":      true,
		"#include \"sub/h.hpp\"\n":      false,
		"// #include \"h.h\"\n":         false,
		"#include \"hh.h\"\n":           false,
		"int x;\n#include \"../h.h\"\n": true,
	} {
		if got := includesAny([]byte(src), []string{"h.h"}); got != want {
			t.Errorf("includesAny(%q) = %v, want %v", src, got, want)
		}
	}
}

// TestHeaderBranchLeftOut: which changes to a header lie in code that a
// check of the header alone leaves out.
func TestHeaderBranchLeftOut(t *testing.T) {
	e := enginetest.Engine(t)
	const h = "#ifndef WRAP\n#ifndef H_H\n#define H_H\nint a;\n#ifdef H_IMPL\nint b;\n#else\nint c;\n#endif\n#ifndef NO_D\nint d;\n#else\nint e;\n#endif\n#define HAVE_F\n#if defined(HAVE_F)\nint f;\n#endif\n#if FANCY > 1\nint g;\n#endif\n#if !defined(X)\nint h;\n#endif\n#endif\n#endif\n"
	tree, err := e.Parse(context.Background(), "c", []byte(h))
	if err != nil {
		t.Fatal(err)
	}
	for decl, want := range map[string]string{"int a;": "", "int b;": "#ifdef H_IMPL", "int c;": "", "int d;": "", "int e;": "#else",
		"int f;": "", "int g;": "#if FANCY > 1", "int h;": ""} {
		at := strings.Index(h, decl)
		if got := enclosingCondition(tree, [2]int{at, at + len(decl)}); got != want {
			t.Errorf("%s: left out by %q, want %q", decl, got, want)
		}
	}
}
