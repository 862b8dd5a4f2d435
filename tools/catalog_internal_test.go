package tools

import "testing"

// TestCatalogIsTheSpecTable: the catalog that lets a policy name a tool a run
// does not wire must agree with SPEC.md's tier table (and the file tools).
func TestCatalogIsTheSpecTable(t *testing.T) {
	spec := map[string]Tier{
		"lsp": TierRead, "ast_grep": TierRead, "ask_user": TierRead, "vibe_spawn": TierRead,
		"vibe_send": TierRead, "vibe_wait": TierRead, "vibe_kill": TierRead, "vibe_list": TierRead,
		"lsp_rename": TierWrite, "ast_edit": TierWrite, "resolve": TierWrite,
		"debug": TierExec, "eval": TierExec, "lsp_check": TierExec,
		"read": TierRead, "write": TierWrite, "edit": TierWrite, "apply_patch": TierWrite,
	}
	if len(catalog) != len(spec) {
		t.Errorf("catalog has %d tools, the table %d", len(catalog), len(spec))
	}
	for name, tier := range spec {
		if got, ok := catalog[name]; !ok || got != tier {
			t.Errorf("catalog[%s] = %v, %v; want %v", name, got, ok, tier)
		}
	}
}
