package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/tetherhq/tether/bridges/lsp"
)

// unconfirmedShown is how many unconfirmed same-name identifiers references
// lists; Count says how many there are.
const unconfirmedShown = 20

// unconfirmedRefs are the identifiers spelled as the symbol that the
// server's references did not include: uses it could not resolve (pyright
// on a receiver it cannot type) or other symbols of the same name.
type unconfirmedRefs struct {
	Count int        `json:"count"`
	Items []sameName `json:"items"`
	// Incomplete says why the scan did not look at everything: the list
	// may be partial.
	Incomplete []string `json:"incomplete,omitempty"`
}

// refsAnswer is references' structured result: the server's locations and
// the same-name identifiers it did not confirm.
type refsAnswer struct {
	*lsp.Locations
	Unconfirmed *unconfirmedRefs `json:"unconfirmed,omitempty"`
}

// unconfirmed scans the workspace (scanSameName) for identifiers spelled as
// the symbol locs answers for, in the files its server reads, and returns
// those not among the server's locations; nil when there is nothing to
// say (none found, and the scan looked at everything).
func (l *lspTools) unconfirmed(ctx context.Context, locs *lsp.Locations) *unconfirmedRefs {
	if locs.Name == "" || l.parser == nil || l.root == nil {
		return nil
	}
	confirmed := map[string]bool{}
	for _, c := range locs.All {
		confirmed[fmt.Sprintf("%s:%d:%d", c.Path, c.Line, c.Col)] = true
	}
	out := &unconfirmedRefs{Items: []sameName{}}
	scan := l.scanSameName(ctx, locs.Name, locs.Extensions, false, nil, func(id sameName) {
		if confirmed[fmt.Sprintf("%s:%d:%d", id.Path, id.Line, id.Col)] {
			return
		}
		out.Count++
		if len(out.Items) < unconfirmedShown {
			out.Items = append(out.Items, id)
		}
	})
	out.Incomplete = scan.incomplete
	if out.Count == 0 && len(out.Incomplete) == 0 {
		return nil
	}
	return out
}

// formatUnconfirmed renders u after the server's locations.
func formatUnconfirmed(name string, u *unconfirmedRefs) string {
	var b strings.Builder
	if u.Count > 0 {
		at := make([]string, len(u.Items))
		for i, id := range u.Items {
			at[i] = id.at()
		}
		fmt.Fprintf(&b, "+%d same-name identifier(s) the server did not confirm (uses it could not resolve, such as calls on a receiver it cannot type, or other symbols named %s; the list above may be partial): %s",
			u.Count, name, strings.Join(at, " "))
		if u.Count > len(u.Items) {
			fmt.Fprintf(&b, " ... (%d of %d shown)", len(u.Items), u.Count)
		}
	}
	if len(u.Incomplete) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "the scan for same-name identifiers the server did not return is incomplete (%s): the list above may be partial", strings.Join(u.Incomplete, "; "))
	}
	return b.String()
}
