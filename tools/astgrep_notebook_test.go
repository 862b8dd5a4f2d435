package tools_test

import "encoding/json"
import "fmt"
import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/tools"

// notebookOctave is a notebook whose kernel's language (Octave) no
// shipped grammar reads: skipped by every search, and named.
const notebookOctave = `{"cells": [{"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [], "source": ["print(1)\n"]}],
 "metadata": {"kernelspec": {"display_name": "Octave", "language": "octave", "name": "octave"}}, "nbformat": 4, "nbformat_minor": 4}
`

// TestAstGrepNotebook: ast_grep finds Python in a notebook's code cells at
// nb.ipynb[cell N id=ID]:line:column in its text and its structured
// result, names the Octave notebook as skipped; ast_edit stages a rewrite whose
// diff shows the cells' source lines, and resolve writes a notebook that
// nbformat validates, its other cells untouched.
func TestAstGrepNotebook(t *testing.T) {
	nbText, err := os.ReadFile("../testdata/notebook/magics-and-unicode.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	r, dir := structuralRun(t, tools.SurfaceDefault, map[string]string{
		"nb/magics.ipynb": string(nbText), "nb/o.ipynb": notebookOctave, "main.py": "print(0)\n",
		"nb/long.ipynb": `{"cells":[{"cell_type":"code","execution_count":null,"id":"loop","metadata":{},"outputs":[],"source":"for i in range(3):\n    a = i\n    b = a\n    c = b\n"}],"metadata":{},"nbformat":4,"nbformat_minor":5}`,
	})
	res := callResult(t, r, "ast_grep", `{"pattern":"print($$$A)","language":"python"}`)
	txt := res.AllText()
	testenv.WantAll(t, "result", txt,
		"5 matches in 2 of 3 files searched; skipped 1 (1 notebook: nb/o.ipynb (kernel language octave, which no shipped grammar reads))",
		"\nnb/magics.ipynb[cell 3 id=timed]:3:1-3:30\n    print(\"say \\\"hi\\\" to\", names)\n",
		"\nnb/magics.ipynb[cell 5 id=frame]:3:1-3:27\n    print(df[\"Größe\"].sum())\n",
		"\nmain.py:1:1-1:9\n",
	)
	// a match longer than 3 lines says how to read its cell
	long := callResult(t, r, "ast_grep", `{"pattern":"for $N in $L: $$$B","language":"python","path":"nb/long.ipynb"}`)
	if txt := long.AllText(); !strings.Contains(txt, "nb/long.ipynb[cell 0 id=loop]:1:1-4:10\n    for i in range(3):\n    ... (3 more lines, to line 4)") ||
		!strings.Contains(txt, `notebook with action "read", start the cell's index and count 1 shows the cell`) {
		t.Errorf("a long match in a cell:\n%s", txt)
	}
	st := structuredBytes(t, res)
	var got tools.AstGrepResult
	if err := json.Unmarshal(st, &got); err != nil {
		t.Fatal(err)
	}
	if m := got.Matches[2]; m.File != "nb/magics.ipynb" || m.Cell == nil || m.Cell.Index != 3 || m.Cell.ID != "timed" || m.Start.Line != 3 || m.End.Column != 30 {
		t.Errorf("structured match %+v (cell %+v)", m, m.Cell)
	}
	if !strings.Contains(string(st), `"cell":{"index":3,"id":"timed"},"range":"3:1-3:30"`) {
		t.Errorf("structured result lacks the cell and its range:\n%s", st)
	}

	res = callResult(t, r, "ast_edit", `{"pattern":"print($$$A)","rewrite":"log.info($$$A)","language":"python","path":"nb"}`)
	txt = res.AllText()
	testenv.WantAll(t, "ast_edit result", txt,
		"(proposed) 4 replacements in 1 file",
		"--- a/nb/magics.ipynb\n+++ b/nb/magics.ipynb\n@@ -1,3 +1,3 @@ cell 2 id=shell\n !pip install tabulate\n files = !ls data\n-print(len(files))\n+log.info(len(files))\n",
		"@@ -1,6 +1,6 @@ cell 3 id=timed\n",
	)
	if strings.Contains(txt, `"source"`) {
		t.Errorf("the diff shows JSON:\n%s", txt)
	}
	if sd := structured[*tools.StagedDiff](t, res); len(sd.Files) != 1 || sd.Files[0].Added != 4 || sd.Files[0].Removed != 4 {
		t.Errorf("staged files %+v", sd.Files)
	}
	if _, err := call(t, r, "resolve", `{"edit_id":"edit_1","action":"accept"}`); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "nb/magics.ipynb")
	validateNotebook(t, path)
	changed, a := testenv.ChangedCellsOf(t, nbText, path)
	if fmt.Sprint(changed) != "[2 3 5]" {
		t.Errorf("cells %v changed, want those with a print: 2, 3 and 5", changed)
	}
	if src := a.Cells[3].Source; !strings.Contains(src, "log.info(\"say \\\"hi\\\" to\", names)\n") || !strings.HasPrefix(src, "%%time\n") {
		t.Errorf("cell 3 after the edit: %q", src)
	}
}
