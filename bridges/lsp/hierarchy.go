package lsp

import "context"
import "encoding/json"
import "fmt"
import "sort"

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

// hierarchyKind is a call or a type hierarchy: the request that prepares
// its items, the follow-up request of each direction, and the words its
// errors and notes use.
type hierarchyKind struct {
	name    string            // "call hierarchy"
	prepare string            // the request that prepares the items
	follow  map[string]string // direction -> the follow-up request
	use     string            // the directions, as a wrong one's error lists them
	calls   bool              // follow-ups answer calls, with their sites
	// what and instead say what a server without it does not offer and
	// what to use instead; noun is what a position without an item lacks.
	what, instead, noun string
}

var (
	callHierarchy = hierarchyKind{
		name:    "call hierarchy",
		prepare: "textDocument/prepareCallHierarchy",
		follow:  map[string]string{Incoming: "callHierarchy/incomingCalls", Outgoing: "callHierarchy/outgoingCalls"},
		use:     Incoming + " (the callers) or " + Outgoing + " (the callees)",
		calls:   true,
		what:    "call hierarchies",
		instead: "use references instead: it finds the calls",
		noun:    "function to follow calls of (no call hierarchy item)",
	}
	typeHierarchy = hierarchyKind{
		name:    "type hierarchy",
		prepare: "textDocument/prepareTypeHierarchy",
		follow:  map[string]string{Supertypes: "typeHierarchy/supertypes", Subtypes: "typeHierarchy/subtypes"},
		use:     Supertypes + " or " + Subtypes,
		what:    "type hierarchies",
		instead: "use implementation instead: it finds the types that implement an interface",
		noun:    "type to follow (no type hierarchy item)",
	}
)

// CallHierarchy returns the callers (Incoming) or callees (Outgoing) of the
// function at pos, each with its call sites, at most MaxHierarchy from
// start on. A server that does not offer call hierarchies is an error that
// says so.
func (s *Supervisor) CallHierarchy(ctx context.Context, pos Position, direction string, start int) (*Hierarchy, error) {
	return s.hierarchy(ctx, pos, callHierarchy, direction, start)
}

// TypeHierarchy returns the supertypes (Supertypes) or subtypes (Subtypes) of
// the type at pos, at most MaxHierarchy from start on. A server that does not
// offer type hierarchies is an error that says so.
func (s *Supervisor) TypeHierarchy(ctx context.Context, pos Position, direction string, start int) (*Hierarchy, error) {
	return s.hierarchy(ctx, pos, typeHierarchy, direction, start)
}

func (s *Supervisor) hierarchy(ctx context.Context, pos Position, k hierarchyKind, direction string, start int) (*Hierarchy, error) {
	method, ok := k.follow[direction]
	if !ok {
		return nil, fmt.Errorf("lsp: %s direction %q: use %s", k.name, direction, k.use)
	}
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
	prepared, err := s.prepareHierarchy(ctx, p, params, k)
	if err != nil {
		return nil, err
	}
	out := &Hierarchy{Direction: direction, Notes: p.notes, Items: []HierarchyItem{}, Of: []HierarchyItem{}}
	c := &hierarchyCollector{s: s, enc: p.in.enc, files: fileCache{}, seen: map[string]int{}, sites: map[string]bool{}}
	if k.calls && p.in.spec.Language == "go" {
		c.labels = goLabels{}
	}
	for _, it := range prepared {
		var w wHierarchyItem
		if err := json.Unmarshal(it, &w); err != nil {
			return nil, fmt.Errorf("lsp: %s answered %s with something unreadable: %w", p.in.spec.Name, k.prepare, err)
		}
		out.Of = append(out.Of, c.item(w))
		entries, err := s.followHierarchy(ctx, p, method, k.calls, it)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			// Incoming call sites are in the caller's file; outgoing ones
			// in the file of the function asked about.
			siteURI := e.item.URI
			if direction == Outgoing {
				siteURI = w.URI
			}
			c.add(e, siteURI)
		}
	}
	if len(prepared) == 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("%s found no %s at %q on line %d of %s", p.in.spec.Name, k.noun, pos.Symbol, pos.Line, pos.File))
	}
	all := c.sorted()
	out.Total = len(all)
	out.Start = min(start, len(all))
	out.Items = append(out.Items, all[out.Start:min(len(all), out.Start+MaxHierarchy)]...)
	return out, nil
}

// prepareHierarchy asks the server for the items of k at params, as raw
// items to send back in the follow-up requests.
func (s *Supervisor) prepareHierarchy(ctx context.Context, p *prepared, params wPositionParams, k hierarchyKind) ([]json.RawMessage, error) {
	if err := p.in.supports(k.prepare); err != nil {
		return nil, fmt.Errorf("lsp: %s does not offer %s (no %s in its capabilities), so this cannot be answered for %s files; %s",
			p.in.spec.Name, k.what, providers[k.prepare], p.in.spec.Language, k.instead)
	}
	raw, err := p.in.call(ctx, s.requestTimeout, k.prepare, params)
	if err != nil {
		return nil, s.failed(p.in, err, p.notes)
	}
	var prepared []json.RawMessage
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &prepared); err != nil {
			return nil, fmt.Errorf("lsp: %s answered %s with something unreadable: %w", p.in.spec.Name, k.prepare, err)
		}
	}
	return prepared, nil
}

// hierarchyEntry is one caller, callee or type of a follow-up answer, with
// its call sites.
type hierarchyEntry struct {
	item  wHierarchyItem
	sites []wRange
}

// followHierarchy sends method for the prepared item it and reads the
// answer: calls (with their sites) or types.
func (s *Supervisor) followHierarchy(ctx context.Context, p *prepared, method string, calls bool, it json.RawMessage) ([]hierarchyEntry, error) {
	raw, err := p.in.call(ctx, s.requestTimeout, method, map[string]json.RawMessage{"item": it})
	if err != nil {
		return nil, s.failed(p.in, err, p.notes)
	}
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	unreadable := func(err error) error {
		return fmt.Errorf("lsp: %s answered %s with something unreadable: %w", p.in.spec.Name, method, err)
	}
	var entries []hierarchyEntry
	if !calls {
		var ts []wHierarchyItem
		if err := json.Unmarshal(raw, &ts); err != nil {
			return nil, unreadable(err)
		}
		for _, t := range ts {
			entries = append(entries, hierarchyEntry{item: t})
		}
		return entries, nil
	}
	var cs []struct {
		From       *wHierarchyItem `json:"from"`
		To         *wHierarchyItem `json:"to"`
		FromRanges []wRange        `json:"fromRanges"`
	}
	if err := json.Unmarshal(raw, &cs); err != nil {
		return nil, unreadable(err)
	}
	for _, c := range cs {
		switch {
		case c.From != nil:
			entries = append(entries, hierarchyEntry{*c.From, c.FromRanges})
		case c.To != nil:
			entries = append(entries, hierarchyEntry{*c.To, c.FromRanges})
		}
	}
	return entries, nil
}

// hierarchyCollector gathers the entries of a hierarchy answer, each once
// by where it is declared, with its call sites, each once.
type hierarchyCollector struct {
	s     *Supervisor
	enc   encoding
	files fileCache
	// labels, for gopls's call items: relabelled from their own files
	// (golabel.go).
	labels goLabels
	seen   map[string]int // an entry's place in all, by where it is declared
	sites  map[string]bool
	all    []HierarchyItem
}

// item renders w, relabelled where labels are kept.
func (c *hierarchyCollector) item(w wHierarchyItem) HierarchyItem {
	h := c.s.hierarchyItem(c.files, c.enc, w)
	if c.labels != nil {
		c.s.goLabel(c.labels, uriToPath(w.URI), &h)
	}
	return h
}

// add records e, its call sites in the file of siteURI.
func (c *hierarchyCollector) add(e hierarchyEntry, siteURI string) {
	h := c.item(e.item)
	k := fmt.Sprint(h.Location.Path, ":", h.Location.Line, ":", h.Location.Col, " ", h.Name)
	i, ok := c.seen[k]
	if !ok {
		i = len(c.all)
		c.seen[k] = i
		c.all = append(c.all, h)
	}
	for _, r := range e.sites {
		// A server may give one site twice (tsserver, for an
		// overloaded callee).
		sk := fmt.Sprint(k, siteURI, r.Start)
		if c.sites[sk] {
			continue
		}
		c.sites[sk] = true
		c.all[i].CallCount++
		if len(c.all[i].Calls) < MaxCallSites {
			c.all[i].Calls = append(c.all[i].Calls, c.s.location(c.files, c.enc, wLocation{URI: siteURI, Range: r}))
		}
	}
}

// sorted returns the entries sorted by where they are declared, each with
// its call sites sorted.
func (c *hierarchyCollector) sorted() []HierarchyItem {
	all := c.all
	sort.SliceStable(all, func(i, j int) bool { return locationLess(all[i].Location, all[j].Location) })
	for _, h := range all {
		sort.SliceStable(h.Calls, func(i, j int) bool { return locationLess(h.Calls[i], h.Calls[j]) })
	}
	return all
}

// hierarchyItem renders w with its name's position as the location, read
// through the same rendering as every other location.
func (s *Supervisor) hierarchyItem(files fileCache, enc encoding, w wHierarchyItem) HierarchyItem {
	return HierarchyItem{Name: w.Name, Kind: symbolKindName(w.Kind), Detail: w.Detail,
		Location: s.location(files, enc, wLocation{URI: w.URI, Range: w.SelectionRange})}
}
