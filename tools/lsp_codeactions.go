package tools

import "context"
import "errors"
import "fmt"
import "strings"

import "github.com/tetherhq/tether/bridges/lsp"

// The lsp tool's code_actions action (lsp_apply stages one: lsp_apply.go).

func needCodeActions(a lspArgs) error {
	if a.File == "" || a.Line == 0 && a.Diagnostic == "" {
		return errors.New("lsp: code_actions needs file and line (1-based), with symbol (a substring of that line naming it) or end_line for a range (without either, the whole line); or file and diagnostic, a part of a diagnostic's message or its code")
	}
	return nil
}

func codeActions(ctx context.Context, l *lspTools, a lspArgs) (*lsp.CodeActions, error) {
	return l.sup.CodeActionsIn(ctx, lsp.ActionQuery{Position: a.pos(), EndLine: a.EndLine, Diagnostic: a.Diagnostic})
}

// renderCodeActions numbers the actions offered where a asked, with their
// kinds and what a pick would do.
func renderCodeActions(a lspArgs, acts *lsp.CodeActions) lspAnswer {
	where := fmt.Sprintf("%q on %s:%d", a.Symbol, a.File, a.Line)
	switch {
	case a.Line == 0:
		where = fmt.Sprintf("the diagnostic %q of %s", a.Diagnostic, a.File)
	case a.Symbol == "":
		where = fmt.Sprintf("%s:%d", a.File, a.Line)
		if a.EndLine > a.Line {
			where += fmt.Sprintf("-%d", a.EndLine)
		}
	}
	if a.Diagnostic != "" && a.Line != 0 {
		where += fmt.Sprintf(" for the diagnostic %q", a.Diagnostic)
	}
	if len(acts.Items) == 0 {
		return lspAnswer{text: "no code actions offered at " + where, notes: acts.Notes, out: LSPResult{CodeActions: acts}}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d code action(s) at %s (lsp_apply with action set to a number, title or kind stages one):\n", len(acts.Items), where)
	for i, c := range acts.Items {
		fmt.Fprintf(&b, "%d. %s", i+1, c.Title)
		if c.Kind != "" {
			fmt.Fprintf(&b, " (%s)", c.Kind)
		}
		if c.Preferred {
			b.WriteString(" [preferred]")
		}
		if c.Command != "" {
			fmt.Fprintf(&b, " [runs %s]", c.Command)
		}
		if c.Refused != "" {
			fmt.Fprintf(&b, " [refused: %s]", c.Refused)
		}
		b.WriteString("\n")
	}
	return lspAnswer{text: strings.TrimRight(b.String(), "\n"), notes: acts.Notes, out: LSPResult{CodeActions: acts}}
}
