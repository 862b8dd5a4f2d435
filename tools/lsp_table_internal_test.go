package tools

import "strings"
import "testing"

// TestLSPTable: every action of the lsp tool has its entry in the table,
// and every entry answers one of them (diagnostics in its three forms).
func TestLSPTable(t *testing.T) {
	for _, a := range lspActions {
		if _, ok := lspTable[a]; !ok {
			t.Errorf("action %s has no entry", a)
		}
	}
	for key := range lspTable {
		if action, _, _ := strings.Cut(key, " "); !strings.Contains(" "+strings.Join(lspActions, " ")+" ", " "+action+" ") {
			t.Errorf("entry %q answers no action", key)
		}
	}
	for _, c := range []struct {
		args lspArgs
		key  string
	}{
		{lspArgs{Action: "diagnostics", File: "a.go"}, "diagnostics"},
		{lspArgs{Action: "diagnostics", File: "*"}, "diagnostics *"},
		{lspArgs{Action: "diagnostics", Files: []string{"*.go"}}, "diagnostics files"},
		{lspArgs{Action: "diagnostics", File: "*", Files: []string{"a.go"}}, "diagnostics files"},
		{lspArgs{Action: "hover", File: "*"}, "hover"},
	} {
		if got := lspKey(c.args); got != c.key {
			t.Errorf("lspKey(%+v) = %q, want %q", c.args, got, c.key)
		}
	}
}
