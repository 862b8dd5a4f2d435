package tools

import "context"
import "encoding/json"
import "errors"
import "fmt"
import "regexp"
import "strings"
import "sync"
import "time"

import "github.com/google/jsonschema-go/jsonschema"
import "github.com/tetherhq/tether/kernels"

func init() {
	addFamily(family{
		name: "eval",
		// Registered when the run has a kernel factory.
		wired: func(cfg *Config) bool { return cfg.Eval.Kernels != nil },
		register: func(r *Run) (func() error, error) {
			ev := &evaluator{run: r, factory: evalFactory(r), kernels: map[kernels.Language]kernels.Kernel{}}
			if err := r.reg.Register(ev.tool()); err != nil {
				return nil, err
			}
			// Run.Close discards every kernel: no interpreter outlives the run.
			return ev.close, nil
		},
		tools: func() []Tool { return []Tool{(&evaluator{}).tool()} },
	})
}

// evalFactory is the run's kernel factory, its kernels run in the
// conversation's enclosure when there is one (the factory itself may be
// shared between runs).
func evalFactory(r *Run) *kernels.Factory {
	factory := r.cfg.Eval.Kernels
	if lookup := r.cfg.Eval.Enclosure; lookup != nil {
		f := *factory
		conv := r.cfg.ConversationID
		f.Defaults.Enclosure = func() []string { return lookup(conv) }
		factory = &f
	}
	return factory
}

// errEvalFromCell refuses a cell's tool("eval").
var errEvalFromCell = errors.New("tools: eval: a cell cannot call eval through tool(); run the code in the cell itself")

// evaluator holds a run's kernels, one per language, started on first use.
type evaluator struct {
	run     *Run
	factory *kernels.Factory

	mu      sync.Mutex
	kernels map[kernels.Language]kernels.Kernel
	closed  bool
}

// evalDescriptionPattern is the rule for eval's description, in its schema
// and in its handler: 5 to 10 words, a word being a run of characters other
// than JSON Schema's (and RE2's) whitespace.
const evalDescriptionPattern = `^[\t\n\f\r ]*[^\t\n\f\r ]+([\t\n\f\r ]+[^\t\n\f\r ]+){4,9}[\t\n\f\r ]*$`

var evalWords = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^\t\n\f\r ]+`) })

// tuneSchema states the description's word count as a pattern.
func (evalArgs) tuneSchema(s *jsonschema.Schema) {
	s.Properties["description"].Pattern = evalDescriptionPattern
}

// evalArgs are eval's arguments (docs/tools.md, "eval").
type evalArgs struct {
	Code        string     `json:"code,omitempty" jsonschema:"the cell: Python (IPython idioms such as %pip, %cd, !cmd, %%bash, %time, %%timeit, %env, obj? work) or JavaScript; give code or cells"`
	Cells       []evalCell `json:"cells,omitempty" jsonschema:"several cells run in order, Python and JavaScript mixed, each in its language's kernel; the call stops at the first cell that fails; give code or cells" bounds:"minItems=1,maxItems=50"`
	Description string     `json:"description" jsonschema:"5-10 words saying what the cell does; shown as the cell's label"`
	Language    string     `json:"language,omitempty" jsonschema:"python (default) or javascript: the language of code, and of each cell that names none" bounds:"enum=python|javascript"`
	Reset       bool       `json:"reset,omitempty" jsonschema:"discard the interpreter and its state before running the cell (with cells: each language's interpreter the cells use)"`
	Timeout     int        `json:"timeout,omitempty" jsonschema:"seconds the whole call may take: when they pass, the running cell is interrupted (its kernel's state is kept) and later cells are not run; bounded by the operator's maximum (default 10 minutes)" bounds:"minimum=1"`
}

// evalCell is one of eval's cells.
type evalCell struct {
	Language string `json:"language,omitempty" jsonschema:"python or javascript (default: the call's language)" bounds:"enum=python|javascript"`
	Code     string `json:"code" jsonschema:"the cell's source"`
}

// DefaultEvalMaxTimeout is the longest timeout an eval call may ask for
// unless Config.Eval.MaxTimeout says otherwise.
const DefaultEvalMaxTimeout = 10 * time.Minute

// callTimeout bounds ctx by a call's timeout argument (seconds; none when
// 0), clamped to maxTimeout; notes say when it was clamped.
func (e *evaluator) callTimeout(ctx context.Context, seconds int) (context.Context, context.CancelFunc, []string) {
	if seconds <= 0 {
		return ctx, func() {}, nil
	}
	var notes []string
	d, limit := time.Duration(seconds)*time.Second, e.maxTimeout()
	if d > limit {
		notes = append(notes, fmt.Sprintf("timeout: %s asked for, clamped to the operator's maximum of %s", d, limit))
		d = limit
	}
	ctx, cancel := context.WithTimeoutCause(ctx, d, &kernels.CallTimeout{After: d})
	return ctx, cancel, notes
}

// maxTimeout is the operator's bound on a call's timeout.
func (e *evaluator) maxTimeout() time.Duration {
	if e.run != nil && e.run.cfg.Eval.MaxTimeout > 0 {
		return e.run.cfg.Eval.MaxTimeout
	}
	return DefaultEvalMaxTimeout
}

func (e *evaluator) tool() Tool {
	return Typed(Tool{
		Name: "eval",
		Tier: TierExec,
		Description: "Run a Python or JavaScript cell in a persistent interpreter: variables, imports and loaded data survive between calls, as in a notebook. " +
			"cells: [{language, code}, ...] runs several cells in order in one call (Python and JavaScript mixed, each language in its own kernel); the call stops at the first cell that fails, and the result has a header per cell. " +
			"The last expression is echoed (top-level await works in both languages); display(x) shows rich output; a pandas data frame renders as a markdown table with its shape, and a matplotlib figure comes back as an image plus its title, axis labels and series as text. " +
			"IPython idioms work in Python: %pip install (then import again), %cd, !cmd, x = !cmd, %%bash, %time, %timeit, %%timeit, %env, obj?, %%writefile, %%capture, %run, %autoreload. " +
			"Inside a cell, tool(name, args) calls this run's tools (e.g. contents = tool(\"read\", {\"path\": \"lib/auth.dart\"})) under the same approvals; a refused call raises ToolError. " +
			"The result is the tool's text (a str in Python, a String in JavaScript); its .structured holds the tool's structured output as plain dicts and lists (None/null when the tool has none), " +
			"e.g. tool(\"ast_grep\", {...}).structured[\"matches\"]; .text is the text as a plain string; help(tool) says the same. " +
			"A cell that goes quiet (no output, no tool() call outstanding) for its idle budget (default 5 minutes) is interrupted; printing progress keeps a long cell going; state is kept unless the result says otherwise. " +
			"timeout (seconds) bounds the whole call: the running cell is interrupted when it passes, its state kept. " +
			"Output past the result's cap is written whole to a file the result names (artifact:...), which read opens. " +
			"reset: true discards the interpreter first. " +
			"Calls run one at a time (a second eval waits for the first to end): do not call eval in parallel, put the work in one cell.",
		Serial:  true,
		Preview: previewFor(previewEval),
	}, e.handle)
}

// plannedCell is a cell ready to run: its language and code.
type plannedCell struct {
	lang kernels.Language
	code string
}

func (e *evaluator) handle(ctx context.Context, call *Call, a evalArgs) (*Result, evalOutput, error) {
	if call.Origin == FromBridge {
		return nil, nil, errEvalFromCell
	}
	if err := checkText(call.Name, call.Args); err != nil {
		return nil, nil, fmt.Errorf("%w (the cell was not run)", err)
	}
	words := evalWords().FindAllString(a.Description, -1)
	label := strings.Join(words, " ")
	if n := len(words); n < 5 || n > 10 {
		return nil, nil, fmt.Errorf("tools: eval: description must be 5-10 words (got %d): say what the cell does, e.g. \"load the sales csv and plot monthly totals\"", n)
	}
	lang, err := kernels.ParseLanguage(a.Language)
	if err != nil {
		return nil, nil, fmt.Errorf("tools: eval: %w", err)
	}
	var cells []plannedCell
	switch {
	case len(a.Cells) > 0 && a.Code != "":
		return nil, nil, errors.New("tools: eval: give code (one cell) or cells (several), not both; nothing was run")
	case len(a.Cells) > 0:
		for i, c := range a.Cells {
			l := lang
			if c.Language != "" {
				if l, err = kernels.ParseLanguage(c.Language); err != nil {
					return nil, nil, fmt.Errorf("tools: eval: cells[%d]: %w; nothing was run", i, err)
				}
			}
			cells = append(cells, plannedCell{lang: l, code: c.Code})
		}
	default:
		if !hasArg(call.Args, "code") {
			return nil, nil, errors.New("tools: eval: give code (one cell) or cells (a list of {language, code}); nothing was run")
		}
		cells = []plannedCell{{lang: lang, code: a.Code}}
	}
	ctx, cancel, notes := e.callTimeout(ctx, a.Timeout)
	defer cancel()
	if len(cells) == 1 && len(a.Cells) == 0 {
		res, err := e.runCell(ctx, cells[0].lang, cells[0].code, label, a.Reset, map[kernels.Language]bool{})
		if err != nil {
			return nil, nil, err
		}
		res.Notices = append(notes, res.Notices...)
		out, st := renderCell(cells[0].lang, label, res)
		return e.spillResult(out), st, nil
	}
	out, st, err := e.runCells(ctx, cells, label, a.Reset, notes)
	if err != nil {
		return nil, nil, err
	}
	return e.spillResult(out), st, nil
}

// spillResult writes a result whose text is past what the registry passes on
// (MaxResultText) whole to the run's artifacts area, and says so under its
// first line, so that what the registry cuts from the end can be read on
// every surface.
func (e *evaluator) spillResult(res *Result) *Result {
	t := &res.Content[0]
	if len(t.Text) <= MaxResultText {
		return res
	}
	var note string
	if name, err := e.run.arts.write("eval-result", t.Text); err != nil {
		note = fmt.Sprintf("note: this result is %d bytes, more than the %d a result holds, so its end is cut; it could not be written whole: %v", len(t.Text), MaxResultText, err)
	} else {
		note = fmt.Sprintf("note: this result is %d bytes, more than the %d a result holds, so its end is cut; all of it was written to %s: read it with read {\"path\": %q}", len(t.Text), MaxResultText, name, name)
	}
	first, rest, _ := strings.Cut(t.Text, "\n")
	t.Text = first + "\n" + note + "\n" + rest
	return res
}

// hasArg reports whether the call's arguments name key.
func hasArg(args json.RawMessage, key string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return false
	}
	_, ok := m[key]
	return ok
}

// runCell runs one cell in lang's kernel; with reset, that kernel is
// discarded first unless done says this call already reset it.
func (e *evaluator) runCell(ctx context.Context, lang kernels.Language, code, label string, reset bool, done map[kernels.Language]bool) (*kernels.Result, error) {
	reset = reset && !done[lang]
	k, fresh, err := e.kernel(lang, reset)
	if err != nil {
		return nil, fmt.Errorf("tools: eval: %w", err)
	}
	done[lang] = true
	res, err := k.Execute(ctx, kernels.Cell{Code: code, Label: label})
	if err != nil {
		return nil, fmt.Errorf("tools: eval: %w", err)
	}
	if reset && !fresh {
		res.Notices = append([]string{"reset: the previous interpreter was discarded; this cell ran in a fresh one"}, res.Notices...)
	}
	e.spill(res)
	return res, nil
}

// spill writes each stream the kernel cut and kept whole to the run's
// artifacts area, and says in a notice where it is and how much was written.
func (e *evaluator) spill(res *kernels.Result) {
	for _, s := range []struct {
		name string
		st   *kernels.Stream
	}{{"stdout", &res.Stdout}, {"stderr", &res.Stderr}} {
		full := s.st.Full
		if full == "" {
			continue
		}
		s.st.Full = ""
		name, err := e.run.arts.write("eval-"+s.name, full)
		if err != nil {
			res.Notices = append(res.Notices, fmt.Sprintf("%s was cut (%d bytes not shown) and could not be written whole: %v", s.name, s.st.Cut, err))
			continue
		}
		msg := fmt.Sprintf("%s was cut (%d bytes not shown); all of it, %d bytes, was written to %s: read it with read {\"path\": %q} (offset and limit page through its lines)", s.name, s.st.Cut, len(full), name, name)
		if s.st.FullCut > 0 {
			msg += fmt.Sprintf("; the %d bytes printed past that were dropped (a cell keeps at most %d MiB of each stream)", s.st.FullCut, e.factory.Defaults.WithDefaults().MaxSpill>>20)
		}
		res.Notices = append(res.Notices, msg)
	}
}

// runCells runs cells in order and stops at the first that fails (or when
// the call's context ends); each has a header, and those not run are listed.
func (e *evaluator) runCells(ctx context.Context, cells []plannedCell, label string, reset bool, notes []string) (*Result, *cellsOutput, error) {
	var b strings.Builder
	var images []Content
	outs := make([]cellsOutputItem, len(cells))
	fmt.Fprintf(&b, "%d cells: %s\n", len(cells), label)
	for _, n := range notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	done := map[kernels.Language]bool{}
	failed := -1
	for i, c := range cells {
		outs[i].Index = i + 1
		head := fmt.Sprintf("cell %d of %d", i+1, len(cells))
		if failed >= 0 || ctx.Err() != nil {
			why := fmt.Sprintf("cell %d failed", failed+1)
			switch {
			case ctx.Err() != nil && failed >= 0:
				why = fmt.Sprintf("the call stopped at cell %d: %s", failed+1, kernels.StopReason(ctx))
			case ctx.Err() != nil:
				why = "the call stopped: " + kernels.StopReason(ctx)
			}
			fmt.Fprintf(&b, "\n--- %s [%s]: not run (%s)\n", head, c.lang, why)
			outs[i].Status = "not run"
			continue
		}
		res, err := e.runCell(ctx, c.lang, c.code, head, reset, done)
		if err != nil {
			if i == 0 {
				return nil, nil, err
			}
			// Earlier cells ran: their results are reported with this error.
			fmt.Fprintf(&b, "\n--- %s [%s]: could not run: %v\n", head, c.lang, err)
			outs[i].Status, failed = "error", i
			continue
		}
		r, st := cellSection(&b, c.lang, head, res)
		images = append(images, r.Content[1:]...)
		outs[i].Result = st
		outs[i].Status = "ok"
		if r.IsError {
			outs[i].Status, failed = "error", i
		}
	}
	text := strings.TrimRight(b.String(), "\n")
	return &Result{
		Content: append([]Content{{Type: TextContent, Text: text}}, images...),
		IsError: failed >= 0,
	}, &cellsOutput{label, outs}, nil
}

// cellSection writes a cell's result to b under a header naming it, as
// eval's answer with several cells shows each, and returns the rendered
// cell (its images after its text).
func cellSection(b *strings.Builder, lang kernels.Language, head string, res *kernels.Result) (*Result, *cellOutput) {
	r, st := renderCell(lang, head, res)
	_, body, _ := strings.Cut(r.Content[0].Text, "\n")
	fmt.Fprintf(b, "\n--- %s [%s]\n%s\n", head, lang, body)
	return r, st
}

// evalOutput is eval's structured output: *cellOutput for one cell,
// *cellsOutput for several.
type evalOutput interface{ evalOutput() }

func (*cellOutput) evalOutput()  {}
func (*cellsOutput) evalOutput() {}

// cellsOutput is the structured output of eval with several cells.
type cellsOutput struct {
	Label string            `json:"label"`
	Cells []cellsOutputItem `json:"cells"`
}

// cellsOutputItem is one cell of cellsOutput.
type cellsOutputItem struct {
	Index  int         `json:"index"`
	Status string      `json:"status"` // ok, error, not run
	Result *cellOutput `json:"result,omitempty"`
}

// kernel returns the run's kernel for lang, starting it on first use; with
// reset, the existing one is discarded first. fresh reports a new kernel.
func (e *evaluator) kernel(lang kernels.Language, reset bool) (k kernels.Kernel, fresh bool, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, false, errors.New("the run is closed; start a new run")
	}
	if k, ok := e.kernels[lang]; ok {
		if reset {
			if err := k.Reset(); err != nil {
				return nil, false, err
			}
		}
		return k, false, nil
	}
	k, err = e.factory.New(lang, e.run.WorkDir(), e.bridge)
	if err != nil {
		return nil, false, err
	}
	e.kernels[lang] = k
	return k, true, nil
}

// bridge is the kernels' ToolCaller: tool() inside a cell goes through
// Run.Call with Origin FromBridge, so the run's surface, approval policy,
// approver and every wrapper apply exactly as for the model.
func (e *evaluator) bridge(ctx context.Context, name string, args json.RawMessage) (kernels.ToolReply, error) {
	switch name {
	case "eval":
		// Refused here, not by eval's handler: eval is Serial, and the
		// cell's own call holds its lock.
		return kernels.ToolReply{}, errEvalFromCell
	case "notebook_run":
		// Serial too, and a notebook's cell may be the caller.
		return kernels.ToolReply{}, errNotebookRunFromCell
	}
	res, err := e.run.Call(ctx, name, args, FromBridge)
	if err != nil {
		return kernels.ToolReply{}, err
	}
	rep := kernels.ToolReply{Text: res.AllText(), IsError: res.IsError}
	if res.Structured != nil {
		if b, err := json.Marshal(res.Structured); err == nil {
			rep.Structured = b
		}
	}
	return rep, nil
}

func (e *evaluator) close() error {
	e.mu.Lock()
	ks := e.kernels
	e.kernels, e.closed = nil, true
	e.mu.Unlock()
	var errs []error
	for _, k := range ks {
		if err := k.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// renderCell turns a cell's result into tool content: text blocks for the
// streams, values and errors, image blocks for PNGs. Structured output holds
// the result with HTML representations and without image bytes.
func renderCell(lang kernels.Language, label string, r *kernels.Result) (*Result, *cellOutput) {
	var b strings.Builder
	var images []Content
	fmt.Fprintf(&b, "[%s] %s\n", lang, label)
	for _, n := range r.Notices {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	for _, l := range r.Limits {
		fmt.Fprintf(&b, "limit: %s\n", l)
	}
	// endLine ends a stream's last line before the next header.
	endLine := func() {
		if !strings.HasSuffix(b.String(), "\n") {
			b.WriteString("\n")
		}
	}
	show := func(head string, d kernels.Display) {
		endLine()
		b.WriteString(head + "\n" + withNewline(d.Text))
		if d.Note != "" {
			fmt.Fprintf(&b, "(%s)\n", d.Note)
		}
		if len(d.PNG) > 0 {
			fmt.Fprintf(&b, "(image/png, %d bytes, attached)\n", len(d.PNG))
			images = append(images, Content{Type: ImageContent, MIMEType: kernels.MIMEPNG, Data: d.PNG})
		}
	}
	if r.Outputs != nil {
		// In the order the cell produced them: a header each time the
		// output switches between stdout, stderr and a display.
		section := ""
		for _, o := range r.Outputs {
			switch {
			case o.Stream == kernels.OutputDisplay:
				if o.Display < 0 || o.Display >= len(r.Displays) {
					continue
				}
				show("display:", r.Displays[o.Display])
				section = ""
			case o.Stream != "":
				if o.Stream != section {
					endLine()
					b.WriteString(o.Stream + ":\n")
					section = o.Stream
				}
				b.WriteString(o.Text)
			}
		}
		endLine()
	} else {
		if r.Stdout.Text != "" {
			b.WriteString("stdout:\n" + withNewline(r.Stdout.Text))
		}
		if r.Stderr.Text != "" {
			b.WriteString("stderr:\n" + withNewline(r.Stderr.Text))
		}
		for _, d := range r.Displays {
			show("display:", d)
		}
	}
	if r.Value != nil {
		show("out:", *r.Value)
	}
	if r.Error != nil {
		where := ""
		if r.Error.Line > 0 {
			where = fmt.Sprintf(" (cell line %d)", r.Error.Line)
		}
		fmt.Fprintf(&b, "error: %s: %s%s\n", r.Error.Name, r.Error.Message, where)
		if r.Error.Traceback != "" {
			b.WriteString(withNewline(r.Error.Traceback))
		}
	}
	if r.Error == nil && r.Value == nil && len(r.Displays) == 0 && r.Stdout.Text == "" && r.Stderr.Text == "" {
		b.WriteString("(the cell ran and produced no output)\n")
	}
	out := &Result{
		Content: append([]Content{{Type: TextContent, Text: strings.TrimRight(b.String(), "\n")}}, images...),
		IsError: r.Error != nil,
	}
	return out, structuredCell(lang, label, r)
}

func withNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

type cellDisplay struct {
	Text  string `json:"text/plain,omitempty"`
	HTML  string `json:"text/html,omitempty"`
	Image int    `json:"imageBytes,omitempty"`
	Note  string `json:"note,omitempty"`
}

func structuredCell(lang kernels.Language, label string, r *kernels.Result) *cellOutput {
	// The HTML form of a display the text already shows in plain form (a
	// data frame's table) is left out: it repeats the text several times over
	// and would push the structured part past the registry's bound, which
	// then drops all of it.
	conv := func(d kernels.Display) cellDisplay {
		c := cellDisplay{Text: d.Text, Image: len(d.PNG), Note: d.Note}
		if d.Text == "" {
			c.HTML = d.HTML
		}
		return c
	}
	s := &cellOutput{Language: lang, Label: label, Stdout: r.Stdout, Stderr: r.Stderr, Error: r.Error, Notices: r.Notices, StateLost: r.StateLost, Fresh: r.Fresh, Outputs: r.Outputs, Limits: r.Limits}
	if r.Value != nil {
		v := conv(*r.Value)
		s.Value = &v
	}
	for _, d := range r.Displays {
		s.Displays = append(s.Displays, conv(d))
	}
	return s
}

// cellOutput is the structured output of one cell.
type cellOutput struct {
	Language  kernels.Language `json:"language"`
	Label     string           `json:"label"`
	Stdout    kernels.Stream   `json:"stdout"`
	Stderr    kernels.Stream   `json:"stderr"`
	Value     *cellDisplay     `json:"value,omitempty"`
	Displays  []cellDisplay    `json:"displays,omitempty"`
	Outputs   []kernels.Output `json:"outputs,omitempty"`
	Error     *kernels.Error   `json:"error,omitempty"`
	Notices   []string         `json:"notices,omitempty"`
	StateLost bool             `json:"stateLost,omitempty"`
	Fresh     bool             `json:"fresh,omitempty"`
	Limits    []string         `json:"limits,omitempty"`
}
