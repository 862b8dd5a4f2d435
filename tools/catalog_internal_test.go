package tools

import "maps"
import "os"
import "path/filepath"
import "slices"
import "strings"
import "testing"

// docTiers reads each tool's tier from the tier table of docs/tools.md
// ("| tier | tools |") and checks that README.md's tool table ("| tool |
// tier | ... |") says the same, so neither page can drift from the tools.
func docTiers(t *testing.T) map[string]Tier {
	t.Helper()
	rows := func(path, header string) [][]string {
		b, err := os.ReadFile(filepath.Join("..", path))
		if err != nil {
			t.Fatal(err)
		}
		_, table, ok := strings.Cut(string(b), header+"\n")
		if !ok {
			t.Fatalf("%s has no table headed %q", path, header)
		}
		var out [][]string
		for _, line := range strings.Split(table, "\n")[1:] { // after |---|
			if !strings.HasPrefix(line, "|") {
				break
			}
			var cells []string
			for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
				cells = append(cells, strings.TrimSpace(c))
			}
			out = append(out, cells)
		}
		return out
	}
	tiers := map[string]Tier{}
	tierOf := func(path, s string) Tier {
		tier, err := parseTier(s)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return tier
	}
	for _, r := range rows("docs/tools.md", "| tier | tools |") {
		for _, name := range strings.Split(r[1], ", ") {
			tiers[name] = tierOf("docs/tools.md", r[0])
		}
	}
	inReadme := map[string]bool{}
	for _, r := range rows("README.md", "| tool | tier | example arguments |") {
		for _, name := range strings.Split(r[0], ", ") {
			inReadme[name] = true
			if want, ok := tiers[name]; !ok || tierOf("README.md", r[1]) != want {
				t.Errorf("README.md lists %s as %s tier; docs/tools.md as %v", name, r[1], want)
			}
		}
	}
	for name := range tiers {
		if !inReadme[name] {
			t.Errorf("README.md's tool table leaves out %s", name)
		}
	}
	return tiers
}

func allFamilies() []family {
	familiesMu.Lock()
	defer familiesMu.Unlock()
	return append([]family(nil), families...)
}

// TestToolTiersAreTheSpecTable: every family's tools, as built, have the
// tiers docs/tools.md and README.md give them; together they are the table, each in one family; and the catalog (a
// policy may name a tool of tether's that a run does not wire) is what they
// say.
func TestToolTiersAreTheSpecTable(t *testing.T) {
	specTiers := docTiers(t)
	fams := allFamilies()
	of := map[string]string{} // tool -> family
	for _, f := range fams {
		for _, tool := range f.tools() {
			if g, dup := of[tool.Name]; dup {
				t.Errorf("%s is a tool of both %s and %s", tool.Name, g, f.name)
			}
			of[tool.Name] = f.name
			if want, ok := specTiers[tool.Name]; !ok {
				t.Errorf("%s (family %s) is not in docs/tools.md's tier table", tool.Name, f.name)
			} else if tool.Tier != want {
				t.Errorf("%s (family %s) is %s tier; docs/tools.md says %s", tool.Name, f.name, tool.Tier, want)
			}
		}
	}
	for name := range specTiers {
		if _, ok := of[name]; !ok {
			t.Errorf("docs/tools.md's %s is no family's tool", name)
		}
	}
	if cat := catalog(fams); !maps.Equal(cat, specTiers) {
		t.Errorf("catalog = %v, want %v", cat, specTiers)
	}
}

// TestCatalogHoldsAWiredRunsTools: a run with every resource wired registers
// every family, and exactly the tools of the catalog, at the catalog's tiers.
func TestCatalogHoldsAWiredRunsTools(t *testing.T) {
	r, _ := wiredRun(t)
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
	for _, tool := range r.reg.All() {
		registered[tool.Name] = tool.Tier
	}
	if !maps.Equal(registered, cat) {
		t.Errorf("a fully wired run registers %v; the catalog is %v", registered, cat)
	}
}
