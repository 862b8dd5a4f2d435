package tools_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLSPRenameRefusesReservedWord: lsp_rename of a function used in three
// TypeScript files to "class" is refused, naming the word and the language,
// before typescript-language-server starts (it would have written "class"
// into every file), and no file changes.
func TestLSPRenameRefusesReservedWord(t *testing.T) {
	files := map[string]string{
		"package.json":  `{"name":"p","version":"1.0.0"}`,
		"tsconfig.json": `{"compilerOptions":{"strict":true},"include":["src"]}`,
		"src/span.ts":   "export function fileSpanToLocation(n: number): number {\n  return n + 1;\n}\n",
		"src/a.ts":      "import { fileSpanToLocation } from \"./span\";\nexport const a = fileSpanToLocation(1);\n",
		"src/b.ts":      "import { fileSpanToLocation } from \"./span\";\nexport const b = fileSpanToLocation(2);\n",
	}
	r, dir := projectRun(t, "typescript-language-server", files)
	_, err := lspCall(t, r, "lsp_rename", map[string]any{"file": "src/span.ts", "line": 1, "symbol": "fileSpanToLocation", "new_name": "class"})
	if err == nil || !strings.Contains(err.Error(), `cannot rename "fileSpanToLocation" to "class": "class" is a reserved word in TypeScript; nothing was changed`) {
		t.Fatalf("rename to a reserved word: %v", err)
	}
	for name, want := range files {
		if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != want {
			t.Errorf("%s changed:\n%s", name, b)
		}
	}
	status, err := lspCall(t, r, "lsp", map[string]any{"action": "status"})
	if err != nil || strings.Contains(status, "running, pid") {
		t.Fatalf("a server started for a refused rename: %v\n%s", err, status)
	}
}

// TestLSPHierarchyActions: call_hierarchy and type_hierarchy through the
// lsp tool with gopls: the callers with their call sites, the callees, the
// supertypes; a direction of the other action is refused with the rule.
func TestLSPHierarchyActions(t *testing.T) {
	r, _ := lspRun(t)
	for _, tc := range []struct {
		args map[string]any
		want []string
	}{
		{map[string]any{"action": "call_hierarchy", "file": "shapes.go", "line": 17, "symbol": "Total"},
			[]string{"callers of function Total (shapes.go:17): 1\nfunction Sum  use.go:10:6", "\n  calls at use.go:11"}},
		{map[string]any{"action": "call_hierarchy", "file": "use.go", "line": 10, "symbol": "Sum", "direction": "outgoing"},
			[]string{"callees of function Sum (use.go:10): 2\n", "function Big  use.go:4:6", "function Total  shapes.go:17:6"}},
		{map[string]any{"action": "type_hierarchy", "file": "shapes.go", "line": 9, "symbol": "Square"},
			[]string{"supertypes of class Square (shapes.go:9): 1\ninterface Shape  shapes.go:4:6"}},
		{map[string]any{"action": "type_hierarchy", "file": "shapes.go", "line": 4, "symbol": "Shape", "direction": "subtypes"},
			[]string{"subtypes of interface Shape (shapes.go:4): 1\nclass Square  shapes.go:9:6"}},
	} {
		out, err := lspCall(t, r, "lsp", tc.args)
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: want %q in:\n%s", tc.args, w, out)
			}
		}
	}
	_, err := lspCall(t, r, "lsp", map[string]any{"action": "type_hierarchy", "file": "shapes.go", "line": 4, "symbol": "Shape", "direction": "incoming"})
	if err == nil || !strings.Contains(err.Error(), `type_hierarchy takes direction supertypes (the default) or subtypes, not "incoming"`) {
		t.Errorf("type_hierarchy incoming: %v", err)
	}
}
