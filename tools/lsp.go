package tools

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/tetherhq/tether/bridges/lsp"
	"github.com/tetherhq/tether/internal/fsutil"
	"github.com/tetherhq/tether/internal/proc"
	"github.com/tetherhq/tether/matcher"
)

// The language-server family (docs/tools.md, "lsp": lsp, lsp_rename,
// lsp_check and diagnostics on write): registered when the run has a
// supervisor and a working dir.
func init() {
	addFamily(family{
		name:  "lsp",
		wired: func(cfg *Config) bool { return cfg.LSP != nil && cfg.WorkDir != "" },
		register: func(r *Run) (func() error, error) {
			l := &lspTools{run: r, sup: r.Config().LSP, root: r.root, parser: r.Config().Parser, seen: &lsp.Seen{}, noted: map[string]bool{}}
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
var lspActions = []string{"diagnostics", "definition", "type_definition", "implementation", "references", "hover", "symbols", "code_actions", "call_hierarchy", "type_hierarchy", "status", "capabilities", "reload"}

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
	Start int    `json:"start,omitempty" jsonschema:"references, symbols, call_hierarchy, type_hierarchy, diagnostics: skip this many results (0-based), to page past the cap (references 50, symbols 100 or 200, diagnostics 100); the result says the start of the next page" bounds:"minimum=0"`
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

func (l *lspTools) query(ctx context.Context, call *Call, a lspArgs) (*Result, any, error) {
	// A server starting for this query says so, as the call's progress.
	ctx = lsp.WithNotice(ctx, func(m string) { ReportStep(ctx, "lsp: "+m) })
	cctx, cancel := withTimeout(ctx, a.Timeout)
	defer cancel()
	res, data, err := l.answer(cctx, a)
	return res, data, timeoutErr(cctx, a.Timeout, err)
}

// answer is the lsp tool's answer to a.
func (l *lspTools) answer(ctx context.Context, a lspArgs) (*Result, any, error) {
	var (
		out   string
		notes []string
		data  any
	)
	switch a.Action {
	case "definition", "type_definition", "implementation", "references":
		if err := a.needPos(); err != nil {
			return nil, nil, err
		}
		var locs *lsp.Locations
		var err error
		switch a.Action {
		case "definition":
			locs, err = l.sup.Definition(ctx, a.pos())
		case "type_definition":
			locs, err = l.sup.TypeDefinition(ctx, a.pos())
		case "implementation":
			locs, err = l.sup.Implementation(ctx, a.pos())
		default:
			locs, err = l.sup.ReferencesPage(ctx, a.pos(), a.Start)
		}
		if err != nil {
			return nil, nil, err
		}
		out, notes, data = formatLocations(a, locs), locs.Notes, locs
		if a.Action == "references" {
			// Same-name identifiers the server did not return: a server
			// that cannot type a receiver leaves its calls out.
			if u := l.unconfirmed(ctx, locs, a.File, a.Start); u != nil {
				if len(locs.Items) == 0 && locs.Total > 0 && u.Count > 0 {
					out = fmt.Sprintf("references of %q at %s:%d: the server's %d location(s) come first (start 0 shows them); from start %d on, the same-name identifiers it did not confirm",
						a.Symbol, a.File, a.Line, locs.Total, locs.Total)
				}
				out += "\n" + formatUnconfirmed(locs.Name, u)
				data = refsAnswer{locs, u}
			}
		}
	case "call_hierarchy", "type_hierarchy":
		h, err := l.hierarchy(ctx, a)
		if err != nil {
			return nil, nil, err
		}
		out, notes, data = formatHierarchy(a, h), h.Notes, h
	case "hover":
		if err := a.needPos(); err != nil {
			return nil, nil, err
		}
		h, err := l.sup.Hover(ctx, a.pos())
		if err != nil {
			return nil, nil, err
		}
		out, notes, data = h.Text, h.Notes, h
		if out == "" {
			out = fmt.Sprintf("no hover information for %q at %s:%d (the server answered with none)", a.Symbol, a.File, a.Line)
		}
	case "symbols":
		var syms *lsp.Symbols
		var err error
		switch {
		case a.Query != "":
			syms, err = l.sup.WorkspaceSymbolsPage(ctx, a.Query, a.File, lsp.Page{Start: a.Start, Kind: a.Kind})
		case a.File != "":
			syms, err = l.sup.DocumentSymbolsPage(ctx, a.File, lsp.Page{Start: a.Start, Kind: a.Kind, Locals: a.Locals})
		default:
			return nil, nil, errors.New("lsp: symbols needs query (workspace search) or file (that file's symbols)")
		}
		if err != nil {
			return nil, nil, err
		}
		out, data = formatSymbols(a, syms)
		notes = syms.Notes
	case "code_actions":
		if a.File == "" || a.Line == 0 && a.Diagnostic == "" {
			return nil, nil, errors.New("lsp: code_actions needs file and line (1-based), with symbol (a substring of that line naming it) or end_line for a range (without either, the whole line); or file and diagnostic, a part of a diagnostic's message or its code")
		}
		acts, err := l.sup.CodeActionsIn(ctx, lsp.ActionQuery{Position: a.pos(), EndLine: a.EndLine, Diagnostic: a.Diagnostic})
		if err != nil {
			return nil, nil, err
		}
		notes, data = acts.Notes, acts
		where := fmt.Sprintf("%q on %s:%d", a.Symbol, a.File, a.Line)
		switch {
		case a.Line == 0:
			where = fmt.Sprintf("the diagnostic %q of %s", a.Diagnostic, a.File)
		case a.Symbol == "":
			where = fmt.Sprintf("%s:%d", a.File, a.Line)
			if a.EndLine > a.Line {
				where += fmt.Sprintf("-%d", a.EndLine)
			}
		}
		if a.Diagnostic != "" && a.Line != 0 {
			where += fmt.Sprintf(" for the diagnostic %q", a.Diagnostic)
		}
		if len(acts.Items) == 0 {
			out = "no code actions offered at " + where
		} else {
			var b strings.Builder
			fmt.Fprintf(&b, "%d code action(s) at %s (lsp_apply with action set to a number, title or kind stages one):\n", len(acts.Items), where)
			for i, c := range acts.Items {
				fmt.Fprintf(&b, "%d. %s", i+1, c.Title)
				if c.Kind != "" {
					fmt.Fprintf(&b, " (%s)", c.Kind)
				}
				if c.Preferred {
					b.WriteString(" [preferred]")
				}
				if c.Command != "" {
					fmt.Fprintf(&b, " [runs %s]", c.Command)
				}
				if c.Refused != "" {
					fmt.Fprintf(&b, " [refused: %s]", c.Refused)
				}
				b.WriteString("\n")
			}
			out = strings.TrimRight(b.String(), "\n")
		}
	case "diagnostics":
		if len(a.Files) > 0 {
			if a.File != "" {
				return nil, nil, errors.New("lsp: diagnostics takes file or files, not both")
			}
			sev, err := severityArg(a.Severity)
			if err != nil {
				return nil, nil, err
			}
			var page *DiagnosticsPage
			out, page, notes, err = l.diagnoseFiles(ctx, a.Files, sev, a.Start)
			if err != nil {
				return nil, nil, err
			}
			data = page
			break
		}
		if a.File == "" {
			return nil, nil, errors.New(`lsp: diagnostics needs file: a workspace-relative path, or "*" to run the project's checker`)
		}
		sev, err := severityArg(a.Severity)
		if err != nil {
			return nil, nil, err
		}
		if a.File == "*" {
			rep, err := l.sup.Check(ctx)
			if errors.Is(err, lsp.ErrNotTrusted) {
				return nil, nil, fmt.Errorf("%w; %s", err, notTrustedHint)
			}
			if err != nil {
				return nil, nil, err
			}
			out, data = formatCheck(rep, sev, a.Start)
			break
		}
		d, err := l.sup.Diagnostics(ctx, a.File)
		if err != nil {
			return nil, nil, err
		}
		// Every error and warning there is now counts as reported, shown on
		// this page or not: the summary told of them, and none of them is
		// what a later write causes.
		items, _ := errorsAndWarnings(d.Items)
		l.seen.FreshN(l.seenPath(a.File), items, -1)
		out, data = formatDiagnostics(a.File, d, sev, a.Start)
		notes = d.Notes
	case "status":
		rows := l.sup.Status()
		var lines []string
		for _, r := range rows {
			lines = append(lines, r.String())
		}
		lines = append(lines, l.run.statusLines()...)
		lines = append(lines, proc.SandboxStatus().String())
		out, data = strings.Join(lines, "\n"), rows
	case "capabilities":
		rows := l.sup.Status()
		var lines []string
		for _, r := range rows {
			line := fmt.Sprintf("%s (%s): ", r.Server, r.Language)
			switch {
			case r.Running:
				line += r.State
				if r.Version != "" {
					line += ", " + r.Version
				}
				line += "; supports: " + strings.Join(r.Supports, ", ")
				if len(r.Lacks) > 0 {
					line += "; lacks: " + strings.Join(r.Lacks, ", ")
				}
			case r.State == "not started" && strings.HasPrefix(r.Reason, "not started yet"):
				line += r.Reason + " (its capabilities are known once it starts)"
			default:
				line += r.State + ": " + r.Reason
			}
			lines = append(lines, line)
		}
		out, data = strings.Join(lines, "\n"), rows
	case "reload":
		lines, err := l.sup.Reload(ctx)
		out, data = strings.Join(lines, "\n"), lines
		if err != nil {
			if out != "" {
				return nil, nil, fmt.Errorf("%s\n%w", out, err)
			}
			return nil, nil, err
		}
	default:
		return nil, nil, fmt.Errorf("lsp: unknown action %q: use one of %s", a.Action, strings.Join(lspActions, ", "))
	}
	// A layer of the sandbox missing here (no Landlock, no namespaces, the
	// sandbox off) is said in the run's first answer, never silently.
	if n := proc.SandboxStatus().Note(proc.Servers); n != "" && l.sandboxNoted.CompareAndSwap(false, true) {
		notes = append([]string{n}, notes...)
	}
	if len(notes) > 0 {
		out = strings.Join(notes, "\n") + "\n" + out
	}
	return Text(out), emptyAsList(data), nil
}

// emptyAsList makes the empty lists of an lsp answer [] in JSON, not null:
// "none" reads as an answer, not as a missing field.
func emptyAsList(data any) any {
	switch d := data.(type) {
	case *lsp.Locations:
		if d.Items == nil {
			d.Items = []lsp.Location{}
		}
	case *lsp.CodeActions:
		if d.Items == nil {
			d.Items = []lsp.CodeAction{}
		}
	}
	if v := reflect.ValueOf(data); v.Kind() == reflect.Slice && v.IsNil() {
		return reflect.MakeSlice(v.Type(), 0, 0).Interface() // status, reload
	}
	return data
}

func formatLocations(a lspArgs, locs *lsp.Locations) string {
	what := strings.ReplaceAll(a.Action, "_", " ")
	if len(locs.Items) == 0 && locs.Total > 0 {
		return fmt.Sprintf("%s of %q at %s:%d: none from start %d: there are %d (start 0 shows the first)", what, a.Symbol, a.File, a.Line, locs.Start, locs.Total)
	}
	if len(locs.Items) == 0 {
		return fmt.Sprintf("no %s found for %q at %s:%d (the server answered with none)", what, a.Symbol, a.File, a.Line)
	}
	var b strings.Builder
	if len(locs.Items) < locs.Total {
		fmt.Fprintf(&b, "%s of %q at %s:%d: %s\n", what, a.Symbol, a.File, a.Line, pageNote(locs.Start, len(locs.Items), locs.Total))
	} else {
		fmt.Fprintf(&b, "%s of %q at %s:%d: %d location(s)\n", what, a.Symbol, a.File, a.Line, locs.Total)
	}
	for _, l := range locs.Items {
		b.WriteString(l.String())
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// pageNote says which part of total results a page shows and how to get
// the next: "51-100 of 130 shown; start 100 shows the next".
func pageNote(start, n, total int) string {
	note := fmt.Sprintf("%d-%d of %d shown", start+1, start+n, total)
	if start+n < total {
		note += fmt.Sprintf("; pass start %d for the next", start+n)
	}
	return note
}

// errorsAndWarnings keeps the diagnostics of ds that are errors or warnings
// (what lsp diagnostics reports) and counts the others (info, hint: an unused
// variable TypeScript greys out).
func errorsAndWarnings(ds []lsp.Diagnostic) (keep []lsp.Diagnostic, other int) {
	for _, d := range ds {
		if d.Severity == "error" || d.Severity == "warning" {
			keep = append(keep, d)
		} else {
			other++
		}
	}
	return keep, other
}

// formatDiagnostics renders the page of file's diagnostics d at severity
// sev or above from start.
func formatDiagnostics(file string, d *lsp.Diagnostics, sev string, start int) (string, *DiagnosticsPage) {
	items, other := atLeast(d.Items, sev)
	p := pageDiagnostics(file, sev, items, other, start)
	p.Stale, p.Notes = !d.Ready, d.Notes
	if d.Ready && d.Partial != "" {
		p.Notes = append(p.Notes, "these may be part of the file's diagnostics: "+d.Partial)
	}
	if len(items) == 0 {
		if !d.Ready {
			return fmt.Sprintf("no diagnostics received for %s yet: not a clean bill of health, ask again", file), p
		}
		clean := fmt.Sprintf("%s: no %s", file, strings.Replace(severityWords(sev), " and ", " or ", 1))
		if other > 0 {
			if sev == "warning" {
				return clean + fmt.Sprintf(" (%d info or hint diagnostic(s) not shown: severity hint shows them)", other), p
			}
			return clean + fmt.Sprintf(" (%d less severe diagnostic(s) not shown: severity %s shows them)", other, lessSevere(sev)), p
		}
		return clean, p
	}
	var b strings.Builder
	p.render(&b, file)
	return strings.TrimRight(b.String(), "\n"), p
}

// CheckPage is the Structured result of lsp diagnostics "*" and lsp_check:
// the checkers that ran and a page of their findings.
type CheckPage struct {
	Ran        []string `json:"ran"`
	Skipped    []string `json:"skipped,omitempty"`
	NotTrusted []string `json:"not_trusted,omitempty"`
	DiagnosticsPage
	// Kept is how many findings were kept to page through when the
	// checkers reported more (lsp.MaxCheckFindings).
	Kept        int      `json:"kept,omitempty"`
	Unparsed    []string `json:"unparsed,omitempty"`
	UnparsedCut int      `json:"unparsed_cut,omitempty"`
}

// formatCheck renders the checkers' report: what ran, then the page of its
// findings at severity sev or above from start.
func formatCheck(rep *lsp.CheckReport, sev string, start int) (string, *CheckPage) {
	items, other := atLeast(rep.Items, sev)
	cp := &CheckPage{Ran: rep.Ran, Skipped: rep.Skipped, NotTrusted: rep.NotTrusted,
		DiagnosticsPage: *pageDiagnostics("*", sev, items, other, start), Unparsed: rep.Unparsed, UnparsedCut: rep.UnparsedCut}
	if cp.Ran == nil {
		cp.Ran = []string{}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "ran: %s\n", strings.Join(rep.Ran, "; "))
	for _, s := range rep.Skipped {
		fmt.Fprintf(&b, "skipped: %s\n", s)
	}
	for _, s := range rep.NotTrusted {
		fmt.Fprintf(&b, "not run: %s\n", s)
	}
	if len(rep.NotTrusted) > 0 {
		b.WriteString(notTrustedHint + "\n")
	}
	if rep.Total == 0 {
		b.WriteString("no file:line findings\n")
	} else {
		cp.render(&b, "findings")
		if rep.Total > len(rep.Items) {
			cp.Kept = len(rep.Items)
			fmt.Fprintf(&b, "(the checkers reported %d findings; the first %d are counted and paged above: run the checker yourself for the rest)\n", rep.Total, len(rep.Items))
		}
	}
	if len(rep.Unparsed) > 0 {
		b.WriteString("other output:\n")
		for _, u := range rep.Unparsed {
			b.WriteString("  " + u + "\n")
		}
		if rep.UnparsedCut > 0 {
			fmt.Fprintf(&b, "  ... %d more line(s) of output not shown\n", rep.UnparsedCut)
		}
	}
	return strings.TrimRight(b.String(), "\n"), cp
}
