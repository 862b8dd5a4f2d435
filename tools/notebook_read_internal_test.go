package tools

import "testing"

import "github.com/tetherhq/tether/internal/ipynb"

// An error's traceback is shown without IPython's terminal colour codes.
func TestReadCellStripsTracebackColours(t *testing.T) {
	c := ipynb.Cell{Type: "code", Source: "1/0", Outputs: []ipynb.Output{{
		Type: "error", EName: "ZeroDivisionError", EValue: "division by zero",
		Traceback: []string{"\x1b[0;31m---------\x1b[0m", "\x1b[0;31mZeroDivisionError\x1b[0m: division by zero"},
	}}}
	got, _ := readCell(0, c, 0)
	want := "--- cell 0 [code]\n1/0\nerror: ZeroDivisionError: division by zero\n---------\nZeroDivisionError: division by zero\n"
	if got != want {
		t.Errorf("readCell = %q, want %q", got, want)
	}
}
