package search_test

import "context"
import "errors"
import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/matcher/rule"
import "github.com/tetherhq/tether/search"

// TestLoadProjectConfined checks that an sgconfig.yml cannot make a scan
// read rules from outside its project: every ruleDirs, utilDirs and
// testConfigs path that is absolute or climbs out is refused with an error
// naming the entry, and so is a link inside the project that leads out.
func TestLoadProjectConfined(t *testing.T) {
	p := parser(t)
	const outsideRule = "id: stolen\nlanguage: go\nrule: {pattern: $X}\n"
	cases := []struct {
		name   string
		config string
		setup  func(t *testing.T, proj, outside string)
		want   string
	}{
		{name: "ruleDirs climbs out", config: "ruleDirs: [rules, ../outside]\n", want: `ruleDirs entry "../outside"`},
		{name: "ruleDirs absolute", config: "ruleDirs: [OUTSIDE]\n", want: "ruleDirs entry"},
		{name: "ruleDirs climbs out midway", config: "ruleDirs: [rules/../../outside]\n", want: `ruleDirs entry "rules/../../outside"`},
		{name: "utilDirs climbs out", config: "ruleDirs: [rules]\nutilDirs: [../outside]\n", want: `utilDirs entry "../outside"`},
		{name: "testConfigs testDir climbs out", config: "ruleDirs: [rules]\ntestConfigs: [{testDir: ../outside}]\n", want: `testConfigs testDir "../outside"`},
		{name: "testConfigs snapshotDir absolute", config: "ruleDirs: [rules]\ntestConfigs: [{testDir: tests, snapshotDir: /etc}]\n", want: `testConfigs snapshotDir "/etc"`},
		{name: "rule directory is a link out", config: "ruleDirs: [linked]\n",
			setup: func(t *testing.T, proj, outside string) {
				if err := os.Symlink(outside, filepath.Join(proj, "linked")); err != nil {
					t.Fatal(err)
				}
			}, want: "resolves outside the project"},
		{name: "rule file is a link out", config: "ruleDirs: [rules]\n",
			setup: func(t *testing.T, proj, outside string) {
				if err := os.Symlink(filepath.Join(outside, "stolen.yml"), filepath.Join(proj, "rules", "z.yml")); err != nil {
					t.Fatal(err)
				}
			}, want: "is a link outside the project"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			top := t.TempDir()
			proj, outside := filepath.Join(top, "proj"), filepath.Join(top, "outside")
			for _, d := range []string{filepath.Join(proj, "rules"), outside} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(outside, "stolen.yml"), []byte(outsideRule), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(proj, "rules", "a.yml"), []byte("id: mine\nlanguage: go\nrule: {pattern: foo()}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := strings.ReplaceAll(c.config, "OUTSIDE", outside)
			if err := os.WriteFile(filepath.Join(proj, "sgconfig.yml"), []byte(cfg), 0o644); err != nil {
				t.Fatal(err)
			}
			if c.setup != nil {
				c.setup(t, proj, outside)
			}
			got, err := search.LoadProject(context.Background(), p, proj)
			if err == nil {
				ids := []string{}
				for _, r := range got.Rules {
					ids = append(ids, r.ID)
				}
				t.Fatalf("loaded rules %v, want an error containing %q", ids, c.want)
			}
			if !errors.Is(err, rule.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q, want rule.ErrInvalid containing %q", err, c.want)
			}
		})
	}
	t.Run("inside is fine", func(t *testing.T) {
		proj := t.TempDir()
		if err := os.MkdirAll(filepath.Join(proj, "a", "rules"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(proj, "a", "rules", "r.yml"), []byte("id: mine\nlanguage: go\nrule: {pattern: foo()}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(proj, "sgconfig.yml"), []byte("ruleDirs: [a/../a/rules]\ntestConfigs: [{testDir: tests}]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := search.LoadProject(context.Background(), p, proj)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Rules) != 1 || got.Rules[0].ID != "mine" {
			t.Fatalf("rules %v, want [mine]", got.Rules)
		}
	})
}
