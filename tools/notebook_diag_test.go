package tools_test

import "encoding/json"
import "os"
import "path/filepath"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/internal/ipynb"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/tools"

// notebookJSON is an nbformat 4.5 Python notebook of cells, each
// {cell_type, id, source}, as Jupyter writes one.
func notebookJSON(t *testing.T, cells [][3]string) string {
	t.Helper()
	var cs []map[string]any
	for _, c := range cells {
		cell := map[string]any{"cell_type": c[0], "id": c[1], "metadata": map[string]any{}, "source": ipynb.Lines(c[2])}
		if c[0] == "code" {
			cell["execution_count"] = nil
			cell["outputs"] = []any{}
		}
		cs = append(cs, cell)
	}
	b, err := json.MarshalIndent(map[string]any{
		"cells": cs, "nbformat": 4, "nbformat_minor": 5,
		"metadata": map[string]any{"kernelspec": map[string]any{"name": "python3", "display_name": "Python 3", "language": "python"}},
	}, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// magicsNotebook has IPython syntax in cells 1 and 3 (line magics, shell
// escapes, an assignment from one, a help line, a %%bash cell), a cell
// that ends in an expression Jupyter shows (2), calls of IPython's
// display (4) and get_ipython (5), await at a cell's top level (5), and
// one error from the start: undefined_before in cell 4.
var magicsNotebook = [][3]string{
	{"markdown", "m0", "# Analysis\n"},
	{"code", "c1", "import math\n%matplotlib inline\nvalues = [1, 2, 3]\n!echo hi\nfiles = !ls\nlen?\nif values:\n    %time sum(values)\n"},
	{"code", "c2", "total = sum(values) + len(files)\nscale = math.sqrt(total)\nscale"},
	{"code", "c3", "%%bash\necho $HOME\nfor f in *; do echo \"$f\"; done\n"},
	{"code", "c4", "display(total)\nprint(undefined_before)\n"},
	{"code", "c5", "async def fetch():\n    return 1\nresult = await fetch()\nfor _ in range(2):\n    await fetch()\nget_ipython().run_line_magic('time', 'result')\n"},
}

// notebookEditAccept stages edits of nb/analysis.ipynb with notebook_edit
// and accepts them with resolve, returning resolve's result.
func notebookEditAccept(t *testing.T, r *tools.Run, edits ...map[string]any) *tools.Result {
	t.Helper()
	staged, err := lspResult(t, r, "notebook_edit", map[string]any{"path": "nb/analysis.ipynb", "edits": edits})
	if err != nil || staged.IsError {
		t.Fatalf("notebook_edit: %v\n%s", err, staged.AllText())
	}
	m := editIDPattern.FindStringSubmatch(staged.Content[0].Text)
	if m == nil {
		t.Fatalf("no edit_id in:\n%s", staged.AllText())
	}
	res, err := lspResult(t, r, "resolve", map[string]any{"edit_id": m[1], "action": "accept"})
	if err != nil || res.IsError {
		t.Fatalf("resolve accept: %v\n%s", err, res.AllText())
	}
	return res
}

// TestNotebookDiagnosticsOnWrite: with real pyright, notebook_edit's
// change, once resolve writes it, is checked as the notebook's code cells
// in order. The magics give no error, the error there from the start is
// not new, an undefined name put in cell 2 is reported at cell 2's line,
// and its fix is reported cleared.
func TestNotebookDiagnosticsOnWrite(t *testing.T) {
	r, dir := projectRun(t, "pyright-langserver", map[string]string{
		"pyproject.toml":    "[project]\nname = \"p\"\n",
		"nb/analysis.ipynb": notebookJSON(t, magicsNotebook),
	})
	const key = "nb/analysis.ipynb"

	// A markdown edit: the baseline is the one old error, and the magics,
	// the cell's shown expression and display are no error at all.
	res := notebookEditAccept(t, r, map[string]any{"op": "edit", "index": 0, "source": "# Analysis of the values\n"})
	out, rep := res.AllText(), res.Diagnostics
	if !strings.Contains(out, "lsp: nb/analysis.ipynb: no new diagnostics (1 already reported)") || rep == nil || len(rep.New) != 0 || len(rep.Checked) != 1 || rep.Checked[0] != key {
		t.Fatalf("a markdown edit of a notebook with one old error and magics:\n%s\nreport %+v", out, rep)
	}

	// An undefined name in cell 2's second line.
	res = notebookEditAccept(t, r, map[string]any{"op": "edit", "id": "c2", "source": "total = sum(values) + len(files)\nscale = math.sqrt(totl)\nscale"})
	out, rep = res.AllText(), res.Diagnostics
	if len(rep.New) != 1 {
		t.Fatalf("want 1 new diagnostic, got %+v:\n%s", rep.New, out)
	}
	d := rep.New[0]
	if d.Path != key || d.Cell == nil || *d.Cell != (ipynb.CellRef{Index: 2, ID: "c2"}) || d.Line != 2 || d.Severity != "error" || !strings.Contains(d.Message, `"totl" is not defined`) {
		t.Errorf("new diagnostic = %+v (cell %+v), want totl undefined at cell 2 id=c2 line 2", d, d.Cell)
	}
	if want := `nb/analysis.ipynb[cell 2 id=c2]:2:19: error: "totl" is not defined`; !strings.Contains(out, "lsp: new diagnostics in nb/analysis.ipynb:\nlsp:   "+want) || strings.Contains(out, "undefined_before") {
		t.Errorf("the report does not show the new error alone at %s:\n%s", want, out)
	}

	// Its fix, and the old error's, are cleared; nothing is new.
	res = notebookEditAccept(t, r,
		map[string]any{"op": "edit", "index": 2, "source": "total = sum(values) + len(files)\nscale = math.sqrt(total)\nscale"},
		map[string]any{"op": "edit", "index": 4, "source": "undefined_before = 0\ndisplay(total)\nprint(undefined_before)\n"})
	out, rep = res.AllText(), res.Diagnostics
	if len(rep.New) != 0 || rep.Cleared[key] != 2 || !strings.Contains(out, "lsp: nb/analysis.ipynb: no errors or warnings (2 diagnostic(s) cleared)") {
		t.Errorf("fixing both errors: cleared %v, new %+v:\n%s", rep.Cleared, rep.New, out)
	}

	// Any writer of the notebook takes the same path: write, keyed on the
	// file and not on the tool.
	cells := append([][3]string(nil), magicsNotebook...)
	cells[1][2] = "import math\n%matplotlib inline\nvalues = [1, 2, 3]\nfiles = !ls\nmissing_helper(values)\n"
	cells[4][2] = "undefined_before = 0\n"
	// await in a function that is not async is an error in a notebook too.
	cells[5][2] += "def sync():\n    await fetch()\n"
	res, err := lspResult(t, r, "write", map[string]any{"path": key, "content": notebookJSON(t, cells)})
	if err != nil || res.IsError {
		t.Fatalf("write: %v\n%s", err, res.AllText())
	}
	out, rep = res.AllText(), res.Diagnostics
	for _, want := range []string{`nb/analysis.ipynb[cell 1 id=c1]:5:1: error: "missing_helper" is not defined`, `nb/analysis.ipynb[cell 5 id=c5]:8:5: error: "await" allowed only within async function`} {
		if len(rep.New) != 2 || !strings.Contains(out, want) {
			t.Errorf("write of the notebook with an undefined name in cell 1 and await in a def in cell 5: new %+v, want %s:\n%s", rep.New, want, out)
		}
	}
	if len(rep.New) == 2 && (rep.New[0].Cell == nil || rep.New[0].Cell.Index != 1 || rep.New[0].Line != 5) {
		t.Errorf("first new diagnostic %+v (cell %+v), want cell 1 line 5", rep.New[0], rep.New[0].Cell)
	}
	// lsp diagnostics reads a notebook's cells as diagnostics on write does.
	diag, err := lspCall(t, r, "lsp", map[string]any{"action": "diagnostics", "file": key})
	if err != nil || !strings.Contains(diag, `nb/analysis.ipynb[cell 1 id=c1]:5:1: error: "missing_helper" is not defined`) || !strings.Contains(diag, `nb/analysis.ipynb[cell 5 id=c5]:8:5: error: "await"`) {
		t.Errorf("lsp diagnostics of the notebook: %v\n%s", err, diag)
	}
	// The cells' document was the server's alone: nothing was written.
	if ents, err := os.ReadDir(filepath.Join(dir, "nb")); err != nil || len(ents) != 1 {
		t.Errorf("nb/ holds %v (%v), want analysis.ipynb alone", ents, err)
	}
}

// TestNotebookNotCheckedSaysSo: where no server reads Python (a table of
// gopls alone), a notebook's write says its cells were not checked, each
// time, rather than nothing.
func TestNotebookNotCheckedSaysSo(t *testing.T) {
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{"pyproject.toml": "[project]\nname = \"p\"\n", "nb/analysis.ipynb": notebookJSON(t, magicsNotebook)})
	var gopls lsp.Server
	for _, sv := range lsp.DefaultServers() {
		if sv.Name == "gopls" {
			gopls = sv
		}
	}
	sup, err := lsp.New(dir, lsp.WithOnlyServers(gopls), lsp.WithDiagnosticsTimeout(20*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	r := startRun(t, tools.Config{WorkDir: dir, Policy: tools.PolicyOf(tools.Allow), LSP: sup})
	for range 2 {
		out := notebookEditAccept(t, r, map[string]any{"op": "insert", "source": "x = 1\n"}).AllText()
		if !strings.Contains(out, "lsp: diagnostics not checked for nb/analysis.ipynb (its code cells were not checked): no server for this kind of file: no server in the table serves .py files") {
			t.Fatalf("a notebook no server checks:\n%s", out)
		}
	}
}

// TestNotebookAffectedByModule: with real pyright, a write of a module
// that changes a function's signature checks the notebook whose cells
// call it, against the notebook as pyright saw it before: the broken call
// is new, at its cell and line; the notebook's old error is not.
func TestNotebookAffectedByModule(t *testing.T) {
	r, _ := projectRun(t, "pyright-langserver", map[string]string{
		"pyproject.toml": "[project]\nname = \"p\"\n",
		"util.py":        "def helper(x: int) -> int:\n    return x + 1\n",
		"analysis.ipynb": notebookJSON(t, [][3]string{
			{"markdown", "m0", "# Uses util\n"},
			{"code", "c1", "from util import helper\n"},
			{"code", "c2", "n = 1\nhelper(n)\nprint(undefined_before)\n"},
		}),
	})
	res, err := lspResult(t, r, "write", map[string]any{"path": "util.py", "content": "def helper(x: int, y: int) -> int:\n    return x + y\n"})
	if err != nil || res.IsError {
		t.Fatalf("write: %v\n%s", err, res.AllText())
	}
	out, rep := res.AllText(), res.Diagnostics
	var inNotebook []lsp.Diagnostic
	for _, d := range rep.New {
		if d.Path == "analysis.ipynb" {
			inNotebook = append(inNotebook, d)
		}
	}
	if len(inNotebook) != 1 || inNotebook[0].Cell == nil || *inNotebook[0].Cell != (ipynb.CellRef{Index: 2, ID: "c2"}) || inNotebook[0].Line != 2 ||
		!strings.Contains(inNotebook[0].Message, `"y"`) {
		t.Fatalf("the call helper(n) in cell 2 line 2 should be new (argument y missing), the old error not: new %+v\n%s", rep.New, out)
	}
	if !strings.Contains(out, `analysis.ipynb[cell 2 id=c2]:2:1: error:`) {
		t.Errorf("the report should place the error in its cell:\n%s", out)
	}
}
