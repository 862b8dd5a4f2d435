package tools

import "context"
import "encoding/base64"
import "errors"
import "fmt"
import "path"
import "strings"

import "github.com/tetherhq/tether/internal/ipynb"
import "github.com/tetherhq/tether/kernels"
import "github.com/tetherhq/tether/search"

// errNotebookRunFromCell refuses a cell's tool("notebook_run").
var errNotebookRunFromCell = errors.New("tools: notebook_run: a cell cannot call notebook_run through tool(); run the code in the cell itself")

// notebookKernel is the Python kernel bound to one notebook: its state
// persists across notebook_run calls on that notebook.
type notebookKernel struct {
	ev    *evaluator
	count int // the last execution_count given
	used  int
}

// notebookRunArgs are notebook_run's arguments.
type notebookRunArgs struct {
	Path    string `json:"path" jsonschema:"workspace-relative .ipynb file" bounds:"minLength=1"`
	Index   *int   `json:"index,omitempty" jsonschema:"the cell to run (0-based, as notebook list numbers it); with end, the first of a range"`
	End     *int   `json:"end,omitempty" jsonschema:"with index: the last cell of the range to run (inclusive)"`
	All     bool   `json:"all,omitempty" jsonschema:"run every code cell, in order"`
	Timeout int    `json:"timeout,omitempty" jsonschema:"seconds the whole call may take: when they pass, the running cell is interrupted (the kernel's state is kept) and nothing is written to the notebook; bounded by the operator's maximum (default 10 minutes)" bounds:"minimum=1"`
	Apply   bool   `json:"apply,omitempty" jsonschema:"write the outputs and execution counts into the notebook now, instead of staging them for resolve"`
	Reset   bool   `json:"reset,omitempty" jsonschema:"restart the notebook's kernel first (its variables are discarded)"`
}

func (nt *notebookTools) runTool() Tool {
	return Typed(Tool{
		Name: "notebook_run",
		Tier: TierExec,
		Description: "Run a Jupyter notebook's code cells (index, index..end, or all) in a Python kernel bound to that notebook: its variables persist across calls, as in Jupyter " +
			"(the kernel eval uses: same sandbox, idle budget, interrupts; it works in the notebook's directory). Each cell's output is shown as eval shows it; " +
			"the outputs and execution counts are staged as one change for resolve (edit_id), or written at once with apply: true. " +
			"A cell that raises stops the run there (its error is kept as its output). When timeout passes the running cell is interrupted and the notebook is left unchanged. " +
			"reset: true restarts the notebook's kernel first. Markdown and raw cells are skipped.",
		Serial: true,
		Writes: writesFor(func(a notebookRunArgs) []string {
			if a.Apply {
				return []string{a.Path}
			}
			return nil
		}),
	}, nt.runCells)
}

// selectCells are the indices of the code cells a names, in order.
func selectCells(nb *ipynb.Notebook, a notebookRunArgs) ([]int, error) {
	first, last := 0, len(nb.Cells)-1
	switch {
	case a.All && (a.Index != nil || a.End != nil):
		return nil, errors.New("give all, or index (with end for a range), not both; nothing was run")
	case a.All:
	case a.Index != nil:
		first, last = *a.Index, *a.Index
		if a.End != nil {
			last = *a.End
		}
		if first < 0 || last >= len(nb.Cells) || first > last {
			return nil, fmt.Errorf("cells %d to %d are not in 0 to %d; nothing was run", first, last, len(nb.Cells)-1)
		}
	default:
		return nil, errors.New("say which cells to run: index (0-based), index and end for a range, or all; nothing was run")
	}
	var idx []int
	for i := first; i <= last; i++ {
		if nb.Cells[i].Type == "code" {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return nil, fmt.Errorf("cells %d to %d hold no code cell; nothing was run", first, last)
	}
	return idx, nil
}

func (nt *notebookTools) runCells(ctx context.Context, call *Call, a notebookRunArgs) (*Result, *StagedDiff, error) {
	if call.Origin == FromBridge {
		return nil, nil, errNotebookRunFromCell
	}
	nb, real, rel, err := nt.open(a.Path)
	if err != nil {
		return nil, nil, err
	}
	if l := strings.ToLower(nb.Language); l != "" && l != "python" {
		return nil, nil, fmt.Errorf("tools: notebook_run: %s is a %s notebook; only Python notebooks run here", rel, nb.Language)
	}
	idx, err := selectCells(nb, a)
	if err != nil {
		return nil, nil, fmt.Errorf("tools: notebook_run: %w", err)
	}
	nk, err := nt.kernel(rel)
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel, notes := nk.ev.callTimeout(ctx, a.Timeout)
	defer cancel()
	run, err := nt.execute(ctx, nb, rel, nk, idx, a.Reset)
	if err != nil {
		return nil, nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: ran %s of %s\n", rel, plural(run.ran, "code cell"), plural(len(idx), "code cell"))
	for _, n := range notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	b.WriteString(run.text.String())
	images := run.images
	if run.stopped != "" {
		fmt.Fprintf(&b, "\n%s; the notebook was left unchanged (nothing staged or written); the kernel's state is kept unless a note above says otherwise\n", run.stopped)
		out := &Result{Content: append([]Content{{Type: TextContent, Text: strings.TrimRight(b.String(), "\n")}}, images...), IsError: true}
		return nk.ev.spillResult(out), nil, nil
	}
	plan := &search.Plan{Source: "notebook_run", Replacements: run.ran,
		Changes: []search.FileChange{{Path: real, Display: rel, Old: nb.Text(), New: nb.WithCells(run.texts), Replacements: run.ran}}}
	if a.Apply {
		WillWrite(ctx, []string{rel})
		if err := nt.run.stager().Apply(plan); err != nil {
			return nil, nil, fmt.Errorf("tools: notebook_run: the outputs were not written: %w", nt.run.relErr(err))
		}
		fmt.Fprintf(&b, "\nwrote the outputs and execution counts of %s to %s\n", plural(run.ran, "cell"), rel)
		out := &Result{Content: append([]Content{{Type: TextContent, Text: strings.TrimRight(b.String(), "\n")}}, images...), IsError: run.failed}
		return nk.ev.spillResult(out), nil, nil
	}
	id, dropped := nt.run.stager().StageDropping(plan)
	_, st, err := stagedDiff(id, plan, "", 0)
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(&b, "\n(proposed) the outputs and execution counts of %s, staged for %s; nothing written yet: call resolve with edit_id %q and action \"accept\" to write them, \"discard\" to drop them, or \"show\" for the diff\n",
		plural(run.ran, "cell"), rel, id)
	b.WriteString(droppedNote(dropped))
	out := &Result{Content: append([]Content{{Type: TextContent, Text: strings.TrimRight(b.String(), "\n")}}, images...), IsError: run.failed}
	return nk.ev.spillResult(out), st, nil
}

// notebookRun is what running a notebook's cells gave.
type notebookRun struct {
	text    strings.Builder
	images  []Content
	texts   [][]byte // every cell's text, the run ones with their outputs
	ran     int
	failed  bool   // a cell raised: the run stopped after it
	stopped string // why the run was cut short so that nothing is written
}

// execute runs the cells idx of nb in nk, in order, stopping after a cell
// that raises and at once when the call is interrupted.
func (nt *notebookTools) execute(ctx context.Context, nb *ipynb.Notebook, rel string, nk *notebookKernel, idx []int, reset bool) (*notebookRun, error) {
	run := &notebookRun{texts: make([][]byte, len(nb.Cells))}
	for i := range nb.Cells {
		run.texts[i] = nb.Raw(i)
	}
	done := map[kernels.Language]bool{}
	// A fresh kernel starts in the workspace and enters the notebook's
	// directory, as Jupyter's does; the mark on the os module says it did.
	chdir := fmt.Sprintf("import os as _tether_os\nif not hasattr(_tether_os, '_tether_notebook'):\n    _tether_os._tether_notebook = True\n    _tether_os.chdir(%q)\ndel _tether_os", path.Dir(rel))
	if res, err := nk.ev.runCell(ctx, kernels.Python, chdir, "notebook directory", reset, done); err != nil {
		return nil, fmt.Errorf("tools: notebook_run: %w", err)
	} else if res.Error != nil {
		return nil, fmt.Errorf("tools: notebook_run: could not enter the notebook's directory: %s", res.Error)
	} else if res.Fresh {
		nk.count = 0
		for _, n := range res.Notices {
			fmt.Fprintf(&run.text, "note: %s\n", n)
		}
	}
	for k, i := range idx {
		head := fmt.Sprintf("cell %d", i)
		if ctx.Err() != nil {
			run.stopped = fmt.Sprintf("the call stopped before %s: %s", head, kernels.StopReason(ctx))
			return run, nil
		}
		res, err := nk.ev.runCell(ctx, kernels.Python, nb.Cells[i].Source, head, false, done)
		if err != nil {
			return nil, err
		}
		r, _ := cellSection(&run.text, kernels.Python, head, res)
		run.images = append(run.images, r.Content[1:]...)
		if kernelFailure(res.Error) || ctx.Err() != nil {
			why := kernels.StopReason(ctx)
			if ctx.Err() == nil {
				why = res.Error.Error()
			}
			run.stopped = fmt.Sprintf("%s was interrupted (%s)", head, why)
			return run, nil
		}
		if res.Fresh {
			nk.count = 0
		}
		nk.count++
		count := nk.count
		if run.texts[i], err = nb.SetOutputs(i, notebookOutputs(res, count), &count); err != nil {
			return nil, fmt.Errorf("tools: notebook_run: %w", err)
		}
		run.ran++
		if res.Error != nil {
			run.failed = true
			if rest := len(idx) - k - 1; rest > 0 {
				fmt.Fprintf(&run.text, "\n(%s raised, so the run stopped there: %s after it not run)\n", head, plural(rest, "code cell"))
			}
			break
		}
	}
	return run, nil
}

// kernelFailure reports an error of the kernel rather than of the cell's
// code: an interrupt, the interpreter dying or restarting, its memory cap.
func kernelFailure(e *kernels.Error) bool {
	return e != nil && (errors.Is(e, kernels.ErrInterrupted) || errors.Is(e, kernels.ErrKernelDied) ||
		errors.Is(e, kernels.ErrKernelRestarted) || errors.Is(e, kernels.ErrMemoryLimit))
}

// notebookOutputs are a cell's result as nbformat outputs, in the order the
// cell produced them: streams, displays, the echoed value (execute_result
// with count) and the error.
func notebookOutputs(r *kernels.Result, count int) []map[string]any {
	var outs []map[string]any
	stream := func(name, text string) {
		if text == "" {
			return
		}
		if n := len(outs); n > 0 && outs[n-1]["output_type"] == "stream" && outs[n-1]["name"] == name {
			outs[n-1]["text"] = ipynb.Lines(strings.Join(outs[n-1]["text"].([]string), "") + text)
			return
		}
		outs = append(outs, map[string]any{"output_type": "stream", "name": name, "text": ipynb.Lines(text)})
	}
	display := func(typ string, d kernels.Display) map[string]any {
		data := map[string]any{}
		if d.Text != "" {
			data[kernels.MIMEText] = ipynb.Lines(d.Text)
		}
		if d.HTML != "" {
			data[kernels.MIMEHTML] = ipynb.Lines(d.HTML)
		}
		if len(d.PNG) > 0 {
			data[kernels.MIMEPNG] = base64.StdEncoding.EncodeToString(d.PNG) + "\n"
		}
		return map[string]any{"output_type": typ, "data": data, "metadata": map[string]any{}}
	}
	if r.Outputs != nil {
		for _, o := range r.Outputs {
			switch {
			case o.Stream == kernels.OutputDisplay:
				if o.Display >= 0 && o.Display < len(r.Displays) {
					outs = append(outs, display("display_data", r.Displays[o.Display]))
				}
			default:
				stream(o.Stream, o.Text)
			}
		}
	} else {
		stream("stdout", r.Stdout.Text)
		stream("stderr", r.Stderr.Text)
		for _, d := range r.Displays {
			outs = append(outs, display("display_data", d))
		}
	}
	if r.Value != nil {
		v := display("execute_result", *r.Value)
		v["execution_count"] = count
		outs = append(outs, v)
	}
	if e := r.Error; e != nil {
		tb := []string{}
		if e.Traceback != "" {
			tb = strings.Split(strings.TrimSuffix(e.Traceback, "\n"), "\n")
		}
		outs = append(outs, map[string]any{"output_type": "error", "ename": e.Name, "evalue": e.Message, "traceback": tb})
	}
	return outs
}

// kernel is the kernel bound to the notebook at rel, made on first use;
// past notebookKernels the one used longest ago is discarded.
func (nt *notebookTools) kernel(rel string) (*notebookKernel, error) {
	nt.mu.Lock()
	defer nt.mu.Unlock()
	if nt.closed {
		return nil, errNotebookClosed
	}
	nt.used++
	if nk, ok := nt.kernels[rel]; ok {
		nk.used = nt.used
		return nk, nil
	}
	if len(nt.kernels) >= notebookKernels {
		oldest := ""
		for p, nk := range nt.kernels {
			if oldest == "" || nk.used < nt.kernels[oldest].used {
				oldest = p
			}
		}
		nt.kernels[oldest].ev.close()
		delete(nt.kernels, oldest)
	}
	nk := &notebookKernel{ev: &evaluator{run: nt.run, factory: nt.factory, kernels: map[kernels.Language]kernels.Kernel{}}, used: nt.used}
	nt.kernels[rel] = nk
	return nk, nil
}

func (nt *notebookTools) close() error {
	nt.mu.Lock()
	ks := nt.kernels
	nt.kernels, nt.closed = nil, true
	nt.mu.Unlock()
	var errs []error
	for _, nk := range ks {
		errs = append(errs, nk.ev.close())
	}
	return errors.Join(errs...)
}
