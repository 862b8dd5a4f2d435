package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/tetherhq/tether/kernels"
)

func init() {
	addFamily(family{
		name: "eval",
		// Registered when the run has a kernel factory.
		wired: func(cfg *Config) bool { return cfg.Kernels != nil },
		register: func(r *Run) (func() error, error) {
			factory := r.cfg.Kernels
			if lookup := r.cfg.Enclosure; lookup != nil {
				// This run's kernels run in its conversation's enclosure
				// when there is one; the factory may be shared.
				f := *factory
				conv := r.cfg.ConversationID
				f.Defaults.Enclosure = func() []string { return lookup(conv) }
				factory = &f
			}
			ev := &evaluator{run: r, factory: factory, kernels: map[kernels.Language]kernels.Kernel{}}
			if err := r.Registry().Register(ev.tool()); err != nil {
				return nil, err
			}
			// Run.Close discards every kernel: no interpreter outlives the run.
			return ev.close, nil
		},
		tools: func() []Tool { return []Tool{(&evaluator{}).tool()} },
	})
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

var evalWords = regexp.MustCompile(`[^\t\n\f\r ]+`)

// tuneSchema states the description's word count as a pattern.
func (evalArgs) tuneSchema(s *jsonschema.Schema) {
	s.Properties["description"].Pattern = evalDescriptionPattern
}

// evalArgs are eval's arguments (docs/tools.md, "eval").
type evalArgs struct {
	Code        string `json:"code" jsonschema:"the cell: Python (IPython idioms such as %pip, %cd, !cmd, %%bash, %time, %%timeit, %env, obj? work) or JavaScript"`
	Description string `json:"description" jsonschema:"5-10 words saying what the cell does; shown as the cell's label"`
	Language    string `json:"language,omitempty" jsonschema:"python (default) or javascript" bounds:"enum=python|javascript"`
	Reset       bool   `json:"reset,omitempty" jsonschema:"discard the interpreter and its state before running the cell"`
}

func (e *evaluator) tool() Tool {
	return Tool{
		Name: "eval",
		Tier: TierExec,
		Description: "Run a Python or JavaScript cell in a persistent interpreter: variables, imports and loaded data survive between calls, as in a notebook. " +
			"The last expression is echoed (top-level await works in both languages); display(x) shows rich output; pandas data frames render as tables and matplotlib figures come back as images. " +
			"IPython idioms work in Python: %pip install (then import again), %cd, !cmd, x = !cmd, %%bash, %time, %timeit, %%timeit, %env, obj?, %%writefile, %%capture, %run, %autoreload. " +
			"Inside a cell, tool(name, args) calls this run's tools (e.g. contents = tool(\"read\", {\"path\": \"lib/auth.dart\"})) under the same approvals; a refused call raises ToolError. " +
			"The result is the tool's text (a str in Python, a String in JavaScript); its .structured holds the tool's structured output as plain dicts and lists (None/null when the tool has none), " +
			"e.g. tool(\"ast_grep\", {...}).structured[\"matches\"]; .text is the text as a plain string; help(tool) says the same. " +
			"A cell that goes quiet (no output, no tool() call outstanding) for its idle budget (default 5 minutes) is interrupted; printing progress keeps a long cell going; state is kept unless the result says otherwise. " +
			"reset: true discards the interpreter first. " +
			"Calls run one at a time (a second eval waits for the first to end): do not call eval in parallel, put the work in one cell.",
		InputSchema: SchemaFor[evalArgs](),
		Serial:      true,
		Handler:     e.handle,
	}
}

func (e *evaluator) handle(ctx context.Context, call *Call) (*Result, error) {
	if call.Origin == FromBridge {
		return nil, errEvalFromCell
	}
	var a evalArgs
	if err := checkText(call.Name, call.Args); err != nil {
		return nil, fmt.Errorf("%w (the cell was not run)", err)
	}
	if err := call.Decode(&a); err != nil {
		return nil, err
	}
	words := evalWords.FindAllString(a.Description, -1)
	label := strings.Join(words, " ")
	if n := len(words); n < 5 || n > 10 {
		return nil, fmt.Errorf("tools: eval: description must be 5-10 words (got %d): say what the cell does, e.g. \"load the sales csv and plot monthly totals\"", n)
	}
	lang, err := kernels.ParseLanguage(a.Language)
	if err != nil {
		return nil, fmt.Errorf("tools: eval: %w", err)
	}
	k, fresh, err := e.kernel(lang, a.Reset)
	if err != nil {
		return nil, fmt.Errorf("tools: eval: %w", err)
	}
	res, err := k.Execute(ctx, kernels.Cell{Code: a.Code, Label: label})
	if err != nil {
		return nil, fmt.Errorf("tools: eval: %w", err)
	}
	if a.Reset && !fresh {
		res.Notices = append([]string{"reset: the previous interpreter was discarded; this cell ran in a fresh one"}, res.Notices...)
	}
	return renderCell(lang, label, res), nil
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
	if name == "eval" {
		// Refused here, not by eval's handler: eval is Serial, and the
		// cell's own call holds its lock.
		return kernels.ToolReply{}, errEvalFromCell
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
func renderCell(lang kernels.Language, label string, r *kernels.Result) *Result {
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
		Content:    append([]Content{{Type: TextContent, Text: strings.TrimRight(b.String(), "\n")}}, images...),
		Structured: structuredCell(lang, label, r),
		IsError:    r.Error != nil,
	}
	return out
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

func structuredCell(lang kernels.Language, label string, r *kernels.Result) any {
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
	s := struct {
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
	}{Language: lang, Label: label, Stdout: r.Stdout, Stderr: r.Stderr, Error: r.Error, Notices: r.Notices, StateLost: r.StateLost, Fresh: r.Fresh, Outputs: r.Outputs, Limits: r.Limits}
	if r.Value != nil {
		v := conv(*r.Value)
		s.Value = &v
	}
	for _, d := range r.Displays {
		s.Displays = append(s.Displays, conv(d))
	}
	return s
}
