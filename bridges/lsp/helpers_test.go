package lsp_test

import "context"
import "os"
import "path/filepath"
import "slices"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/internal/testenv"

func newSupervisor(t testing.TB, dir string, opts ...lsp.Option) *lsp.Supervisor {
	t.Helper()
	opts = append([]lsp.Option{lsp.WithEnv(testenv.WithPeersOnPath()), lsp.WithDiagnosticsTimeout(20 * time.Second)}, opts...)
	s, err := lsp.New(dir, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// hasLoc reports whether locs has one at path:line.
func hasLoc(locs []lsp.Location, path string, line int) bool {
	for _, l := range locs {
		if l.Path == path && l.Line == line {
			return true
		}
	}
	return false
}

func locStrings(locs []lsp.Location) string {
	var s []string
	for _, l := range locs {
		s = append(s, l.String())
	}
	return strings.Join(s, "\n")
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func sleep() { time.Sleep(100 * time.Millisecond) }

// requireClangd skips (or fails, see testenv) a test without clangd.
func requireClangd(t testing.TB) {
	t.Helper()
	if testenv.LookPath("clangd") == "" {
		testenv.RequireBinary(t, "clangd-19")
	}
}

// peerProject requires the server binary peer, copies the sample project
// testdata/lsp/project and returns it and a supervisor over it.
func peerProject(t *testing.T, peer, project string, opts ...lsp.Option) (string, *lsp.Supervisor) {
	t.Helper()
	testenv.RequireBinary(t, peer)
	dir := testenv.LSPProject(t, project)
	return dir, newSupervisor(t, dir, opts...)
}

// cproj copies testdata/lsp/cproj with its compile_commands.json and
// returns it and a supervisor over it.
func cproj(t *testing.T) (string, *lsp.Supervisor) {
	t.Helper()
	requireClangd(t)
	dir := testenv.LSPProject(t, "cproj")
	writeCompileCommands(t, dir)
	return dir, newSupervisor(t, dir)
}

// requireHover hovers at pos and requires each of want in the text.
func requireHover(t *testing.T, ctx context.Context, s *lsp.Supervisor, pos lsp.Position, want ...string) {
	t.Helper()
	h, err := s.Hover(ctx, pos)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if !strings.Contains(h.Text, w) {
			t.Fatalf("hover lacks %q:\n%s", w, h.Text)
		}
	}
}

// symbolLines returns the document symbols of file: each name's line.
func symbolLines(t *testing.T, ctx context.Context, s *lsp.Supervisor, file string) map[string]int {
	t.Helper()
	syms, err := s.DocumentSymbols(ctx, file)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]int{}
	for _, sy := range syms.Items {
		names[sy.Name] = sy.Location.Line
	}
	return names
}

// requireWorkspaceSymbol requires the workspace symbols for query to hold
// name at path:line.
func requireWorkspaceSymbol(t *testing.T, ctx context.Context, s *lsp.Supervisor, query, name, path string, line int) {
	t.Helper()
	ws, err := s.WorkspaceSymbols(ctx, query, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, sy := range ws.Items {
		if sy.Name == name && sy.Location.Path == path && sy.Location.Line == line {
			return
		}
	}
	t.Fatalf("workspace symbols for %q lack %s at %s:%d: %+v", query, name, path, line, ws.Items)
}

// navCase is one navigation query (named as its op: definition,
// type_definition, implementation, references) at pos, and a location
// its answer must hold.
type navCase struct {
	op   string
	pos  lsp.Position
	want string
	line int
}

// runNav runs each navigation query as a subtest named by its op; withText
// also requires every location to carry its line's text.
func runNav(t *testing.T, ctx context.Context, s *lsp.Supervisor, withText bool, cases []navCase) {
	t.Helper()
	ops := map[string]func(context.Context, lsp.Position) (*lsp.Locations, error){
		"definition": s.Definition, "type_definition": s.TypeDefinition,
		"implementation": s.Implementation, "references": s.References,
	}
	for _, tc := range cases {
		t.Run(tc.op, func(t *testing.T) {
			got, err := ops[tc.op](ctx, tc.pos)
			if err != nil {
				t.Fatal(err)
			}
			if !hasLoc(got.Items, tc.want, tc.line) {
				t.Fatalf("want %s:%d in\n%s", tc.want, tc.line, locStrings(got.Items))
			}
			for _, l := range got.Items {
				if withText && l.Text == "" {
					t.Errorf("location %s has no line text", l)
				}
			}
		})
	}
}

// requireCodeActions requires code actions at pos.
func requireCodeActions(t *testing.T, ctx context.Context, s *lsp.Supervisor, pos lsp.Position) {
	t.Helper()
	acts, err := s.CodeActions(ctx, pos)
	if err != nil {
		t.Fatal(err)
	}
	if len(acts.Items) == 0 {
		t.Fatal("no code actions")
	}
	t.Logf("actions: %+v", acts.Items)
}

// written writes text to file in the workspace dir and returns the
// diagnostics AfterWrite reports for it.
func written(t *testing.T, ctx context.Context, s *lsp.Supervisor, dir, file, text string) *lsp.Diagnostics {
	t.Helper()
	writeFile(t, filepath.Join(dir, file), text)
	d, err := s.AfterWrite(ctx, file)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// renamed renames the symbol at pos to name, requires the files written
// to be files (comma-separated, in order), and returns the result.
func renamed(t *testing.T, ctx context.Context, s *lsp.Supervisor, pos lsp.Position, name, files string) *lsp.RenameResult {
	t.Helper()
	res, err := s.Rename(ctx, pos, name)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Files, ",") != files {
		t.Fatalf("rename to %s: want files %s: %+v", name, files, res)
	}
	return res
}

// checkFinds runs Check and requires a finding that found accepts; what
// names the checker.
func checkFinds(t *testing.T, ctx context.Context, s *lsp.Supervisor, what string, found func(lsp.Diagnostic) bool) {
	t.Helper()
	rep, err := s.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(rep.Items, found) {
		t.Fatalf("%s finding not parsed: %+v (ran %v, unparsed %v)", what, rep.Items, rep.Ran, rep.Unparsed)
	}
}
