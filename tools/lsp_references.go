package tools

import "context"
import "fmt"
import "slices"
import "strings"

import "github.com/tetherhq/tether/bridges/lsp"

// unconfirmedShown is how many unconfirmed same-name identifiers one page
// of references lists; Count says how many there are, and start pages on
// past the server's locations.
const unconfirmedShown = 20

// UnconfirmedRefs are the identifiers spelled as the symbol that the
// server's references did not include: uses it could not resolve (pyright
// on a receiver it cannot type) or other symbols of the same name.
type UnconfirmedRefs struct {
	Count int `json:"count"`
	// Start is how many were skipped before Items: a page's start past the
	// server's locations pages through them.
	Start int            `json:"start,omitempty"`
	Items []lsp.SameName `json:"items"`
	// Next is the references start that shows the next of them, 0 when
	// this page shows the last.
	Next int `json:"next,omitempty"`
	// Outside counts those in files outside the TypeScript project of the
	// file asked about (its tsconfig's include), which tsserver does not
	// search; OutsideFiles names those files (at most unconfirmedShown),
	// Project is the project's configuration and Include its include.
	Outside      int      `json:"outside,omitempty"`
	OutsideFiles []string `json:"outside_files,omitempty"`
	Project      string   `json:"project,omitempty"`
	Include      []string `json:"include,omitempty"`
	// Incomplete says why the scan did not look at everything: the list
	// may be partial.
	Incomplete []string `json:"incomplete,omitempty"`

	total int // the server's locations, before these in references' start
}

// refsAnswer is references' answer, as its JSON reads: the server's
// locations and the same-name identifiers it did not confirm.
type refsAnswer struct {
	*lsp.Locations
	Unconfirmed *UnconfirmedRefs `json:"unconfirmed,omitempty"`
}

// unconfirmed scans the workspace (lsp.Supervisor.ScanSameName) for identifiers spelled as
// the symbol locs answers for, in the files its server reads, and returns
// those not among the server's locations; nil when there is nothing to
// say (none found, and the scan looked at everything).
//
// The page holds those from start (the references start; the server's
// locations come first, so the identifiers from start-Total on). For a
// TypeScript or JavaScript file with a tsconfig, those in files outside
// its project are counted apart.
func (l *lspTools) unconfirmed(ctx context.Context, locs *lsp.Locations, file string, start int) *UnconfirmedRefs {
	if locs.Name == "" || l.parser == nil || l.root == nil {
		return nil
	}
	var project *lsp.TSProject
	if slices.Contains(locs.Extensions, ".ts") || slices.Contains(locs.Extensions, ".js") {
		project, _ = l.sup.TSProjectOf(file)
	}
	outside := map[string]bool{}
	from := max(0, start-locs.Total)
	confirmed := map[string]bool{}
	for _, c := range locs.All {
		confirmed[fmt.Sprintf("%s:%d:%d", c.Path, c.Line, c.Col)] = true
	}
	out := &UnconfirmedRefs{Items: []lsp.SameName{}, Start: from, total: locs.Total}
	scan := l.sup.ScanSameName(ctx, lspParser(l.parser), locs.Name, locs.Extensions, false, nil, func(id lsp.SameName) {
		if confirmed[fmt.Sprintf("%s:%d:%d", id.Path, id.Line, id.Col)] {
			return
		}
		out.Count++
		if out.Count > from && len(out.Items) < unconfirmedShown {
			out.Items = append(out.Items, id)
		}
		if project != nil && !project.Holds(id.Path) {
			out.Outside++
			if !outside[id.Path] {
				outside[id.Path] = true
				if len(out.OutsideFiles) < unconfirmedShown {
					out.OutsideFiles = append(out.OutsideFiles, id.Path)
				}
			}
		}
	})
	if out.Outside > 0 {
		out.Project, out.Include = project.Config, project.Include
	}
	if from+len(out.Items) < out.Count {
		out.Next = locs.Total + from + len(out.Items)
	}
	out.Incomplete = scan.Incomplete
	if out.Count == 0 && len(out.Incomplete) == 0 {
		return nil
	}
	return out
}

// formatUnconfirmed renders u after the server's locations.
func formatUnconfirmed(name string, u *UnconfirmedRefs) string {
	var b strings.Builder
	if u.Count > 0 {
		at := make([]string, len(u.Items))
		for i, id := range u.Items {
			at[i] = id.At()
		}
		fmt.Fprintf(&b, "+%d same-name identifier(s) the server did not confirm (uses it could not resolve, such as calls on a receiver it cannot type, or other symbols named %s; the list above may be partial): %s",
			u.Count, name, strings.Join(at, " "))
		if len(u.Items) < u.Count {
			if len(u.Items) == 0 {
				fmt.Fprintf(&b, "none from start %d: starts %d to %d page through them", u.total+u.Start, u.total, u.total+u.Count-1)
			} else {
				fmt.Fprintf(&b, " ... (%s)", unconfirmedPageNote(u))
			}
		}
	}
	if u.Outside > 0 {
		files := strings.Join(u.OutsideFiles, ", ")
		if n := len(u.OutsideFiles); n < u.Outside && n == unconfirmedShown {
			files += ", ..."
		}
		fmt.Fprintf(&b, "\n%d of them are in files outside the TypeScript project of %s (its include: %s), which the server does not search: %s",
			u.Outside, u.Project, strings.Join(u.Include, ", "), files)
	}
	if len(u.Incomplete) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "the scan for same-name identifiers the server did not return is incomplete (%s): the list above may be partial", strings.Join(u.Incomplete, "; "))
	}
	return b.String()
}

// unconfirmedPageNote says which of u's identifiers the page shows and the
// references start of the next: "1-20 of 64 shown; pass start 84 for the
// next".
func unconfirmedPageNote(u *UnconfirmedRefs) string {
	note := fmt.Sprintf("%d-%d of %d shown", u.Start+1, u.Start+len(u.Items), u.Count)
	if u.Next > 0 {
		note += fmt.Sprintf("; pass start %d for the next", u.Next)
	}
	return note
}
