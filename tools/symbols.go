package tools

import "context"
import "errors"
import "fmt"
import "strings"

import "github.com/tetherhq/tether/bridges/lsp"

// SymbolsPage is the Structured result of lsp symbols: the page of symbols
// the text shows. A file's symbols (File set) nest as in the file, each at
// "line:col"; a workspace search's are grouped by container, then by
// kind, each at "path:line:col".
type SymbolsPage struct {
	File string `json:"file,omitempty"`
	// Total counts the symbols of the kind asked for; Start were skipped
	// and Shown are on this page; Next is the start of the next (0: none).
	Total int `json:"total"`
	Start int `json:"start,omitempty"`
	Shown int `json:"shown"`
	Next  int `json:"next,omitempty"`
	// Capped is true when the server returned as many as its own cap:
	// there may be more matches than Total.
	Capped bool `json:"capped,omitempty"`
	// Locals counts the parameters and locals left out of a file's symbols.
	Locals int `json:"locals,omitempty"`
	// Outline is a file's symbols; Groups a workspace search's.
	Outline []OutlineSymbol `json:"outline,omitempty"`
	Groups  []SymbolGroup   `json:"groups,omitempty"`
}

// OutlineSymbol is one symbol of a file with the symbols nested in it on
// the page.
type OutlineSymbol struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	// At is "line:col".
	At string `json:"at"`
	// Container names the symbol's parent when the page lists it without
	// its parent (kind asked for).
	Container string          `json:"container,omitempty"`
	Children  []OutlineSymbol `json:"children,omitempty"`
}

// SymbolGroup is the symbols of a workspace search in one container (a
// package, class or module), by kind.
type SymbolGroup struct {
	Container string                `json:"container"`
	ByKind    map[string][]SymbolAt `json:"by_kind"`
}

// SymbolAt is a symbol's name and place, "path:line:col".
type SymbolAt struct {
	Name string `json:"name"`
	At   string `json:"at"`
}

// needSymbols checks that symbols has what to look for.
func needSymbols(a lspArgs) error {
	if a.Query == "" && a.File == "" {
		return errors.New("lsp: symbols needs query (workspace search) or file (that file's symbols)")
	}
	return nil
}

// symbols asks for a page of a workspace search's symbols (query) or of a
// file's (file).
func symbols(ctx context.Context, l *lspTools, a lspArgs) (*lsp.Symbols, error) {
	if a.Query != "" {
		return l.sup.WorkspaceSymbolsPage(ctx, a.Query, a.File, lsp.Page{Start: a.Start, Kind: a.Kind})
	}
	return l.sup.DocumentSymbolsPage(ctx, a.File, lsp.Page{Start: a.Start, Kind: a.Kind, Locals: a.Locals})
}

func renderSymbols(a lspArgs, syms *lsp.Symbols) lspAnswer {
	text, page := formatSymbols(a, syms)
	return lspAnswer{text: text, notes: syms.Notes, out: LSPResult{Symbols: page}}
}

// formatSymbols renders a page of symbols: a file's as its outline, a
// workspace search's grouped by container, each container named once.
func formatSymbols(a lspArgs, syms *lsp.Symbols) (string, *SymbolsPage) {
	p := &SymbolsPage{Total: syms.Total, Start: syms.Start, Shown: len(syms.Items), Capped: syms.Capped, Locals: syms.Locals}
	if a.Query == "" {
		p.File = a.File
	}
	if syms.Start+len(syms.Items) < syms.Total {
		p.Next = syms.Start + len(syms.Items)
	}
	kind := "symbol"
	if a.Kind != "" {
		kind = a.Kind + " symbol"
	}
	capped := ""
	if syms.Capped {
		capped = fmt.Sprintf("the server returned %d, its own cap: there may be more matches; narrow the query", syms.Total)
	}
	var b strings.Builder
	switch {
	case len(syms.Items) == 0 && syms.Total > 0:
		there := fmt.Sprintf("there are %d", syms.Total)
		if syms.Capped {
			there = capped
		}
		fmt.Fprintf(&b, "no %ss from start %d: %s (start 0 shows the first)\n", kind, syms.Start, there)
	case len(syms.Items) == 0 && a.Query != "":
		fmt.Fprintf(&b, "no %ss match %q\n", kind, a.Query)
	case len(syms.Items) == 0:
		fmt.Fprintf(&b, "no %ss in %s\n", kind, a.File)
	case len(syms.Items) < syms.Total:
		fmt.Fprintf(&b, "%ss: %s", kind, pageNote(syms.Start, len(syms.Items), syms.Total))
		if syms.Capped {
			b.WriteString(" (" + capped + ")")
		}
		b.WriteString("\n")
	case syms.Capped:
		fmt.Fprintf(&b, "%d %ss (%s)\n", syms.Total, kind, capped)
	default:
		fmt.Fprintf(&b, "%d %s(s)\n", syms.Total, kind)
	}
	if syms.Locals > 0 {
		fmt.Fprintf(&b, "(%d parameters and locals of functions left out: locals true lists them)\n", syms.Locals)
	}
	if a.Query == "" {
		p.Outline = outline(&b, syms.Items)
	} else {
		p.Groups = byContainer(&b, syms.Items)
	}
	return strings.TrimRight(b.String(), "\n"), p
}

// outline writes a file's symbols indented by depth and returns them
// nested.
func outline(b *strings.Builder, items []lsp.Symbol) []OutlineSymbol {
	var out []OutlineSymbol
	// stack[d] is the children list symbols of depth d go into
	var stack []*[]OutlineSymbol
	stack = append(stack, &out)
	base := -1
	for _, s := range items {
		if base < 0 || s.Depth < base {
			base = s.Depth // a page may begin inside a parent
		}
		d := s.Depth - base
		b.WriteString(strings.Repeat("  ", d))
		fmt.Fprintf(b, "%s %s  %s:%d:%d", s.Kind, s.Name, s.Location.Path, s.Location.Line, s.Location.Col)
		o := OutlineSymbol{Name: s.Name, Kind: s.Kind, At: fmt.Sprintf("%d:%d", s.Location.Line, s.Location.Col)}
		if s.Container != "" && s.Depth == 0 {
			fmt.Fprintf(b, " (in %s)", s.Container)
			o.Container = s.Container
		}
		b.WriteString("\n")
		if d >= len(stack) {
			d = len(stack) - 1
		}
		stack = stack[:d+1]
		list := stack[d]
		*list = append(*list, o)
		last := &(*list)[len(*list)-1]
		stack = append(stack, &last.Children)
	}
	return out
}

// byContainer writes a workspace search's symbols under their containers,
// each named once, in the order they first come, and returns them grouped.
func byContainer(b *strings.Builder, items []lsp.Symbol) []SymbolGroup {
	var order []string
	by := map[string][]lsp.Symbol{}
	for _, s := range items {
		if _, ok := by[s.Container]; !ok {
			order = append(order, s.Container)
		}
		by[s.Container] = append(by[s.Container], s)
	}
	var out []SymbolGroup
	for _, c := range order {
		g := SymbolGroup{Container: c, ByKind: map[string][]SymbolAt{}}
		indent := ""
		if c != "" {
			fmt.Fprintf(b, "in %s:\n", c)
			indent = "  "
		}
		for _, s := range by[c] {
			at := fmt.Sprintf("%s:%d:%d", s.Location.Path, s.Location.Line, s.Location.Col)
			fmt.Fprintf(b, "%s%s %s  %s\n", indent, s.Kind, s.Name, at)
			g.ByKind[s.Kind] = append(g.ByKind[s.Kind], SymbolAt{Name: s.Name, At: at})
		}
		out = append(out, g)
	}
	return out
}
