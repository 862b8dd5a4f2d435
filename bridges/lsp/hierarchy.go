package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
)

// Hierarchy directions: the callers or callees of a function (LSP 3.16 call
// hierarchy), the supertypes or subtypes of a type (LSP 3.17 type
// hierarchy).
const (
	Incoming   = "incoming"
	Outgoing   = "outgoing"
	Supertypes = "supertypes"
	Subtypes   = "subtypes"
)

// Caps on a hierarchy answer.
const (
	// MaxHierarchy is how many callers, callees or types one page lists.
	MaxHierarchy = 50
	// MaxCallSites is how many call sites an entry lists; Sites counts all.
	MaxCallSites = 10
)

// HierarchyItem is one function or type of a hierarchy answer: its name,
// kind and detail (a signature, a package) and where it is declared.
type HierarchyItem struct {
	Name     string   `json:"name"`
	Kind     string   `json:"kind"`
	Detail   string   `json:"detail,omitempty"`
	Location Location `json:"location"`
	// Calls are where the call happens, for a call hierarchy: in the
	// caller's file for incoming calls, in the asked function's file for
	// outgoing ones; at most MaxCallSites.
	Calls []Location `json:"calls,omitempty"`
	// CallCount counts every call site, more than len(Calls) when capped.
	CallCount int `json:"call_count,omitempty"`
}

// Hierarchy is the answer of a call or type hierarchy query.
type Hierarchy struct {
	// Direction is Incoming, Outgoing, Supertypes or Subtypes.
	Direction string `json:"direction"`
	// Of are the items the server prepared at the position (usually one).
	Of []HierarchyItem `json:"of"`
	// Items are the callers, callees or types, sorted by path and line.
	Items []HierarchyItem `json:"items"`
	// Total counts them all; more than Start+len(Items) when capped.
	Total int `json:"total"`
	// Start is how many were skipped before Items (a page past the cap).
	Start int      `json:"start,omitempty"`
	Notes []string `json:"notes,omitempty"`
}

// wHierarchyItem is a CallHierarchyItem or TypeHierarchyItem as read; the
// raw item is sent back unchanged in the follow-up request (its data field
// is the server's own).
type wHierarchyItem struct {
	Name           string `json:"name"`
	Kind           int    `json:"kind"`
	Detail         string `json:"detail,omitempty"`
	URI            string `json:"uri"`
	Range          wRange `json:"range"`
	SelectionRange wRange `json:"selectionRange"`
}

// CallHierarchy returns the callers (Incoming) or callees (Outgoing) of the
// function at pos, each with its call sites, at most MaxHierarchy from
// start on. A server that does not offer call hierarchies is an error that
// says so.
func (s *Supervisor) CallHierarchy(ctx context.Context, pos Position, direction string, start int) (*Hierarchy, error) {
	var method string
	switch direction {
	case Incoming:
		method = "callHierarchy/incomingCalls"
	case Outgoing:
		method = "callHierarchy/outgoingCalls"
	default:
		return nil, fmt.Errorf("lsp: call hierarchy direction %q: use %s (the callers) or %s (the callees)", direction, Incoming, Outgoing)
	}
	return s.hierarchy(ctx, pos, "textDocument/prepareCallHierarchy", method, direction, start)
}

// TypeHierarchy returns the supertypes (Supertypes) or subtypes (Subtypes) of
// the type at pos, at most MaxHierarchy from start on. A server that does not
// offer type hierarchies is an error that says so.
func (s *Supervisor) TypeHierarchy(ctx context.Context, pos Position, direction string, start int) (*Hierarchy, error) {
	var method string
	switch direction {
	case Supertypes:
		method = "typeHierarchy/supertypes"
	case Subtypes:
		method = "typeHierarchy/subtypes"
	default:
		return nil, fmt.Errorf("lsp: type hierarchy direction %q: use %s or %s", direction, Supertypes, Subtypes)
	}
	return s.hierarchy(ctx, pos, "textDocument/prepareTypeHierarchy", method, direction, start)
}

func (s *Supervisor) hierarchy(ctx context.Context, pos Position, prepare, method, direction string, start int) (*Hierarchy, error) {
	ctx, done, err := s.reading(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	if err := (Page{Start: start}).check(); err != nil {
		return nil, err
	}
	p, params, err := s.positionParams(ctx, pos)
	if err != nil {
		return nil, err
	}
	if err := p.in.supports(prepare); err != nil {
		what, instead := "call hierarchies", "use references instead: it finds the calls"
		if prepare == "textDocument/prepareTypeHierarchy" {
			what, instead = "type hierarchies", "use implementation instead: it finds the types that implement an interface"
		}
		return nil, fmt.Errorf("lsp: %s does not offer %s (no %s in its capabilities), so this cannot be answered for %s files; %s",
			p.in.spec.Name, what, providers[prepare], p.in.spec.Language, instead)
	}
	raw, err := p.in.call(ctx, s.requestTimeout, prepare, params)
	if err != nil {
		return nil, s.failed(p.in, err, p.notes)
	}
	var prepared []json.RawMessage
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &prepared); err != nil {
			return nil, fmt.Errorf("lsp: %s answered %s with something unreadable: %w", p.in.spec.Name, prepare, err)
		}
	}
	out := &Hierarchy{Direction: direction, Notes: p.notes, Items: []HierarchyItem{}, Of: []HierarchyItem{}}
	files := fileCache{}
	calls := method == "callHierarchy/incomingCalls" || method == "callHierarchy/outgoingCalls"
	// gopls's call items: relabelled from their own files (golabel.go)
	var labels goLabels
	if calls && p.in.spec.Language == "go" {
		labels = goLabels{}
	}
	seen := map[string]int{} // an entry's place in all, by where it is declared
	sites := map[string]bool{}
	var all []HierarchyItem
	for _, it := range prepared {
		var w wHierarchyItem
		if err := json.Unmarshal(it, &w); err != nil {
			return nil, fmt.Errorf("lsp: %s answered %s with something unreadable: %w", p.in.spec.Name, prepare, err)
		}
		of := s.hierarchyItem(files, p.in.enc, w)
		if labels != nil {
			s.goLabel(labels, uriToPath(w.URI), &of)
		}
		out.Of = append(out.Of, of)
		raw, err := p.in.call(ctx, s.requestTimeout, method, map[string]json.RawMessage{"item": it})
		if err != nil {
			return nil, s.failed(p.in, err, p.notes)
		}
		if len(raw) == 0 || string(raw) == "null" {
			continue
		}
		type entry struct {
			item  wHierarchyItem
			sites []wRange
		}
		var entries []entry
		if calls {
			var cs []struct {
				From       *wHierarchyItem `json:"from"`
				To         *wHierarchyItem `json:"to"`
				FromRanges []wRange        `json:"fromRanges"`
			}
			if err := json.Unmarshal(raw, &cs); err != nil {
				return nil, fmt.Errorf("lsp: %s answered %s with something unreadable: %w", p.in.spec.Name, method, err)
			}
			for _, c := range cs {
				switch {
				case c.From != nil:
					entries = append(entries, entry{*c.From, c.FromRanges})
				case c.To != nil:
					entries = append(entries, entry{*c.To, c.FromRanges})
				}
			}
		} else {
			var ts []wHierarchyItem
			if err := json.Unmarshal(raw, &ts); err != nil {
				return nil, fmt.Errorf("lsp: %s answered %s with something unreadable: %w", p.in.spec.Name, method, err)
			}
			for _, t := range ts {
				entries = append(entries, entry{item: t})
			}
		}
		for _, e := range entries {
			h := s.hierarchyItem(files, p.in.enc, e.item)
			if labels != nil {
				s.goLabel(labels, uriToPath(e.item.URI), &h)
			}
			// Incoming call sites are in the caller's file; outgoing ones
			// in the file of the function asked about.
			siteURI := e.item.URI
			if method == "callHierarchy/outgoingCalls" {
				siteURI = w.URI
			}
			k := fmt.Sprint(h.Location.Path, ":", h.Location.Line, ":", h.Location.Col, " ", h.Name)
			i, ok := seen[k]
			if !ok {
				i = len(all)
				seen[k] = i
				all = append(all, h)
			}
			for _, r := range e.sites {
				// A server may give one site twice (tsserver, for an
				// overloaded callee).
				sk := fmt.Sprint(k, siteURI, r.Start)
				if sites[sk] {
					continue
				}
				sites[sk] = true
				all[i].CallCount++
				if len(all[i].Calls) < MaxCallSites {
					all[i].Calls = append(all[i].Calls, s.location(files, p.in.enc, wLocation{URI: siteURI, Range: r}))
				}
			}
		}
	}
	if len(prepared) == 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("%s found no %s at %q on line %d of %s", p.in.spec.Name, hierarchyNoun(method), pos.Symbol, pos.Line, pos.File))
	}
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i].Location, all[j].Location
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	for _, h := range all {
		sort.SliceStable(h.Calls, func(i, j int) bool {
			a, b := h.Calls[i], h.Calls[j]
			if a.Path != b.Path {
				return a.Path < b.Path
			}
			return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
		})
	}
	out.Total = len(all)
	out.Start = min(start, len(all))
	out.Items = append(out.Items, all[out.Start:min(len(all), out.Start+MaxHierarchy)]...)
	return out, nil
}

// hierarchyItem renders w with its name's position as the location, read
// through the same rendering as every other location.
func (s *Supervisor) hierarchyItem(files fileCache, enc encoding, w wHierarchyItem) HierarchyItem {
	return HierarchyItem{Name: w.Name, Kind: symbolKindName(w.Kind), Detail: w.Detail,
		Location: s.location(files, enc, wLocation{URI: w.URI, Range: w.SelectionRange})}
}

func hierarchyNoun(method string) string {
	if method == "callHierarchy/incomingCalls" || method == "callHierarchy/outgoingCalls" {
		return "function to follow calls of (no call hierarchy item)"
	}
	return "type to follow (no type hierarchy item)"
}
