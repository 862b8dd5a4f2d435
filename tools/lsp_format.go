package tools

import "context"
import "errors"
import "fmt"
import "strings"
import "sync"
import "time"

import "github.com/tetherhq/tether/bridges/lsp"

// Formatting: lsp_format stages a server's formatting of a file or a
// range for resolve; format on write (lsp.WithFormatOnWrite, a server's
// FormatOnWrite) formats what every writer wrote, before diagnostics on
// write looks at it (docs/tools.md, "Formatting").

// formatOnWriteTimeout bounds formatting one written file, a server's
// start included.
const formatOnWriteTimeout = 60 * time.Second

// FormatOutcome is what format on write did to one written file.
type FormatOutcome struct {
	Path string `json:"path"`
	// Server is the server asked ("" when none serves the file).
	Server string `json:"server,omitempty"`
	// Formatted says the file was changed by formatting; Edits counts
	// the server's edits.
	Formatted bool `json:"formatted"`
	Edits     int  `json:"edits,omitempty"`
	// Reason says why the file was not formatted when it was not and the
	// server did not find it formatted already: no server, the server
	// does not format, timeout, the file changed meanwhile, an error.
	Reason string `json:"reason,omitempty"`
}

// formatArgs are lsp_format's arguments.
type formatArgs struct {
	File    string `json:"file" jsonschema:"workspace-relative file to format" bounds:"minLength=1"`
	Line    int    `json:"line,omitempty" jsonschema:"1-based first line of a range to format (textDocument/rangeFormatting); omitted: the whole file" bounds:"minimum=1"`
	EndLine int    `json:"end_line,omitempty" jsonschema:"1-based last line of the range (omitted: line alone)" bounds:"minimum=1"`
	serverTimeout
}

func (l *lspTools) formatTool() Tool {
	return Typed(Tool{
		Name: "lsp_format",
		Tier: TierWrite,
		Description: "Format a file, or lines line to end_line of it, as its language server formats it (gofmt through gopls, clang-format through clangd, typescript-language-server's formatter): " +
			"the edits are staged for resolve (edit_id and diff), nothing is written before accept, which applies them all or nothing (rejected whole if the file changed since) and reports new diagnostics. " +
			"Tabs or spaces and the indent width are read from the file. A file already formatted stages nothing and says so; a server without formatting says so.",
	}, l.format)
}

func (l *lspTools) format(ctx context.Context, call *Call, a formatArgs) (*Result, *StagedDiff, error) {
	if a.EndLine > 0 && a.Line == 0 {
		return nil, nil, errors.New("lsp: lsp_format: end_line needs line, the range's first line (1-based)")
	}
	ctx = lsp.WithNotice(ctx, func(m string) { ReportStep(ctx, "lsp: "+m) })
	cctx, cancel := withTimeout(ctx, a.Timeout)
	defer cancel()
	pe, err := l.sup.Format(cctx, a.File, a.Line, a.EndLine)
	if err != nil {
		return nil, nil, timeoutErr(cctx, a.Timeout, err)
	}
	if len(pe.Files) == 0 {
		what := a.File
		if a.Line > 0 {
			what = fmt.Sprintf("%s:%d-%d", a.File, a.Line, max(a.EndLine, a.Line))
		}
		text := fmt.Sprintf("%s is formatted already as %s formats it: nothing was staged", what, pe.Server)
		if len(pe.Notes) > 0 {
			text = strings.Join(pe.Notes, "\n") + "\n" + text
		}
		return Text(text), &StagedDiff{Files: []StagedFile{}}, nil
	}
	return l.stageProposed(pe, "lsp_format")
}

// formatWritten formats each of files whose server formats on write,
// applying the edit at once (all or nothing, checked against the file as
// the write left it), and says what it did to each: formatted, by which
// server, or why not. Nothing is said when format on write is off for
// every file.
func (l *lspTools) formatWritten(ctx context.Context, files []string) ([]FormatOutcome, []string) {
	var on []string
	servers := map[string]string{}
	for _, f := range files {
		if yes, server := l.sup.FormatOnWrite(f); yes {
			on = append(on, f)
			servers[f] = server
		}
	}
	if len(on) == 0 {
		return nil, nil
	}
	// The files are formatted at once (each bounded by formatOnWriteTimeout).
	outs := make([]FormatOutcome, len(on))
	var wg sync.WaitGroup
	for i, f := range on {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i] = l.formatOne(ctx, f, servers[f])
		}()
	}
	wg.Wait()
	var lines []string
	for i, f := range on {
		o := outs[i]
		switch {
		case o.Formatted:
			lines = append(lines, fmt.Sprintf("formatted %s with %s (%s)", f, o.Server, plural(o.Edits, "edit")))
		case o.Reason == "":
			lines = append(lines, fmt.Sprintf("%s is formatted already as %s formats it", f, o.Server))
		default:
			lines = append(lines, fmt.Sprintf("not formatted %s: %s", f, o.Reason))
		}
	}
	return outs, lines
}

// formatOne formats file, written just now, with server's formatting.
func (l *lspTools) formatOne(ctx context.Context, file, server string) FormatOutcome {
	o := FormatOutcome{Path: l.seenPath(file), Server: server}
	if server == "" {
		o.Reason = "no language server reads such files"
		return o
	}
	fctx, cancel := context.WithTimeout(ctx, formatOnWriteTimeout)
	defer cancel()
	pe, err := l.sup.Format(fctx, file, 0, 0)
	if err == nil && len(pe.Files) > 0 {
		plan := l.plan(pe, "format on write")
		if err = l.run.stager().Apply(plan); err == nil {
			plan.After(ctx)
			o.Formatted, o.Edits = true, pe.Edits
			return o
		}
		err = l.run.relErr(err)
	}
	switch {
	case err == nil:
		return o
	case errors.Is(fctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
		o.Reason = fmt.Sprintf("timeout: %s gave no formatting within %s", server, formatOnWriteTimeout)
	default:
		o.Reason = lsp.FormatReason(err)
	}
	return o
}
