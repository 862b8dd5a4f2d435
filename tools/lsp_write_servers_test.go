package tools_test

import "os"
import "path/filepath"
import "regexp"
import "sort"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/tools"

// breakProject is a small project (testdata/lsp/pybreak, tsbreak) whose
// every file holds an error from before, and whose function fn, declared
// in lib, is called twice from one other file and once from another.
type breakProject struct {
	name, bin, dir string
	lib            string // the file declaring fn
	sig, sigWide   string // fn's signature line, and with a parameter added
	fn, renamed    string
	callers        []string // file:line of each call of fn, sorted
	missing        string   // part of the error a call without the new argument gets
	old            []string // parts of the errors from before, one per file
	patch          string   // a patch that adds a comment to lib and a caller
	patched        []string // the files patch changes
}

var breakProjects = []breakProject{
	{
		name: "pyright", bin: "pyright-langserver", dir: "pybreak",
		lib: "pkg/util.py", sig: "def _flatten(items):", sigWide: "def _flatten(items, depth):",
		fn: "_flatten", renamed: "flatten_all",
		callers: []string{"pkg/core.py:5:", "pkg/core.py:9:", "pkg/helpers.py:5:"},
		missing: `Argument missing for parameter "depth"`,
		old:     []string{`"not an int"`, `Literal[42]`, `Literal['text']`, `"other"`},
		patch: "*** Begin Patch\n*** Update File: pkg/util.py\n@@\n def shout(text: str) -> str:\n+    # Shouting is upper case.\n     return text.upper()\n" +
			"*** Update File: pkg/core.py\n@@\n def run(rows):\n+    # Rows are lists.\n     return _flatten(rows)\n*** End Patch",
		patched: []string{"pkg/util.py", "pkg/core.py"},
	},
	{
		name: "typescript-language-server", bin: "typescript-language-server", dir: "tsbreak",
		lib: "src/translate.ts", sig: "export function toTextEdit(text: string): string {", sigWide: "export function toTextEdit(text: string, range: number): string {",
		fn: "toTextEdit", renamed: "toEdit",
		callers: []string{"src/completion.ts:4:", "src/server.ts:4:", "src/server.ts:8:"},
		missing: "Expected 2 arguments, but got 1",
		old:     []string{`"not a number"`, `Type 'number' is not assignable to type 'string'`, `"yes"`, `"other"`},
		patch: "*** Begin Patch\n*** Update File: src/translate.ts\n@@\n export function shout(text: string): string {\n+  // Shouting is upper case.\n   return text.toUpperCase();\n" +
			"*** Update File: src/server.ts\n@@\n export function again(): string {\n+  // Again, trimmed.\n   return shout(toTextEdit(\" x \"));\n*** End Patch",
		patched: []string{"src/translate.ts", "src/server.ts"},
	},
}

// breakRun starts a run with a fresh (cold) server on a copy of p's project.
func breakRun(t *testing.T, p breakProject) (*tools.Run, string) {
	t.Helper()
	testenv.RequireBinary(t, p.bin)
	dir := testenv.LSPProject(t, p.dir)
	return startRun(t, tools.Config{WorkDir: dir, Policy: tools.PolicyOf(tools.Allow), LSP: lspSupervisor(t, dir, 30*time.Second), Search: tools.SearchConfig{Parser: parseEngine(t)}}), dir
}

// noOldAsNew fails when out reports a diagnostic as new, or shows an error
// from before other than under "baseline unknown" (a cold server too slow
// to answer before the write, on a loaded machine). It returns how many
// written files it said were without a baseline.
func noOldAsNew(t *testing.T, p breakProject, out string) (unknown int) {
	t.Helper()
	if strings.Contains(out, "new diagnostics in") || strings.Contains(out, "new diagnostic(s) in") {
		t.Fatalf("%s: a diagnostic from before was reported as new:\n%s", p.name, out)
	}
	listed := false // inside a "baseline unknown" block
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "lsp: baseline unknown for "):
			listed = true
			unknown++
			continue
		case !strings.HasPrefix(line, "lsp:   "):
			listed = false
		}
		for _, o := range p.old {
			if strings.Contains(line, o) && !listed {
				t.Fatalf("%s: the error from before %s is reported:\n%s", p.name, o, out)
			}
		}
	}
	return unknown
}

// alreadyReported requires each of files to be said to hold only its old
// error, or to be without a baseline.
func alreadyReported(t *testing.T, p breakProject, out string, files ...string) {
	t.Helper()
	for _, f := range files {
		if !strings.Contains(out, "lsp: "+f+": no new diagnostics (1 already reported)") && !strings.Contains(out, "lsp: baseline unknown for "+f+" (") {
			t.Fatalf("%s: %s is not said to hold only its old error:\n%s", p.name, f, out)
		}
	}
}

// TestLSPMultiFileWritesBaseline: a patch over two files and a rename over
// three, each the first call on a cold server, in a project whose every
// file has an error from before, report none of them as new (pyright
// reported 130 old diagnostics as new after such a rename: the files other
// than the one named had no baseline).
func TestLSPMultiFileWritesBaseline(t *testing.T) {
	for _, p := range breakProjects {
		t.Run(p.name, func(t *testing.T) {
			t.Run("apply_patch", func(t *testing.T) {
				r, _ := breakRun(t, p)
				out := lspText(t, r, "apply_patch", map[string]any{"patch": p.patch})
				if n := noOldAsNew(t, p, out); n > 0 {
					t.Logf("%s: the cold server gave %d file(s) no baseline in time", p.name, n)
				}
				alreadyReported(t, p, out, p.patched...)
			})
			t.Run("rename", func(t *testing.T) {
				r, dir := breakRun(t, p)
				src, err := os.ReadFile(filepath.Join(dir, p.lib))
				if err != nil {
					t.Fatal(err)
				}
				line := 0
				for i, l := range strings.Split(string(src), "\n") {
					if l == p.sig {
						line = i + 1
					}
				}
				out := lspText(t, r, "lsp_rename", map[string]any{"file": p.lib, "line": line, "symbol": p.fn, "new_name": p.renamed})
				if !strings.Contains(out, "in 3 file(s)") {
					t.Fatalf("%s: the rename did not change the three files:\n%s", p.name, out)
				}
				if n := noOldAsNew(t, p, out); n > 0 {
					t.Logf("%s: the cold server gave %d file(s) no baseline in time", p.name, n)
				}
				alreadyReported(t, p, out, p.lib, strings.Split(p.callers[0], ":")[0], strings.Split(p.callers[2], ":")[0])
			})
		})
	}
}

// TestLSPSignatureBreaksCallers: adding a parameter to a function called
// from two other files reports each broken call as new, and none of the
// errors from before; putting the signature back reports them cleared
// (pyright and tsserver diagnose only the files open in them, so the
// callers were never looked at).
func TestLSPSignatureBreaksCallers(t *testing.T) {
	for _, p := range breakProjects {
		t.Run(p.name, func(t *testing.T) {
			r, _ := breakRun(t, p)
			out := lspText(t, r, "edit", map[string]any{"path": p.lib, "old_string": p.sig, "new_string": p.sigWide})
			// The same message in three places is listed once with them.
			if !strings.Contains(out, "3 new diagnostic(s) in 2 other file(s):") || strings.Count(out, p.missing) != 1 {
				t.Fatalf("%s: the three broken calls are not all reported:\n%s", p.name, out)
			}
			at := diagnosticPlaces(out)
			sort.Strings(at)
			if strings.Join(at, " ") != strings.Join(p.callers, " ") {
				t.Fatalf("%s: new errors at %v, want %v:\n%s", p.name, at, p.callers, out)
			}
			if !strings.Contains(out, p.lib+": no new diagnostics (1 already reported)") {
				t.Fatalf("%s: the edited file's old error:\n%s", p.name, out)
			}
			for _, o := range p.old {
				if strings.Contains(out, o) {
					t.Fatalf("%s: the error from before %s is reported:\n%s", p.name, o, out)
				}
			}
			out = lspText(t, r, "edit", map[string]any{"path": p.lib, "old_string": p.sigWide, "new_string": p.sig})
			if !strings.Contains(out, "3 diagnostic(s) in 2 other file(s) cleared") || strings.Contains(out, "new diagnostic(s) in") {
				t.Fatalf("%s: the fix does not say what it cleared:\n%s", p.name, out)
			}
		})
	}
}

// diagnosticPlaces returns the "path:line:" of each error in a write's
// report, listed on its own ("lsp:   a.py:5:12: error: ...") or grouped
// with others of the same message ("lsp:     at 3 places: a.py 5:12
// 9:22; b.py 5:12").
func diagnosticPlaces(out string) []string {
	var at []string
	for _, m := range regexp.MustCompile(`(?m)^lsp:   (\S+:\d+:)\d+: error: `).FindAllStringSubmatch(out, -1) {
		at = append(at, m[1])
	}
	for _, m := range regexp.MustCompile(`(?m)^lsp:     at \d+ places: (.*)$`).FindAllStringSubmatch(out, -1) {
		for _, file := range strings.Split(m[1], "; ") {
			f := strings.Fields(file)
			for _, pos := range f[1:] {
				line, _, _ := strings.Cut(pos, ":")
				at = append(at, f[0]+":"+line+":")
			}
		}
	}
	return at
}
