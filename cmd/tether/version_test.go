package main

import "bytes"
import "strings"
import "testing"

import "github.com/tetherhq/tether/grammars"

// TestVersionAndLanguages: `tether version` names wazero's version and every
// grammar's package and module hash; `tether languages` marks every grammar
// embedded (they are committed, so no binary lacks one).
func TestVersionAndLanguages(t *testing.T) {
	var out, errs bytes.Buffer
	if code := dispatch([]string{"version"}, &out, &errs); code != 0 {
		t.Fatalf("tether version: exit %d: %s", code, errs.String())
	}
	v := out.String()
	for _, want := range []string{"tether ", "wazero v", "tree-sitter runtime tree-sitter@", "compressed with zstd", "sandbox: "} {
		if !strings.Contains(v, want) {
			t.Errorf("tether version lacks %q:\n%s", want, v)
		}
	}
	out.Reset()
	if code := dispatch([]string{"languages"}, &out, &errs); code != 0 {
		t.Fatalf("tether languages: exit %d: %s", code, errs.String())
	}
	langs := out.String()
	for _, l := range grammars.All() {
		line := l.ID + " " + l.Package + "@" + l.Version + " " + l.Module.SHA256
		if !strings.Contains(strings.Join(strings.Fields(v), " "), line) {
			t.Errorf("tether version lacks %q", line)
		}
		found := false
		for _, row := range strings.Split(langs, "\n") {
			if f := strings.Fields(row); len(f) > 0 && f[0] == l.ID {
				found = f[len(f)-1] == "embedded"
			}
		}
		if !found {
			t.Errorf("tether languages does not mark %s embedded:\n%s", l.ID, langs)
		}
	}
}
