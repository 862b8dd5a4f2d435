package tools_test

import "bytes"
import "encoding/json"
import "os"
import "path/filepath"
import "regexp"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/ipynb"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/kernels"
import "github.com/tetherhq/tether/kernels/std"
import "github.com/tetherhq/tether/tools"

// notebookRun is a run with eval's kernels (Debian's python3) whose
// workspace holds a copy of testdata/notebook/name under nb/.
func notebookRun(t *testing.T, name string) (*tools.Run, string) {
	t.Helper()
	requireEvalPython(t)
	dir, file := notebookDir(t, name)
	r := startRun(t, tools.Config{WorkDir: dir, Policy: tools.PolicyOf(tools.Allow),
		Eval: tools.EvalConfig{Kernels: std.NewFactory(kernels.Config{Python: evalPython}, nil)}})
	return r, file
}

// notebookDir is a new workspace holding a copy of testdata/notebook/name
// under nb/, and that copy's path.
func notebookDir(t *testing.T, name string) (dir, file string) {
	t.Helper()
	dir = t.TempDir()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "notebook", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "nb"), 0o755); err != nil {
		t.Fatal(err)
	}
	file = filepath.Join(dir, "nb", name)
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, file
}

// validateNotebook fails the test unless nbformat validates the file.
func validateNotebook(t *testing.T, file string) { testenv.ValidateNotebook(t, file) }

func parseFile(t *testing.T, file string) *ipynb.Notebook {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return testenv.ParseNotebook(t, data)
}

var editIDPattern = regexp.MustCompile(`edit_id "(edit_\d+)"`)

// accept resolves the edit a result names.
func accept(t *testing.T, r *tools.Run, res *tools.Result) {
	t.Helper()
	m := editIDPattern.FindStringSubmatch(res.Content[0].Text)
	if m == nil {
		t.Fatalf("no edit_id in:\n%s", res.Content[0].Text)
	}
	if out := callResult(t, r, "resolve", map[string]any{"edit_id": m[1], "action": "accept"}); out.IsError {
		t.Fatalf("resolve accept: %s", out.Content[0].Text)
	}
}

// TestNotebookListEditRunRead lists jakevdp's pandas notebook, edits three
// cells in one staged change, runs them in the notebook's kernel and reads
// them back; nbformat validates the file after each write, and the cells
// the change did not touch keep their bytes.
func TestNotebookListEditRunRead(t *testing.T) {
	r, file := notebookRun(t, "operations-in-pandas.ipynb")
	before := parseFile(t, file)
	list := callResult(t, r, "notebook", map[string]any{"action": "list", "path": "nb/operations-in-pandas.ipynb"})
	text := list.Content[0].Text
	for _, want := range []string{"40 cells (nbformat 4.4, python)", "[0] markdown: # Operating on Data in Pandas",
		"[3] code In[1]: import pandas as pd  -> no outputs", "[4] code In[2]: rng = np.random.default_rng(42)  -> text/plain 5 lines",
		"text/html table"} {
		if !strings.Contains(text, want) {
			t.Errorf("list lacks %q:\n%s", want, text)
		}
	}
	page := list.Structured.(*tools.NotebookPage)
	if page.Total != 40 || page.Shown != 40 || page.Next != 0 || len(page.Cells) != 40 {
		t.Errorf("list page = total %d shown %d next %d cells %d", page.Total, page.Shown, page.Next, len(page.Cells))
	}

	// Three cells in one change: edit cell 3, insert a cell after it,
	// delete the markdown cell 1.
	edit := callResult(t, r, "notebook_edit", map[string]any{"path": "nb/operations-in-pandas.ipynb", "edits": []map[string]any{
		{"op": "edit", "index": 3, "source": "import pandas as pd\nimport numpy as np\nprint('ready')"},
		{"op": "insert", "index": 4, "source": "total = 6 * 7\ntotal"},
		{"op": "delete", "index": 1},
	}})
	et := edit.Content[0].Text
	for _, want := range []string{"(proposed) 3 cell edits to nb/operations-in-pandas.ipynb (40 cells after it)",
		"    print('ready')", "insert code cell at 4:\n    total = 6 * 7",
		"@@ -0,0 +1,2 @@ cell 3\n+total = 6 * 7\n+total\n", "@@ -1,2 +1,3 @@ cell 2\n import pandas as pd\n import numpy as np\n+print('ready')\n"} {
		if !strings.Contains(et, want) {
			t.Errorf("notebook_edit lacks %q:\n%s", want, et)
		}
	}
	if strings.Contains(et, `"source": [`) || !regexp.MustCompile(`@@ -1,\d+ \+0,0 @@ cell 1`).MatchString(et) {
		t.Errorf("notebook_edit's diff should show the cells' sources (the deleted cell 1's lines too), not the JSON:\n%s", et)
	}
	if got := parseFile(t, file); len(got.Cells) != 40 {
		t.Fatalf("staging wrote the notebook: %d cells", len(got.Cells))
	}
	accept(t, r, edit)
	validateNotebook(t, file)
	after := parseFile(t, file)
	if after.Cells[2].Source != "import pandas as pd\nimport numpy as np\nprint('ready')" || after.Cells[3].Source != "total = 6 * 7\ntotal" {
		t.Fatalf("cells 2-3 after the edit: %q, %q", after.Cells[2].Source, after.Cells[3].Source)
	}
	if after.Cells[3].ID != "" {
		t.Errorf("a new cell in an nbformat 4.4 notebook got id %q", after.Cells[3].ID)
	}
	// Every cell the change did not touch keeps its bytes.
	for i := 4; i < len(after.Cells); i++ {
		if !bytes.Equal(after.Raw(i), before.Raw(i)) {
			t.Errorf("untouched cell %d (was %d) changed:\n%s", i, i, after.Raw(i))
		}
	}
	if !bytes.Equal(after.Raw(0), before.Raw(0)) || !bytes.Equal(after.Raw(1), before.Raw(2)) {
		t.Errorf("cells before the edited one changed")
	}

	run := callResult(t, r, "notebook_run", map[string]any{"path": "nb/operations-in-pandas.ipynb", "index": 2, "end": 4, "apply": true})
	rt := run.Content[0].Text
	if run.IsError || !strings.Contains(rt, "ran 3 code cells of 3 code cells") || !strings.Contains(rt, "ready") || !strings.Contains(rt, "out:\n42") {
		t.Fatalf("notebook_run:\n%s", rt)
	}
	validateNotebook(t, file)
	ran := parseFile(t, file)
	if c := ran.Cells[3]; c.ExecutionCount == nil || *c.ExecutionCount != 2 || len(c.Outputs) != 1 || c.Outputs[0].Type != "execute_result" || c.Outputs[0].Data["text/plain"] != "42" {
		t.Errorf("cell 3 after the run: count %v outputs %+v", c.ExecutionCount, c.Outputs)
	}
	if c := ran.Cells[2]; len(c.Outputs) != 1 || c.Outputs[0].Type != "stream" || c.Outputs[0].Text != "ready\n" {
		t.Errorf("cell 2 after the run: %+v", c.Outputs)
	}
	for i := 5; i < len(ran.Cells); i++ {
		if !bytes.Equal(ran.Raw(i), before.Raw(i)) {
			t.Errorf("cell %d changed by running cells 2-4", i)
		}
	}

	read := callResult(t, r, "notebook", map[string]any{"action": "read", "path": "nb/operations-in-pandas.ipynb", "start": 2, "count": 3})
	rd := read.Content[0].Text
	for _, want := range []string{"--- cell 2 [code] In[1]\nimport pandas as pd", "stdout:\nready", "--- cell 3 [code] In[2]\ntotal = 6 * 7\ntotal\nout:\n42",
		"--- cell 4 [code] In[3]\nrng = np.random.default_rng(42)", "dtype: int64",
		`(cells 2-4 of 40 shown; notebook with action "read", path "nb/operations-in-pandas.ipynb" and start 5 shows the next)`} {
		if !strings.Contains(rd, want) {
			t.Errorf("read lacks %q:\n%s", want, rd)
		}
	}
}

// TestNotebookRunLoopInterrupted runs a cell that never ends: the timeout
// interrupts it, nothing is staged or written, and the kernel keeps the
// state an earlier call left.
func TestNotebookRunLoopInterrupted(t *testing.T) {
	r, file := notebookRun(t, "empty.ipynb")
	edit := callResult(t, r, "notebook_edit", map[string]any{"path": "nb/empty.ipynb", "edits": []map[string]any{
		{"op": "edit", "index": 0, "source": "import os\nx = globals().get('x', 40) + 1\nprint(os.path.basename(os.getcwd()))\nx"},
		{"op": "insert", "source": "while True:\n    pass"},
		{"op": "insert", "source": "# A loop\nThe cell above never ends.", "cell_type": "markdown", "index": 1},
	}})
	accept(t, r, edit)
	validateNotebook(t, file)
	nb := parseFile(t, file)
	if len(nb.Cells) != 3 || nb.Cells[0].ID != "6f7028b9-4d2c-4fa2-96ee-bfa77bbee434" || !regexp.MustCompile(`^[0-9a-f]{8}$`).MatchString(nb.Cells[2].ID) || nb.Cells[1].ID == nb.Cells[2].ID {
		t.Fatalf("cells after the edit: %d, ids %q %q %q", len(nb.Cells), nb.Cells[0].ID, nb.Cells[1].ID, nb.Cells[2].ID)
	}
	res := callResult(t, r, "notebook_run", map[string]any{"path": "nb/empty.ipynb", "index": 0, "apply": true})
	if res.IsError || !strings.Contains(res.Content[0].Text, "stdout:\nnb\nout:\n41") {
		t.Fatalf("running cell 0 (in the notebook's directory, x = 41):\n%s", res.Content[0].Text)
	}
	written, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	loop := callResult(t, r, "notebook_run", map[string]any{"path": "nb/empty.ipynb", "index": 2, "timeout": 2, "apply": true})
	lt := loop.Content[0].Text
	if !loop.IsError || !strings.Contains(lt, "cell 2 was interrupted") || !strings.Contains(lt, "the notebook was left unchanged") {
		t.Errorf("the loop's result:\n%s", lt)
	}
	if loop.Structured != nil {
		t.Errorf("an interrupted run staged a change: %+v", loop.Structured)
	}
	if now, _ := os.ReadFile(file); !bytes.Equal(now, written) {
		t.Errorf("the interrupted run changed the notebook")
	}
	// The kernel kept x from the first call, through the interrupt.
	again := callResult(t, r, "notebook_run", map[string]any{"path": "nb/empty.ipynb", "index": 0})
	if again.IsError || !strings.Contains(again.Content[0].Text, "out:\n42") || !strings.Contains(again.Content[0].Text, "(proposed) the outputs") {
		t.Fatalf("running cell 0 again: %s", again.Content[0].Text)
	}
	var page tools.StagedDiff
	b, _ := json.Marshal(again.Structured)
	if err := json.Unmarshal(b, &page); err != nil || len(page.Files) != 1 || page.Files[0].Path != "nb/empty.ipynb" {
		t.Errorf("staged run: %s (%v)", b, err)
	}
}

// TestNotebookRefusals: bad input says what to do next.
func TestNotebookRefusals(t *testing.T) {
	r, _ := notebookRun(t, "empty.ipynb")
	if err := os.WriteFile(filepath.Join(r.WorkDir(), "broken.ipynb"), []byte(`{"cells": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"notebook", map[string]any{"action": "list", "path": "README.md"}, "is not an .ipynb file"},
		{"notebook", map[string]any{"action": "list", "path": "broken.ipynb"}, "not an nbformat 4 notebook: its JSON does not parse"},
		{"notebook", map[string]any{"action": "read", "path": "nb/empty.ipynb", "start": 5}, "start 5 is past the last cell"},
		{"notebook_edit", map[string]any{"path": "nb/empty.ipynb", "edits": []map[string]any{{"op": "delete", "index": 3}}}, "edits[0] (delete): index 3 is outside 0 to 0"},
		{"notebook_edit", map[string]any{"path": "nb/empty.ipynb", "edits": []map[string]any{{"op": "edit", "id": "nope"}}}, `no cell has id "nope"`},
		{"notebook_edit", map[string]any{"path": "nb/empty.ipynb", "edits": []map[string]any{{"op": "edit", "index": 0, "cell_type": "markdown"}}}, "delete it and insert a markdown cell instead"},
		{"notebook_run", map[string]any{"path": "nb/empty.ipynb"}, "say which cells to run"},
		{"notebook_run", map[string]any{"path": "nb/empty.ipynb", "index": 0, "end": 4}, "cells 0 to 4 are not in 0 to 0"},
	} {
		t.Run(tc.tool+" "+tc.want, func(t *testing.T) {
			res, err := call(t, r, tc.tool, tc.args)
			msg := ""
			switch {
			case err != nil:
				msg = err.Error()
			case res.IsError:
				msg = res.Content[0].Text
			}
			if !strings.Contains(msg, tc.want) {
				t.Errorf("%s %v = %q, %v; want an error with %q", tc.tool, tc.args, msg, res, tc.want)
			}
		})
	}
}

// TestNotebookRunFigureAndError writes a matplotlib figure as an image/png
// output that read attaches again, and stops a run at a cell that raises,
// keeping its error as its output.
func TestNotebookRunFigureAndError(t *testing.T) {
	r, file := notebookRun(t, "empty.ipynb")
	edit := callResult(t, r, "notebook_edit", map[string]any{"path": "nb/empty.ipynb", "edits": []map[string]any{
		{"op": "edit", "index": 0, "source": "import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nplt.title('rising')\nplt.show()"},
		{"op": "insert", "source": "undefined_name + 1"},
		{"op": "insert", "source": "print('not reached')"},
	}})
	accept(t, r, edit)
	res := callResult(t, r, "notebook_run", map[string]any{"path": "nb/empty.ipynb", "all": true, "apply": true})
	text := res.Content[0].Text
	if !res.IsError || !strings.Contains(text, "ran 2 code cells of 3") || !strings.Contains(text, "error: NameError") ||
		!strings.Contains(text, "(cell 1 raised, so the run stopped there: 1 code cell after it not run)") {
		t.Errorf("notebook_run all:\n%s", text)
	}
	validateNotebook(t, file)
	nb := parseFile(t, file)
	fig, bad, after := nb.Cells[0], nb.Cells[1], nb.Cells[2]
	if len(fig.Outputs) == 0 || fig.Outputs[len(fig.Outputs)-1].Type != "display_data" || fig.Outputs[len(fig.Outputs)-1].Data["image/png"] == "" {
		t.Errorf("the figure cell's outputs: %+v", fig.Outputs)
	}
	if len(bad.Outputs) != 1 || bad.Outputs[0].Type != "error" || bad.Outputs[0].EName != "NameError" || *bad.ExecutionCount != 2 {
		t.Errorf("the failing cell: count %v outputs %+v", bad.ExecutionCount, bad.Outputs)
	}
	if after.ExecutionCount != nil || len(after.Outputs) != 0 {
		t.Errorf("the cell after the failure ran: %+v", after)
	}
	list := callResult(t, r, "notebook", map[string]any{"action": "list", "path": "nb/empty.ipynb"})
	if !strings.Contains(list.Content[0].Text, "image/png") || !strings.Contains(list.Content[0].Text, "error NameError") {
		t.Errorf("list:\n%s", list.Content[0].Text)
	}
	read := callResult(t, r, "notebook", map[string]any{"action": "read", "path": "nb/empty.ipynb", "count": 1})
	if len(read.Content) != 2 || read.Content[1].Type != tools.ImageContent || !bytes.HasPrefix(read.Content[1].Data, []byte("\x89PNG")) {
		t.Errorf("read of the figure cell: %d blocks:\n%s", len(read.Content), read.Content[0].Text)
	}
}
