package testenv

import "bytes"
import "os"
import "os/exec"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/ipynb"
import "github.com/tetherhq/tether/internal/proc"

// NotebookPython is the interpreter whose nbformat validates notebooks:
// Debian's python3, which scripts/install-deps.sh gives python3-nbformat.
const NotebookPython = "/usr/bin/python3"

// ValidateNotebook fails the test unless nbformat validates the notebook
// file; without nbformat it is Missing.
func ValidateNotebook(t testing.TB, file string) {
	t.Helper()
	cmd := exec.Command(NotebookPython, "-c", "import nbformat,sys; nbformat.validate(nbformat.read(sys.argv[1], as_version=4))", file)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := proc.Run(cmd); err != nil {
		if strings.Contains(out.String(), "No module named 'nbformat'") {
			Missing(t, "python3-nbformat")
		}
		t.Fatalf("nbformat does not validate %s: %v\n%s", file, err, out.Bytes())
	}
}

// ParseNotebook parses a notebook's JSON text, failing t when it does not
// parse.
func ParseNotebook(t testing.TB, data []byte) *ipynb.Notebook {
	t.Helper()
	nb, err := ipynb.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return nb
}

// ChangedCellsOf is ChangedCells of before and the notebook file at path
// as it is now.
func ChangedCellsOf(t testing.TB, before []byte, path string) ([]int, *ipynb.Notebook) {
	t.Helper()
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return ChangedCells(t, before, after)
}

// ChangedCells returns the indexes of the cells whose JSON text differs
// between two versions of a notebook with as many cells, and the second
// version parsed.
func ChangedCells(t testing.TB, before, after []byte) ([]int, *ipynb.Notebook) {
	t.Helper()
	b, a := ParseNotebook(t, before), ParseNotebook(t, after)
	if len(a.Cells) != len(b.Cells) {
		t.Fatalf("the notebook has %d cells, it had %d", len(a.Cells), len(b.Cells))
	}
	var changed []int
	for i := range b.Cells {
		if !bytes.Equal(a.Raw(i), b.Raw(i)) {
			changed = append(changed, i)
		}
	}
	return changed, a
}
