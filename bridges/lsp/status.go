package lsp

import "encoding/json"
import "strings"

// state is the running server's state for status: indexing while it has
// not looked ready yet (work-done progress still active, no first
// diagnostics), ready after.
func (in *instance) state() string {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.ready && len(in.active) == 0 {
		return "ready"
	}
	return "indexing"
}

// version is what the server said of itself in initialize (serverInfo).
func (in *instance) version() string { return in.info }

// serverFeatures are the requests and features tether uses, with the
// capability that announces each.
var serverFeatures = []struct{ name, capability string }{
	{"definition", "definitionProvider"},
	{"type_definition", "typeDefinitionProvider"},
	{"implementation", "implementationProvider"},
	{"references", "referencesProvider"},
	{"hover", "hoverProvider"},
	{"document_symbols", "documentSymbolProvider"},
	{"workspace_symbols", "workspaceSymbolProvider"},
	{"code_actions", "codeActionProvider"},
	{"rename", "renameProvider"},
	{"format", "documentFormattingProvider"},
	{"range_format", "documentRangeFormattingProvider"},
	{"call_hierarchy", "callHierarchyProvider"},
	{"type_hierarchy", "typeHierarchyProvider"},
	{"pull_diagnostics", "diagnosticProvider"},
	{"execute_command", "executeCommandProvider"},
}

// features lists what the server announced of serverFeatures, and what
// it did not, plus code action resolve and kinds and file-rename edits.
func (in *instance) features() (supports, lacks []string) {
	if in.caps == nil {
		return nil, nil
	}
	on := func(key string) bool {
		v, ok := in.caps[key]
		return ok && string(v) != "false" && string(v) != "null"
	}
	for _, f := range serverFeatures {
		if !on(f.capability) {
			lacks = append(lacks, f.name)
			continue
		}
		name := f.name
		if f.capability == "codeActionProvider" {
			var o struct {
				Kinds   []string `json:"codeActionKinds"`
				Resolve bool     `json:"resolveProvider"`
			}
			if json.Unmarshal(in.caps[f.capability], &o) == nil && len(o.Kinds) > 0 {
				name += " (" + strings.Join(o.Kinds, ", ") + ")"
			}
		}
		supports = append(supports, name)
	}
	if in.fileOperation("willRename") {
		supports = append(supports, "file_rename_edits")
	} else {
		lacks = append(lacks, "file_rename_edits")
	}
	return supports, lacks
}
