package lsp

// Fault injection for confinement: a fake server over net.Pipe that names
// files outside the workspace in every kind of answer, in addition to the
// real servers' tests (clangd's #include, pyright's extraPaths). Whatever
// it names, tether reads only through the workspace root: an outside path
// comes back alone, marked, and an edit touching one is refused whole.

import "context"
import "encoding/json"
import "net"
import "os"
import "path/filepath"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/internal/testenv"
import "go.lsp.dev/jsonrpc2"

// outsideSecret is the content of the file outside the workspace; no
// answer may carry it.
const outsideSecret = "sk-OUTSIDE-5f1c9e"

// confineFake answers each method with a fixed result and publishes
// diagnostics for every document it is sent.
type confineFake struct {
	answers map[string]any
	diags   []any // published for each didOpen / didChange
}

func (f *confineFake) dial(spec Server, root string) (*instance, error) {
	client, server := net.Pipe()
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(server))
	conn.Go(context.Background(), func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		switch req.Method() {
		case "initialize":
			return reply(ctx, map[string]any{"capabilities": map[string]any{
				"hoverProvider": true, "definitionProvider": true, "referencesProvider": true,
				"documentSymbolProvider": true, "workspaceSymbolProvider": true,
				"renameProvider": true, "codeActionProvider": true, "callHierarchyProvider": true,
				"executeCommandProvider": map[string]any{"commands": []string{"fake.apply"}},
				"workspace":              map[string]any{"fileOperations": map[string]any{"willRename": map[string]any{}, "didRename": map[string]any{}}}}}, nil)
		case "workspace/executeCommand":
			// The command's edit comes back through workspace/applyEdit
			// before the command answers.
			go func() {
				var res json.RawMessage
				_, err := conn.Call(context.Background(), "workspace/applyEdit", map[string]any{"edit": f.answers["fake.applyEdit"]}, &res)
				reply(context.Background(), nil, err)
			}()
			return nil
		case "textDocument/didOpen", "textDocument/didChange":
			publishFor(conn, req, f.diags)
			return nil
		case "shutdown":
			return reply(ctx, nil, nil)
		}
		if a, ok := f.answers[req.Method()]; ok {
			return reply(ctx, a, nil)
		}
		if _, ok := req.(*jsonrpc2.Call); ok {
			return reply(ctx, nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, req.Method()))
		}
		return nil
	})
	return attachPipe(spec, root, client), nil
}

// confineWorkspace makes a workspace holding a.go and link.go, a symbolic
// link to a file outside it, and that outside file (its secret on line 3).
func confineWorkspace(t *testing.T) (dir, outside string) {
	t.Helper()
	dirs := testenv.Siblings(t, "ws", "elsewhere")
	dir, other := dirs[0], dirs[1]
	outside = filepath.Join(other, "secret.go")
	files := map[string]string{
		filepath.Join(dir, "go.mod"): "module x\n",
		filepath.Join(dir, "a.go"):   "package x\n\nfunc A() {}\n",
		outside:                      "package other\n\nconst Secret = \"" + outsideSecret + "\"\n",
	}
	for name, body := range files {
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link.go")); err != nil {
		t.Fatal(err)
	}
	return dir, outside
}

func confineSupervisor(t *testing.T, f *confineFake) (*Supervisor, string, string) {
	t.Helper()
	dir, outside := confineWorkspace(t)
	s, err := New(dir, WithOnlyServers(Server{Name: "fakels", Language: "go", Binaries: []string{"fakels"},
		Extensions: []string{".go"}, RootMarkers: []string{"go.mod"}}), WithDiagnosticsTimeout(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	s.dial = f.dial
	t.Cleanup(func() { s.Close() })
	return s, dir, outside
}

func lspRange(line, char int) map[string]any {
	p := map[string]any{"line": line, "character": char}
	return map[string]any{"start": p, "end": p}
}

// noSecret fails when what tether returned carries the outside file's
// content.
func noSecret(t *testing.T, what string, v any) {
	t.Helper()
	b, _ := json.Marshal(v)
	if strings.Contains(string(b), outsideSecret) || strings.Contains(string(b), "const Secret") {
		t.Fatalf("%s shows the outside file's content:\n%s", what, b)
	}
}

// TestConfineLocations: a definition, references and symbols naming a file
// outside the workspace, directly or through a symbolic link in it that
// leads out, come back as the path alone, marked outside and never read;
// a location inside keeps its line's text.
func TestConfineLocations(t *testing.T) {
	f := &confineFake{}
	s, dir, outside := confineSupervisor(t, f)
	outURI, linkURI, inURI := pathToURI(outside), pathToURI(filepath.Join(dir, "link.go")), pathToURI(filepath.Join(dir, "a.go"))
	locs := []any{
		map[string]any{"uri": outURI, "range": lspRange(2, 6)},
		map[string]any{"targetUri": linkURI, "targetRange": lspRange(2, 0), "targetSelectionRange": lspRange(2, 6)},
		map[string]any{"uri": inURI, "range": lspRange(2, 5)},
	}
	f.answers = map[string]any{
		"textDocument/definition": locs,
		"textDocument/references": locs,
		"textDocument/documentSymbol": []any{
			map[string]any{"name": "Secret", "kind": 14, "location": map[string]any{"uri": outURI, "range": lspRange(2, 6)}},
			map[string]any{"name": "A", "kind": 12, "location": map[string]any{"uri": inURI, "range": lspRange(2, 5)}},
		},
		"workspace/symbol": []any{
			map[string]any{"name": "Secret", "kind": 14, "location": map[string]any{"uri": outURI, "range": lspRange(2, 6)}},
			map[string]any{"name": "Linked", "kind": 14, "location": map[string]any{"uri": linkURI, "range": lspRange(2, 6)}},
		},
		// A hover may link to any file; tether shows the server's text and
		// follows no link.
		"textDocument/hover": map[string]any{"contents": map[string]any{"kind": "markdown",
			"value": "func A()\n\n[declared here](" + outURI + "#L3)"}},
	}
	ctx := context.Background()
	pos := Position{File: "a.go", Line: 3, Symbol: "A"}
	check := func(t *testing.T, items []Location) {
		t.Helper()
		want := map[string]bool{outside: true, "link.go": true, "a.go": false}
		for _, l := range items {
			out, ok := want[l.Path]
			if !ok {
				continue
			}
			delete(want, l.Path)
			switch {
			case l.Outside != out:
				t.Errorf("%s: outside %v, want %v", l.Path, l.Outside, out)
			case out && (l.Text != "" || !strings.HasSuffix(l.String(), OutsideNote)):
				t.Errorf("an outside location must be its path alone, marked: %q (text %q)", l.String(), l.Text)
			case !out && l.Text != "func A() {}":
				t.Errorf("a location inside keeps its line: %q", l.String())
			}
		}
		if len(want) > 0 {
			t.Errorf("locations missing: %v in %v", want, items)
		}
	}
	// The fake answers both with the same locations.
	for _, q := range []struct {
		name string
		ask  func(context.Context, Position) (*Locations, error)
	}{{"definition", s.Definition}, {"references", s.References}} {
		t.Run(q.name, func(t *testing.T) {
			got, err := q.ask(ctx, pos)
			if err != nil {
				t.Fatal(err)
			}
			noSecret(t, q.name, got)
			check(t, got.Items)
			for _, l := range got.Items {
				if l.Path == outside && l.String() != outside+":3:7 "+OutsideNote {
					t.Errorf("rendered %q", l.String())
				}
			}
		})
	}
	t.Run("document_symbols", func(t *testing.T) {
		got, err := s.DocumentSymbols(ctx, "a.go")
		if err != nil {
			t.Fatal(err)
		}
		noSecret(t, "document symbols", got)
		var ls []Location
		for _, sym := range got.Items {
			ls = append(ls, sym.Location)
		}
		if len(ls) != 2 || !ls[0].Outside || ls[1].Outside || ls[1].Text != "func A() {}" {
			t.Fatalf("document symbols: %+v", got.Items)
		}
	})
	t.Run("workspace_symbols", func(t *testing.T) {
		got, err := s.WorkspaceSymbols(ctx, "Secret", "a.go")
		if err != nil {
			t.Fatal(err)
		}
		noSecret(t, "workspace symbols", got)
		if len(got.Items) != 2 || !got.Items[0].Location.Outside || !got.Items[1].Location.Outside {
			t.Fatalf("workspace symbols: %+v", got.Items)
		}
	})
	t.Run("call_hierarchy", func(t *testing.T) {
		item := func(uri string) map[string]any {
			return map[string]any{"name": "A", "kind": 12, "uri": uri, "range": lspRange(2, 5), "selectionRange": lspRange(2, 6)}
		}
		f.answers["textDocument/prepareCallHierarchy"] = []any{item(outURI)}
		f.answers["callHierarchy/incomingCalls"] = []any{
			map[string]any{"from": item(linkURI), "fromRanges": []any{lspRange(2, 6)}},
			map[string]any{"from": item(inURI), "fromRanges": []any{lspRange(2, 5)}},
		}
		got, err := s.CallHierarchy(ctx, pos, Incoming, 0)
		if err != nil {
			t.Fatal(err)
		}
		noSecret(t, "call hierarchy", got)
		var ls []Location
		for _, h := range append(got.Of, got.Items...) {
			ls = append(append(ls, h.Location), h.Calls...)
		}
		check(t, ls)
	})
	t.Run("hover", func(t *testing.T) {
		got, err := s.Hover(ctx, pos)
		if err != nil {
			t.Fatal(err)
		}
		noSecret(t, "hover", got)
	})
}

// TestConfineDiagnostics: a diagnostic whose related information points
// outside the workspace shows nothing of that file; a diagnostic published
// for a file outside carries its path alone.
func TestConfineDiagnostics(t *testing.T) {
	f := &confineFake{}
	s, _, outside := confineSupervisor(t, f)
	f.diags = []any{map[string]any{"range": lspRange(2, 5), "severity": 1, "message": "A redeclared",
		"relatedInformation": []any{map[string]any{"location": map[string]any{"uri": pathToURI(outside), "range": lspRange(2, 6)},
			"message": "other declaration"}}}}
	d, err := s.Diagnostics(context.Background(), "a.go")
	if err != nil {
		t.Fatal(err)
	}
	noSecret(t, "diagnostics", d)
	if len(d.Items) != 1 || d.Items[0].Message != "A redeclared" || d.Items[0].Path != "a.go" {
		t.Fatalf("diagnostics: %+v", d)
	}
	files := fileCache{}
	got := s.diagnostic(files, encUTF16, pathToURI(outside), wDiagnostic{Range: wRange{Start: wPosition{Line: 2, Character: 6}}, Severity: 1, Message: "quotes " + outsideSecret})
	if !got.Outside || got.Message != "" || !strings.HasSuffix(got.String(), OutsideNote) {
		t.Fatalf("a diagnostic outside the workspace: %+v (%s)", got, got)
	}
}

// TestConfineEdits: a rename or a code action whose edit touches a file
// outside the workspace (directly, through a symbolic link leading out, or
// by creating or deleting one) is refused whole: no file changes, the inside one
// included, and the error names the outside path.
func TestConfineEdits(t *testing.T) {
	f := &confineFake{}
	s, dir, outside := confineSupervisor(t, f)
	inURI := pathToURI(filepath.Join(dir, "a.go"))
	edit := func() []any {
		return []any{map[string]any{"range": map[string]any{"start": map[string]any{"line": 2, "character": 5},
			"end": map[string]any{"line": 2, "character": 6}}, "newText": "B"}}
	}
	cases := []struct {
		name, want string
		edit       map[string]any
	}{
		{"changes", outside, map[string]any{"changes": map[string]any{inURI: edit(), pathToURI(outside): edit()}}},
		{"symlink", "link.go", map[string]any{"changes": map[string]any{inURI: edit(), pathToURI(filepath.Join(dir, "link.go")): edit()}}},
		{"document_changes", outside, map[string]any{"documentChanges": []any{
			map[string]any{"textDocument": map[string]any{"uri": inURI, "version": 1}, "edits": edit()},
			map[string]any{"textDocument": map[string]any{"uri": pathToURI(outside), "version": 1}, "edits": edit()}}}},
		{"create", filepath.Join(filepath.Dir(outside), "new.go"), map[string]any{"documentChanges": []any{
			map[string]any{"kind": "create", "uri": pathToURI(filepath.Join(filepath.Dir(outside), "new.go"))},
			map[string]any{"textDocument": map[string]any{"uri": inURI, "version": 1}, "edits": edit()}}}},
		{"delete", outside, map[string]any{"documentChanges": []any{
			map[string]any{"textDocument": map[string]any{"uri": inURI, "version": 1}, "edits": edit()},
			map[string]any{"kind": "delete", "uri": pathToURI(outside)}}}},
	}
	ctx := context.Background()
	pos := Position{File: "a.go", Line: 3, Symbol: "A"}
	before, _ := os.ReadFile(filepath.Join(dir, "a.go"))
	for _, c := range cases {
		t.Run("rename_"+c.name, func(t *testing.T) {
			f.answers = map[string]any{"textDocument/rename": c.edit}
			_, err := s.Rename(ctx, pos, "B")
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "outside the workspace") ||
				!strings.Contains(err.Error(), "nothing was changed") {
				t.Fatalf("rename touching %s: %v", c.want, err)
			}
			if after, _ := os.ReadFile(filepath.Join(dir, "a.go")); string(after) != string(before) {
				t.Fatalf("a.go changed:\n%s", after)
			}
			if got, _ := os.ReadFile(outside); !strings.Contains(string(got), outsideSecret) {
				t.Fatalf("the outside file changed:\n%s", got)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(outside), "new.go")); err == nil {
				t.Fatal("a file was created outside the workspace")
			}
		})
		t.Run("staged_"+c.name, func(t *testing.T) {
			// Staging refuses the same edits whole: a code action's own
			// edit, one a command sends back, a rename preview and the
			// import updates of a file move.
			f.answers = map[string]any{"textDocument/codeAction": []any{
				map[string]any{"title": "reaches out", "kind": "quickfix", "edit": c.edit},
				map[string]any{"title": "command reaches out", "kind": "quickfix", "command": map[string]any{"title": "x", "command": "fake.apply"}},
			}, "fake.applyEdit": c.edit, "textDocument/rename": c.edit, "workspace/willRenameFiles": c.edit}
			q := ActionQuery{Position: pos}
			for what, stage := range map[string]func() (*ProposedEdit, error){
				"action":  func() (*ProposedEdit, error) { return s.ApplyCodeAction(ctx, q, "reaches out") },
				"command": func() (*ProposedEdit, error) { return s.ApplyCodeAction(ctx, q, "command reaches out") },
				"rename":  func() (*ProposedEdit, error) { return s.RenamePreview(ctx, pos, "B") },
				"move":    func() (*ProposedEdit, error) { return s.RenameFile(ctx, "a.go", "b.go") },
			} {
				pe, err := stage()
				if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "outside the workspace") ||
					!strings.Contains(err.Error(), "nothing was changed") {
					t.Fatalf("%s touching %s: %+v %v", what, c.want, pe, err)
				}
			}
			if after, _ := os.ReadFile(filepath.Join(dir, "a.go")); string(after) != string(before) {
				t.Fatalf("a.go changed:\n%s", after)
			}
		})
		t.Run("code_action_"+c.name, func(t *testing.T) {
			f.answers = map[string]any{"textDocument/codeAction": []any{
				map[string]any{"title": "reaches out", "kind": "quickfix", "edit": c.edit},
				map[string]any{"title": "stays in", "kind": "quickfix", "edit": map[string]any{"changes": map[string]any{inURI: edit()}}},
			}}
			acts, err := s.CodeActions(ctx, pos)
			if err != nil {
				t.Fatal(err)
			}
			if len(acts.Items) != 2 || !strings.Contains(acts.Items[0].Refused, c.want) || !strings.Contains(acts.Items[0].Refused, "outside the workspace") ||
				acts.Items[1].Refused != "" {
				t.Fatalf("code actions: %+v", acts.Items)
			}
		})
	}
}

// TestStagedDeleteFile: a code action whose WorkspaceEdit deletes a file
// in the workspace (a DeleteFile operation, which few real servers send:
// fault injection) is proposed as a deletion with the rest of its edit,
// nothing written; a directory, a missing file and a file deleted then
// edited are refused whole, and one created then deleted is left out.
func TestStagedDeleteFile(t *testing.T) {
	f := &confineFake{}
	s, dir, _ := confineSupervisor(t, f)
	gone := filepath.Join(dir, "gone.go")
	if err := os.WriteFile(gone, []byte("package x\n\nfunc Gone() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	inURI := pathToURI(filepath.Join(dir, "a.go"))
	edit := []any{map[string]any{"range": map[string]any{"start": map[string]any{"line": 2, "character": 5},
		"end": map[string]any{"line": 2, "character": 6}}, "newText": "B"}}
	textEdit := map[string]any{"textDocument": map[string]any{"uri": inURI, "version": 1}, "edits": edit}
	del := func(path string, opts ...map[string]any) map[string]any {
		op := map[string]any{"kind": "delete", "uri": pathToURI(path)}
		if len(opts) > 0 {
			op["options"] = opts[0]
		}
		return op
	}
	newGo := filepath.Join(dir, "new.go")
	ctx := context.Background()
	q := ActionQuery{Position: Position{File: "a.go", Line: 3, Symbol: "A"}}
	stage := func(changes ...any) (*ProposedEdit, error) {
		f.answers = map[string]any{"textDocument/codeAction": []any{
			map[string]any{"title": "prune", "kind": "quickfix", "edit": map[string]any{"documentChanges": changes}}}}
		return s.ApplyCodeAction(ctx, q, "prune")
	}

	pe, err := stage(textEdit, del(gone))
	if err != nil {
		t.Fatal(err)
	}
	if len(pe.Files) != 2 || pe.Files[0].Rel != "a.go" || pe.Files[0].Deleted || string(pe.Files[0].New) != "package x\n\nfunc B() {}\n" ||
		pe.Files[1].Rel != "gone.go" || !pe.Files[1].Deleted || pe.Files[1].Path != gone ||
		string(pe.Files[1].Old) != "package x\n\nfunc Gone() {}\n" || pe.Files[1].New != nil {
		t.Fatalf("proposed: %+v", pe.Files)
	}
	if _, err := os.Stat(gone); err != nil {
		t.Fatalf("proposing deleted the file: %v", err)
	}

	// created then deleted in the same edit: nothing staged for it
	if pe, err = stage(map[string]any{"kind": "create", "uri": pathToURI(newGo)}, textEdit, del(newGo)); err != nil || len(pe.Files) != 1 || pe.Files[0].Rel != "a.go" {
		t.Fatalf("created then deleted: %+v %v", pe, err)
	}
	// a missing file, ignored when asked
	if pe, err = stage(textEdit, del(filepath.Join(dir, "none.go"), map[string]any{"ignoreIfNotExists": true})); err != nil || len(pe.Files) != 1 {
		t.Fatalf("ignoreIfNotExists: %+v %v", pe, err)
	}
	for _, c := range []struct {
		name    string
		changes []any
		want    string
	}{
		{"directory", []any{textEdit, del(filepath.Join(dir, "sub"), map[string]any{"recursive": true})}, "delete the directory sub"},
		{"missing", []any{textEdit, del(filepath.Join(dir, "none.go"))}, "none.go, which does not exist"},
		{"edited after", []any{del(gone), map[string]any{"textDocument": map[string]any{"uri": pathToURI(gone), "version": 1}, "edits": edit}}, "after deleting it"},
		{"created again", []any{del(gone), map[string]any{"kind": "create", "uri": pathToURI(gone)}}, "again after deleting it"},
	} {
		pe, err := stage(c.changes...)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "nothing was changed") {
			t.Errorf("%s: %+v %v, want an error saying %q", c.name, pe, err, c.want)
		}
	}
	if _, err := os.Stat(gone); err != nil {
		t.Fatalf("a refused edit deleted the file: %v", err)
	}
}

// TestConfineCheckerFindings: a checker's finding in a file outside the
// workspace (a dependency elsewhere) shows its path alone, without its
// message or continuation lines, which may quote that file.
func TestConfineCheckerFindings(t *testing.T) {
	s, dir, outside := confineSupervisor(t, &confineFake{})
	rel, _ := filepath.Rel(dir, outside)
	rep := &CheckReport{}
	s.parseCheckerOutput(rep, rel+":3:7: undefined: "+outsideSecret+"\n\thave (\""+outsideSecret+"\")\na.go:3:6: A declared and not used\n", dir)
	noSecret(t, "checker report", rep)
	if len(rep.Items) != 2 || !rep.Items[0].Outside || rep.Items[0].Path != outside || rep.Items[1].Outside || rep.Items[1].Message == "" {
		t.Fatalf("checker findings: %+v", rep.Items)
	}
	if got := rep.Items[0].String(); got != outside+":3:7: error "+OutsideNote {
		t.Fatalf("rendered %q", got)
	}
}
