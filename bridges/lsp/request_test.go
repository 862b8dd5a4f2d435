package lsp

import "context"
import "encoding/json"
import "errors"
import "os"
import "path/filepath"
import "slices"
import "strings"
import "testing"
import "time"

// TestClassOf: the read methods, gopls's read commands, the write class
// of every other method and of unknown ones, the exec class of other
// commands, and tether's own messages refused.
func TestClassOf(t *testing.T) {
	for _, c := range []struct {
		method, params string
		want           MethodClass
	}{
		{"textDocument/hover", "", ReadMethod},
		{"textDocument/formatting", "", ReadMethod},
		{"textDocument/switchSourceHeader", "", ReadMethod},
		{"rust-analyzer/expandMacro", "", ReadMethod},
		{"callHierarchy/incomingCalls", "", ReadMethod},
		{"workspace/executeCommand", `{"command":"gopls.package_symbols"}`, ReadMethod},
		{"textDocument/rename", "", WriteMethod},
		{"codeAction/resolve", "", WriteMethod},
		{"workspace/willRenameFiles", "", WriteMethod},
		{"acme/whatever", "", WriteMethod},
		{"workspace/executeCommand", `{"command":"gopls.tidy"}`, ExecMethod},
		{"workspace/executeCommand", `{"command":"gopls.lsp"}`, ExecMethod},
		{"workspace/executeCommand", "", ExecMethod},
	} {
		got, err := ClassOf(c.method, json.RawMessage(c.params))
		if err != nil || got != c.want {
			t.Errorf("ClassOf(%s, %s) = %s, %v; want %s", c.method, c.params, got, err, c.want)
		}
	}
	for _, m := range []string{"initialize", "shutdown", "exit", "$/cancelRequest", "textDocument/didOpen", "textDocument/willSaveWaitUntil", "workspace/didChangeConfiguration", "window/showMessageRequest", "", "two words"} {
		if c, err := ClassOf(m, nil); err == nil {
			t.Errorf("ClassOf(%q) = %s; want it refused", m, c)
		}
	}
}

// TestRequestConfined: a raw answer naming files outside the workspace,
// directly or through a link in it, shows their path alone, marked, and
// one inside as its workspace path; params naming such a file are refused
// before anything is sent; a write-class answer editing one is refused
// whole; an exec command's edit sent back is proposed, not written.
func TestRequestConfined(t *testing.T) {
	f := &confineFake{}
	s, dir, outside := confineSupervisor(t, f)
	outURI, linkURI, inURI := pathToURI(outside), pathToURI(filepath.Join(dir, "link.go")), pathToURI(filepath.Join(dir, "a.go"))
	edit := func(uri string) map[string]any {
		return map[string]any{"changes": map[string]any{uri: []any{map[string]any{"range": map[string]any{"start": map[string]any{"line": 2, "character": 5}, "end": map[string]any{"line": 2, "character": 6}}, "newText": "B"}}}}
	}
	f.answers = map[string]any{
		"textDocument/definition": []any{map[string]any{"uri": outURI}, map[string]any{"uri": linkURI}, map[string]any{"uri": inURI}},
		"textDocument/rename":     edit(outURI),
		"fake.applyEdit":          edit(inURI),
	}
	ctx := context.Background()
	ans, err := s.Request(ctx, RequestQuery{File: "a.go", Method: "textDocument/definition", Line: 3, Symbol: "A"}, ReadMethod)
	if err != nil {
		t.Fatal(err)
	}
	noSecret(t, "request", ans)
	var got []struct{ URI string }
	if err := json.Unmarshal(ans.Result, &got); err != nil || len(got) != 3 {
		t.Fatalf("answer: %s (%v)", ans.Result, err)
	}
	link := filepath.Join(dir, "link.go")
	if got[0].URI != outside+" "+OutsideNote || got[1].URI != link+" "+OutsideNote || got[2].URI != "a.go" ||
		!slices.Equal(ans.Outside, []string{outside, link}) || ans.Class != ReadMethod || ans.Proposed != nil {
		t.Fatalf("answer: %s, outside %v", ans.Result, ans.Outside)
	}
	for _, uri := range []string{outURI, linkURI} {
		params, _ := json.Marshal(map[string]any{"textDocument": map[string]any{"uri": uri}})
		_, err := s.Request(ctx, RequestQuery{File: "a.go", Method: "textDocument/hover", Params: params}, ReadMethod)
		if err == nil || !strings.Contains(err.Error(), "outside the workspace") {
			t.Fatalf("params naming %s: want them refused, got %v", uri, err)
		}
	}
	_, err = s.Request(ctx, RequestQuery{File: "a.go", Method: "textDocument/rename", Line: 3, Symbol: "A"}, ReadMethod)
	var ce *ClassError
	if !errors.As(err, &ce) || ce.Class != WriteMethod {
		t.Fatalf("rename at read class: want a ClassError, got %v", err)
	}
	params, _ := json.Marshal(map[string]any{"newName": "B"})
	if _, err := s.Request(ctx, RequestQuery{File: "a.go", Method: "textDocument/rename", Params: params, Line: 3, Symbol: "A"}, WriteMethod); err == nil || !strings.Contains(err.Error(), "outside the workspace") {
		t.Fatalf("an edit outside the workspace: want it refused whole, got %v", err)
	}
	params, _ = json.Marshal(map[string]any{"command": "fake.apply"})
	ans, err = s.Request(ctx, RequestQuery{File: "a.go", Method: "workspace/executeCommand", Params: params}, ExecMethod)
	if err != nil || ans.Proposed == nil || len(ans.Proposed.Files) != 1 || ans.Proposed.Files[0].Rel != "a.go" || string(ans.Proposed.Files[0].New) != "package x\n\nfunc B() {}\n" {
		t.Fatalf("a command's edit: want it proposed for a.go, got %+v, %v", ans, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.go")); string(b) != "package x\n\nfunc A() {}\n" {
		t.Fatalf("the command's edit was written: %q", b)
	}
}

// TestFormatHungServer: a server that never answers formatting gives a
// timeout within the request bound, which FormatReason names as one (the
// reason format on write reports), and the file stays as it is.
func TestFormatHungServer(t *testing.T) {
	f := &fakeServer{hang: true}
	s := fakeSupervisor(t, f, WithRequestTimeout(300*time.Millisecond))
	_, err := s.Format(context.Background(), "a.go", 0, 0)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.HasPrefix(FormatReason(err), "timeout: ") || !strings.Contains(err.Error(), "did not answer textDocument/formatting within 300ms") {
		t.Fatalf("hung formatting: %v (%s)", err, FormatReason(err))
	}
	f.mu.Lock()
	f.hang = false
	f.mu.Unlock()
	pe, err := s.Format(context.Background(), "a.go", 0, 0)
	if err != nil || len(pe.Files) != 0 {
		t.Fatalf("no edits: want an edit changing nothing, got %+v, %v", pe, err)
	}
}
