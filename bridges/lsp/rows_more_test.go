package lsp_test

import "fmt"
import "os"
import "path/filepath"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/internal/testenv"

// moreCase is a row that TestMoreRows drives against its real server on
// the project testdata/lsp/rows/<project>: one query on file, a rewrite of
// file that must leave it clean, and a diagnostic on write.
type moreCase struct {
	server, project, file string
	// symbol must be among file's document symbols; with hover set, the
	// hover at it must hold hoverWant instead; with unoffered set (the
	// server offers neither), asking for file's symbols must fail saying
	// the server does not offer that method.
	symbol    string
	hover     *lsp.Position
	hoverWant string
	unoffered string
	// noClean, when set, says why the rewrite of file is not required
	// to come back clean.
	noClean string
	// diag is the diagnostic a write must bring.
	diag diagWrite
}

var moreCases = []moreCase{
	{
		server: "vim-language-server", project: "vim", file: "plugin.vim", symbol: "Hello",
		diag: diagWrite{"bad.vim", "function! X()\n  if 1\nendfunction\n", 3,
			`^vimlsp .*E171: Missing :endif`},
	},
	{
		server: "some-sass-language-server", project: "sass", file: "main.sass", symbol: "framed",
		diag: diagWrite{"bad.sass", ".a\n  color: red\n  @include\n", 3,
			`^sass css-identifierexpected identifier expected`},
	},
	{
		server: "compose-language-service", project: "compose", file: "compose.yaml",
		hover: &lsp.Position{File: "compose.yaml", Line: 3, Symbol: "image"}, hoverWant: "The image that will be pulled",
		diag: diagWrite{"docker-compose.yml", "services:\n  web:\n    image: [nginx\n", 4,
			`BAD_INDENT Flow sequence in block collection`},
	},
	{
		// Its hover and completion need a database; without one it
		// answers syntax only.
		server: "postgres-language-server", project: "sql", file: "schema.sql", unoffered: "textDocument/documentSymbol",
		diag: diagWrite{"bad.sql", "select from where;\n", 1,
			`syntax error at or near "where"`},
	},
}

// TestMoreRows drives the rows of moreCases, each against its real server
// in tether's sandbox, in parallel (one server process each): the query,
// a clean rewrite, and a diagnostic on write. Each subtest logs its time.
func TestMoreRows(t *testing.T) {
	rows := map[string]lsp.Server{}
	for _, r := range lsp.DefaultServers() {
		rows[r.Name] = r
	}
	named := map[string]bool{}
	for _, c := range rowCases {
		if strings.HasSuffix(c.tested, ":TestMoreRows") {
			named[c.server] = true
		}
	}
	for _, c := range moreCases {
		row, ok := rows[c.server]
		if !ok || !named[c.server] {
			t.Errorf("moreCases has %s: a built-in row %v, named by its rowCases entry %v; want both", c.server, ok, named[c.server])
			continue
		}
		delete(named, c.server)
		t.Run(c.server, func(t *testing.T) {
			t.Parallel()
			testMoreRow(t, row, c)
		})
	}
	for name := range named {
		t.Errorf("rowCases says TestMoreRows tests %s, which has no case in moreCases", name)
	}
}

func testMoreRow(t *testing.T, row lsp.Server, c moreCase) {
	testenv.RequireBinary(t, row.Binaries[0])
	start := time.Now()
	defer func() { t.Logf("%s: %s", row.Name, time.Since(start).Round(time.Millisecond)) }()
	dir := testenv.LSPProject(t, filepath.Join("rows", c.project))
	s := newSupervisor(t, dir, lsp.WithOnlyServers(row))
	ctx := ctxT(t)
	switch {
	case c.hover != nil:
		h, err := s.Hover(ctx, *c.hover)
		if err != nil || !strings.Contains(h.Text, c.hoverWant) {
			t.Fatalf("want a hover holding %q, got %v %+v", c.hoverWant, err, h)
		}
	case c.unoffered != "":
		_, err := s.DocumentSymbols(ctx, c.file)
		if err == nil || !strings.Contains(err.Error(), row.Name+" does not offer "+c.unoffered) {
			t.Fatalf("want an error saying %s does not offer %s, got %v", row.Name, c.unoffered, err)
		}
	default:
		syms, err := s.DocumentSymbols(ctx, c.file)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, sy := range syms.Items {
			names = append(names, sy.Name)
		}
		if !strings.Contains("\n"+strings.Join(names, "\n")+"\n", "\n"+c.symbol+"\n") {
			t.Fatalf("want %s among the symbols of %s: %q", c.symbol, c.file, names)
		}
	}
	// The project's own file, rewritten with a line added, is clean: the
	// server publishes for a file without findings too.
	if c.noClean == "" {
		b, err := os.ReadFile(filepath.Join(dir, c.file))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, c.file), string(b)+"\n")
		d, err := s.AfterWrite(ctx, c.file)
		if err != nil || !d.Ready || len(d.Items) > 0 {
			t.Fatalf("want %s clean after its rewrite: %v %s", c.file, err, diagString(d))
		}
	}
	requireDiagOnWrite(ctx, t, s, c.diag)
}

func diagString(d *lsp.Diagnostics) string {
	if d == nil {
		return "no answer"
	}
	var items []string
	for _, it := range d.Items {
		items = append(items, fmt.Sprintf("%d: %q %q %q", it.Line, it.Source, it.Code, it.Message))
	}
	return fmt.Sprintf("ready %v items [%s] notes %q", d.Ready, strings.Join(items, "; "), d.Notes)
}
