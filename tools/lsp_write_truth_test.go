package tools_test

import "context"
import "encoding/json"
import "fmt"
import "io/fs"
import "os"
import "path/filepath"
import "slices"
import "sort"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/tools"

// loads are the conditions every case below runs in: an idle machine,
// and one with a CPU-bound process on every core (a busy host), where a
// wait that ends on a quiet period takes a slow server's partial set
// for the whole one.
var loads = []struct {
	name string
	busy bool
}{{"idle", false}, {"busy", true}}

// writeCall runs a tool that writes and returns its diagnostics report,
// failing the test on an error result.
func writeCall(t *testing.T, r *tools.Run, name string, args any) (*tools.WriteDiagnostics, string) {
	t.Helper()
	b, _ := json.Marshal(args)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	res, err := r.Call(ctx, name, b, tools.FromModel)
	if err != nil || res.IsError {
		t.Fatalf("%s: %v\n%s", name, err, res.AllText())
	}
	if res.Diagnostics == nil {
		t.Fatalf("%s: no diagnostics report:\n%s", name, res.AllText())
	}
	return res.Diagnostics, res.AllText()
}

// places returns "file:line" of each diagnostic, sorted.
func places(ds []lsp.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, fmt.Sprintf("%s:%d", d.Path, d.Line))
	}
	sort.Strings(out)
	return out
}

// requireWhole fails when a file's diagnostics could not be had whole or
// without a whole set from before: the cases below must get whole sets,
// idle or busy.
func requireWhole(t *testing.T, rep *tools.WriteDiagnostics, out string) {
	t.Helper()
	if len(rep.Incomplete) > 0 || len(rep.Unknown) > 0 {
		t.Fatalf("incomplete %v, unknown %v:\n%s", rep.Incomplete, rep.Unknown, out)
	}
}

// pyparsingRun copies the pyparsing package that Debian installs
// (python3-pyparsing: a 5,800-line core.py with about 180 errors pyright
// reports) into a workspace and starts a run on it with pyright.
func pyparsingRun(t *testing.T) (*tools.Run, string) {
	t.Helper()
	testenv.RequireBinary(t, "pyright-langserver")
	src := "/usr/lib/python3/dist-packages/pyparsing"
	if _, err := os.Stat(filepath.Join(src, "core.py")); err != nil {
		testenv.Missing(t, "python3-pyparsing (Debian's pyparsing, "+src+")")
	}
	files := map[string]string{"pyproject.toml": "[project]\nname = \"pp\"\n"}
	_ = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".py") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(src, p)
		files["pyparsing/"+filepath.ToSlash(rel)] = string(b)
		return nil
	})
	dir := testenv.Workspace(t, files)
	// pyright takes its time over pyparsing's 250 KB core.py on a machine
	// whose every core is busy (the busy cases, beside CI's other packages):
	// the budget lets it answer there, where a shorter one reports the
	// files it could not check
	return startRun(t, tools.Config{WorkDir: dir, Policy: tools.PolicyOf(tools.Allow), LSP: lspSupervisor(t, dir, 60*time.Second), Search: tools.SearchConfig{Parser: parseEngine(t)}}), dir
}

// TestLSPWriteTruthPyparsingRename: renaming util.py's col (21 edits over
// three files) changes no diagnostic anywhere (pyright's CLI counts the
// same errors before and after): 0 new, 0 cleared, idle and busy.
func TestLSPWriteTruthPyparsingRename(t *testing.T) {
	for _, load := range loads {
		t.Run(load.name, func(t *testing.T) {
			r, _ := pyparsingRun(t)
			if load.busy {
				testenv.BusyCores(t)
			}
			rep, out := writeCall(t, r, "lsp_rename", map[string]any{"file": "pyparsing/util.py", "line": 41, "symbol": "col", "new_name": "column_of"})
			requireWhole(t, rep, out)
			if len(rep.New)+rep.More > 0 || len(rep.Cleared) > 0 {
				t.Fatalf("a rename that changes no diagnostic: new %v (+%d), cleared %v:\n%s", places(rep.New), rep.More, rep.Cleared, out)
			}
			if !strings.Contains(out, "renamed \"col\" to \"column_of\"") {
				t.Fatalf("not renamed:\n%s", out)
			}
		})
	}
}

// TestLSPWriteTruthPyparsingSignature: a parameter added to
// _collapse_string_to_ranges breaks its 8 calls (7 in core.py, one in
// exceptions.py) and nothing else; the revert clears exactly those, idle
// and busy.
func TestLSPWriteTruthPyparsingSignature(t *testing.T) {
	old := "    s: Union[str, Iterable[str]], re_escape: bool = True\n) -> str:"
	wide := "    s: Union[str, Iterable[str]], sep: str, re_escape: bool = True\n) -> str:"
	want := []string{"pyparsing/core.py:2755", "pyparsing/core.py:2765", "pyparsing/core.py:2776", "pyparsing/core.py:2777",
		"pyparsing/core.py:2794", "pyparsing/core.py:2883", "pyparsing/core.py:3298", "pyparsing/exceptions.py:15"}
	for _, load := range loads {
		t.Run(load.name, func(t *testing.T) {
			r, _ := pyparsingRun(t)
			if load.busy {
				testenv.BusyCores(t)
			}
			rep, out := writeCall(t, r, "edit", map[string]any{"path": "pyparsing/util.py", "old_string": old, "new_string": wide})
			requireWhole(t, rep, out)
			got := places(rep.New)
			if rep.More > 0 || strings.Join(got, " ") != strings.Join(want, " ") {
				t.Fatalf("want the 8 broken calls %v, got %v (+%d):\n%s", want, got, rep.More, out)
			}
			for _, d := range rep.New {
				if !strings.Contains(d.Message, `"sep"`) {
					t.Errorf("not the missing argument: %s", d)
				}
			}
			t.Logf("cleared by the change: %v\n%s", rep.Cleared, out)
			cleared := rep.Cleared
			rep, out = writeCall(t, r, "edit", map[string]any{"path": "pyparsing/util.py", "old_string": wide, "new_string": old})
			requireWhole(t, rep, out)
			n := 0
			for _, c := range rep.Cleared {
				n += c
			}
			if n != 8 {
				t.Fatalf("the revert must clear the 8 broken calls, cleared %v:\n%s", rep.Cleared, out)
			}
			// What the change cleared comes back, and is new again.
			back := 0
			for _, c := range cleared {
				back += c
			}
			if len(rep.New)+rep.More != back {
				t.Fatalf("the revert brings back %d diagnostic(s) the change cleared, reported %v (+%d):\n%s", back, places(rep.New), rep.More, out)
			}
		})
	}
}

// TestLSPWriteTruthOneLetter: a parameter added to a one-letter function
// reports its callers in other files, in Python and TypeScript, idle and
// busy.
func TestLSPWriteTruthOneLetter(t *testing.T) {
	cases := []struct {
		name, bin string
		files     map[string]string
		lib       string
		old, wide string
		callers   []string
	}{
		{
			name: "pyright", bin: "pyright-langserver",
			files: map[string]string{"pyproject.toml": "[project]\nname = \"p\"\n",
				"pkg/__init__.py": "", "pkg/lib.py": "def f(x):\n    return x\n",
				"pkg/use.py": "from pkg.lib import f\n\nprint(f(1))\n\n\ndef g():\n    return f(2)\n"},
			lib: "pkg/lib.py", old: "def f(x):", wide: "def f(x, y):",
			callers: []string{"pkg/use.py:3", "pkg/use.py:7"},
		},
		{
			name: "typescript-language-server", bin: "typescript-language-server",
			files: map[string]string{"package.json": `{"name":"p","private":true}`,
				"tsconfig.json": `{"compilerOptions":{"strict":true,"noEmit":true,"target":"es2020","module":"commonjs"},"include":["src"]}`,
				"src/lib.ts":    "export function g(x: number): number {\n  return x;\n}\n",
				"src/use.ts":    "import { g } from \"./lib\";\n\nexport const a = g(1);\nexport const b = g(2);\n"},
			lib: "src/lib.ts", old: "export function g(x: number): number {", wide: "export function g(x: number, y: number): number {",
			callers: []string{"src/use.ts:3", "src/use.ts:4"},
		},
	}
	for _, c := range cases {
		for _, load := range loads {
			t.Run(c.name+"/"+load.name, func(t *testing.T) {
				r, _ := projectRun(t, c.bin, c.files)
				if load.busy {
					testenv.BusyCores(t)
				}
				rep, out := writeCall(t, r, "edit", map[string]any{"path": c.lib, "old_string": c.old, "new_string": c.wide})
				requireWhole(t, rep, out)
				if got := places(rep.New); strings.Join(got, " ") != strings.Join(c.callers, " ") || len(rep.Cleared) > 0 {
					t.Fatalf("want the callers %v new, got %v, cleared %v:\n%s", c.callers, got, rep.Cleared, out)
				}
			})
		}
	}
}

// TestLSPWriteTruthUnionOrder: tsserver prints a union's members in the
// order its checker made their types, which a write changes (each program
// gets a new checker, and the file it checks first decides): early.ts,
// checked first, makes Beta first, so late.ts's old error reads
// 'Beta | Alpha' before the edit and may read 'Alpha | Beta' after it.
// An edit that adds a comment reports it neither new nor cleared, idle
// and busy.
func TestLSPWriteTruthUnionOrder(t *testing.T) {
	files := map[string]string{
		"package.json":  `{"name":"p","private":true}`,
		"tsconfig.json": `{"compilerOptions":{"strict":true,"noEmit":true,"target":"es2020","module":"commonjs"},"include":["src"]}`,
		"src/types.ts":  "export interface Alpha {\n  a: 1;\n}\nexport interface Beta {\n  b: 1;\n}\n",
		"src/early.ts":  "import type { Alpha, Beta } from \"./types\";\n\nexport type Either = Beta | Alpha;\n",
		"src/late.ts":   "import type { Alpha, Beta } from \"./types\";\n\nexport declare const v: Alpha | Beta;\nexport const n: number = v;\n",
	}
	for _, load := range loads {
		t.Run(load.name, func(t *testing.T) {
			r, _ := projectRun(t, "typescript-language-server", files)
			if load.busy {
				testenv.BusyCores(t)
			}
			// early.ts first: its checker makes Beta's type before Alpha's.
			if _, err := lspCall(t, r, "lsp", map[string]any{"action": "diagnostics", "files": []string{"src/early.ts"}}); err != nil {
				t.Fatal(err)
			}
			before, err := lspCall(t, r, "lsp", map[string]any{"action": "diagnostics", "files": []string{"src/late.ts"}})
			if err != nil || !strings.Contains(before, "is not assignable to type 'number'") {
				t.Fatalf("late.ts's old error: %v\n%s", err, before)
			}
			for i, comment := range []string{"// One.\n", "// Two.\n"} {
				rep, out := writeCall(t, r, "edit", map[string]any{"path": "src/late.ts", "old_string": "export const n", "new_string": comment + "export const n"})
				requireWhole(t, rep, out)
				if len(rep.New)+rep.More > 0 || len(rep.Cleared) > 0 {
					t.Fatalf("edit %d: the old error reported as new %v or cleared %v (before:\n%s)\n%s", i, places(rep.New), rep.Cleared, before, out)
				}
				t.Logf("before: %s\nafter edit %d: %s", before, i, out)
			}
		})
	}
}

// TestLSPWriteAffectedNearFirst: when more files mention a changed
// declaration's name than a write diagnoses, the caller beside the
// written file, importing its module, is diagnosed before files that only
// share the word (tests with a helper of the same name, which sort first
// by path), and the report names the files it left unchecked.
func TestLSPWriteAffectedNearFirst(t *testing.T) {
	files := map[string]string{"pyproject.toml": "[project]\nname = \"p\"\n",
		"pkg/__init__.py": "", "pkg/lib.py": "def helper(x):\n    return x\n",
		"pkg/worker.py": "from pkg.lib import helper\n\nprint(helper(1))\n"}
	const others = 24
	var shared []string
	for i := range others {
		name := fmt.Sprintf("pkg/a_tests/test_%02d.py", i)
		files[name] = "def helper():\n    return 1\n\n\nprint(helper())\n"
		shared = append(shared, name)
	}
	r, _ := projectRun(t, "pyright-langserver", files)
	rep, out := writeCall(t, r, "edit", map[string]any{"path": "pkg/lib.py", "old_string": "def helper(x):", "new_string": "def helper(x, y):"})
	requireWhole(t, rep, out)
	if got := places(rep.New); strings.Join(got, " ") != "pkg/worker.py:3" {
		t.Fatalf("want the caller pkg/worker.py:3 new, got %v:\n%s", got, out)
	}
	if len(rep.NotChecked) == 0 || len(rep.NotChecked)+len(rep.Checked) < others+1 {
		t.Fatalf("not checked %v, checked %v: the files past the bound are not named:\n%s", rep.NotChecked, rep.Checked, out)
	}
	for _, f := range rep.NotChecked {
		if !slices.Contains(shared, f) {
			t.Errorf("%s left unchecked; want only files that merely share the name:\n%s", f, out)
		}
	}
}
