package tools_test

import "encoding/json"
import "os"
import "os/exec"
import "path/filepath"
import "slices"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/tools"

// cprojRun is a run over a copy of testdata/lsp's cproj, served by clangd.
func cprojRun(t *testing.T) *tools.Run {
	t.Helper()
	return clangdRun(t, testenv.LSPProject(t, "cproj"), "main.c", "shapes.c")
}

// clangdRun is a run over dir served by clangd, with a compile database
// for sources.
func clangdRun(t *testing.T, dir string, sources ...string) *tools.Run {
	t.Helper()
	bin := "clangd-19"
	if _, err := exec.LookPath("clangd"); err == nil {
		bin = "clangd"
	}
	testenv.RequireBinary(t, bin)
	var cmds []map[string]string
	for _, f := range sources {
		cmds = append(cmds, map[string]string{"directory": dir, "file": filepath.Join(dir, f), "command": "cc -c " + f})
	}
	b, _ := json.Marshal(cmds)
	if err := os.WriteFile(filepath.Join(dir, "compile_commands.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return startRun(t, tools.Config{WorkDir: dir, Policy: tools.PolicyOf(tools.Allow), LSP: lspSupervisor(t, dir, 30*time.Second), Search: tools.SearchConfig{Parser: parseEngine(t)}})
}

// TestLSPSignatureBreaksCallersClangd: a parameter added to a prototype in
// a header reports the call and the definition it broke in the .c files
// that include it, files clangd had not opened, and putting it back reports
// both cleared. clangd compiles them against the header as tether shows it
// (--use-dirty-headers), and publishes again for the text it has, not for
// a version that repeats it.
func TestLSPSignatureBreaksCallersClangd(t *testing.T) {
	r := cprojRun(t)
	const proto, wide = "double square_area(const struct square *sq);", "double square_area(const struct square *sq, int scale);"
	out := lspText(t, r, "edit", map[string]any{"path": "shapes.h", "old_string": proto, "new_string": wide})
	if !strings.Contains(out, "2 new diagnostic(s) in 2 other file(s):") || !strings.Contains(out, "main.c:7:29: error: Too few arguments to function call, expected 2, have 1") ||
		!strings.Contains(out, "shapes.c:3:8: error: Conflicting types for 'square_area'") {
		t.Fatalf("the call and the definition a changed prototype broke:\n%s", out)
	}
	out = lspText(t, r, "edit", map[string]any{"path": "shapes.h", "old_string": wide, "new_string": proto})
	if !strings.Contains(out, "2 diagnostic(s) in 2 other file(s) cleared: main.c, shapes.c") {
		t.Fatalf("the fix:\n%s", out)
	}
}

// TestLSPSignatureCallersPylsp: pylsp checks each file alone, so a call
// that a changed signature broke in another file is not reported, and the
// result says the other files were checked and found nothing new (what the
// docs say it covers).
func TestLSPSignatureCallersPylsp(t *testing.T) {
	testenv.RequireBinary(t, "pylsp")
	dir := testenv.LSPProject(t, "pybreak")
	pylsp := lsp.Server{Name: "pylsp", Language: "python", Binaries: []string{"pylsp"}, Extensions: []string{".py"},
		RootMarkers: []string{"pyproject.toml"}, PositionEncoding: "utf-32"}
	r := lspDirRun(t, dir, 30*time.Second, lsp.WithServers(pylsp))
	out := lspText(t, r, "edit", map[string]any{"path": "pkg/util.py", "old_string": "def _flatten(items):", "new_string": "def _flatten(items, depth):"})
	if !strings.Contains(out, "pkg/util.py: no errors or warnings") || !strings.Contains(out, "2 other file(s) that mention _flatten checked: no new diagnostics") {
		t.Fatalf("pylsp:\n%s", out)
	}
}

// slowLint is a language server (fault injection, in addition to the real
// servers above) that says nothing about a file's first version and
// publishes one error per line holding ERR for every later one.
const slowLint = `import json, sys

def read():
    headers = {}
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            sys.exit(0)
        line = line.decode().strip()
        if not line:
            break
        k, v = line.split(":", 1)
        headers[k.lower()] = v.strip()
    return json.loads(sys.stdin.buffer.read(int(headers["content-length"])))

def send(msg):
    b = json.dumps(msg).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(b) + b)
    sys.stdout.buffer.flush()

while True:
    m = read()
    meth = m.get("method")
    if meth == "exit":
        sys.exit(0)
    if meth in ("textDocument/didOpen", "textDocument/didChange"):
        td = m["params"]["textDocument"]
        text = td["text"] if meth == "textDocument/didOpen" else m["params"]["contentChanges"][-1]["text"]
        if td["version"] < 2:
            continue
        diags = [{"range": {"start": {"line": i, "character": 0}, "end": {"line": i, "character": 3}}, "severity": 1, "message": "bad line: " + l.strip()}
                 for i, l in enumerate(text.split("\n")) if "ERR" in l]
        send({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {"uri": td["uri"], "version": td["version"], "diagnostics": diags}})
    elif "id" in m:
        result = {"capabilities": {"textDocumentSync": 1}} if meth == "initialize" else None
        send({"jsonrpc": "2.0", "id": m["id"], "result": result})
`

// TestLSPWriteBaselineUnknown: when a file's diagnostics before a write
// cannot be had (the server did not publish them in time), the result says
// so for that file and lists all its diagnostics apart, the old one among
// them, never as new.
func TestLSPWriteBaselineUnknown(t *testing.T) {
	testenv.RequireBinary(t, "python3")
	script := filepath.Join(t.TempDir(), "slowlint.py")
	if err := os.WriteFile(script, []byte(slowLint), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := testenv.Workspace(t, map[string]string{"slow.toml": "", "x.slow": "ok\nERR one\n"})
	srv := lsp.Server{Name: "slowlint", Language: "slowlint", Binaries: []string{"python3"}, Args: []string{script},
		Extensions: []string{".slow"}, RootMarkers: []string{"slow.toml"}}
	r := lspDirRun(t, dir, 10*time.Second, lsp.WithReadyTimeout(time.Minute), lsp.WithServers(srv))
	out := lspText(t, r, "edit", map[string]any{"path": "x.slow", "old_string": "ok\n", "new_string": "ok\nERR two\n"})
	if !strings.Contains(out, "baseline unknown for x.slow (its diagnostics before the write could not be had: ") ||
		!strings.Contains(out, "): all its 2 diagnostic(s) are listed, old and new alike:") ||
		!strings.Contains(out, "bad line: ERR one") || !strings.Contains(out, "bad line: ERR two") || strings.Contains(out, "new diagnostics in") {
		t.Fatalf("a file without a baseline:\n%s", out)
	}
	// Listed once, both are known now: the next write reports only what it adds.
	out = lspText(t, r, "edit", map[string]any{"path": "x.slow", "old_string": "ok\n", "new_string": "ok\nERR three\n"})
	if !strings.Contains(out, "new diagnostics in x.slow:") || !strings.Contains(out, "ERR three") || strings.Contains(out, "ERR one") || strings.Contains(out, "ERR two") {
		t.Fatalf("the next write:\n%s", out)
	}
}

// TestLSPWriteWithoutParserSaysOthersUnsearched: an embedding that wires a
// language server but no structural parser cannot tell which declarations
// a write changed; the report says that no other file was searched, and
// does not pass the broken caller over in silence.
func TestLSPWriteWithoutParserSaysOthersUnsearched(t *testing.T) {
	testenv.RequireBinary(t, "gopls")
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{"go.mod": goMod,
		"lib.go":    "package p\n\nfunc Helper(x int) int { return x }\n",
		"caller.go": "package p\n\nvar V = Helper(1)\n"})
	r := startRun(t, tools.Config{WorkDir: dir, Policy: tools.PolicyOf(tools.Allow), LSP: lspSupervisor(t, dir, 20*time.Second)})
	rep, out := writeCall(t, r, "edit", map[string]any{"path": "lib.go", "old_string": "Helper(x int)", "new_string": "Helper(x, y int)"})
	if rep.SearchIncomplete == "" || !strings.Contains(out, "no structural parser") {
		t.Fatalf("want the report to say other files were not searched (no parser); SearchIncomplete %q:\n%s", rep.SearchIncomplete, out)
	}
	if !strings.Contains(out, "lsp diagnostics") {
		t.Fatalf("want the way on (lsp diagnostics) named:\n%s", out)
	}
}

// TestLSPHeaderImplementationChangeSaysUnseen: a change in a header's
// implementation section (under #ifdef H_IMPL, enabled by one includer) is
// compiled by clangd neither in the header alone nor in its includers
// (their headers' bodies are skipped): the report says the header was not
// checked where it changed, and names how to check it, instead of "no
// errors". clang, compiling the includer, finds the error the change made.
func TestLSPHeaderImplementationChangeSaysUnseen(t *testing.T) {
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{
		"h.h": "#ifndef H_H\n#define H_H\nint api(void);\n#ifdef H_IMPL\nstatic int rd(int a) { return a; }\nstatic int g(void) { return rd(1); }\nint api(void) { return g(); }\n#endif\n#endif\n",
		"a.c": "#define H_IMPL\n#include \"h.h\"\n",
		"b.c": "#include \"h.h\"\nint main(void) { return api(); }\n",
		"x.h": "#ifndef X_H\n#define X_H\n#if !defined(X_NO_API) || defined(X_FORCE)\nint x_api(int);\n#endif\n#if (defined(X_INLINE) || defined(X_IMPL)) \\\n   && !defined(X_DONE)\n#define X_DONE\nstatic int xr(int a) { return a; }\nint x_api(int a) { return xr(a); }\n#endif\n#endif\n",
		"c.c": "#define X_IMPL\n#include \"x.h\"\n",
	})
	r := clangdRun(t, dir, "a.c", "b.c", "c.c")
	rep, out := writeCall(t, r, "edit", map[string]any{"path": "h.h", "old_string": "static int rd(int a) { return a; }", "new_string": "static int rd(void) { return 0; }"})
	if !strings.Contains(rep.Unseen["h.h"], "#ifdef H_IMPL") || !strings.Contains(out, "h.h: not checked where it changed") || strings.Contains(out, "h.h: no errors or warnings\n") {
		t.Fatalf("want h.h named as not checked where it changed (under #ifdef H_IMPL):\n%s", out)
	}
	if !slices.Contains(rep.Checked, "a.c") || !strings.Contains(out, "include h.h") {
		t.Fatalf("want the includer a.c checked and named by its include:\n%s", out)
	}
	if cc, err := exec.LookPath("clang-19"); err == nil {
		c := exec.Command(cc, "-fsyntax-only", "a.c")
		c.Dir = dir
		if msg, err := c.CombinedOutput(); err == nil || !strings.Contains(string(msg), "h.h:6") {
			t.Fatalf("clang should find the error the change made in h.h (the case is moot otherwise): %v\n%s", err, msg)
		}
	}
	// A change outside any conditional but the guard is checked as usual.
	rep, out = writeCall(t, r, "edit", map[string]any{"path": "h.h", "old_string": "int api(void);", "new_string": "int api(void); /* the entry */"})
	if len(rep.Unseen) != 0 {
		t.Fatalf("a change under the include guard only is checked; got unseen %v:\n%s", rep.Unseen, out)
	}
	// A condition no guess from the text reads (xxhash.h's implementation
	// section): clangd's own inactive regions say it is left out.
	rep, out = writeCall(t, r, "edit", map[string]any{"path": "x.h", "old_string": "static int xr(int a)", "new_string": "static int xr()"})
	if !strings.Contains(rep.Unseen["x.h"], "defined(X_IMPL)") || strings.Contains(out, "x.h: no errors or warnings\n") {
		t.Fatalf("want x.h named as not checked where it changed (clangd leaves the section out):\n%s", out)
	}
	// Active code under a condition with the same shape is checked.
	rep, out = writeCall(t, r, "edit", map[string]any{"path": "x.h", "old_string": "int x_api(int);", "new_string": "int x_api(int); /* the entry */"})
	if len(rep.Unseen) != 0 {
		t.Fatalf("a change in code clangd compiles is checked; got unseen %v:\n%s", rep.Unseen, out)
	}
}

// TestLSPClangdHeaderAfterSourceWrite: a write to a .c file makes the
// header that declares its function an affected file; clangd does not
// analyse the header again (nothing it reads changed) and publishes
// nothing for the repeat of its text that asks it to, so its publication
// from before is its answer. The report checks it whole, not "incomplete"
// after the wait's bound, write after write.
func TestLSPClangdHeaderAfterSourceWrite(t *testing.T) {
	r := cprojRun(t)
	const def, wide = "double square_area(const struct square *sq)\n", "double square_area(const struct square *sq, int k)\n"
	for i, step := range [][2]string{{def, wide}, {wide, def}, {def, wide}, {wide, def}} {
		start := time.Now()
		rep, out := writeCall(t, r, "edit", map[string]any{"path": "shapes.c", "old_string": step[0], "new_string": step[1]})
		if len(rep.Incomplete) > 0 || !slices.Contains(rep.Checked, "shapes.h") {
			t.Fatalf("write %d (%s): want shapes.h checked whole; incomplete %v, checked %v:\n%s", i, time.Since(start), rep.Incomplete, rep.Checked, out)
		}
	}
}

// TestLSPGoWarningsHeldWhileTypeErrors: gopls runs its analyzers only on
// a package that type-checks, so a write that breaks the package makes
// its analyzers' warnings vanish without fixing them. The report holds
// them (neither cleared nor, when the revert brings them back, new) and
// says so.
func TestLSPGoWarningsHeldWhileTypeErrors(t *testing.T) {
	r, _ := projectRun(t, "gopls", map[string]string{
		"go.mod":        "module example.com/p\n\ngo 1.24\n",
		"lib.go":        "package p\n\nfunc Twice(x int) int { return 2 * x }\n",
		"use.go":        "package p\n\nvar V = Twice(1)\n",
		"bench_test.go": "package p\n\nimport \"testing\"\n\nfunc BenchmarkTwice(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n\t\tTwice(i)\n\t}\n}\n",
	})
	// The analyzers' warning is there before any write.
	out := lspText(t, r, "lsp", map[string]any{"action": "diagnostics", "file": "bench_test.go"})
	if !strings.Contains(out, "b.Loop") {
		t.Skipf("this gopls reports no modernize warning for b.N (the case is moot):\n%s", out)
	}
	rep, out := writeCall(t, r, "edit", map[string]any{"path": "lib.go", "old_string": "Twice(x int)", "new_string": "Twice(x string)"})
	if n := rep.Cleared["bench_test.go"]; n != 0 || rep.Held["bench_test.go"] == 0 || !strings.Contains(out, "not re-checked while their package has type errors") {
		t.Fatalf("want bench_test.go's warning held, not cleared (cleared %d, held %v):\n%s", n, rep.Held, out)
	}
	rep, out = writeCall(t, r, "edit", map[string]any{"path": "lib.go", "old_string": "Twice(x string)", "new_string": "Twice(x int)"})
	for _, d := range rep.New {
		if d.Path == "bench_test.go" && d.Severity != "error" {
			t.Fatalf("the held warning came back and was called new: %s\n%s", d, out)
		}
	}
	if len(rep.Cleared) == 0 {
		t.Fatalf("the revert clears the type errors:\n%s", out)
	}
}

// TestLSPImportRemovedBreaksUsers: removing an import that a class's base
// names changes the class and the instance the module exports of it;
// the file that uses that instance elsewhere is checked and its broken
// call reported, though the write touched no declaration.
func TestLSPImportRemovedBreaksUsers(t *testing.T) {
	r, _ := projectRun(t, "typescript-language-server", map[string]string{
		"tsconfig.json":    `{"compilerOptions":{"strict":true},"include":["src"]}`,
		"src/base.ts":      "export class Subscribable {\n  subscribe(f: () => void): () => void {\n    return f\n  }\n}\n",
		"src/focus.ts":     "import { Subscribable } from './base'\n\nexport class Focus extends Subscribable {\n  on = true\n}\n\nexport const focus = new Focus()\n",
		"src/client.ts":    "import { focus } from './focus'\n\nexport const off = focus.subscribe(() => {})\n",
		"src/unrelated.ts": "export const other = 1\n",
	})
	rep, out := writeCall(t, r, "edit", map[string]any{"path": "src/focus.ts", "old_string": "import { Subscribable } from './base'\n", "new_string": ""})
	if !slices.Contains(rep.Checked, "src/client.ts") || !strings.Contains(out, "src/client.ts") {
		t.Fatalf("want src/client.ts, which uses the exported instance, checked and its broken call new:\n%s", out)
	}
	found := false
	for _, d := range rep.New {
		found = found || d.Path == "src/client.ts"
	}
	if !found {
		t.Fatalf("want the broken call in src/client.ts new:\n%s", out)
	}
}

// TestLSPImportRemovedStarImporters: a module that stops importing
// warnings stops handing it on to the modules that import * from it;
// their uses break, and the report checks them.
func TestLSPImportRemovedStarImporters(t *testing.T) {
	r, _ := projectRun(t, "pyright-langserver", map[string]string{
		"pyproject.toml":  "[project]\nname = \"p\"\n",
		"pkg/__init__.py": "",
		"pkg/core.py":     "import warnings\n\n\ndef f():\n    warnings.warn(\"x\")\n",
		"pkg/helpers.py":  "from .core import *\n\n\ndef g():\n    warnings.warn(\"y\")\n",
	})
	rep, out := writeCall(t, r, "edit", map[string]any{"path": "pkg/core.py", "old_string": "import warnings\n", "new_string": ""})
	found := false
	for _, d := range rep.New {
		found = found || d.Path == "pkg/helpers.py"
	}
	if !found {
		t.Fatalf("want the use in pkg/helpers.py new:\n%s", out)
	}
}
