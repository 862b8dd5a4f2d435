package ipynb_test

import "testing"

import "github.com/tetherhq/tether/internal/ipynb"

func TestBlankIPython(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"plain Python is kept", "x = 1\nprint(x)\n", "x = 1\nprint(x)\n"},
		{"line magic and shell escape", "%matplotlib inline\n!pip install pandas\nimport pandas\n",
			"...               \n...                \nimport pandas\n"},
		{"indented escape stays a statement", "if x:\n    !ls -l\n", "if x:\n    ...   \n"},
		{"short escape is blanked", "%a\nx = 1", "  \nx = 1"},
		{"help lines", "len?\n??print\nobj.attr??  \n", "... \n...    \n...         \n"},
		{"assignment from a shell escape", "files = !ls *.csv\nn = len(files)\n", "files = []       \nn = len(files)\n"},
		{"assignment from a magic", "here = %pwd\nt = %timeit -o f()\n", "here = []  \nt = [][0]         \n"},
		{"a cell magic blanks the cell", "\n%%bash\necho hi\nls\n", "\n      \n       \n  \n"},
		{"a Python-bodied cell magic keeps its body", "%%time\nx = f()\n", "      \nx = f()\n"},
		{"modulo continuation in brackets is Python", "y = (a\n     % b)\n", "y = (a\n     % b)\n"},
		{"percent lines in a string are kept", "s = \"\"\"\n%not a magic\n!nor this\n\"\"\"\n", "s = \"\"\"\n%not a magic\n!nor this\n\"\"\"\n"},
		{"continuation after a backslash is kept", "z = 1 + \\\n  %2\n", "z = 1 + \\\n  %2\n"},
		{"CRLF line ends are kept", "%cd x\r\ny = 1\r\n", "...  \r\ny = 1\r\n"},
		{"comparison is not help", "a == b\n", "a == b\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ipynb.BlankIPython(tc.src)
			if got != tc.want {
				t.Errorf("BlankIPython(%q)\n = %q\nwant %q", tc.src, got, tc.want)
			}
			if len(got) != len(tc.src) {
				t.Errorf("length %d, want %d (offsets must hold)", len(got), len(tc.src))
			}
		})
	}
}

func TestProgramPlacesLinesInCells(t *testing.T) {
	data := []byte(`{"cells": [
 {"cell_type": "code", "id": "a", "metadata": {}, "execution_count": null, "outputs": [], "source": ["import os\n", "%cd /tmp\n", "os.getcwd()"]},
 {"cell_type": "markdown", "id": "m", "metadata": {}, "source": ["# notes"]},
 {"cell_type": "code", "id": "b", "metadata": {}, "execution_count": null, "outputs": [], "source": ["if x:\n", "    y = 1\n", "else:\n", "    y\n", "y"]},
 {"cell_type": "code", "id": "c", "metadata": {}, "execution_count": null, "outputs": [], "source": []}
], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`)
	nb, err := ipynb.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	p := nb.Program("def display(*a): ...\n")
	want := "def display(*a): ...\nimport os\n...     \nos.getcwd()\nif x:\n    y = 1\nelse:\n    y\ny\n"
	if p.Text != want || p.Prelude != 1 {
		t.Fatalf("Program text %q (prelude %d), want %q (prelude 1)", p.Text, p.Prelude, want)
	}
	for _, tc := range []struct {
		line, cellLine int
		cell           ipynb.CellRef
		ok, last       bool
	}{
		{line: 1}, // the prelude
		{2, 1, ipynb.CellRef{Index: 0, ID: "a"}, true, false},
		{4, 3, ipynb.CellRef{Index: 0, ID: "a"}, true, true},
		{7, 3, ipynb.CellRef{Index: 2, ID: "b"}, true, false}, // else: goes on the if
		{8, 4, ipynb.CellRef{Index: 2, ID: "b"}, true, false},
		{9, 5, ipynb.CellRef{Index: 2, ID: "b"}, true, true},
		{line: 10}, // past the end
	} {
		cell, cellLine, ok := p.Place(tc.line)
		if ok != tc.ok || cell != tc.cell || cellLine != tc.cellLine || p.InLastStatement(tc.line) != tc.last {
			t.Errorf("line %d: %v line %d ok %v last %v; want %v line %d ok %v last %v", tc.line, cell, cellLine, ok, p.InLastStatement(tc.line), tc.cell, tc.cellLine, tc.ok, tc.last)
		}
	}
	// await in a def's body, not at a cell's top level nor in its loops.
	fp := (&ipynb.Notebook{Cells: []ipynb.Cell{{Type: "code", Source: "for i in x:\n    await f()\ndef g():\n    if y:\n\n        await f()\nawait f()\n"}}}).Program("")
	for line, want := range map[int]bool{1: false, 2: false, 4: true, 6: true, 7: false} {
		if got := fp.InFunction(line); got != want {
			t.Errorf("InFunction(%d) = %v, want %v in\n%s", line, got, want, fp.Text)
		}
	}
	if got := ipynb.Where("nb.ipynb", &ipynb.CellRef{Index: 2, ID: "b"}); got != "nb.ipynb[cell 2 id=b]" {
		t.Errorf("Where = %q", got)
	}
	if got := ipynb.Where("nb.ipynb", &ipynb.CellRef{Index: 12}); got != "nb.ipynb[cell 12]" {
		t.Errorf("Where without an id = %q", got)
	}
}
