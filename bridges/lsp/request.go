package lsp

import "bytes"
import "context"
import "encoding/json"
import "fmt"
import "slices"
import "strings"
import "time"

// A raw request (Request) sends any method to a file's server. What the
// method may do decides the tier it needs (docs/tools.md, "Raw requests"):
// the methods that only read are listed (readMethods, readCommands); every
// other one, an unknown one included, may change files or run code.

// MethodClass is what a method may do: read (answer a question), write
// (compute an edit, which tether stages and never applies itself) or exec
// (run a server command, which may do anything the server can).
type MethodClass string

// The method classes, in increasing order of what a request may do.
const (
	ReadMethod  MethodClass = "read"
	WriteMethod MethodClass = "write"
	ExecMethod  MethodClass = "exec"
)

// rank orders the classes.
func (c MethodClass) rank() int {
	return map[MethodClass]int{ReadMethod: 1, WriteMethod: 2, ExecMethod: 3}[c]
}

// readMethods are the requests that only read: the textDocument queries
// (formatting ones included: they answer with edits, which are shown, not
// applied), the follow-ups of hierarchies and resolves that complete an
// item for display, the workspace queries, and the documented read
// requests of clangd and rust-analyzer. codeAction/resolve is not here:
// its answer carries an edit, staged at write tier.
var readMethods = []string{
	"textDocument/hover", "textDocument/definition", "textDocument/declaration", "textDocument/typeDefinition",
	"textDocument/implementation", "textDocument/references", "textDocument/documentHighlight",
	"textDocument/documentSymbol", "textDocument/documentLink", "textDocument/codeLens", "textDocument/codeAction",
	"textDocument/foldingRange", "textDocument/selectionRange", "textDocument/semanticTokens/full",
	"textDocument/semanticTokens/full/delta", "textDocument/semanticTokens/range", "textDocument/inlayHint",
	"textDocument/inlineValue", "textDocument/signatureHelp", "textDocument/completion", "textDocument/documentColor",
	"textDocument/colorPresentation", "textDocument/moniker", "textDocument/prepareRename",
	"textDocument/prepareCallHierarchy", "textDocument/prepareTypeHierarchy", "textDocument/linkedEditingRange",
	"textDocument/diagnostic", "textDocument/formatting", "textDocument/rangeFormatting", "textDocument/rangesFormatting",
	"textDocument/onTypeFormatting",
	"callHierarchy/incomingCalls", "callHierarchy/outgoingCalls", "typeHierarchy/supertypes", "typeHierarchy/subtypes",
	"completionItem/resolve", "codeLens/resolve", "documentLink/resolve", "inlayHint/resolve", "workspaceSymbol/resolve",
	"workspace/symbol", "workspace/diagnostic",
	// clangd
	"textDocument/switchSourceHeader", "textDocument/ast", "textDocument/symbolInfo",
	// rust-analyzer
	"rust-analyzer/expandMacro", "rust-analyzer/viewSyntaxTree", "rust-analyzer/viewHir", "rust-analyzer/viewMir",
	"rust-analyzer/viewFileText", "rust-analyzer/viewItemTree", "rust-analyzer/viewCrateGraph",
	"rust-analyzer/analyzerStatus", "rust-analyzer/relatedTests", "rust-analyzer/interpretFunction",
	"experimental/parentModule", "experimental/childModules", "experimental/externalDocs", "experimental/matchingBrace",
	"experimental/discoverTest",
}

// readCommands are the workspace/executeCommand commands that only read:
// gopls's listings of the workspace's packages, imports, modules, symbols
// and its own state. Any other command is exec class.
var readCommands = []string{
	"gopls.list_imports", "gopls.list_known_packages", "gopls.modules", "gopls.package_symbols",
	"gopls.packages", "gopls.views", "gopls.workspace_stats", "gopls.mem_stats",
}

// ownedMethods are the messages through which tether itself runs the
// server (its lifecycle, the documents it has open, its settings):
// refused at every tier, since a request of them would leave tether's
// view of the server wrong.
var ownedMethods = []string{"initialize", "initialized", "shutdown", "exit"}

// ownedPrefixes are the method families tether owns, as ownedMethods.
var ownedPrefixes = []string{"$/", "textDocument/did", "textDocument/willSave", "notebookDocument/", "workspace/did", "window/", "client/"}

// ReadMethods returns the methods Request answers at read class, and the
// commands of workspace/executeCommand it runs at read class.
func ReadMethods() (methods, commands []string) {
	return slices.Clone(readMethods), slices.Clone(readCommands)
}

// ClassOf returns what method, sent with params, may do; an error for a
// method tether owns (a lifecycle or document-sync message) or that is
// not one.
func ClassOf(method string, params json.RawMessage) (MethodClass, error) {
	if strings.TrimSpace(method) == "" || strings.ContainsAny(method, " \t\n") {
		return "", fmt.Errorf("lsp: %q is not a method name: pass an LSP method such as textDocument/documentHighlight", method)
	}
	if slices.Contains(ownedMethods, method) || slices.ContainsFunc(ownedPrefixes, func(p string) bool { return strings.HasPrefix(method, p) }) {
		return "", fmt.Errorf("lsp: %s is one of the messages through which tether runs the server (its lifecycle, its open documents, its settings and windows), so it is not sent: a request may be any other method", method)
	}
	if slices.Contains(readMethods, method) {
		return ReadMethod, nil
	}
	if method == "workspace/executeCommand" {
		var p struct {
			Command string `json:"command"`
		}
		_ = json.Unmarshal(params, &p)
		if slices.Contains(readCommands, p.Command) {
			return ReadMethod, nil
		}
		return ExecMethod, nil
	}
	return WriteMethod, nil
}

// ClassError is a request refused for its class: the method may do more
// than the caller's tier allows.
type ClassError struct {
	Method, Command string
	Class, Allowed  MethodClass
}

func (e *ClassError) Error() string {
	what := e.Method
	if e.Command != "" {
		what = fmt.Sprintf("%s of %s", e.Method, e.Command)
	}
	why := "it may change files (any edit it yields would be staged)"
	if e.Class == ExecMethod {
		why = "it runs a command of the server, which may change files or run programs"
	}
	return fmt.Sprintf("lsp: %s is %s class: %s, and this call allows %s class only", what, e.Class, why, e.Allowed)
}

// RequestQuery is a raw request: Method with Params (a JSON object, or
// none) to the server of File. Params without textDocument get File's;
// with Line (1-based) and Symbol, params without position get the
// symbol's.
type RequestQuery struct {
	File   string
	Method string
	Params json.RawMessage
	Line   int
	Symbol string
}

// RequestAnswer is a server's answer to a raw request.
type RequestAnswer struct {
	// Server answered; Class is the method's.
	Server string      `json:"server"`
	Method string      `json:"method"`
	Class  MethodClass `json:"class"`
	// Result is the answer with every file URI made a workspace-relative
	// path, or, for a file outside the workspace, its path followed by
	// OutsideNote (Outside lists those): tether reads none of them.
	Result  json.RawMessage `json:"result"`
	Outside []string        `json:"outside,omitempty"`
	Notes   []string        `json:"notes,omitempty"`
	// Proposed is the edit the answer carries (a WorkspaceEdit, a code
	// action's, text edits of the request's document) or the server sent
	// through workspace/applyEdit while it ran, for write and exec class
	// only; nil when there is none. Nothing of it is written.
	Proposed *ProposedEdit `json:"-"`
}

// Request sends q to its file's server and returns the answer. A method
// of a class above allowed is refused (*ClassError) before any server
// starts; so is a file URI in the params outside the workspace. At write
// and exec class the edit the answer holds, and those the server sends
// back through workspace/applyEdit meanwhile (captured, as a command
// code action's), are proposed, never applied.
func (s *Supervisor) Request(ctx context.Context, q RequestQuery, allowed MethodClass) (*RequestAnswer, error) {
	params, err := requestParams(q.Params)
	if err != nil {
		return nil, err
	}
	raw, _ := json.Marshal(params)
	class, err := ClassOf(q.Method, raw)
	if err != nil {
		return nil, err
	}
	if class.rank() > allowed.rank() {
		cmd, _ := params["command"].(string)
		if q.Method != "workspace/executeCommand" {
			cmd = ""
		}
		return nil, &ClassError{Method: q.Method, Command: cmd, Class: class, Allowed: allowed}
	}
	if err := s.confineParams(params); err != nil {
		return nil, err
	}
	ctx, done, err := s.reading(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	p, err := s.prepare(ctx, q.File)
	if err != nil {
		return nil, err
	}
	if err := s.fillParams(p, q, params); err != nil {
		return nil, err
	}
	ans := &RequestAnswer{Server: p.in.spec.Name, Method: q.Method, Class: class, Notes: p.notes}
	var got []wWorkspaceEdit
	var started time.Time
	if class != ReadMethod {
		// What the server sends back through workspace/applyEdit while the
		// request runs is captured, to be staged.
		in := p.in
		in.cmdMu.Lock()
		defer in.cmdMu.Unlock()
		in.mu.Lock()
		in.capture = func(we wWorkspaceEdit) { got = append(got, we) }
		in.mu.Unlock()
		defer func() {
			in.mu.Lock()
			in.capture = nil
			in.mu.Unlock()
		}()
		started = time.Now()
	}
	res, err := p.in.call(ctx, s.requestTimeout, q.Method, params)
	if err != nil && len(got) == 0 {
		return nil, s.failed(p.in, err, p.notes)
	}
	if len(res) == 0 {
		res = json.RawMessage("null")
	}
	ans.Result, ans.Outside = s.confineAnswer(res)
	if class == ReadMethod {
		return ans, nil
	}
	if err != nil {
		ans.Notes = append(ans.Notes, fmt.Sprintf("the request failed (%v) after the server sent an edit back; that edit is staged", err))
	}
	if we, ok := answerEdit(res, params); ok {
		got = append([]wWorkspaceEdit{we}, got...)
	}
	if len(got) == 0 {
		return ans, nil
	}
	made, notes := s.serverMade(p.in, got, started, nil)
	pe, err := s.propose(p.in, got, nil, made...)
	if err != nil {
		return nil, fmt.Errorf("lsp: %s's answer to %s: %w", p.in.spec.Name, q.Method, err)
	}
	pe.Title = fmt.Sprintf("%s's edit for %s", p.in.spec.Name, q.Method)
	pe.Notes = append(notes, pe.Notes...)
	ans.Proposed = pe
	return ans, nil
}

// requestParams decodes params: a JSON object, or nothing (an empty one).
func requestParams(raw json.RawMessage) (map[string]any, error) {
	params := map[string]any{}
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return params, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&params); err != nil {
		return nil, fmt.Errorf("lsp: params must be a JSON object (the method's params as the LSP specification gives them): %w", err)
	}
	return params, nil
}

// confineParams refuses params naming a file outside the workspace: the
// server would read it and could quote it in its answer.
func (s *Supervisor) confineParams(params map[string]any) error {
	var bad []string
	walkStrings(params, func(v string) string {
		if path := uriToPath(v); path != "" {
			if _, err := s.abs(path); err != nil {
				bad = append(bad, v)
			}
		}
		return v
	})
	if len(bad) > 0 {
		return fmt.Errorf("lsp: params name %s, outside the workspace: a request may name the workspace's files only (file:// URIs of files inside it)", strings.Join(bad, ", "))
	}
	return nil
}

// fillParams gives params the document of p when they name none (for a
// textDocument method, or one given a position), and the position of q's
// symbol when q has a line and they have no position.
func (s *Supervisor) fillParams(p *prepared, q RequestQuery, params map[string]any) error {
	if _, ok := params["textDocument"]; !ok && (strings.HasPrefix(q.Method, "textDocument/") || q.Line > 0) {
		params["textDocument"] = map[string]any{"uri": pathToURI(p.path)}
	}
	if q.Line == 0 {
		return nil
	}
	if _, ok := params["position"]; ok {
		return fmt.Errorf("lsp: params hold a position and the call names line %d too: pass one of them", q.Line)
	}
	line, col, err := resolveSymbol(p.text, q.Line, q.Symbol, s.rel(p.path))
	if err != nil {
		return err
	}
	lt := lineText(p.text, lineStarts(p.text), line)
	params["position"] = map[string]any{"line": line, "character": p.in.enc.col(lt, col)}
	return nil
}

// walkStrings replaces every string in v (decoded JSON) with f's answer,
// keys aside.
func walkStrings(v any, f func(string) string) any {
	switch x := v.(type) {
	case string:
		return f(x)
	case map[string]any:
		for k, e := range x {
			x[k] = walkStrings(e, f)
		}
	case []any:
		for i, e := range x {
			x[i] = walkStrings(e, f)
		}
	}
	return v
}

// confineAnswer makes every file URI in raw a workspace-relative path, or
// for a file outside the workspace its path and OutsideNote, which it
// returns apart. raw is returned as is when it does not decode.
func (s *Supervisor) confineAnswer(raw json.RawMessage) (json.RawMessage, []string) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return raw, nil
	}
	var outside []string
	v = walkStrings(v, func(str string) string {
		path := uriToPath(str)
		if path == "" {
			return str
		}
		if _, err := s.abs(path); err != nil {
			if !slices.Contains(outside, path) {
				outside = append(outside, path)
			}
			return path + " " + OutsideNote
		}
		if real, _, err := s.root.Resolve(path); err == nil {
			return s.rel(real)
		}
		return s.rel(path)
	})
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if e.Encode(v) != nil {
		return raw, outside
	}
	return bytes.TrimSpace(b.Bytes()), outside
}

// answerEdit finds the edit an answer holds: a WorkspaceEdit, a code
// action with one, or a list of text edits of the document params name.
func answerEdit(raw json.RawMessage, params map[string]any) (wWorkspaceEdit, bool) {
	var obj struct {
		Changes         json.RawMessage `json:"changes"`
		DocumentChanges json.RawMessage `json:"documentChanges"`
		Edit            *wWorkspaceEdit `json:"edit"`
	}
	if len(raw) > 0 && raw[0] == '{' && json.Unmarshal(raw, &obj) == nil {
		if obj.Changes != nil || obj.DocumentChanges != nil {
			var we wWorkspaceEdit
			if json.Unmarshal(raw, &we) == nil {
				return we, true
			}
		}
		if obj.Edit != nil {
			return *obj.Edit, true
		}
		return wWorkspaceEdit{}, false
	}
	var edits []wTextEdit
	var probe []map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &probe) != nil || len(probe) == 0 {
		return wWorkspaceEdit{}, false
	}
	for _, e := range probe {
		if e["range"] == nil || e["newText"] == nil {
			return wWorkspaceEdit{}, false
		}
	}
	doc, _ := params["textDocument"].(map[string]any)
	uri, _ := doc["uri"].(string)
	if uri == "" || json.Unmarshal(raw, &edits) != nil {
		return wWorkspaceEdit{}, false
	}
	return wWorkspaceEdit{Changes: map[string][]wTextEdit{uri: edits}}, true
}
