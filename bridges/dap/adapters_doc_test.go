package dap_test

import "flag"
import "fmt"
import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/bridges/dap"

var updateDocs = flag.Bool("update", false, "rewrite the adapter table in docs/tools.md from DefaultAdapters")

const (
	docsBegin = "<!-- adapters: made from dap.DefaultAdapters by `go test ./bridges/dap -run TestAdapterTableDocs -update` -->"
	docsEnd   = "<!-- end of adapters -->"
)

// adapterTableMarkdown renders the adapter table as docs/tools.md shows it.
func adapterTableMarkdown(table []dap.Adapter) string {
	var b strings.Builder
	b.WriteString("| adapter | launches | attaches by | optional ops | root markers | commands tried | to install | tested here |\n|---|---|---|---|---|---|---|---|\n")
	code := func(ss []string) string {
		if len(ss) == 0 {
			return "-"
		}
		return "`" + strings.Join(ss, "`, `") + "`"
	}
	for _, a := range table {
		launches := strings.TrimPrefix(dap.DescribeAdapters([]dap.Adapter{a}), a.ID)
		launches = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(launches), "("), ")")
		var cmds []string
		for _, c := range a.Commands {
			cmds = append(cmds, strings.Join(c, " "))
		}
		var attach []string
		if a.AttachPID != nil {
			attach = append(attach, "pid")
		}
		if a.Attach != nil {
			attach = append(attach, "port")
		}
		attaches := strings.Join(attach, ", ")
		if attaches == "" {
			attaches = "-"
		}
		ops := strings.Join(a.Ops, ", ")
		if ops == "" {
			ops = "-"
		}
		tested := "yes"
		if a.Untested != "" {
			tested = "no: " + a.Untested
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", a.ID, launches, attaches, ops, code(a.Markers), code(cmds), a.Install, tested)
	}
	return b.String()
}

// TestAdapterTableDocs checks that docs/tools.md lists the adapters of
// DefaultAdapters as they are, so the docs cannot drift from the table;
// -update rewrites the list.
func TestAdapterTableDocs(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "tools.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	i, j := strings.Index(text, docsBegin), strings.Index(text, docsEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no adapter table between %q and %q", path, docsBegin, docsEnd)
	}
	want := adapterTableMarkdown(dap.DefaultAdapters())
	got := text[i+len(docsBegin)+1 : j]
	if got == want {
		return
	}
	if *updateDocs {
		text = text[:i+len(docsBegin)+1] + want + text[j:]
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s lists other adapters than DefaultAdapters (run this test with -update to rewrite it):\ngot:\n%s\nwant:\n%s", path, got, want)
}
