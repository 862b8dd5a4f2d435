package tools

import "context"
import "encoding/base64"
import "errors"
import "fmt"
import "path"
import "regexp"
import "strings"
import "sync"

import "github.com/tetherhq/tether/internal/ipynb"
import "github.com/tetherhq/tether/internal/textcut"
import "github.com/tetherhq/tether/kernels"

// The notebook tools: notebook (read: list and read cells), notebook_edit
// (write: edit, insert, delete and move cells as one staged change) and
// notebook_run (exec: run cells in a Python kernel bound to the notebook).
// One tool per tier, as lsp and lsp_rename are, because a tier decides
// which surfaces list a tool at all. Reading and editing a notebook need
// only the workspace, so those two are there whenever the file tools are;
// notebook_run is its own family, wired with eval's kernel factory: a
// notebook's code is run by the kernels eval runs.
func init() {
	addFamily(family{
		name: "notebook",
		register: func(r *Run) (func() error, error) {
			return nil, r.reg.Register((&notebookTools{run: r}).tools()...)
		},
		tools: func() []Tool { return (&notebookTools{}).tools() },
	})
	addFamily(family{
		name:  "notebook_run",
		wired: func(cfg *Config) bool { return cfg.Eval.Kernels != nil },
		register: func(r *Run) (func() error, error) {
			nt := &notebookTools{run: r, factory: evalFactory(r), kernels: map[string]*notebookKernel{}}
			if err := r.reg.Register(nt.runTool()); err != nil {
				return nil, err
			}
			return nt.close, nil
		},
		tools: func() []Tool { return []Tool{(&notebookTools{}).runTool()} },
	})
}

// Bounds of the notebook tools' answers.
const (
	// notebookMaxBytes is the largest notebook file the tools open.
	notebookMaxBytes = 64 << 20
	// notebookListCells is how many cells one list answer shows.
	notebookListCells = 200
	// notebookReadCells is how many cells one read answer shows by default.
	notebookReadCells = 20
	// notebookPageBytes bounds the text of one list or read page: it ends
	// before the cell that would take it past this (a page shows one cell
	// at least).
	notebookPageBytes = 24 << 10
	// notebookCellBytes bounds one cell's source, and each of its outputs,
	// in a read answer.
	notebookCellBytes = 6 << 10
	// notebookImages is how many images one read answer attaches.
	notebookImages = 4
	// notebookKernels is how many notebooks keep a kernel at once; starting
	// one more discards the one used longest ago.
	notebookKernels = 4
)

// notebookTools are the notebook tools bound to a run; factory and
// kernels are notebook_run's alone.
type notebookTools struct {
	run     *Run
	factory *kernels.Factory

	mu      sync.Mutex
	kernels map[string]*notebookKernel // by workspace-relative path
	used    int                        // a clock for least-recently-used
	closed  bool
}

// notebookArgs are notebook's arguments.
type notebookArgs struct {
	Action string `json:"action" jsonschema:"list: every cell's index, id, type, first line and output summary; read: cells with their sources and outputs" bounds:"enum=list|read"`
	Path   string `json:"path" jsonschema:"workspace-relative .ipynb file" bounds:"minLength=1"`
	Start  int    `json:"start,omitempty" jsonschema:"index of the first cell to show (0-based, as list numbers them); an answer that stops early names the start of the next page" bounds:"minimum=0"`
	Count  int    `json:"count,omitempty" jsonschema:"how many cells to show (list: default and at most 200; read: default 20, at most 200)" bounds:"minimum=1,maximum=200"`
}

// NotebookPage is the structured output of notebook: the page of cells
// shown and where the next page starts (0 when none).
type NotebookPage struct {
	Path  string            `json:"path"`
	Total int               `json:"total"`
	Start int               `json:"start,omitempty"`
	Shown int               `json:"shown"`
	Next  int               `json:"next,omitempty"`
	Cells []NotebookCellRow `json:"cells,omitempty"`
}

// NotebookCellRow is one cell of notebook list.
type NotebookCellRow struct {
	Index          int      `json:"index"`
	ID             string   `json:"id,omitempty"`
	Type           string   `json:"cell_type"`
	FirstLine      string   `json:"-"` // in the text only: the structured part stays within its bound
	ExecutionCount *int     `json:"execution_count,omitempty"`
	Outputs        []string `json:"outputs,omitempty"`
}

func (nt *notebookTools) tools() []Tool {
	return []Tool{
		Typed(Tool{
			Name: "notebook",
			Tier: TierRead,
			Description: "Read a Jupyter notebook (.ipynb). action list: one line per cell with its index (0-based), id, cell_type, first line and " +
				"an output summary (\"stream 3 lines\", \"image/png\", \"error NameError\"). action read: cells with their sources and outputs " +
				"(text, tables as text, images attached, tracebacks), from start, count cells (default 20), bounded; the answer says where the next page starts. " +
				"notebook_edit changes cells; notebook_run, where the run has a kernel, runs them.",
		}, nt.read),
		nt.editTool(),
	}
}

// open reads and parses the notebook at p, confined to the workspace.
func (nt *notebookTools) open(p string) (nb *ipynb.Notebook, real, rel string, err error) {
	if !strings.HasSuffix(strings.ToLower(p), ".ipynb") {
		return nil, "", "", fmt.Errorf("tools: notebook: %s is not an .ipynb file: give a Jupyter notebook's path (read other files with read)", p)
	}
	real, rel, err = nt.run.root.Resolve(p)
	if err != nil {
		return nil, "", "", fmt.Errorf("tools: notebook: %w", err)
	}
	data, err := nt.run.root.ReadFile(rel)
	if err != nil {
		return nil, "", "", fmt.Errorf("tools: notebook: %w", nt.run.relErr(err))
	}
	if len(data) > notebookMaxBytes {
		return nil, "", "", fmt.Errorf("tools: notebook: %s is %d MiB, more than the %d MiB the notebook tools open; clear its outputs in Jupyter first", rel, len(data)>>20, notebookMaxBytes>>20)
	}
	nb, err = ipynb.Parse(data)
	if err != nil {
		return nil, "", "", fmt.Errorf("tools: notebook: %s: %w", rel, err)
	}
	return nb, real, filepath2slash(rel), nil
}

func filepath2slash(p string) string { return path.Clean(strings.ReplaceAll(p, "\\", "/")) }

func (nt *notebookTools) read(ctx context.Context, call *Call, a notebookArgs) (*Result, *NotebookPage, error) {
	nb, _, rel, err := nt.open(a.Path)
	if err != nil {
		return nil, nil, err
	}
	if a.Start > 0 && a.Start >= len(nb.Cells) {
		return nil, nil, fmt.Errorf("tools: notebook: start %d is past the last cell (%s has %s, 0 to %d)", a.Start, rel, plural(len(nb.Cells), "cell"), len(nb.Cells)-1)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s (nbformat %d.%d", rel, plural(len(nb.Cells), "cell"), nb.Major, nb.Minor)
	if nb.Language != "" {
		fmt.Fprintf(&b, ", %s", nb.Language)
	}
	b.WriteString(")\n")
	page := &NotebookPage{Path: rel, Total: len(nb.Cells), Start: a.Start}
	var images []Content
	count := a.Count
	if count == 0 {
		count = notebookReadCells
		if a.Action == "list" {
			count = notebookListCells
		}
	}
	size := b.Len()
	i := a.Start
	for ; i < len(nb.Cells) && i < a.Start+count; i++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		c := nb.Cells[i]
		var text string
		if a.Action == "list" {
			row := cellRow(i, c)
			text = row.line() + "\n"
			page.Cells = append(page.Cells, row)
		} else {
			var imgs []Content
			text, imgs = readCell(i, c, notebookImages-len(images))
			images = append(images, imgs...)
		}
		if size+len(text) > notebookPageBytes && i > a.Start {
			if page.Cells != nil {
				page.Cells = page.Cells[:len(page.Cells)-1]
			}
			break
		}
		size += len(text)
		b.WriteString(text)
	}
	page.Shown = i - a.Start
	if i < len(nb.Cells) {
		page.Next = i
		fmt.Fprintf(&b, "(cells %d-%d of %d shown; notebook with action %q, path %q and start %d shows the next)\n", a.Start, i-1, len(nb.Cells), a.Action, rel, i)
	}
	if len(nb.Cells) == 0 {
		b.WriteString("(the notebook has no cells; notebook_edit with op insert adds one)\n")
	}
	out := &Result{Content: append([]Content{{Type: TextContent, Text: strings.TrimRight(b.String(), "\n")}}, images...)}
	if a.Action == "read" {
		page.Cells = nil
	}
	return out, page, nil
}

func cellRow(i int, c ipynb.Cell) NotebookCellRow {
	first, _, _ := strings.Cut(strings.TrimLeft(c.Source, "\n"), "\n")
	first, _ = textcut.Chars(first, 100)
	row := NotebookCellRow{Index: i, ID: c.ID, Type: c.Type, FirstLine: first, ExecutionCount: c.ExecutionCount}
	for _, o := range c.Outputs {
		row.Outputs = append(row.Outputs, outputSummary(o))
	}
	return row
}

// line is the row as list shows it.
func (r NotebookCellRow) line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%d] %s", r.Index, r.Type)
	if r.ID != "" {
		fmt.Fprintf(&b, " id=%s", r.ID)
	}
	if r.ExecutionCount != nil {
		fmt.Fprintf(&b, " In[%d]", *r.ExecutionCount)
	}
	fmt.Fprintf(&b, ": %s", r.FirstLine)
	if r.Type == "code" {
		if len(r.Outputs) == 0 {
			b.WriteString("  -> no outputs")
		} else {
			b.WriteString("  -> " + strings.Join(r.Outputs, ", "))
		}
	}
	return b.String()
}

// outputSummary names an output in a few words: "stream 3 lines",
// "image/png", "text/html table", "text/plain 5 lines", "error NameError".
func outputSummary(o ipynb.Output) string {
	switch o.Type {
	case "stream":
		return fmt.Sprintf("stream %s", plural(lineCount(string(o.Text)), "line"))
	case "error":
		return "error " + o.EName
	}
	for mime := range o.Data {
		if strings.HasPrefix(mime, "image/") {
			return mime
		}
	}
	if h, ok := o.Data["text/html"]; ok {
		if strings.Contains(string(h), "<table") {
			return "text/html table"
		}
		return "text/html"
	}
	if t, ok := o.Data["text/plain"]; ok {
		return fmt.Sprintf("text/plain %s", plural(lineCount(string(t)), "line"))
	}
	return o.Type
}

func lineCount(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(strings.TrimSuffix(s, "\n"), "\n") + 1
}

// ansiEscape matches the terminal colour codes of IPython's tracebacks.
var ansiEscape = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`) })

// readCell is cell i as read shows it: a header, its source and its
// outputs, each bounded; images (at most maxImages) are attached.
func readCell(i int, c ipynb.Cell, maxImages int) (string, []Content) {
	var b strings.Builder
	fmt.Fprintf(&b, "--- cell %d [%s]", i, c.Type)
	if c.ID != "" {
		fmt.Fprintf(&b, " id=%s", c.ID)
	}
	if c.ExecutionCount != nil {
		fmt.Fprintf(&b, " In[%d]", *c.ExecutionCount)
	}
	b.WriteString("\n" + withNewline(cutText(c.Source)))
	var images []Content
	for _, o := range c.Outputs {
		switch o.Type {
		case "stream":
			b.WriteString(o.Name + ":\n" + withNewline(cutText(string(o.Text))))
		case "error":
			fmt.Fprintf(&b, "error: %s: %s\n", o.EName, o.EValue)
			if len(o.Traceback) > 0 {
				b.WriteString(withNewline(cutText(ansiEscape().ReplaceAllString(strings.Join(o.Traceback, "\n"), ""))))
			}
		default:
			head := "display:"
			if o.Type == "execute_result" {
				head = "out:"
			}
			b.WriteString(head + "\n")
			b.WriteString(showBundle(o.Data, &images, maxImages))
		}
	}
	return b.String(), images
}

// showBundle is a display's MIME bundle as text: text/plain (or HTML when
// it has no text), and each image attached while fewer than maxImages are.
func showBundle(data map[string]ipynb.Multiline, images *[]Content, maxImages int) string {
	var b strings.Builder
	if t, ok := data["text/plain"]; ok {
		b.WriteString(withNewline(cutText(string(t))))
	} else if h, ok := data["text/html"]; ok {
		b.WriteString(withNewline(cutText(string(h))))
	}
	for _, mime := range []string{"image/png", "image/jpeg"} {
		d, ok := data[mime]
		if !ok {
			continue
		}
		raw, err := decodeBase64(string(d))
		switch {
		case err != nil:
			fmt.Fprintf(&b, "(%s that does not decode: %v)\n", mime, err)
		case len(*images) >= maxImages:
			fmt.Fprintf(&b, "(%s, %d bytes, not attached: a read attaches at most %d images; read this cell alone with start and count 1)\n", mime, len(raw), notebookImages)
		default:
			fmt.Fprintf(&b, "(%s, %d bytes, attached)\n", mime, len(raw))
			*images = append(*images, Content{Type: ImageContent, MIMEType: mime, Data: raw})
		}
	}
	return b.String()
}

// cutText is s cut to notebookCellBytes, saying so.
func cutText(s string) string {
	out, _ := textcut.Bytes(s, notebookCellBytes)
	return out
}

var errNotebookClosed = errors.New("tools: notebook: the run is closed; start a new run")

// decodeBase64 decodes a notebook's base64 image, whose lines may be
// broken.
func decodeBase64(s string) ([]byte, error) {
	return base64.StdEncoding.DecodeString(strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == ' ' {
			return -1
		}
		return r
	}, s))
}
