package tools_test

import "fmt"
import "os"
import "path/filepath"
import "regexp"
import "strconv"
import "strings"
import "testing"

// leftoverLines are the lines of a rename's answer that name what it left
// behind: identifiers still spelled as the old name, and non-code files
// mentioning it.
func leftoverLines(out string) []string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimPrefix(l, "if accepted: ")
		if strings.Contains(l, "other occurrence(s) of") || strings.Contains(l, "is still mentioned in") || strings.Contains(l, "no identifier spelled") {
			keep = append(keep, l)
		}
	}
	return keep
}

// TestLSPRenamePreviewNamesWhatItLeaves: lsp_rename with preview: true
// names the identifiers the rename would leave spelled as the old name and
// the markdown files still saying it, and resolve accept names them again,
// line for line as a direct rename of the same project does. pyright leaves
// the call on an untyped receiver; typescript-language-server the uses in
// test/, outside the tsconfig include.
func TestLSPRenamePreviewNamesWhatItLeaves(t *testing.T) {
	for _, tc := range []struct {
		name, bin string
		files     map[string]string
		args      map[string]any
		want      []string
	}{
		{"pyright", "pyright-langserver", map[string]string{
			"pyproject.toml": "[project]\nname = \"p\"\nversion = \"0.1.0\"\n",
			"store.py": "class Store:\n    def get_maybe_document(self, key):\n        return key\n\n\n" +
				"def typed(s: Store):\n    return s.get_maybe_document(1)\n\n\n" +
				"def untyped(s):\n    return s.get_maybe_document(2)\n",
			"README.md":    "Call `get_maybe_document` to get it.\n",
			"docs/api.md":  "get_maybe_document(key) returns the document.\n",
			"docs/also.md": "Nothing about it here.\n",
		}, map[string]any{"file": "store.py", "line": 2, "symbol": "get_maybe_document", "new_name": "fetch"},
			[]string{"1 other occurrence(s) of get_maybe_document remain (the server did not rename them; an unrelated symbol of the same name looks the same): store.py:11",
				"get_maybe_document is still mentioned in 2 non-code file(s): README.md (1), docs/api.md (1)"}},
		{"typescript", "typescript-language-server", map[string]string{
			"package.json":      `{"name":"p","version":"1.0.0"}`,
			"tsconfig.json":     `{"compilerOptions":{"strict":true},"include":["src"]}`,
			"src/errors.ts":     "export class HTTPError extends Error {}\n",
			"src/index.ts":      "import { HTTPError } from \"./errors\";\nexport const e = new HTTPError();\n",
			"test/hooks.ts":     "import { HTTPError } from \"../src/errors\";\nconst x = new HTTPError();\nconsole.log(x instanceof HTTPError);\n",
			"README.md":         "Throws `HTTPError` on a bad status.\n",
			"docs/errors.md":    "HTTPError has the response.\n",
			"docs/unrelated.md": "Nothing here.\n",
		}, map[string]any{"file": "src/errors.ts", "line": 1, "symbol": "HTTPError", "new_name": "ResponseError"},
			[]string{"3 other occurrence(s) of HTTPError remain (the server did not rename them; an unrelated symbol of the same name looks the same): test/hooks.ts:1, test/hooks.ts:2, test/hooks.ts:3",
				"HTTPError is still mentioned in 2 non-code file(s): README.md (1), docs/errors.md (1)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			direct, _ := projectRun(t, tc.bin, tc.files)
			out := lspText(t, direct, "lsp_rename", tc.args)
			want := leftoverLines(out)
			if strings.Join(want, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("direct rename names %q, want %q:\n%s", want, tc.want, out)
			}

			r, dir := projectRun(t, tc.bin, tc.files)
			args := map[string]any{"preview": true}
			for k, v := range tc.args {
				args[k] = v
			}
			out = lspText(t, r, "lsp_rename", args)
			if got := leftoverLines(out); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("preview names %q, want %q as the direct rename:\n%s", got, want, out)
			}
			for _, l := range want {
				if !strings.Contains(out, "if accepted: "+l) {
					t.Errorf("preview lacks %q:\n%s", "if accepted: "+l, out)
				}
			}
			for name, content := range tc.files {
				if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != content {
					t.Fatalf("the preview wrote %s", name)
				}
			}
			out = lspText(t, r, "resolve", map[string]any{"edit_id": "edit_1", "action": "accept"})
			if got := leftoverLines(out); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("resolve accept names %q, want %q as the direct rename:\n%s", got, want, out)
			}
		})
	}
}

// TestLSPRenamePreviewBounded: a preview of a rename across 30 files
// (about 14 KB of diff) stays under 8 KB, says how to see the rest, and
// resolve show pages through every file's diff.
func TestLSPRenamePreviewBounded(t *testing.T) {
	files := map[string]string{"go.mod": goMod, "lib.go": "package p\n\n// Measure is the one renamed.\nfunc Measure(n int) int { return n }\n"}
	for f := range 30 {
		var b strings.Builder
		fmt.Fprintf(&b, "package p\n\nfunc use%02d() int {\n\ttotal := 0\n", f)
		for k := range 5 {
			fmt.Fprintf(&b, "\ttotal += Measure(%d) // the %d-th measurement of this file, a long line\n\ttotal++\n\ttotal--\n\ttotal *= 1\n", k, k)
		}
		b.WriteString("\treturn total\n}\n")
		files[fmt.Sprintf("use%02d.go", f)] = b.String()
	}
	r, _ := projectRun(t, "gopls", files)
	out := lspText(t, r, "lsp_rename", map[string]any{"file": "lib.go", "line": 4, "symbol": "Measure", "new_name": "Gauge", "preview": true})
	if len(out) > 8<<10 || !strings.Contains(out, "31 files: ") || !strings.Contains(out, `action "show" and start `) {
		t.Fatalf("preview of %d bytes:\n%s", len(out), out)
	}
	seen := map[string]bool{}
	for start := 0; ; {
		page := lspText(t, r, "resolve", map[string]any{"edit_id": "edit_1", "action": "show", "start": start})
		if len(page) > 8<<10 {
			t.Fatalf("page from %d is %d bytes", start, len(page))
		}
		for _, l := range strings.Split(page, "\n") {
			if name, ok := strings.CutPrefix(l, "+++ b/"); ok {
				seen[name] = true
			}
		}
		m := regexp.MustCompile(`start (\d+) shows the next page`).FindStringSubmatch(page)
		if m == nil {
			break
		}
		start, _ = strconv.Atoi(m[1])
	}
	if len(seen) != 31 {
		t.Fatalf("the pages show %d files' diffs, want 31: %v", len(seen), seen)
	}
}
