package tools_test

import "slices"
import "strings"
import "testing"

import "github.com/tetherhq/tether/tools"

// TestNotebookWithoutKernels: a run with no kernel factory (nor parser,
// language servers or workers) lists notebook, notebook_edit and resolve,
// not notebook_run; an edit staged there is written by resolve; a plan
// surface lists notebook alone of them.
func TestNotebookWithoutKernels(t *testing.T) {
	dir, file := notebookDir(t, "operations-in-pandas.ipynb")
	r := startRun(t, tools.Config{WorkDir: dir, Policy: tools.PolicyOf(tools.Allow)})
	names := toolNames(r)
	for _, want := range []string{"notebook", "notebook_edit", "resolve"} {
		if !slices.Contains(names, want) {
			t.Errorf("a run without kernels lists %v, lacking %s", names, want)
		}
	}
	if slices.Contains(names, "notebook_run") || slices.Contains(names, "eval") {
		t.Errorf("a run without kernels lists %v: notebook_run and eval need a kernel factory", names)
	}
	if fams := r.Families(); !slices.Contains(fams, "notebook") || slices.Contains(fams, "notebook_run") {
		t.Errorf("families = %v, want notebook and not notebook_run", fams)
	}
	if _, err := call(t, r, "notebook_run", map[string]any{"path": "nb/operations-in-pandas.ipynb", "all": true}); err == nil {
		t.Error("notebook_run was called in a run without kernels")
	}

	edit := callResult(t, r, "notebook_edit", map[string]any{"path": "nb/operations-in-pandas.ipynb", "edits": []map[string]any{
		{"op": "edit", "index": 3, "source": "import pandas as pd\nimport numpy as np\nprint('ready')"},
		{"op": "insert", "index": 4, "source": "total = 6 * 7\ntotal"},
	}})
	if edit.IsError || !strings.Contains(edit.Content[0].Text, "(proposed) 2 cell edits to nb/operations-in-pandas.ipynb (41 cells after it)") {
		t.Fatalf("notebook_edit:\n%s", edit.AllText())
	}
	accept(t, r, edit)
	validateNotebook(t, file)
	after := parseFile(t, file)
	if len(after.Cells) != 41 || after.Cells[3].Source != "import pandas as pd\nimport numpy as np\nprint('ready')" || after.Cells[4].Source != "total = 6 * 7\ntotal" {
		t.Errorf("after resolve: %d cells, cell 3 %q, cell 4 %q", len(after.Cells), after.Cells[3].Source, after.Cells[4].Source)
	}
	read := callResult(t, r, "notebook", map[string]any{"action": "read", "path": "nb/operations-in-pandas.ipynb", "start": 4, "count": 1})
	if !strings.Contains(read.Content[0].Text, "--- cell 4 [code]\ntotal = 6 * 7\ntotal") {
		t.Errorf("read after the edit:\n%s", read.Content[0].Text)
	}

	plan := startRun(t, tools.Config{WorkDir: dir, Surface: tools.SurfacePlan})
	if got := toolNames(plan); !slices.Contains(got, "notebook") || slices.Contains(got, "notebook_edit") || slices.Contains(got, "resolve") {
		t.Errorf("plan surface lists %v: want notebook, not notebook_edit or resolve", got)
	}
}
