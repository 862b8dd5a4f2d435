package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherhq/tether/grammars"
	"github.com/tetherhq/tether/internal/testenv"
)

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
	for _, l := range grammars.All() {
		t.Run(l.ID, func(t *testing.T) {
			files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "parse", l.ID, "ok.*"))
			if len(files) != 1 {
				t.Fatalf("testdata/parse/%s has %d ok.* files, want 1", l.ID, len(files))
			}
			if got := first(t, "ast-grep", peerRun(t, sg, "-p", "$A", "--json=stream", files[0])); got != l.AstGrep {
				t.Errorf("ast-grep calls %s %q; the manifest's ast_grep is %q", l.ID, got, l.AstGrep)
			}
			code, out, errOut := runCLI(t, "-p", "$A", "-l", l.ID, "--json=stream", files[0])
			if code != 0 {
				t.Fatalf("tether ast-grep: exit %d: %s", code, errOut)
			}
			if got := first(t, "tether ast-grep", out); got != l.AstGrep {
				t.Errorf("tether ast-grep calls %s %q, want the manifest's %q", l.ID, got, l.AstGrep)
			}
		})
	}
}
