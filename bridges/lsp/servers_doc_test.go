package lsp_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tetherhq/tether/bridges/lsp"
	"github.com/tetherhq/tether/internal/testenv"
)

var updateDocs = flag.Bool("update", false, "rewrite the server table in docs/languages.md from DefaultServers")

const (
	readmeBegin = "<!-- servers: made from lsp.DefaultServers by `go test ./bridges/lsp -run TestServerTableDocs -update` -->"
	readmeEnd   = "<!-- end of servers -->"
)

// serverTableMarkdown renders the built-in server table as docs/languages.md shows
// it: what each row covers and how it is had.
func serverTableMarkdown(table []lsp.Server) string {
	var b strings.Builder
	b.WriteString("| server | language | files | covers | root markers | installed by |\n|---|---|---|---|---|---|\n")
	code := func(ss []string) string {
		if len(ss) == 0 {
			return "-"
		}
		return "`" + strings.Join(ss, "`, `") + "`"
	}
	for _, s := range table {
		var primary []string // the rows a linter's diagnostics join
		for _, o := range table {
			if !o.Linter && slices.ContainsFunc(s.Extensions, func(e string) bool { return slices.Contains(o.Extensions, e) }) {
				primary = append(primary, o.Name)
			}
		}
		covers := "the queries it offers, diagnostics on write"
		if s.Checker != nil {
			covers += ", `diagnostics \"*\"` (`" + strings.Join(s.Checker, " ") + "`)"
		}
		if s.Linter {
			covers = "diagnostics only, added to those of " + strings.Join(primary, ", ")
		}
		markers := code(s.RootMarkers)
		if len(s.RootMarkers) == 0 {
			markers = "none: the workspace"
		}
		install := s.Install
		if install == "" {
			install = "-"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", s.Name, s.Language, code(s.Extensions), covers, markers, install)
	}
	return b.String()
}

// TestServerTableDocs checks that docs/languages.md lists the rows of
// DefaultServers as they are, so the docs cannot drift from the table;
// -update rewrites the list.
func TestServerTableDocs(t *testing.T) {
	path := filepath.Join(testenv.RepoRoot(), "docs", "languages.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	i, j := strings.Index(text, readmeBegin), strings.Index(text, readmeEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no server table between %q and %q", path, readmeBegin, readmeEnd)
	}
	want := serverTableMarkdown(lsp.DefaultServers())
	got := text[i+len(readmeBegin)+1 : j]
	if got == want {
		return
	}
	if *updateDocs {
		text = text[:i+len(readmeBegin)+1] + want + text[j:]
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s lists other servers than DefaultServers (run this test with -update to rewrite it):\ngot:\n%s\nwant:\n%s", path, got, want)
}
