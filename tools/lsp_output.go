package tools

import "encoding/json"

import "github.com/tetherhq/tether/bridges/lsp"

// LSPResult is the lsp tool's Structured result: Action names the action
// answered and the one field that answers it is set.
//
// Its JSON is that answer alone, the shape docs/tools.md gives for each
// action (a definition's is the Locations object, a request's the
// RequestPage), except that the lists are put in an object, as an MCP
// structuredContent must be: {"servers": [...]} for status and
// capabilities, {"reloaded": [...]} for reload.
type LSPResult struct {
	Action string
	// Locations answer definition, type_definition, implementation and
	// references (one page); Unconfirmed adds to references the
	// same-name identifiers the server did not return.
	Locations   *lsp.Locations
	Unconfirmed *UnconfirmedRefs
	Hover       *lsp.Hover
	// Hierarchy answers call_hierarchy and type_hierarchy.
	Hierarchy   *lsp.Hierarchy
	Symbols     *SymbolsPage
	CodeActions *lsp.CodeActions
	// Diagnostics answers diagnostics of a file or of files, Check
	// diagnostics "*" (the checkers over the whole project).
	Diagnostics *DiagnosticsPage
	Check       *CheckPage
	// Servers answers status and capabilities: a row per server.
	Servers []lsp.StatusRow
	// Reloaded answers reload: what was restarted, a line each.
	Reloaded []string
	Request  *RequestPage
}

// MarshalJSON writes the answer r holds (see LSPResult).
func (r *LSPResult) MarshalJSON() ([]byte, error) {
	var v any = struct{}{}
	switch {
	case r.Action == "status" || r.Action == "capabilities":
		v = struct {
			Servers []lsp.StatusRow `json:"servers"`
		}{r.Servers}
	case r.Action == "reload":
		v = struct {
			Reloaded []string `json:"reloaded"`
		}{r.Reloaded}
	case r.Locations != nil && r.Unconfirmed != nil:
		v = refsAnswer{r.Locations, r.Unconfirmed}
	case r.Locations != nil:
		v = r.Locations
	case r.Hover != nil:
		v = r.Hover
	case r.Hierarchy != nil:
		v = r.Hierarchy
	case r.Symbols != nil:
		v = r.Symbols
	case r.CodeActions != nil:
		v = r.CodeActions
	case r.Diagnostics != nil:
		v = r.Diagnostics
	case r.Check != nil:
		v = r.Check
	case r.Request != nil:
		v = r.Request
	}
	return json.Marshal(v)
}

// emptyAsLists makes the empty lists of r's answer [] in JSON, not null:
// "none" reads as an answer, not as a missing field.
func (r *LSPResult) emptyAsLists() *LSPResult {
	if r.Locations != nil && r.Locations.Items == nil {
		r.Locations.Items = []lsp.Location{}
	}
	if r.CodeActions != nil && r.CodeActions.Items == nil {
		r.CodeActions.Items = []lsp.CodeAction{}
	}
	switch {
	case (r.Action == "status" || r.Action == "capabilities") && r.Servers == nil:
		r.Servers = []lsp.StatusRow{}
	case r.Action == "reload" && r.Reloaded == nil:
		r.Reloaded = []string{}
	}
	return r
}
