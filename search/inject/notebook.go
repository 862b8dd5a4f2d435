package inject

import "bytes"
import "cmp"
import "fmt"
import "path/filepath"
import "strings"

import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/internal/ipynb"

// A Jupyter notebook (.ipynb) is a host whose regions are its code cells.
// A cell's code is no contiguous text of the file: it is a JSON string, or
// a list of them, with escapes. So a cell is decoded (ipynb), searched as
// the notebook's language, and a match is placed in the cell (its index,
// id and the line and column in its source) rather than at file offsets;
// a rewrite writes the cell's new source back with ipynb.SetSource.

// NotebookLanguage is the language of a notebook that names none: Python,
// as Jupyter's default kernel is.
const NotebookLanguage = "python"

// IsNotebook reports whether path names a Jupyter notebook (.ipynb).
func IsNotebook(path string) bool {
	return strings.EqualFold(filepath.Ext(path), ".ipynb")
}

// Cell is one code cell of a notebook as a region.
type Cell struct {
	// Index is the cell's 0-based position among all the notebook's
	// cells (as the notebook tools number them); ID its nbformat 4.5 id,
	// "" before 4.5.
	Index int
	ID    string
	// Source is the cell's code as the notebook holds it, decoded; Text is
	// what is parsed: Source with its IPython lines made comments
	// (BlankIPython), of the same length and line breaks, so that offsets
	// in Text are offsets in Source.
	Source []byte
	Text   []byte
}

// NotebookLanguageError is NotebookCells' error for a notebook whose
// kernel is not in the language asked for.
type NotebookLanguageError struct {
	// Kernel is the language the notebook names, Want the one asked for;
	// KernelID is the grammar of Kernel, "" when none is shipped.
	Kernel, KernelID, Want string
}

func (e *NotebookLanguageError) Error() string {
	return fmt.Sprintf("inject: the notebook's kernel language is %s, not %s", e.Kernel, e.Want)
}

// NotebookKernel returns the grammar id of nb's kernel language (Python
// when it names none), or "" when no shipped grammar reads it. A
// versioned name ("C++17") is looked up without its version too.
func NotebookKernel(nb *ipynb.Notebook) string {
	if nb.Language == "" {
		return NotebookLanguage
	}
	name := strings.ToLower(strings.TrimSpace(nb.Language))
	if l, ok := grammars.Lookup(name); ok {
		return l.ID
	}
	if l, ok := grammars.Lookup(strings.TrimRight(name, "0123456789")); ok {
		return l.ID
	}
	return ""
}

// NotebookCells parses the notebook src and returns it with its code
// cells, when its kernel's language is lang (NotebookKernel). A Python
// notebook's IPython lines are blanked (BlankIPython); another kernel's
// cells are its language as they stand. It fails, wrapping
// ipynb.ErrNotNotebook, for text that is no nbformat 4 notebook, and with
// a *NotebookLanguageError for one of another language.
func NotebookCells(src []byte, lang string) (*ipynb.Notebook, []Cell, error) {
	nb, err := ipynb.Parse(src)
	if err != nil {
		return nil, nil, err
	}
	kernel := NotebookKernel(nb)
	if kernel != lang {
		return nil, nil, &NotebookLanguageError{Kernel: cmp.Or(nb.Language, NotebookLanguage), KernelID: kernel, Want: lang}
	}
	return nb, codeCells(nb, kernel), nil
}

// KernelCells parses the notebook src and returns it with the grammar id
// of its kernel's language (NotebookKernel) and its code cells in that
// language, as NotebookCells does; a kernel no shipped grammar reads is a
// *NotebookLanguageError.
func KernelCells(src []byte) (*ipynb.Notebook, string, []Cell, error) {
	nb, err := ipynb.Parse(src)
	if err != nil {
		return nil, "", nil, err
	}
	kernel := NotebookKernel(nb)
	if kernel == "" {
		return nil, "", nil, &NotebookLanguageError{Kernel: nb.Language}
	}
	return nb, kernel, codeCells(nb, kernel), nil
}

// codeCells are nb's code cells, in language kernel.
func codeCells(nb *ipynb.Notebook, kernel string) []Cell {
	var cells []Cell
	for i, c := range nb.Cells {
		if c.Type != "code" {
			continue
		}
		s := []byte(c.Source)
		text := s
		if kernel == NotebookLanguage {
			text = BlankIPython(s)
		}
		cells = append(cells, Cell{Index: i, ID: c.ID, Source: s, Text: text})
	}
	return cells
}

// BlankIPython returns a copy of a cell's source with every line of IPython
// syntax (ipynb.ClassifyIPython) made a comment (its first character "#",
// or "#" and spaces for a character of several bytes), so that the rest
// parses as Python at the same offsets and line breaks, and a rewrite
// whose capture spans the line (a comment is a node) keeps it. Every line
// of a cell that starts with a cell magic whose body is not Python is made
// a comment; a line inside brackets or a string is Python and kept.
func BlankIPython(src []byte) []byte {
	out := bytes.Clone(src)
	lines := strings.SplitAfter(string(src), "\n")
	at := 0
	for i, k := range ipynb.ClassifyIPython(lines) {
		if k.Kind != ipynb.PythonLine {
			comment(out[at : at+len(strings.TrimSuffix(lines[i], "\n"))])
		}
		at += len(lines[i])
	}
	return out
}

// comment makes line a Python comment: its first character that is not a
// blank becomes "#" (followed by spaces for the rest of its bytes).
func comment(line []byte) {
	i := bytes.IndexFunc(line, func(r rune) bool { return r != ' ' && r != '\t' && r != '\r' })
	if i < 0 {
		return
	}
	line[i] = '#'
	for k := i + 1; k < len(line) && line[k]&0xC0 == 0x80; k++ {
		line[k] = ' '
	}
}
