package tools_test

import "encoding/json"
import "os"
import "path/filepath"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/tools"

// symStep is one symbol_edit call of a symbolCase: refused (its error
// holds each of refused), or staged and accepted, after which the edited
// file holds each of has and none of lacks.
type symStep struct {
	args       map[string]any
	refused    []string
	via        string
	has, lacks []string
}

// symbolCase is a project, the language server that runs for it ("" for
// none) and the symbol edits made to one of its files in turn.
type symbolCase struct {
	name, bin, file string
	files           map[string]string
	steps           []symStep
}

// TestSymbolEdit makes symbol edits in Go, Python, TypeScript, C (each
// with its real language server: gopls, pyright, typescript-language-
// server, clangd) and Rust (no rust-analyzer here: the tree-sitter
// grammar): deletes refused while references remain (named path:line),
// whole replaces that take the doc comment and decorators with them, body
// replaces, inserts, overloads picked by #N or listed as ambiguous, and
// nested classes. Each staged edit is accepted through resolve.
func TestSymbolEdit(t *testing.T) {
	for _, c := range symbolCases {
		t.Run(c.name, func(t *testing.T) {
			if c.bin == "clangd" && testenv.LookPath("clangd") == "" {
				c.bin = "clangd-19"
			}
			var r *tools.Run
			var dir string
			if c.bin == "" {
				// a server in the table whose binary is missing here
				dir = t.TempDir()
				testenv.WriteFiles(t, dir, c.files)
				r = startRun(t, tools.Config{WorkDir: dir, Policy: tools.PolicyOf(tools.Allow), LSP: lspSupervisor(t, dir, 20*time.Second), Search: tools.SearchConfig{Parser: parseEngine(t)}})
			} else {
				r, dir = projectRun(t, c.bin, c.files)
			}
			if c.name == "c" {
				cc, _ := json.Marshal([]map[string]string{
					{"directory": dir, "file": filepath.Join(dir, "util.c"), "command": "cc -c util.c"},
					{"directory": dir, "file": filepath.Join(dir, "main.c"), "command": "cc -c main.c"}})
				testenv.WriteFiles(t, dir, map[string]string{"compile_commands.json": string(cc)})
			}
			for i, s := range c.steps {
				s.args["file"] = c.file
				res, err := lspResult(t, r, "symbol_edit", s.args)
				if s.refused != nil {
					if err == nil {
						t.Fatalf("step %d %v: staged, want it refused:\n%s", i, s.args, res.AllText())
					}
					for _, w := range s.refused {
						if !strings.Contains(err.Error(), w) {
							t.Fatalf("step %d %v: the refusal lacks %q: %v", i, s.args, w, err)
						}
					}
					continue
				}
				if err != nil {
					t.Fatalf("step %d %v: %v", i, s.args, err)
				}
				if !strings.Contains(res.AllText(), "found through "+s.via) {
					t.Errorf("step %d: want it found through %s:\n%s", i, s.via, res.AllText())
				}
				staged := structured[*tools.StagedDiff](t, res)
				out, err := lspCall(t, r, "resolve", map[string]any{"edit_id": staged.EditID, "action": "accept"})
				if err != nil {
					t.Fatalf("step %d: accept: %v", i, err)
				}
				if c.bin != "" && !strings.Contains(out, "lsp: "+c.file+":") {
					t.Errorf("step %d: the accept reports no diagnostics on write:\n%s", i, out)
				}
				b, err := os.ReadFile(filepath.Join(dir, c.file))
				if err != nil {
					t.Fatal(err)
				}
				for _, w := range s.has {
					if !strings.Contains(string(b), w) {
						t.Errorf("step %d %v: the file lacks %q:\n%s", i, s.args, w, b)
					}
				}
				for _, w := range s.lacks {
					if strings.Contains(string(b), w) {
						t.Errorf("step %d %v: the file still has %q:\n%s", i, s.args, w, b)
					}
				}
			}
		})
	}
}

// TestSymbolEditBadInput: an unknown name path lists the file's symbols,
// a stale file rejects the staged edit whole, and a body edit of a
// declaration without one says what to do instead.
func TestSymbolEditBadInput(t *testing.T) {
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{"a.py": "X_MAX = 3\n\n\ndef f():\n    return 1\n\n\nclass K:\n    def m(self):\n        pass\n"})
	r := startRun(t, tools.Config{WorkDir: dir, Policy: tools.PolicyOf(tools.Allow), Search: tools.SearchConfig{Parser: parseEngine(t)}})
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"symbol": "g", "action": "delete"}, `no such symbol: "g"; the file's top-level symbols: X_MAX (line 1), f (line 4), K (line 8)`},
		{map[string]any{"symbol": "K/n", "action": "delete"}, "top-level symbols"},
		{map[string]any{"symbol": "X_MAX", "action": "replace", "body": true, "text": "4"}, "has none to replace; replace the whole declaration (body false)"},
		{map[string]any{"symbol": "f", "action": "insert_after"}, "insert_after needs text"},
		{map[string]any{"symbol": "f", "action": "replace", "text": "def f(:\n"}, "would leave a.py with syntax errors"},
		{map[string]any{"symbol": "f#0", "action": "delete"}, "after # comes the overload's number"},
	} {
		c.args["file"] = "a.py"
		_, err := call(t, r, "symbol_edit", c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want an error with %q", c.args, err, c.want)
		}
	}
	res := callResult(t, r, "symbol_edit", map[string]any{"file": "a.py", "symbol": "K/m", "action": "replace", "body": true, "text": "return 2"})
	if !strings.Contains(res.AllText(), "found through the tree-sitter grammar") {
		t.Errorf("without language servers, want the tree-sitter grammar named:\n%s", res.AllText())
	}
	staged := structured[*tools.StagedDiff](t, res)
	testenv.WriteFiles(t, dir, map[string]string{"a.py": "X_MAX = 4\n"})
	_, err := call(t, r, "resolve", map[string]any{"edit_id": staged.EditID, "action": "accept"})
	if err == nil || !strings.Contains(err.Error(), "changed since the edit was staged") {
		t.Fatalf("accepting an edit of a file changed since: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.py")); string(b) != "X_MAX = 4\n" {
		t.Fatalf("a rejected edit wrote the file: %q", b)
	}
}
