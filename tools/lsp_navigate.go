package tools

import "context"
import "fmt"
import "strings"

import "github.com/tetherhq/tether/bridges/lsp"

// The lsp tool's navigation actions: definition, type_definition,
// implementation, references (with the same-name identifiers the server
// did not confirm: lsp_references.go) and hover.

func definition(ctx context.Context, l *lspTools, a lspArgs) (*lsp.Locations, error) {
	return l.sup.Definition(ctx, a.pos())
}

func typeDefinition(ctx context.Context, l *lspTools, a lspArgs) (*lsp.Locations, error) {
	return l.sup.TypeDefinition(ctx, a.pos())
}

func implementation(ctx context.Context, l *lspTools, a lspArgs) (*lsp.Locations, error) {
	return l.sup.Implementation(ctx, a.pos())
}

func renderLocations(a lspArgs, locs *lsp.Locations) lspAnswer {
	return lspAnswer{text: formatLocations(a, locs), notes: locs.Notes, out: LSPResult{Locations: locs}}
}

// references asks for a page of the symbol's references, then looks for
// the same-name identifiers the server did not return: a server that
// cannot type a receiver leaves its calls out.
func references(ctx context.Context, l *lspTools, a lspArgs) (refsAnswer, error) {
	locs, err := l.sup.ReferencesPage(ctx, a.pos(), a.Start)
	if err != nil {
		return refsAnswer{}, err
	}
	return refsAnswer{locs, l.unconfirmed(ctx, locs, a.File, a.Start)}, nil
}

func renderReferences(a lspArgs, r refsAnswer) lspAnswer {
	locs, u := r.Locations, r.Unconfirmed
	ans := renderLocations(a, locs)
	if u == nil {
		return ans
	}
	if len(locs.Items) == 0 && locs.Total > 0 && u.Count > 0 {
		ans.text = fmt.Sprintf("references of %q at %s:%d: the server's %d location(s) come first (start 0 shows them); from start %d on, the same-name identifiers it did not confirm",
			a.Symbol, a.File, a.Line, locs.Total, locs.Total)
	}
	ans.text += "\n" + formatUnconfirmed(locs.Name, u)
	ans.out.Unconfirmed = u
	return ans
}

func hover(ctx context.Context, l *lspTools, a lspArgs) (*lsp.Hover, error) {
	return l.sup.Hover(ctx, a.pos())
}

func renderHover(a lspArgs, h *lsp.Hover) lspAnswer {
	text := h.Text
	if text == "" {
		text = fmt.Sprintf("no hover information for %q at %s:%d (the server answered with none)", a.Symbol, a.File, a.Line)
	}
	return lspAnswer{text: text, notes: h.Notes, out: LSPResult{Hover: h}}
}

func formatLocations(a lspArgs, locs *lsp.Locations) string {
	what := strings.ReplaceAll(a.Action, "_", " ")
	if len(locs.Items) == 0 && locs.Total > 0 {
		return fmt.Sprintf("%s of %q at %s:%d: none from start %d: there are %d (start 0 shows the first)", what, a.Symbol, a.File, a.Line, locs.Start, locs.Total)
	}
	if len(locs.Items) == 0 {
		return fmt.Sprintf("no %s found for %q at %s:%d (the server answered with none)", what, a.Symbol, a.File, a.Line)
	}
	var b strings.Builder
	if len(locs.Items) < locs.Total {
		fmt.Fprintf(&b, "%s of %q at %s:%d: %s\n", what, a.Symbol, a.File, a.Line, pageNote(locs.Start, len(locs.Items), locs.Total))
	} else {
		fmt.Fprintf(&b, "%s of %q at %s:%d: %d location(s)\n", what, a.Symbol, a.File, a.Line, locs.Total)
	}
	for _, l := range locs.Items {
		b.WriteString(l.String())
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// pageNote says which part of total results a page shows and how to get
// the next: "51-100 of 130 shown; start 100 shows the next".
func pageNote(start, n, total int) string {
	note := fmt.Sprintf("%d-%d of %d shown", start+1, start+n, total)
	if start+n < total {
		note += fmt.Sprintf("; pass start %d for the next", start+n)
	}
	return note
}
