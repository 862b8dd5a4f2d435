package lsp

import "bytes"
import "context"
import "encoding/json"
import "errors"
import "fmt"
import "strings"

// ErrNoFormatting is wrapped when a file's server offers no formatting
// (no documentFormattingProvider, or no documentRangeFormattingProvider
// for a range).
var ErrNoFormatting = errors.New("lsp: the server does not format")

// WithFormatOnWrite makes FormatOnWrite true for the files of every
// server whose FormatOnWrite is unset: tether's writers have the files
// they write formatted by their server (docs/tools.md, "Formatting").
func WithFormatOnWrite(on bool) Option { return func(s *Supervisor) { s.formatOnWrite = on } }

// FormatOnWrite reports whether file is to be formatted after a write,
// and the server that would format it ("" when no server serves it):
// its server's FormatOnWrite, else the supervisor's WithFormatOnWrite.
func (s *Supervisor) FormatOnWrite(file string) (on bool, server string) {
	path, err := s.abs(file)
	if err != nil {
		return s.formatOnWrite, ""
	}
	spec, err := s.specFor(path)
	if err != nil {
		return s.formatOnWrite, ""
	}
	if spec.FormatOnWrite != nil {
		return *spec.FormatOnWrite, spec.Name
	}
	return s.formatOnWrite, spec.Name
}

// Format returns the edit that formats file as its server formats it:
// the whole file (textDocument/formatting), or lines start to end
// (1-based, inclusive; textDocument/rangeFormatting) when start > 0.
// Nothing is written; a file the server leaves as it is gives an edit
// with no Files. Formatting options are read from the file: tabs or
// spaces, and the indent width its lines use.
func (s *Supervisor) Format(ctx context.Context, file string, start, end int) (*ProposedEdit, error) {
	if path, err := s.abs(file); err == nil {
		if _, err := s.specFor(path); err != nil {
			return nil, fmt.Errorf("%w: %s", ErrNoLanguage, strings.TrimPrefix(err.Error(), "lsp: "))
		}
	}
	ctx, done, err := s.reading(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	p, err := s.prepare(ctx, file)
	if err != nil {
		return nil, err
	}
	in := p.in
	method, key := "textDocument/formatting", "documentFormattingProvider"
	params := map[string]any{"textDocument": wTextDocumentIdentifier{URI: pathToURI(p.path)}, "options": formatOptions(p.text)}
	what := s.rel(p.path)
	if start > 0 {
		starts := lineStarts(p.text)
		n := len(starts)
		if len(p.text) > 0 && p.text[len(p.text)-1] == '\n' {
			n--
		}
		if end == 0 {
			end = start
		}
		if start > n || end < start {
			return nil, fmt.Errorf("lsp: lines %d to %d are not a range of %s, which has %d lines: pass line and end_line within it, end_line not before line", start, end, what, n)
		}
		end = min(end, n)
		last := lineText(p.text, starts, end-1)
		method, key = "textDocument/rangeFormatting", "documentRangeFormattingProvider"
		params["range"] = wRange{Start: wPosition{Line: start - 1}, End: wPosition{Line: end - 1, Character: in.enc.col(last, len(last))}}
		what = fmt.Sprintf("%s:%d-%d", what, start, end)
	}
	if in.caps != nil {
		if v, ok := in.caps[key]; !ok || string(v) == "false" || string(v) == "null" {
			return nil, fmt.Errorf("%w: %s offers no %s (no %s in its capabilities), so %s was not formatted", ErrNoFormatting, in.spec.Name, method, key, what)
		}
	}
	raw, err := in.call(ctx, s.requestTimeout, method, params)
	if err != nil {
		return nil, s.failed(in, err, p.notes)
	}
	var edits []wTextEdit
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &edits); err != nil {
			return nil, fmt.Errorf("lsp: %s answered %s with something unreadable: %w", in.spec.Name, method, err)
		}
	}
	pe, err := s.propose(in, []wWorkspaceEdit{{Changes: map[string][]wTextEdit{pathToURI(p.path): edits}}}, nil)
	if err != nil {
		return nil, fmt.Errorf("lsp: %s's formatting of %s: %w", in.spec.Name, what, err)
	}
	pe.Title = fmt.Sprintf("format %s with %s", what, in.spec.Name)
	pe.Notes = append(p.notes, pe.Notes...)
	return pe, nil
}

// formatOptions are the FormattingOptions for text: tabs when its first
// indented line starts with one, else spaces, as wide as the narrowest
// indent (4 without any).
func formatOptions(text []byte) map[string]any {
	tabs, width := false, 0
	seen := false
	for line := range bytes.SplitSeq(text, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		switch line[0] {
		case '\t':
			if !seen {
				tabs, seen = true, true
			}
		case ' ':
			seen = true
			n := len(line) - len(bytes.TrimLeft(line, " "))
			if n >= 2 && (width == 0 || n < width) {
				width = n
			}
		}
	}
	if width == 0 || width > 8 {
		width = 4
	}
	return map[string]any{"tabSize": width, "insertSpaces": !tabs, "trimTrailingWhitespace": true, "insertFinalNewline": true, "trimFinalNewlines": true}
}

// FormatReason is why a file was not formatted, in a few words, for a
// write's report: no server, no formatting, a timeout, or the error.
func FormatReason(err error) string {
	msg := strings.TrimPrefix(err.Error(), "lsp: ")
	switch {
	case errors.Is(err, ErrNoLanguage):
		return "no language server reads such files"
	case errors.Is(err, ErrNoServer):
		return "no server: " + msg
	case errors.Is(err, ErrNoFormatting):
		return "the server does not format: " + strings.TrimPrefix(msg, "the server does not format: ")
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout: " + msg
	}
	return msg
}
