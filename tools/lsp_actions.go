package tools

import "context"
import "fmt"
import "slices"
import "strings"

import "github.com/tetherhq/tether/internal/proc"

// lspAction is one action of the lsp tool: what it needs of the
// arguments, the call of the supervisor that answers it, and how the
// answer reads, rendered apart from the call.
type lspAction struct {
	needs func(a lspArgs) error // nil: nothing beyond the schema
	run   func(ctx context.Context, l *lspTools, a lspArgs) (lspAnswer, error)
}

// lspAnswer is an action's answer as the result shows it: the text, the
// notes that go before it, and the structured part (answer sets its
// Action).
type lspAnswer struct {
	text  string
	notes []string
	out   LSPResult
}

// lspAct makes an action of a call and a render that agree on the type
// of the answer.
func lspAct[T any](needs func(lspArgs) error, call func(ctx context.Context, l *lspTools, a lspArgs) (T, error), render func(a lspArgs, v T) lspAnswer) lspAction {
	return lspAction{needs: needs, run: func(ctx context.Context, l *lspTools, a lspArgs) (lspAnswer, error) {
		v, err := call(ctx, l, a)
		if err != nil {
			return lspAnswer{}, err
		}
		return render(a, v), nil
	}}
}

// lspTable holds the lsp tool's actions by lspKey: one entry per action
// (lspActions), and diagnostics in its three forms. The calls and renders
// live in a file per group: lsp_navigate.go, lsp_hierarchy.go,
// symbols.go, lsp_codeactions.go, lsp_diagnostics.go, lsp_status.go,
// lsp_request.go.
var lspTable = map[string]lspAction{
	"definition":        lspAct(lspArgs.needPos, definition, renderLocations),
	"type_definition":   lspAct(lspArgs.needPos, typeDefinition, renderLocations),
	"implementation":    lspAct(lspArgs.needPos, implementation, renderLocations),
	"references":        lspAct(lspArgs.needPos, references, renderReferences),
	"hover":             lspAct(lspArgs.needPos, hover, renderHover),
	"call_hierarchy":    lspAct(needHierarchy, hierarchy, renderHierarchy),
	"type_hierarchy":    lspAct(needHierarchy, hierarchy, renderHierarchy),
	"symbols":           lspAct(needSymbols, symbols, renderSymbols),
	"code_actions":      lspAct(needCodeActions, codeActions, renderCodeActions),
	"diagnostics":       lspAct(needDiagnostics, diagnoseFile, renderFileDiagnostics),
	"diagnostics files": lspAct(needFilesDiagnostics, diagnoseFiles, renderFilesDiagnosed),
	"diagnostics *":     lspAct(needDiagnostics, checkWorkspace, renderCheck),
	"status":            lspAct(nil, status, renderServerStatus),
	"capabilities":      lspAct(nil, capabilities, renderCapabilities),
	"reload":            lspAct(nil, reload, renderReload),
	"request":           lspAct(needRequest, request, renderRequest),
}

// lspKey is the entry of lspTable that answers a: its action, and for
// diagnostics its form (several files, the whole project, one file).
func lspKey(a lspArgs) string {
	switch {
	case a.Action != "diagnostics":
		return a.Action
	case len(a.Files) > 0:
		return "diagnostics files"
	case a.File == "*":
		return "diagnostics *"
	}
	return a.Action
}

// answer is the lsp tool's answer to a: its action's, after the notes of
// the call (a server restarted) and, once per run, what the sandbox lacks.
func (l *lspTools) answer(ctx context.Context, a lspArgs) (*Result, *LSPResult, error) {
	act, ok := lspTable[lspKey(a)]
	if !ok || !slices.Contains(lspActions, a.Action) {
		return nil, nil, fmt.Errorf("lsp: unknown action %q: use one of %s", a.Action, strings.Join(lspActions, ", "))
	}
	if act.needs != nil {
		if err := act.needs(a); err != nil {
			return nil, nil, err
		}
	}
	ans, err := act.run(ctx, l, a)
	if err != nil {
		return nil, nil, err
	}
	notes := ans.notes
	// A layer of the sandbox missing here (no Landlock, no namespaces, the
	// sandbox off) is said in the run's first answer, never silently.
	if n := proc.SandboxStatus().Note(proc.Servers); n != "" && l.sandboxNoted.CompareAndSwap(false, true) {
		notes = append([]string{n}, notes...)
	}
	out := ans.text
	if len(notes) > 0 {
		out = strings.Join(notes, "\n") + "\n" + out
	}
	ans.out.Action = a.Action
	return Text(out), ans.out.emptyAsLists(), nil
}
