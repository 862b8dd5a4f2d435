package lsp

import "testing"

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
