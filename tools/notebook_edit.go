package tools

import "context"
import "fmt"
import "strconv"
import "strings"

import "github.com/tetherhq/tether/internal/ipynb"
import "github.com/tetherhq/tether/search"

// notebookEditArgs are notebook_edit's arguments.
type notebookEditArgs struct {
	Path  string          `json:"path" jsonschema:"workspace-relative .ipynb file" bounds:"minLength=1"`
	Edits []notebookOpArg `json:"edits" jsonschema:"the changes, applied in order, each to the cells as the ones before it left them; staged together as one change" bounds:"minItems=1,maxItems=100"`
}

func (notebookEditArgs) exactText() {}

// notebookOpArg is one of notebook_edit's edits.
type notebookOpArg struct {
	Op       string `json:"op" jsonschema:"edit: replace a cell's source; insert: add a cell at index (the end when index is omitted); delete: remove a cell; move: move a cell to index to" bounds:"enum=edit|insert|delete|move"`
	Index    *int   `json:"index,omitempty" jsonschema:"the cell's 0-based index as notebook list numbers it (after the edits before this one); for insert, the index the new cell takes"`
	ID       string `json:"id,omitempty" jsonschema:"the cell's id (nbformat 4.5), instead of index, for edit, delete and move"`
	Source   string `json:"source,omitempty" jsonschema:"the cell's new source (edit, insert)"`
	CellType string `json:"cell_type,omitempty" jsonschema:"insert: code (default), markdown or raw" bounds:"enum=code|markdown|raw"`
	To       *int   `json:"to,omitempty" jsonschema:"move: the 0-based index the cell takes once moved"`
}

// nbCell is a cell while notebook_edit's edits are applied: one of the
// notebook's (orig >= 0) or a new one.
type nbCell struct {
	orig    int // index in the notebook as read, -1 for a new cell
	id, typ string
	source  string
	edited  bool
}

func (nt *notebookTools) editTool() Tool {
	return Typed(Tool{
		Name: "notebook_edit",
		Tier: TierWrite,
		Description: "Change a Jupyter notebook's cells as one staged change: edits is a list of {op, index or id, source, cell_type, to}, " +
			"op edit (replace a cell's source), insert (a new cell at index, the end without), delete, move (to index to), applied in order. " +
			"Nothing is written: the result names an edit_id and shows the changed cells' sources and the diff; resolve accept writes it, all or nothing " +
			"(rejected if the notebook changed since). Untouched cells, outputs, metadata and indentation are kept byte for byte; new cells get ids from nbformat 4.5.",
	}, nt.edit)
}

func (nt *notebookTools) edit(ctx context.Context, call *Call, a notebookEditArgs) (*Result, *StagedDiff, error) {
	nb, real, rel, err := nt.open(a.Path)
	if err != nil {
		return nil, nil, err
	}
	cells := make([]nbCell, len(nb.Cells))
	ids := map[string]bool{}
	for i, c := range nb.Cells {
		cells[i] = nbCell{orig: i, id: c.ID, typ: c.Type, source: c.Source}
		ids[c.ID] = true
	}
	var log []string
	for k, op := range a.Edits {
		var line string
		cells, line, err = applyNotebookOp(nb, cells, op, ids)
		if err != nil {
			return nil, nil, fmt.Errorf("tools: notebook_edit: edits[%d] (%s): %w; nothing was staged", k, op.Op, err)
		}
		log = append(log, line)
	}
	texts := make([][]byte, len(cells))
	for i, c := range cells {
		switch {
		case c.orig < 0:
			id := c.id
			if strings.HasPrefix(id, newCellKey) {
				id = ""
			}
			if texts[i], err = nb.NewCell(c.typ, c.source, id); err != nil {
				return nil, nil, fmt.Errorf("tools: notebook_edit: %w; nothing was staged", err)
			}
		case c.edited:
			if texts[i], err = nb.SetSource(c.orig, c.source); err != nil {
				return nil, nil, fmt.Errorf("tools: notebook_edit: %w; nothing was staged", err)
			}
		default:
			texts[i] = nb.Raw(c.orig)
		}
	}
	updated := nb.WithCells(texts)
	if _, err := ipynb.Parse(updated); err != nil {
		return nil, nil, fmt.Errorf("tools: notebook_edit: the edited notebook would not parse (%v); nothing was staged", err)
	}
	plan := &search.Plan{Source: "notebook_edit", Replacements: len(a.Edits),
		Changes: []search.FileChange{{Path: real, Display: rel, Old: nb.Text(), New: updated, Replacements: len(a.Edits),
			Cells: cellChanges(nb, cells)}}}
	id, dropped := nt.run.stager().StageDropping(plan)
	var b strings.Builder
	fmt.Fprintf(&b, "(proposed) %s to %s (%s after it); nothing written yet: call resolve with edit_id %q and action \"accept\" to write it or \"discard\" to drop it\n",
		plural(len(a.Edits), "cell edit"), rel, plural(len(cells), "cell"), id)
	for _, l := range log {
		b.WriteString(l)
	}
	b.WriteString(droppedNote(dropped))
	return stagedResult(b.String(), id, plan, "", 0)
}

// cellChanges is what the edit does to the cells' sources, for the diff
// (search.FileChange.Cells): an edited or inserted cell under its index
// after the edit, then each deleted cell under its index before it. A
// move changes no source: the summary says it.
func cellChanges(nb *ipynb.Notebook, cells []nbCell) []search.CellChange {
	var out []search.CellChange
	kept := make([]bool, len(nb.Cells))
	for i, c := range cells {
		id := c.id
		if strings.HasPrefix(id, newCellKey) {
			id = ""
		}
		switch {
		case c.orig < 0:
			out = append(out, search.CellChange{Cell: search.Cell{Index: i, ID: id}, New: c.source})
		case c.edited:
			kept[c.orig] = true
			out = append(out, search.CellChange{Cell: search.Cell{Index: i, ID: id}, Old: nb.Cells[c.orig].Source, New: c.source})
		default:
			kept[c.orig] = true
		}
	}
	for j, c := range nb.Cells {
		if !kept[j] {
			out = append(out, search.CellChange{Cell: search.Cell{Index: j, ID: c.ID}, Old: c.Source})
		}
	}
	return out
}

// applyNotebookOp applies op to cells, and says what it did in a few
// lines (the source it wrote, indented).
func applyNotebookOp(nb *ipynb.Notebook, cells []nbCell, op notebookOpArg, ids map[string]bool) ([]nbCell, string, error) {
	if op.Op == "insert" {
		at := len(cells)
		if op.Index != nil {
			at = *op.Index
		}
		if at < 0 || at > len(cells) {
			return nil, "", fmt.Errorf("index %d is outside 0 to %d (the notebook has %s at this point)", at, len(cells), plural(len(cells), "cell"))
		}
		typ := op.CellType
		if typ == "" {
			typ = "code"
		}
		if typ != "code" && typ != "markdown" && typ != "raw" {
			return nil, "", fmt.Errorf("cell_type %q is not code, markdown or raw", typ)
		}
		id := nb.NewID(ids)
		if id == "" {
			// Before nbformat 4.5 cells have no id: a key only this call
			// uses, which no op can name.
			id = newCellKey + strconv.Itoa(len(ids))
			ids[id] = true
		}
		cells = append(cells[:at], append([]nbCell{{orig: -1, id: id, typ: typ, source: op.Source}}, cells[at:]...)...)
		return cells, fmt.Sprintf("insert %s cell at %d%s:\n%s", typ, at, idNote(id), indentSource(op.Source)), nil
	}
	i, err := findCell(cells, op)
	if err != nil {
		return nil, "", err
	}
	switch op.Op {
	case "edit":
		if op.CellType != "" && op.CellType != cells[i].typ {
			return nil, "", fmt.Errorf("cell %d is a %s cell: edit keeps a cell's type; delete it and insert a %s cell instead", i, cells[i].typ, op.CellType)
		}
		cells[i].source, cells[i].edited = op.Source, true
		return cells, fmt.Sprintf("edit cell %d%s, its source now:\n%s", i, idNote(cells[i].id), indentSource(op.Source)), nil
	case "delete":
		c := cells[i]
		cells = append(cells[:i], cells[i+1:]...)
		return cells, fmt.Sprintf("delete %s cell %d%s, which held:\n%s", c.typ, i, idNote(c.id), indentSource(c.source)), nil
	case "move":
		if op.To == nil || *op.To < 0 || *op.To >= len(cells) {
			return nil, "", fmt.Errorf("move needs to, the index the cell takes, from 0 to %d", len(cells)-1)
		}
		c := cells[i]
		cells = append(cells[:i], cells[i+1:]...)
		cells = append(cells[:*op.To], append([]nbCell{c}, cells[*op.To:]...)...)
		return cells, fmt.Sprintf("move cell %d%s to %d\n", i, idNote(c.id), *op.To), nil
	}
	return nil, "", fmt.Errorf("op %q is not edit, insert, delete or move", op.Op)
}

// findCell is the index of the cell op names by id or index.
func findCell(cells []nbCell, op notebookOpArg) (int, error) {
	if op.ID != "" {
		for i, c := range cells {
			if c.id == op.ID {
				return i, nil
			}
		}
		return 0, fmt.Errorf("no cell has id %q: notebook list shows each cell's id", op.ID)
	}
	if op.Index == nil {
		return 0, fmt.Errorf("name the cell with index (0-based) or id")
	}
	if i := *op.Index; i < 0 || i >= len(cells) {
		return 0, fmt.Errorf("index %d is outside 0 to %d (the notebook has %s at this point)", i, len(cells)-1, plural(len(cells), "cell"))
	}
	return *op.Index, nil
}

// newCellKey starts the made-up key of a new cell in a notebook whose cells
// have no ids; it is never written.
const newCellKey = "\x00new"

func idNote(id string) string {
	if id == "" || strings.HasPrefix(id, newCellKey) {
		return ""
	}
	return " (id " + id + ")"
}

// indentSource is a cell's source as the edit's summary shows it: each
// line indented, at most 40 lines.
func indentSource(src string) string {
	lines := strings.Split(strings.TrimSuffix(src, "\n"), "\n")
	var b strings.Builder
	for k, l := range lines {
		if k == 40 {
			fmt.Fprintf(&b, "    ... (%d more lines, in the diff)\n", len(lines)-k)
			break
		}
		b.WriteString("    " + l + "\n")
	}
	return b.String()
}
