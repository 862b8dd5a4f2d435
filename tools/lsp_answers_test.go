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
