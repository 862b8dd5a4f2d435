package tools

import "context"
import "fmt"
import "sync"
import "sync/atomic"

import "github.com/google/jsonschema-go/jsonschema"
import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/internal/fsutil"
import "github.com/tetherhq/tether/matcher"

// The language-server family (docs/tools.md, "lsp": lsp, lsp_rename,
// lsp_check and diagnostics on write): registered when the run has a
// supervisor and a working dir.
func init() {
	addFamily(family{
		name:  "lsp",
		wired: func(cfg *Config) bool { return cfg.LSP != nil && cfg.WorkDir != "" },
		register: func(r *Run) (func() error, error) {
			l := &lspTools{run: r, sup: r.Config().LSP, root: r.root, parser: r.Config().Search.Parser, seen: &lsp.Seen{}, noted: map[string]bool{}}
			if err := r.reg.Register(append(l.tools(), l.applyTools()...)...); err != nil {
				return nil, err
			}
			r.reg.WrapWriters(l.diagnosticsOnWrite)
			return l.sup.Close, nil
		},
		tools: func() []Tool { l := &lspTools{}; return append(l.tools(), l.applyTools()...) },
	})
}

type lspTools struct {
	run  *Run
	sup  *lsp.Supervisor
	root *fsutil.Root
	// parser finds what a rename left behind; nil when the run has none.
	parser matcher.Parser
	seen   *lsp.Seen // diagnostics already reported in this run, per file
	// sandboxNoted: the first answer said what the sandbox lacks here.
	sandboxNoted atomic.Bool

	mu    sync.Mutex
	noted map[string]bool // "could not check" reasons already told
}

// lspActions are the lsp tool's actions.
var lspActions = []string{"diagnostics", "definition", "type_definition", "implementation", "references", "hover", "symbols", "code_actions", "call_hierarchy", "type_hierarchy", "status", "capabilities", "reload", "request"}

func (l *lspTools) tools() []Tool {
	return []Tool{
		Typed(Tool{
			Name: "lsp",
			Tier: TierRead,
			Description: "Ask the project's language server (gopls, pyright, typescript-language-server, clangd, ...). " +
				"Positions are a 1-based line plus `symbol`, a substring of that line naming the symbol (never a column); " +
				"if it occurs more than once on the line use `name#2` for the second occurrence. Actions: " +
				"diagnostics (file, or files: a list of paths or globs such as src/**/*.ts, at most 50 files checked together; or \"*\" for the whole project: runs the checkers found on PATH such as go vet / pyright / tsc --noEmit, " +
				"never a program from the workspace; lsp_check runs the project's own; counts by severity and code, then 100 at a time with identical messages grouped; " +
				"start pages on, severity error shows errors only, info or hint adds those), " +
				"definition, type_definition, implementation, references (cap 50; start pages on; then the same-name identifiers the server did not confirm, found with tree-sitter: a server that cannot type a receiver leaves its calls out), hover, code_actions (file, line, and symbol or end_line for a range, or neither for the whole line; or file and diagnostic, a part of its message or its code: numbered, with kind and whether preferred; lsp_apply stages one); " +
				"call_hierarchy (file, line, symbol; direction incoming, the default: the callers, or outgoing: the callees; cap 50, start pages on) and " +
				"type_hierarchy (direction supertypes, the default, or subtypes), where the server offers them; " +
				"symbols (query: workspace search, cap 100, grouped by container; or file: its outline, cap 200, without functions' parameters and locals unless locals is true; start pages on, kind keeps function, method, type, field or variable; the answer says when the server capped its list); " +
				"request (file, method, params: send an LSP method that only reads to the file's server and get its answer as JSON, file URIs as workspace paths, 400 lines at a time, start pages on; textDocument is filled in from file, position from line and symbol; " +
				"the read methods are the textDocument queries, the hierarchy and resolve follow-ups, workspace/symbol, clangd's textDocument/switchSourceHeader and textDocument/ast, rust-analyzer's views and expandMacro, and gopls's listing commands through workspace/executeCommand; " +
				"any other method may change files and is lsp_request's, write tier, which stages its edit for resolve; other server commands are lsp_command's, exec tier); " +
				"status (each server's state: starting, indexing, ready, failed and why, or why it is not running; its version); capabilities (what each running server supports and lacks, so a missing action is explained); reload (restart them; a server that crashes after a reload stays stopped until the next reload, one that crashes otherwise is restarted once). Every action takes timeout (seconds, at most 600).",
		}, l.query),
		Typed(Tool{
			Name: "lsp_rename",
			Tier: TierWrite,
			Description: "Rename a symbol across the project with the language server, applied to every file atomically (all or nothing). " +
				"Arguments: file, line (1-based), symbol (substring of that line naming it; name#2 for the second occurrence), new_name; " +
				"preview: true stages the rename instead and returns an edit_id and its diff for resolve (accept or discard). " +
				"Reports the files changed, any new diagnostics, and the identifiers still spelled as the old name that the server did not rename (found with tree-sitter, so strings and comments do not count), declarations first, plus the docs that mention it; " +
				"a leftover declaration that implements or overrides the renamed symbol is named as likely breaking the build. A new_name that is a reserved word of the file's language is refused before anything is asked or written.",
			// The files are known once the server's edit is (WillWrite).
			Writes:  func(*Call) []string { return nil },
			Preview: previewFor(l.previewRename),
		}, l.rename),
		Typed(Tool{
			Name: "lsp_check",
			Tier: TierExec,
			Description: "Run the project's own checkers over the whole project and list their findings as file:line: " +
				"the binary its package manager installed (node_modules/.bin/tsc, .venv/bin/pyright) before one on PATH, " +
				"go vet, and checkers that run the project's code (cargo check: build.rs and proc macros; dart analyze: analyzer plugins). " +
				"Exec tier because these are programs from the workspace; lsp diagnostics \"*\" (read tier) runs only trusted checkers from PATH. " +
				"Counts the findings by severity and code and shows 100 at a time, identical messages grouped: start pages on, severity narrows.",
		}, l.checkProject),
	}
}

// checkProject is lsp_check: the project's own checkers (exec tier).
func (l *lspTools) checkProject(ctx context.Context, call *Call, a checkArgs) (*Result, *CheckPage, error) {
	rep, err := l.sup.CheckProject(ctx)
	if err != nil {
		return nil, nil, err
	}
	sev, err := severityArg(a.Severity)
	if err != nil {
		return nil, nil, err
	}
	text, page := formatCheck(rep, sev, a.Start)
	res := Text(text)
	return res, page, nil
}

// notTrustedHint says how to run the checkers diagnostics "*" did not.
const notTrustedHint = "to run the project's own checker, call lsp_check (exec tier: it runs programs from the workspace, so the approval policy decides)"

// lspArgs are lsp's arguments.
type lspArgs struct {
	Action string `json:"action" jsonschema:"what to ask; see the tool description for each action's arguments"`
	File   string `json:"file,omitempty" jsonschema:"workspace-relative file; \"*\" with diagnostics checks the whole project with the checkers on PATH"`
	Line   int    `json:"line,omitempty" jsonschema:"1-based line of file" bounds:"minimum=1"`
	Symbol string `json:"symbol,omitempty" jsonschema:"substring of that line naming the symbol (a qualified name such as fmt.Println names its last part); name#2 picks the second occurrence"`
	Query  string `json:"query,omitempty" jsonschema:"symbols: workspace search text"`
	// Start and Kind page and narrow references, symbols, hierarchies and diagnostics.
	Start int    `json:"start,omitempty" jsonschema:"references, symbols, call_hierarchy, type_hierarchy, diagnostics, request: skip this many results (0-based; request: lines of the answer), to page past the cap (references 50, symbols 100 or 200, diagnostics 100, request 400 lines); the result says the start of the next page" bounds:"minimum=0"`
	Kind  string `json:"kind,omitempty" jsonschema:"symbols: keep only symbols of this kind" bounds:"enum=function|method|type|field|variable"`
	// Locals widens a file's symbols.
	Locals bool `json:"locals,omitempty" jsonschema:"symbols of a file: also list the parameters and local variables of functions (left out by default)"`
	// Severity narrows diagnostics.
	Severity string `json:"severity,omitempty" jsonschema:"diagnostics: the least severe kind shown and counted: error (errors only), warning (the default: errors and warnings), info, or hint (everything)" bounds:"enum=error|warning|info|hint"`
	// Direction picks the side of a hierarchy.
	Direction string `json:"direction,omitempty" jsonschema:"call_hierarchy: incoming (default, the callers) or outgoing (the callees); type_hierarchy: supertypes (default) or subtypes" bounds:"enum=incoming|outgoing|supertypes|subtypes"`
	// Files widens diagnostics to several files.
	Files []string `json:"files,omitempty" jsonschema:"diagnostics: workspace-relative files or globs (src/**/*.ts; * and ? within a directory, ** across), checked together with their findings counted and paged as one (at most 50 files)"`
	// EndLine widens code_actions to a range of lines.
	EndLine int `json:"end_line,omitempty" jsonschema:"code_actions: the last line (1-based) of a range from line (symbol then omitted)" bounds:"minimum=1"`
	// Diagnostic narrows code_actions to one diagnostic.
	Diagnostic string `json:"diagnostic,omitempty" jsonschema:"code_actions: only the fixes for the diagnostics whose message holds this (any case) or whose code it is; without line, the one such diagnostic in file gives the place"`
	// Method and Params make a raw request.
	Method string         `json:"method,omitempty" jsonschema:"request: the LSP method (textDocument/documentHighlight, textDocument/switchSourceHeader, workspace/executeCommand with a read-only command)"`
	Params map[string]any `json:"params,omitempty" jsonschema:"request: the method's params as the LSP specification gives them (positions 0-based, file:// URIs of workspace files); textDocument is filled in from file, position from line and symbol"`
	// Timeout bounds the call.
	Timeout int `json:"timeout,omitempty" jsonschema:"seconds to wait for the answer (default: the server's request bound; at most 600)" bounds:"minimum=1,maximum=600"`
}

// tuneSchema lists the actions.
func (lspArgs) tuneSchema(s *jsonschema.Schema) {
	s.Properties["action"].Enum = stringsAsAny(lspActions)
}

// checkArgs are lsp_check's arguments.
type checkArgs struct {
	Start    int    `json:"start,omitempty" jsonschema:"skip this many findings (0-based): 100 are shown at a time; the result says the start of the next page" bounds:"minimum=0"`
	Severity string `json:"severity,omitempty" jsonschema:"the least severe kind shown and counted: error (errors only), warning (the default: errors and warnings), info, or hint (everything)" bounds:"enum=error|warning|info|hint"`
}

// renameArgs are lsp_rename's arguments.
type renameArgs struct {
	File    string `json:"file" jsonschema:"workspace-relative file where the symbol appears" bounds:"minLength=1"`
	Line    int    `json:"line" jsonschema:"1-based line of file" bounds:"minimum=1"`
	Symbol  string `json:"symbol" jsonschema:"substring of that line naming the symbol; name#2 picks the second occurrence" bounds:"minLength=1"`
	NewName string `json:"new_name" jsonschema:"the new identifier: letters, digits and _ (also $ in JavaScript, TypeScript, Java and Dart), not starting with a digit, and not a reserved word of the file's language (class, def, func, ...)" bounds:"minLength=1"`
	Preview bool   `json:"preview,omitempty" jsonschema:"stage the rename and return an edit_id and its diff (resolve accepts or discards it) instead of writing"`
	Timeout int    `json:"timeout,omitempty" jsonschema:"seconds to wait for the server (default: its request bound; at most 600)" bounds:"minimum=1,maximum=600"`
}

// exactText: lsp_rename writes the new name it is given.
func (renameArgs) exactText() {}

func (a lspArgs) pos() lsp.Position {
	return lsp.Position{File: a.File, Line: a.Line, Symbol: a.Symbol}
}

func (a lspArgs) needPos() error {
	if a.File == "" || a.Line == 0 {
		return fmt.Errorf("lsp: %s needs file, line (1-based) and symbol, a substring of that line naming the symbol", a.Action)
	}
	return nil
}

func (l *lspTools) query(ctx context.Context, call *Call, a lspArgs) (*Result, *LSPResult, error) {
	// A server starting for this query says so, as the call's progress.
	ctx = lsp.WithNotice(ctx, func(m string) { ReportStep(ctx, "lsp: "+m) })
	cctx, cancel := withTimeout(ctx, a.Timeout)
	defer cancel()
	res, data, err := l.answer(cctx, a)
	return res, data, timeoutErr(cctx, a.Timeout, err)
}
