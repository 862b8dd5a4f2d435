package lsp_test

import "flag"
import "fmt"
import "os"
import "path/filepath"
import "slices"
import "strings"
import "testing"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/internal/testenv"

var updateDocs = flag.Bool("update", false, "rewrite the server table in docs/languages.md from DefaultServers")

const (
	readmeBegin = "<!-- servers: made from lsp.DefaultServers by `go test ./bridges/lsp -run TestServerTableDocs -update` -->"
	readmeEnd   = "<!-- end of servers -->"
)

// serverTableMarkdown renders the built-in server table as docs/languages.md shows
// it: what each row covers, how it is had, and whether `make test` drives it
// against the real server here (from rowCases, the cases TestBuiltinRows
// runs, so the column cannot claim a test that does not run).
func serverTableMarkdown(table []lsp.Server) string {
	var b strings.Builder
	b.WriteString("| server | language | files | covers | root markers | installed by | tested here |\n|---|---|---|---|---|---|---|\n")
	code := func(ss []string) string {
		if len(ss) == 0 {
			return "-"
		}
		return "`" + strings.Join(ss, "`, `") + "`"
	}
	cases := map[string]rowCase{}
	for _, c := range rowCases {
		cases[c.server] = c
	}
	for _, s := range table {
		var primary []string // the rows a linter's diagnostics join
		for _, o := range table {
			if !o.Linter && slices.ContainsFunc(s.Extensions, func(e string) bool { return slices.Contains(o.Extensions, e) }) {
				primary = append(primary, o.Name)
			}
		}
		covers := "the queries it offers, diagnostics on write"
		if s.Diagnoses != "" {
			covers += " (" + s.Diagnoses + ")"
		}
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
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", s.Name, s.Language, code(append(slices.Clone(s.Extensions), s.FileNames...)), covers, markers, install, testedHere(cases[s.Name]))
	}
	return b.String()
}

// testedHere says whether make test drives a row's real server, and which
// test does.
func testedHere(c rowCase) string {
	switch {
	case c.server == "":
		return "no case in rowCases"
	case c.broken != "":
		return "no: only that a broken file is never reported clean (the start error without the module)"
	case c.absent != "":
		return "no: not installed (only its start error is tested)"
	case c.tested != "":
		_, name, _ := strings.Cut(c.tested, ":")
		return "yes: " + name
	default:
		return "yes: TestBuiltinRows"
	}
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
