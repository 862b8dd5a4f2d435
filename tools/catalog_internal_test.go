package tools

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/tetherhq/tether/bridges/dap"
	"github.com/tetherhq/tether/bridges/lsp"
	"github.com/tetherhq/tether/engine"
	"github.com/tetherhq/tether/kernels"
	"github.com/tetherhq/tether/kernels/std"
	"github.com/tetherhq/tether/operator"
	"github.com/tetherhq/tether/workers"
)

// specTiers is SPEC.md's tier table ("Approval tiers"), plus the file tools
// (read is read tier; write, edit and apply_patch change files) and lsp_check
// (exec: it runs the workspace's own checkers; a tether addition the README
// documents).
var specTiers = map[string]Tier{
	"lsp": TierRead, "ast_grep": TierRead, "ask_user": TierRead, "vibe_spawn": TierRead,
	"vibe_send": TierRead, "vibe_wait": TierRead, "vibe_kill": TierRead, "vibe_list": TierRead,
	"lsp_rename": TierWrite, "ast_edit": TierWrite, "resolve": TierWrite,
	"debug": TierExec, "eval": TierExec,
	"read": TierRead, "write": TierWrite, "edit": TierWrite, "apply_patch": TierWrite,
	"lsp_check": TierExec,
}

func allFamilies() []family {
	familiesMu.Lock()
	defer familiesMu.Unlock()
	return append([]family(nil), families...)
}

// TestToolTiersAreTheSpecTable: every family's tools, as built, have SPEC.md's
// tiers; together they are the table, each in one family; and the catalog (a
// policy may name a tool of tether's that a run does not wire) is what they
// say.
func TestToolTiersAreTheSpecTable(t *testing.T) {
	fams := allFamilies()
	of := map[string]string{} // tool -> family
	for _, f := range fams {
		for _, tool := range f.tools() {
			if g, dup := of[tool.Name]; dup {
				t.Errorf("%s is a tool of both %s and %s", tool.Name, g, f.name)
			}
			of[tool.Name] = f.name
			if want, ok := specTiers[tool.Name]; !ok {
				t.Errorf("%s (family %s) is not in SPEC.md's tier table", tool.Name, f.name)
			} else if tool.Tier != want {
				t.Errorf("%s (family %s) is %s tier; SPEC.md says %s", tool.Name, f.name, tool.Tier, want)
			}
		}
	}
	for name := range specTiers {
		if _, ok := of[name]; !ok {
			t.Errorf("SPEC.md's %s is no family's tool", name)
		}
	}
	if cat := catalog(fams); !maps.Equal(cat, specTiers) {
		t.Errorf("catalog = %v, want %v", cat, specTiers)
	}
}

// TestCatalogHoldsAWiredRunsTools: a run with every resource wired registers
// every family, and exactly the tools of the catalog, at the catalog's tiers.
func TestCatalogHoldsAWiredRunsTools(t *testing.T) {
	dir := t.TempDir()
	sup, err := lsp.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := engine.New(context.Background(), engine.NewConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close(context.Background()) })
	ws, err := workers.New(workers.Config{Commands: map[string]string{workers.Fast: "true"}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRun(context.Background(), Config{
		WorkDir: dir, ConversationID: "c", Policy: PolicyOf(Allow),
		Debug: dap.NewSupervisor(dap.Config{}), Parser: eng,
		Questions: operator.NewConsole(), TargetSpace: "s",
		Workers: ws, Vibe: true, LSP: sup, Kernels: std.NewFactory(kernels.Config{}, nil),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fams := allFamilies()
	var names []string
	for _, f := range fams {
		names = append(names, f.name)
	}
	if got := r.Families(); !slices.Equal(got, names) {
		t.Fatalf("wired families = %v, want every family %v", got, names)
	}
	cat := catalog(fams)
	registered := map[string]Tier{}
	for _, tool := range r.Registry().All() {
		registered[tool.Name] = tool.Tier
	}
	if !maps.Equal(registered, cat) {
		t.Errorf("a fully wired run registers %v; the catalog is %v", registered, cat)
	}
}
