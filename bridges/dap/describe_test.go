package dap_test

import "testing"

import "github.com/tetherhq/tether/bridges/dap"

// TestDescribeSupport: each adapter is named with what it launches, whether
// it runs tests, how it attaches and its optional ops, from the table's
// fields alone.
func TestDescribeSupport(t *testing.T) {
	table := []dap.Adapter{
		{ID: "go", Extensions: []string{".go"}, Test: map[string]any{}, AttachPID: map[string]any{}, Attach: map[string]any{}},
		{ID: "native", Extensions: []string{".c"}, Executables: true, AttachPID: map[string]any{}, Ops: []string{"modules", "disassemble"}},
		{ID: "remote", Attach: map[string]any{}},
		{ID: "bare", Untested: "not installed here"},
	}
	want := "go (.go; tests; attach by pid, port), native (native executables built from .c; attach by pid; modules, disassemble), " +
		"remote (attach by port), bare (no attach; not tested here)"
	if got := dap.DescribeSupport(table); got != want {
		t.Errorf("DescribeSupport:\ngot  %s\nwant %s", got, want)
	}
}
