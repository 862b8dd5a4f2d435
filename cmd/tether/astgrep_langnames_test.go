package main

import "encoding/json"
import "os/exec"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/internal/testenv"

// TestAstGrepLanguageNamesAsPeer: the language name `tether ast-grep
// --json` prints for each shipped language is the manifest's ast_grep
// name, and the pinned ast-grep prints the same for the same file, so the
// manifest is the one place the spelling lives and it is right.
func TestAstGrepLanguageNamesAsPeer(t *testing.T) {
	sg := testenv.RequireBinary(t, "ast-grep")
	first := func(t *testing.T, who, out string) string {
		t.Helper()
		line, _, _ := strings.Cut(out, "\n")
		var m struct{ Language string }
		if err := json.Unmarshal([]byte(line), &m); err != nil || m.Language == "" {
			t.Fatalf("%s printed no match with a language (%v): %.200q", who, err, out)
		}
		return m.Language
	}
	// "$A" alone is no pattern in a grammar that has no bare expression:
	// these languages are asked with a pattern their fixture holds.
	patterns := map[string]string{"markdown": "# $A", "toml": "title = $A", "xml": "<description>$A</description>"}
	names := map[string]string{}
	for _, l := range grammars.All() {
		names[l.AstGrep] = l.ID
	}
	for _, l := range grammars.All() {
		t.Run(l.ID, func(t *testing.T) {
			pat := "$A"
			if p, ok := patterns[l.ID]; ok {
				pat = p
			}
			files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "parse", l.ID, "ok.*"))
			if len(files) != 1 {
				t.Fatalf("testdata/parse/%s has %d ok.* files, want 1", l.ID, len(files))
			}
			// ast-grep picks the language by extension; where it has no
			// extension for a language it has built in (markdown), -l names it.
			agOut, err := exec.Command(sg, "run", "-p", pat, "--json=stream", files[0]).Output()
			if err != nil || strings.TrimSpace(string(agOut)) == "" {
				var stderr []byte
				agOut, err = exec.Command(sg, "run", "-p", pat, "-l", strings.ToLower(l.AstGrep), "--json=stream", files[0]).Output()
				if ee, ok := err.(*exec.ExitError); ok {
					stderr = ee.Stderr
				}
				if strings.Contains(string(stderr), "is not supported") {
					// Not one of ast-grep's built-in languages: the name
					// is tether's own, in ast-grep's style; only tether's
					// output is checked below.
					t.Logf("ast-grep has no built-in %s", l.Name)
					agOut = nil
				} else if err != nil {
					t.Fatalf("ast-grep -l %s: %v: %s", strings.ToLower(l.AstGrep), err, stderr)
				}
			}
			if agOut != nil {
				got := first(t, "ast-grep", string(agOut))
				switch other, known := names[got]; {
				case got == l.AstGrep:
				case known && other != l.ID:
					// ast-grep reads this extension as another of
					// tether's languages (.scss as CSS) and has no
					// grammar of its own for it.
					t.Logf("ast-grep reads %s as %s", files[0], got)
				default:
					t.Errorf("ast-grep calls %s %q; the manifest's ast_grep is %q", l.ID, got, l.AstGrep)
				}
			}
			code, out, errOut := runCLI(t, "-p", pat, "-l", l.ID, "--json=stream", files[0])
			if code != 0 {
				t.Fatalf("tether ast-grep: exit %d: %s", code, errOut)
			}
			if got := first(t, "tether ast-grep", out); got != l.AstGrep {
				t.Errorf("tether ast-grep calls %s %q, want the manifest's %q", l.ID, got, l.AstGrep)
			}
		})
	}
}
