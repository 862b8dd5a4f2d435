package tools_test

import "fmt"
import "regexp"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"

// delveAt launches src as a Go program's main.go under real delve with a
// breakpoint at line, and returns the run's debug call and what the launch
// said.
func delveAt(t *testing.T, src string, line int) (func(args string) string, string) {
	t.Helper()
	testenv.RequireBinary(t, "dlv")
	testenv.RequireBinary(t, "go")
	call := debugCaller(t, map[string]string{"go.mod": "module prog\n\ngo 1.21\n", "main.go": src})
	call(fmt.Sprintf(`{"op":"breakpoints","file":"main.go","lines":[%d]}`, line))
	return call, call(`{"op":"launch","program":"."}`)
}

// TestDebugToolMemoryText: with real delve, read_memory of a string by its
// memory_reference shows a hex dump, cut at 1024 bytes with the offset to
// read on from, and disassemble lists the instructions at the stop with
// their source line, cut at 50 with how to get more.
func TestDebugToolMemoryText(t *testing.T) {
	src := "package main\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n\nfunc main() {\n\tmsg := strings.Repeat(\"hello memory \", 100)\n\tfmt.Println(len(msg))\n}\n"
	call, out := delveAt(t, src, 10)
	if !strings.Contains(out, "main.go:10") || !strings.Contains(out, "the adapter also offers set_variable, read_memory, write_memory, disassemble, data_breakpoints, instruction_breakpoints, restart, exception_info") {
		t.Fatal(out)
	}
	scopes := call(`{"op":"scopes"}`)
	ref := regexp.MustCompile(`reference (\d+)`).FindStringSubmatch(scopes)
	if ref == nil {
		t.Fatal(scopes)
	}
	vars := call(`{"op":"variables","reference":` + ref[1] + `}`)
	mem := regexp.MustCompile(`msg \(string\) = .*\[memory_reference (\S+)\]`).FindStringSubmatch(vars)
	if mem == nil {
		t.Fatalf("variables should show msg's memory_reference: %s", vars)
	}
	out = call(`{"op":"read_memory","memory_reference":"` + mem[1] + `","count":2000}`)
	if !strings.Contains(out, "1024 byte(s) at ") || !strings.Contains(out, "at most 1024 are read at a time: for more, call read_memory with memory_reference "+mem[1]+" and offset 1024") ||
		!strings.Contains(out, "+0000  68 65 6c 6c 6f 20 6d 65 6d 6f 72 79 20 68 65 6c  hello memory hel") {
		t.Fatalf("read_memory's text: %s", out)
	}
	out = call(`{"op":"disassemble","count":60}`)
	t.Logf("disassemble:\n%s", out)
	if !strings.Contains(out, "50 instruction(s) from ") || !strings.Contains(out, "for more, call disassemble with memory_reference") || !strings.Contains(out, "main.go:10") {
		t.Fatalf("disassemble's text: %s", out)
	}
	call(`{"op":"terminate"}`)
}
