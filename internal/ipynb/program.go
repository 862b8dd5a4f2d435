package ipynb

import "strconv"
import "strings"

// CellRef names a notebook's cell: its 0-based index among the notebook's
// cells (as the notebook tools number them) and its id when it has one
// (nbformat 4.5).
type CellRef struct {
	Index int    `json:"index"`
	ID    string `json:"id,omitempty"`
}

// String names the cell as the notebook tools do: "cell 3 id=a1b2", or
// "cell 3" when it has no id.
func (c CellRef) String() string {
	if c.ID == "" {
		return "cell " + strconv.Itoa(c.Index)
	}
	return "cell " + strconv.Itoa(c.Index) + " id=" + c.ID
}

// Where names a place in the file at path: path itself, or for a cell of
// a notebook "nb.ipynb[cell 3 id=a1b2]", to which ":line:column" in the
// cell's source may be added.
func Where(path string, c *CellRef) string {
	if c == nil {
		return path
	}
	return path + "[" + c.String() + "]"
}

// Program is a notebook's code cells as one Python program, in order,
// each with its IPython syntax blanked (BlankIPython), after a prelude of
// Prelude lines: what a checker reads to check the notebook as run from
// the top.
type Program struct {
	// Text is the prelude and the cells' code, each cell ending in a
	// newline.
	Text string
	// Prelude is how many lines of Text come before the first cell.
	Prelude int
	cells   []programCell
}

type programCell struct {
	ref   CellRef
	first int // Text's 0-based line where the cell starts
	lines int
	last  int // the cell's 0-based line where its last top-level statement starts, -1 without one
}

// Program is nb's code cells as one program after prelude (ending in a
// newline, or empty).
func (nb *Notebook) Program(prelude string) *Program {
	var b strings.Builder
	b.WriteString(prelude)
	p := &Program{Prelude: strings.Count(prelude, "\n")}
	line := p.Prelude
	for i, c := range nb.Cells {
		if c.Type != "code" {
			continue
		}
		src := BlankIPython(c.Source)
		if src != "" && !strings.HasSuffix(src, "\n") {
			src += "\n"
		}
		n := strings.Count(src, "\n")
		p.cells = append(p.cells, programCell{ref: CellRef{Index: i, ID: c.ID}, first: line, lines: n, last: lastStatement(src)})
		b.WriteString(src)
		line += n
	}
	p.Text = b.String()
	return p
}

// cellOf is the cell that line, 1-based in Text, is in; nil for a line of
// the prelude or past the end.
func (p *Program) cellOf(line int) *programCell {
	for i, c := range p.cells {
		if line-1 >= c.first && line-1 < c.first+c.lines {
			return &p.cells[i]
		}
	}
	return nil
}

// Place maps line, 1-based in Text, to its cell and its 1-based line in
// the cell's source; ok is false for a line of the prelude or past the end.
func (p *Program) Place(line int) (cell CellRef, cellLine int, ok bool) {
	c := p.cellOf(line)
	if c == nil {
		return CellRef{}, 0, false
	}
	return c.ref, line - c.first, true
}

// InLastStatement reports whether line, 1-based in Text, is in the last
// top-level statement of its cell: the one whose value Jupyter shows.
func (p *Program) InLastStatement(line int) bool {
	c := p.cellOf(line)
	return c != nil && c.last >= 0 && line-1-c.first >= c.last
}

// InFunction reports whether line, 1-based in Text, is in the body of a
// function defined in its cell, as the indentation of the lines before
// it tells: IPython runs a cell's top level as a coroutine (await there
// is valid), not a function's body.
func (p *Program) InFunction(line int) bool {
	c := p.cellOf(line)
	if c == nil {
		return false
	}
	lines := strings.Split(p.Text, "\n")
	indent := len(lines[line-1]) - len(strings.TrimLeft(lines[line-1], " \t"))
	for l := line - 2; l >= c.first && indent > 0; l-- {
		t := strings.TrimLeft(lines[l], " \t")
		if t == "" || t[0] == '#' {
			continue
		}
		if in := len(lines[l]) - len(t); in < indent {
			if strings.HasPrefix(t, "def ") || strings.HasPrefix(t, "async def ") {
				return true
			}
			indent = in
		}
	}
	return false
}

// clauses are the keywords that go on a compound statement.
var clauses = map[string]bool{"else": true, "elif": true, "except": true, "except*": true, "finally": true}

// lastStatement is the 0-based line where src's last top-level statement
// starts, -1 when it has none.
func lastStatement(src string) int {
	last := -1
	var sc LineScanner
	for i, line := range strings.Split(src, "\n") {
		if sc.AtLogicalStart() {
			t := strings.TrimSpace(line)
			word, _, _ := strings.Cut(strings.TrimRight(t, ":"), " ")
			if t != "" && !strings.HasPrefix(t, "#") && line[0] != ' ' && line[0] != '\t' && !clauses[word] {
				last = i
			}
		}
		sc.Scan(line)
	}
	return last
}
