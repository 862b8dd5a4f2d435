package dap

import "strings"

// DescribeSupport names each adapter of a table with what it launches, whether
// it runs tests, how it attaches and the optional ops it offers, in table
// order: "delve (.go; tests; attach by pid, port; set_variable,
// read_memory, disassemble), ..., dart (.dart; no attach; not tested here)".
// Breakpoint kinds are not here: the adapter's capabilities decide them
// when a session starts.
func DescribeSupport(table []Adapter) string {
	parts := make([]string, 0, len(table))
	for _, a := range table {
		var what []string
		if launches := launchesOf(a); launches != "" {
			what = append(what, launches)
		}
		if a.Test != nil {
			what = append(what, "tests")
		}
		var attach []string
		if a.AttachPID != nil {
			attach = append(attach, "pid")
		}
		if a.Attach != nil {
			attach = append(attach, "port")
		}
		if len(attach) > 0 {
			what = append(what, "attach by "+strings.Join(attach, ", "))
		} else {
			what = append(what, "no attach")
		}
		if len(a.Ops) > 0 {
			what = append(what, strings.Join(a.Ops, ", "))
		}
		if a.Untested != "" {
			what = append(what, "not tested here")
		}
		parts = append(parts, a.ID+" ("+strings.Join(what, "; ")+")")
	}
	return strings.Join(parts, ", ")
}

// launchesOf is what DescribeAdapters says an adapter launches, without its
// id: ".go", "native executables built from .c, .rs", or "".
func launchesOf(a Adapter) string {
	s := strings.TrimSpace(strings.TrimPrefix(DescribeAdapters([]Adapter{a}), a.ID))
	return strings.TrimSuffix(strings.TrimPrefix(s, "("), ")")
}
