package tools

import "context"
import "fmt"
import "strings"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/internal/proc"

// The lsp tool's status, capabilities and reload actions.

// serverStatus is what status answers: each server's row, then the lines
// the run's other families add (the structural index's progress) and the
// sandbox's state.
type serverStatus struct {
	rows  []lsp.StatusRow
	lines []string
}

func status(ctx context.Context, l *lspTools, a lspArgs) (serverStatus, error) {
	rows := l.sup.Status()
	lines := append(l.run.statusLines(), proc.SandboxStatus().String())
	return serverStatus{rows, lines}, nil
}

func renderServerStatus(a lspArgs, st serverStatus) lspAnswer {
	var lines []string
	for _, r := range st.rows {
		lines = append(lines, r.String())
	}
	lines = append(lines, st.lines...)
	return lspAnswer{text: strings.Join(lines, "\n"), out: LSPResult{Servers: st.rows}}
}

func capabilities(ctx context.Context, l *lspTools, a lspArgs) ([]lsp.StatusRow, error) {
	return l.sup.Status(), nil
}

// renderCapabilities says what each running server supports and lacks,
// and why the others are not running.
func renderCapabilities(a lspArgs, rows []lsp.StatusRow) lspAnswer {
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
	return lspAnswer{text: strings.Join(lines, "\n"), out: LSPResult{Servers: rows}}
}

// reload restarts the servers; a failure says what was done before it.
func reload(ctx context.Context, l *lspTools, a lspArgs) ([]string, error) {
	lines, err := l.sup.Reload(ctx)
	if err != nil {
		if out := strings.Join(lines, "\n"); out != "" {
			return nil, fmt.Errorf("%s\n%w", out, err)
		}
		return nil, err
	}
	return lines, nil
}

func renderReload(a lspArgs, lines []string) lspAnswer {
	return lspAnswer{text: strings.Join(lines, "\n"), out: LSPResult{Reloaded: lines}}
}
