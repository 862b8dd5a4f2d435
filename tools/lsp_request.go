package tools

import "bytes"
import "context"
import "crypto/sha256"
import "encoding/hex"
import "encoding/json"
import "errors"
import "fmt"
import "strings"

import "github.com/tetherhq/tether/bridges/lsp"

// Raw requests: the lsp tool's request action (read class methods only),
// lsp_request (write tier: any method, the edit it yields staged) and
// lsp_command (exec tier: workspace/executeCommand). The method classes
// are the bridge's (lsp.ClassOf); docs/tools.md, "Raw requests".

// A page of a raw answer: its JSON, indented, at most this many lines or
// bytes from start.
const (
	requestPageLines = 400
	requestPageBytes = 32 << 10
)

// RequestPage is the structured answer of a raw request: the server's
// answer (file URIs made workspace-relative), a page of it at a time, and
// the edit it yielded, staged for resolve.
type RequestPage struct {
	Server string          `json:"server"`
	Method string          `json:"method"`
	Class  lsp.MethodClass `json:"class"`
	// Result is the whole answer when this page holds all of it. Text is
	// the page's lines of the indented answer, as the result's text shows
	// them (not repeated in the JSON).
	Result json.RawMessage `json:"result,omitempty"`
	Text   string          `json:"-"`
	// Lines counts the indented answer's lines; Start of them were
	// skipped and Shown are in Text. Next is the start of the next page
	// (0 when none).
	Lines int `json:"lines"`
	Start int `json:"start,omitempty"`
	Shown int `json:"shown"`
	Next  int `json:"next,omitempty"`
	// Answer names the server's answer this page is cut from (a digest
	// of it). Each page asks the server again, so when the workspace
	// changes between pages the answer may too: pages with different
	// Answer values do not join into one answer.
	Answer string `json:"answer"`
	// Outside are the files outside the workspace the answer names
	// (shown as their path, marked, never read).
	Outside []string `json:"outside,omitempty"`
	Notes   []string `json:"notes,omitempty"`
	// Staged is the edit the request yielded, staged for resolve; nil
	// when it yielded none.
	Staged *StagedDiff `json:"staged,omitempty"`
}

func needRequest(a lspArgs) error {
	if a.File == "" || a.Method == "" {
		return errors.New("lsp: request needs file (its server answers) and method (an LSP method such as textDocument/documentHighlight), with params (a JSON object) as the method takes them; line and symbol fill in params' position")
	}
	return nil
}

// request is the lsp tool's request action: read class methods only.
func request(ctx context.Context, l *lspTools, a lspArgs) (*lsp.RequestAnswer, error) {
	return l.sendRequest(ctx, requestQuery(a.File, a.Method, a.Params, a.Line, a.Symbol), lsp.ReadMethod)
}

func requestQuery(file, method string, params map[string]any, line int, symbol string) lsp.RequestQuery {
	q := lsp.RequestQuery{File: file, Method: method, Line: line, Symbol: symbol}
	if params != nil {
		q.Params, _ = json.Marshal(params)
	}
	return q
}

// sendRequest sends q at most of class allowed, and says which tool takes
// a method of a higher class.
func (l *lspTools) sendRequest(ctx context.Context, q lsp.RequestQuery, allowed lsp.MethodClass) (*lsp.RequestAnswer, error) {
	ans, err := l.sup.Request(ctx, q, allowed)
	var ce *lsp.ClassError
	if errors.As(err, &ce) {
		switch ce.Class {
		case lsp.WriteMethod:
			return nil, fmt.Errorf("%w: call lsp_request (write tier) with the same arguments: it stages any edit the answer holds for resolve, nothing is written before accept", err)
		case lsp.ExecMethod:
			return nil, fmt.Errorf("%w: call lsp_command (exec tier) with command and arguments: any edit the server sends back is staged for resolve", err)
		}
	}
	return ans, err
}

func renderRequest(a lspArgs, ans *lsp.RequestAnswer) lspAnswer {
	text, page := requestPage(ans, a.Start, a.File)
	return lspAnswer{text: text, notes: ans.Notes, out: LSPResult{Request: page}}
}

// requestPage renders the page of ans from start (a line of its indented
// JSON), and says how to get the rest.
func requestPage(ans *lsp.RequestAnswer, start int, file string) (string, *RequestPage) {
	var ind bytes.Buffer
	if json.Indent(&ind, ans.Result, "", "  ") != nil {
		ind.Reset()
		ind.Write(ans.Result)
	}
	lines := strings.Split(ind.String(), "\n")
	pg := &RequestPage{Server: ans.Server, Method: ans.Method, Class: ans.Class, Lines: len(lines), Start: min(start, len(lines)), Outside: ans.Outside, Notes: ans.Notes}
	sum := sha256.Sum256(ans.Result)
	pg.Answer = hex.EncodeToString(sum[:6])
	size, end := 0, pg.Start
	for end < len(lines) && end-pg.Start < requestPageLines {
		if size += len(lines[end]) + 1; size > requestPageBytes && end > pg.Start {
			break
		}
		end++
	}
	pg.Shown, pg.Text = end-pg.Start, strings.Join(lines[pg.Start:end], "\n")
	if end < len(lines) {
		pg.Next = end
	}
	if pg.Start == 0 && pg.Next == 0 {
		pg.Result = ans.Result
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s answered %s (%s class) for %s", ans.Server, ans.Method, ans.Class, file)
	switch {
	case string(ans.Result) == "null":
		b.WriteString(": null (the server has no answer there)")
		return b.String(), pg
	case pg.Shown == 0:
		fmt.Fprintf(&b, ": answer %s has %d lines, none from start %d on (start 0 reads it from the top)", pg.Answer, pg.Lines, start)
		return b.String(), pg
	case pg.Start == 0 && pg.Next == 0:
		fmt.Fprintf(&b, " (%d lines; file URIs as workspace paths, positions 0-based as the server gives them):\n", pg.Lines)
	case pg.Next > 0:
		fmt.Fprintf(&b, " (lines %d-%d of %d of answer %s; start %d pages on, and a page of another answer means it changed in between):\n", pg.Start+1, end, pg.Lines, pg.Answer, pg.Next)
	default:
		fmt.Fprintf(&b, " (lines %d-%d of %d of answer %s, the last page):\n", pg.Start+1, end, pg.Lines, pg.Answer)
	}
	if len(ans.Outside) > 0 {
		fmt.Fprintf(&b, "it names %d file(s) outside the workspace, shown as their path alone, never read\n", len(ans.Outside))
	}
	b.WriteString(pg.Text)
	return b.String(), pg
}

// requestPaging are the arguments lsp_request and lsp_command share: the
// page of the answer and how long to wait for it.
type requestPaging struct {
	Start int `json:"start,omitempty" jsonschema:"skip this many lines of the answer (0-based) to page past the first 400" bounds:"minimum=0"`
	serverTimeout
}

// lspRequestArgs are lsp_request's arguments.
type lspRequestArgs struct {
	File   string         `json:"file" jsonschema:"workspace-relative file: its server answers, and params without textDocument get it" bounds:"minLength=1"`
	Method string         `json:"method" jsonschema:"the LSP method (textDocument/rename, codeAction/resolve, a server's own); workspace/executeCommand is lsp_command's" bounds:"minLength=1"`
	Params map[string]any `json:"params,omitempty" jsonschema:"the method's params as the LSP specification gives them (positions 0-based, file:// URIs of workspace files)"`
	Line   int            `json:"line,omitempty" jsonschema:"1-based line: with symbol, fills in params' position" bounds:"minimum=1"`
	Symbol string         `json:"symbol,omitempty" jsonschema:"substring of line naming the symbol whose position params get; name#2 for the second occurrence"`
	requestPaging
}

// lspCommandArgs are lsp_command's arguments.
type lspCommandArgs struct {
	File      string `json:"file" jsonschema:"workspace-relative file whose server runs the command" bounds:"minLength=1"`
	Command   string `json:"command" jsonschema:"the server's command (as code_actions lists it after runs, or from the server's documentation)" bounds:"minLength=1"`
	Arguments []any  `json:"arguments,omitempty" jsonschema:"the command's arguments (file:// URIs of workspace files)"`
	requestPaging
}

// requestTools are lsp_request and lsp_command.
func (l *lspTools) requestTools() []Tool {
	return []Tool{
		Typed(Tool{
			Name: "lsp_request",
			Tier: TierWrite,
			Description: "Send any LSP request to the file's language server, for what the lsp tool's actions do not ask (textDocument/rename with your own params, codeAction/resolve, a server's own methods): " +
				"file, method, params (the method's JSON params, positions 0-based; textDocument is filled in from file, position from line and symbol). " +
				"Write tier because such a method may yield an edit: a WorkspaceEdit in the answer, or sent back through workspace/applyEdit, is staged for resolve (edit_id and diff), never written; " +
				"lsp action request answers the read-only methods at read tier, and workspace/executeCommand is lsp_command's. The answer is shown as JSON with file URIs as workspace paths, 400 lines at a time (start pages on).",
		}, l.lspRequest),
		Typed(Tool{
			Name: "lsp_command",
			Tier: TierExec,
			Description: "Run a command of the file's language server (workspace/executeCommand): file, command, arguments. " +
				"Exec tier because a server's command may do anything the server can (run tests, go generate, fetch modules). Any edit it sends back through workspace/applyEdit is staged for resolve, never written; " +
				"the answer is shown as JSON, 400 lines at a time (start pages on). The read-only commands (gopls.list_imports, gopls.package_symbols, ...) are also answered by lsp action request at read tier.",
		}, l.lspCommand),
	}
}

func (l *lspTools) lspRequest(ctx context.Context, call *Call, a lspRequestArgs) (*Result, *RequestPage, error) {
	if a.Method == "workspace/executeCommand" {
		if c, err := lsp.ClassOf(a.Method, mustJSON(a.Params)); err == nil && c == lsp.ExecMethod {
			return nil, nil, errors.New("lsp: workspace/executeCommand runs a command of the server: call lsp_command (exec tier) with command and arguments")
		}
	}
	return l.stagingRequest(ctx, "lsp_request", requestQuery(a.File, a.Method, a.Params, a.Line, a.Symbol), lsp.WriteMethod, a.requestPaging)
}

func (l *lspTools) lspCommand(ctx context.Context, call *Call, a lspCommandArgs) (*Result, *RequestPage, error) {
	params := map[string]any{"command": a.Command}
	if a.Arguments != nil {
		params["arguments"] = a.Arguments
	}
	return l.stagingRequest(ctx, "lsp_command", requestQuery(a.File, "workspace/executeCommand", params, 0, ""), lsp.ExecMethod, a.requestPaging)
}

// stagingRequest sends q, allowed up to class, and stages the edit the
// answer yields as tool's (which a stale edit says to run again).
func (l *lspTools) stagingRequest(ctx context.Context, tool string, q lsp.RequestQuery, allowed lsp.MethodClass, pg requestPaging) (*Result, *RequestPage, error) {
	start, timeout := pg.Start, pg.Timeout
	ctx = lsp.WithNotice(ctx, func(m string) { ReportStep(ctx, "lsp: "+m) })
	cctx, cancel := withTimeout(ctx, timeout)
	defer cancel()
	ans, err := l.sendRequest(cctx, q, allowed)
	if err != nil {
		return nil, nil, timeoutErr(cctx, timeout, err)
	}
	text, page := requestPage(ans, start, q.File)
	if len(ans.Notes) > 0 {
		text = strings.Join(ans.Notes, "\n") + "\n" + text
	}
	if ans.Proposed == nil {
		return Text(text), page, nil
	}
	if len(ans.Proposed.Files) == 0 {
		return Text(text + "\nits edit leaves every file as it is: nothing was staged"), page, nil
	}
	staged, st, err := l.stageProposed(ans.Proposed, tool)
	if err != nil {
		return nil, nil, err
	}
	page.Staged = st
	staged.Content = append(staged.Content, Content{Type: TextContent, Text: text})
	return staged, page, nil
}

// mustJSON is v as JSON (null when it cannot be).
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}
