package tools_test

import "encoding/json"
import "os"
import "path/filepath"
import "strconv"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/tools"

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

// dropEditProxy sits between tether and a language server and drops, from
// the server's answers to textDocument/rename, the edits on one line of one
// file: a server that missed an occurrence, on demand (gopls left an
// interface method's implementation unrenamed in one of two runs).
const dropEditProxy = `#!/usr/bin/env python3
import json, subprocess, sys, threading
server, drop_file, drop_line = sys.argv[1], sys.argv[2], int(sys.argv[3])
p = subprocess.Popen([server], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
renames = set()
def frames(src):
    while True:
        length = None
        while True:
            line = src.readline()
            if not line:
                return
            line = line.strip()
            if not line:
                break
            k, _, v = line.partition(b":")
            if k.lower() == b"content-length":
                length = int(v)
        yield json.loads(src.read(length))
def send(dst, msg):
    b = json.dumps(msg).encode()
    dst.write(b"Content-Length: %d\r\n\r\n" % len(b) + b)
    dst.flush()
def keep(uri, edits):
    if not uri.endswith("/" + drop_file):
        return edits
    return [e for e in edits if e["range"]["start"]["line"] != drop_line - 1]
def up():
    for m in frames(sys.stdin.buffer):
        if m.get("method") == "textDocument/rename":
            renames.add(m["id"])
        send(p.stdin, m)
    p.stdin.close()
threading.Thread(target=up, daemon=True).start()
for m in frames(p.stdout):
    if m.get("id") in renames and "method" not in m and m.get("result"):
        r = m["result"]
        for uri in list((r.get("changes") or {})):
            r["changes"][uri] = keep(uri, r["changes"][uri])
        for dc in r.get("documentChanges") or []:
            if "edits" in dc:
                dc["edits"] = keep(dc["textDocument"]["uri"], dc["edits"])
    send(sys.stdout.buffer, m)
p.wait()
`

// goplsMissing returns gopls's server row run through dropEditProxy, so
// its renames leave line of file as they were.
func goplsMissing(t *testing.T, file string, line int) lsp.Server {
	t.Helper()
	gopls := testenv.RequireBinary(t, "gopls")
	testenv.RequireBinary(t, "python3")
	proxy := filepath.Join(t.TempDir(), "gopls-proxy")
	if err := os.WriteFile(proxy, []byte(dropEditProxy), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, s := range lsp.DefaultServers() {
		if s.Name == "gopls" {
			s.Binaries, s.Args, s.Probe = []string{proxy}, []string{gopls, file, strconv.Itoa(line)}, nil
			return s
		}
	}
	t.Fatal("no gopls row")
	return lsp.Server{}
}

// renameProject has an interface method Area with one implementation
// (Square.Area, line 14 of shapes.go) and an unrelated Label.Area with
// another signature, in a file that sorts first.
var renameProject = map[string]string{
	"go.mod": goMod,
	"a.go":   "package p\n\n// Label is no Shape: its Area has another result.\ntype Label struct{}\n\nfunc (Label) Area() string { return \"\" }\n\nfunc useLabel() string { return Label{}.Area() }\n",
	"shapes.go": "package p\n\n// Shape is anything with an area.\ntype Shape interface {\n\tArea() float64\n}\n\n" +
		"// Square is a Shape.\ntype Square struct{ Side float64 }\n\nvar _ Shape = Square{}\n\n" +
		"// Area is the square's area.\nfunc (s Square) Area() float64 { return s.Side * s.Side }\n\n" +
		"func total(ss []Shape) (t float64) {\n\tfor _, s := range ss {\n\t\tt += s.Area()\n\t}\n\treturn t\n}\n",
}

// TestLSPRenameInterfaceMethod: gopls renames an interface method and its
// implementation; what is left is Label's unrelated Area (its declaration
// listed before its use), and nothing says the build is broken.
func TestLSPRenameInterfaceMethod(t *testing.T) {
	r, dir := projectRun(t, "gopls", renameProject)
	out := lspText(t, r, "lsp_rename", map[string]any{"file": "shapes.go", "line": 5, "symbol": "Area", "new_name": "Size"})
	b, _ := os.ReadFile(filepath.Join(dir, "shapes.go"))
	if strings.Contains(string(b), "Area") {
		t.Fatalf("gopls left Area in shapes.go:\n%s", b)
	}
	if !strings.Contains(out, "2 other occurrence(s) of Area remain (the server did not rename them; an unrelated symbol of the same name looks the same), declarations first: a.go:6 (declaration), a.go:8") ||
		strings.Contains(out, "build is likely broken") || strings.Contains(out, "signature") {
		t.Fatalf("rename:\n%s", out)
	}
}

// TestLSPRenameMissedImplementation: when the server leaves an
// implementation of the renamed interface method unrenamed (fault injected
// into real gopls's answer), the result says the build is likely broken and
// names that declaration first, before Label's unrelated Area in a file
// that sorts earlier.
func TestLSPRenameMissedImplementation(t *testing.T) {
	dir := testenv.Workspace(t, renameProject)
	r := lspDirRun(t, dir, 20*time.Second, lsp.WithOnlyServers(goplsMissing(t, "shapes.go", 14)))
	out := lspText(t, r, "lsp_rename", map[string]any{"file": "shapes.go", "line": 5, "symbol": "Area", "new_name": "Size"})
	b, _ := os.ReadFile(filepath.Join(dir, "shapes.go"))
	if !strings.Contains(string(b), "func (s Square) Area() float64") || !strings.Contains(string(b), "\tSize() float64") {
		t.Fatalf("the fault was not injected:\n%s", b)
	}
	broken := "the build is likely broken: the server named shapes.go:14 as implementing or overriding Area (or as implemented by it), and the rename left Area there: rename those too"
	list := "3 other occurrence(s) of Area remain (the server did not rename them; an unrelated symbol of the same name looks the same), declarations first: shapes.go:14 (declaration implementing it), a.go:6 (declaration), a.go:8"
	if !strings.Contains(out, broken) || !strings.Contains(out, list) || strings.Index(out, broken) > strings.Index(out, list) {
		t.Fatalf("rename:\n%s", out)
	}
}

// TestLSPRenameOverrideLeft: pyright renames a base class's method and its
// calls but not the subclass's override (another declaration to it); the
// override has the renamed method's signature, so the result warns that the
// build may be broken and lists it first.
func TestLSPRenameOverrideLeft(t *testing.T) {
	r, dir := projectRun(t, "pyright-langserver", map[string]string{
		"pyproject.toml": "[project]\nname = \"p\"\nversion = \"0.1.0\"\n",
		"a.py":           "def use(x):\n    return x.fetch(1)\n",
		"store.py": "class Store:\n    def fetch(self, key: int) -> int:\n        return key\n\n\n" +
			"class Cached(Store):\n    def fetch(self, key: int) -> int:\n        return key + 1\n\n\n" +
			"def typed(s: Store) -> int:\n    return s.fetch(1)\n",
	})
	out := lspText(t, r, "lsp_rename", map[string]any{"file": "store.py", "line": 2, "symbol": "fetch", "new_name": "load"})
	b, _ := os.ReadFile(filepath.Join(dir, "store.py"))
	if !strings.Contains(string(b), "def fetch(self, key: int) -> int:\n        return key + 1") {
		t.Fatalf("pyright renamed the override too; the test needs one it leaves:\n%s", b)
	}
	warn := "store.py:7 still declare fetch with the renamed function's signature: if one implements or overrides it, the build is likely broken"
	list := "2 other occurrence(s) of fetch remain (the server did not rename them; an unrelated symbol of the same name looks the same), declarations first: store.py:7 (declaration with its signature), a.py:2"
	if !strings.Contains(out, warn) || !strings.Contains(out, list) {
		t.Fatalf("rename:\n%s", out)
	}
}

// TestLSPReferencesUnconfirmed: pyright's references of a method leave out
// the calls on receivers it cannot type; they follow the server's locations
// as same-name identifiers it did not confirm, with the warning that the
// list may be partial (the string and the comment spelling the name do not
// count). A page past the server's locations still carries them.
func TestLSPReferencesUnconfirmed(t *testing.T) {
	r, _ := projectRun(t, "pyright-langserver", map[string]string{
		"pyproject.toml": "[project]\nname = \"p\"\nversion = \"0.1.0\"\n",
		"store.py": "class Store:\n    def as_list(self):\n        return []\n\n\n" +
			"def typed(s: Store):\n    return s.as_list()\n\n\n" +
			"def untyped(s):\n    # as_list in a comment does not count\n    return s.as_list(), \"as_list\"\n",
		"helpers.py": "def flatten(items):\n    return [i.as_list() for i in items]\n\n\ndef first(x):\n    return x.as_list()[0]\n",
	})
	out := lspText(t, r, "lsp", map[string]any{"action": "references", "file": "store.py", "line": 2, "symbol": "as_list"})
	want := "+3 same-name identifier(s) the server did not confirm (uses it could not resolve, such as calls on a receiver it cannot type, or other symbols named as_list; the list above may be partial): helpers.py:2 helpers.py:6 store.py:12"
	if !strings.Contains(out, "2 location(s)\nstore.py:2:9:") || !strings.Contains(out, "store.py:7:14:") || !strings.HasSuffix(out, want) {
		t.Fatalf("references:\n%s", out)
	}
	res := callResult(t, r, "lsp", map[string]any{"action": "references", "file": "store.py", "line": 2, "symbol": "as_list", "start": 2})
	if text := res.AllText(); !strings.Contains(text, "the server's 2 location(s) come first (start 0 shows them); from start 2 on, the same-name identifiers it did not confirm") || !strings.HasSuffix(text, want) {
		t.Fatalf("page past the server's locations:\n%s", text)
	}
	var data struct {
		Unconfirmed struct {
			Count int `json:"count"`
			Items []struct {
				Path string `json:"path"`
				Line int    `json:"line"`
			} `json:"items"`
		} `json:"unconfirmed"`
	}
	b, _ := json.Marshal(res.Structured)
	if err := json.Unmarshal(b, &data); err != nil || data.Unconfirmed.Count != 3 || len(data.Unconfirmed.Items) != 3 || data.Unconfirmed.Items[2].Path != "store.py" {
		t.Fatalf("structured: %v %s", err, b)
	}
}

// TestLSPReferencesAllConfirmed: gopls returns every use of Square, which
// are all the identifiers spelled so (the run has a parser: the scan runs),
// and the answer is as it was, with nothing marked unconfirmed.
func TestLSPReferencesAllConfirmed(t *testing.T) {
	testenv.RequireBinary(t, "gopls")
	dir := testenv.LSPProject(t, "goproj")
	r := startRun(t, tools.Config{WorkDir: dir, Policy: tools.PolicyOf(tools.Allow), LSP: lspSupervisor(t, dir, 20*time.Second), Search: tools.SearchConfig{Parser: parseEngine(t)}})
	out := lspText(t, r, "lsp", map[string]any{"action": "references", "file": "shapes.go", "line": 9, "symbol": "Square"})
	if !strings.Contains(out, "5 location(s)") || strings.Contains(out, "did not confirm") || strings.Contains(out, "partial") {
		t.Fatalf("references:\n%s", out)
	}
}
