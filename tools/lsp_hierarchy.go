package tools

import "context"
import "fmt"
import "strings"

import "github.com/tetherhq/tether/bridges/lsp"

// hierarchyDirections are the directions each hierarchy action takes, the
// first its default.
var hierarchyDirections = map[string][]string{
	"call_hierarchy": {lsp.Incoming, lsp.Outgoing},
	"type_hierarchy": {lsp.Supertypes, lsp.Subtypes},
}

// needHierarchy checks the position and the direction of a hierarchy
// action.
func needHierarchy(a lspArgs) error {
	if err := a.needPos(); err != nil {
		return err
	}
	dirs := hierarchyDirections[a.Action]
	if dir := hierarchyDirection(a); dir != dirs[0] && dir != dirs[1] {
		return fmt.Errorf("lsp: %s takes direction %s (the default) or %s, not %q", a.Action, dirs[0], dirs[1], dir)
	}
	return nil
}

// hierarchyDirection is a's direction, its action's default when unset.
func hierarchyDirection(a lspArgs) string {
	if a.Direction == "" {
		return hierarchyDirections[a.Action][0]
	}
	return a.Direction
}

// hierarchy answers call_hierarchy and type_hierarchy.
func hierarchy(ctx context.Context, l *lspTools, a lspArgs) (*lsp.Hierarchy, error) {
	if a.Action == "call_hierarchy" {
		return l.sup.CallHierarchy(ctx, a.pos(), hierarchyDirection(a), a.Start)
	}
	return l.sup.TypeHierarchy(ctx, a.pos(), hierarchyDirection(a), a.Start)
}

func renderHierarchy(a lspArgs, h *lsp.Hierarchy) lspAnswer {
	return lspAnswer{text: formatHierarchy(a, h), notes: h.Notes, out: LSPResult{Hierarchy: h}}
}

// formatHierarchy renders h: what was asked about, then one line per
// caller, callee or type with its call sites.
func formatHierarchy(a lspArgs, h *lsp.Hierarchy) string {
	what := map[string]string{lsp.Incoming: "callers", lsp.Outgoing: "callees", lsp.Supertypes: "supertypes", lsp.Subtypes: "subtypes"}[h.Direction]
	var of []string
	for _, o := range h.Of {
		of = append(of, fmt.Sprintf("%s %s (%s:%d)", o.Kind, o.Name, o.Location.Path, o.Location.Line))
	}
	subject := fmt.Sprintf("%q at %s:%d", a.Symbol, a.File, a.Line)
	if len(of) > 0 {
		subject = strings.Join(of, ", ")
	}
	if len(h.Items) == 0 && h.Total > 0 {
		return fmt.Sprintf("%s of %s: none from start %d: there are %d (start 0 shows the first)", what, subject, h.Start, h.Total)
	}
	if h.Total == 0 {
		if len(h.Of) == 0 {
			return fmt.Sprintf("no %s of %q at %s:%d: the server found nothing there to follow", what, a.Symbol, a.File, a.Line)
		}
		return fmt.Sprintf("no %s of %s (the server answered with none)", what, subject)
	}
	var b strings.Builder
	if len(h.Items) < h.Total {
		fmt.Fprintf(&b, "%s of %s: %s\n", what, subject, pageNote(h.Start, len(h.Items), h.Total))
	} else {
		fmt.Fprintf(&b, "%s of %s: %d\n", what, subject, h.Total)
	}
	for _, it := range h.Items {
		fmt.Fprintf(&b, "%s %s  %s:%d:%d", it.Kind, it.Name, it.Location.Path, it.Location.Line, it.Location.Col)
		if it.Detail != "" {
			fmt.Fprintf(&b, "  %s", it.Detail)
		}
		if len(it.Calls) > 0 {
			sites := make([]string, len(it.Calls))
			for i, c := range it.Calls {
				sites[i] = fmt.Sprintf("%s:%d", c.Path, c.Line)
			}
			fmt.Fprintf(&b, "\n  calls at %s", strings.Join(sites, ", "))
			if it.CallCount > len(it.Calls) {
				// the call sites are the references of the callee in the
				// caller (incoming) or of each callee (outgoing)
				fmt.Fprintf(&b, " (%d of %d shown; lsp references pages through every call)", len(it.Calls), it.CallCount)
			}
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}
