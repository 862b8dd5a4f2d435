package inject_test

import "context"
import "errors"
import "strings"
import "testing"

import "github.com/tetherhq/tether/engine/enginetest"
import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/internal/ipynb"
import "github.com/tetherhq/tether/search/inject"

// TestBlankIPython: lines of IPython syntax are made comments of the same
// length, Python lines (a "%" or "!=" that continues an expression among
// them, a "%" line inside a string) are kept, and the text parses as Python without an error.
func TestBlankIPython(t *testing.T) {
	p := enginetest.Engine(t)
	py, _ := grammars.Lookup("python")
	cases := []struct{ name, src, want string }{
		{"line magic", "%matplotlib inline\nimport numpy as np\n", "#matplotlib inline\nimport numpy as np\n"},
		{"shell and assignment", "!pip install x\nfiles = !ls\nn = len(files)\n", "#pip install x\n#iles = !ls\nn = len(files)\n"},
		{"help", "np.sum?\n?np\nnp.mean??\nx = 1\n", "#p.sum?\n#np\n#p.mean??\nx = 1\n"},
		{"indented magic", "for i in range(3):\n    %time f(i)\n    g(i)\n", "for i in range(3):\n    #time f(i)\n    g(i)\n"},
		{"python cell magic", "%%time\nx = [é for é in \"ab\"]\n", "#%time\nx = [é for é in \"ab\"]\n"},
		{"non-python cell magic", "%%bash\necho \"hi\"\n\n  ébc\n", "#%bash\n#cho \"hi\"\n\n  # bc\n"},
		{"modulo and not-equal continue a line", "y = (a\n     % b\n     != c)\n", "y = (a\n     % b\n     != c)\n"},
		{"python", "def f(x):\n    return x % 2\n", "def f(x):\n    return x % 2\n"},
		{"string and brackets are python", "s = \"\"\"\n%not a magic\n!nor a shell\n\"\"\"\nt = [\n    1,\n]\n", "s = \"\"\"\n%not a magic\n!nor a shell\n\"\"\"\nt = [\n    1,\n]\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := string(inject.BlankIPython([]byte(c.src)))
			if got != c.want {
				t.Fatalf("blanked %q, want %q", got, c.want)
			}
			tree, err := p.Parse(context.Background(), py, []byte(got))
			if err != nil {
				t.Fatal(err)
			}
			if tree.HasError() {
				t.Errorf("%q does not parse as python", got)
			}
		})
	}
}

// TestNotebookCells: the code cells of a notebook, with their indexes
// among all cells and their ids; a notebook of another kernel language and
// one that is not a notebook fail, each with its error.
func TestNotebookCells(t *testing.T) {
	nb := `{"cells": [{"cell_type": "markdown", "id": "m", "metadata": {}, "source": "# x"},
 {"cell_type": "code", "execution_count": null, "id": "c1", "metadata": {}, "outputs": [], "source": ["%time x = 1\n", "y = \"\u00e9\"\n"]}],
 "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}`
	_, cells, err := inject.NotebookCells([]byte(nb), "python")
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 1 || cells[0].Index != 1 || cells[0].ID != "c1" || string(cells[0].Source) != "%time x = 1\ny = \"é\"\n" ||
		string(cells[0].Text) != "#time x = 1\ny = \"é\"\n" {
		t.Errorf("cells %+v", cells)
	}
	r := strings.Replace(nb, `"language_info": {"name": "python"}`, `"kernelspec": {"language": "julia"}`, 1)
	var le *inject.NotebookLanguageError
	if _, _, err := inject.NotebookCells([]byte(r), "python"); !errors.As(err, &le) || le.Kernel != "julia" {
		t.Errorf("a julia notebook: %v", err)
	}
	if _, _, err := inject.NotebookCells([]byte(`{"cells": [`), "python"); !errors.Is(err, ipynb.ErrNotNotebook) {
		t.Errorf("text that is no notebook: %v", err)
	}
}
