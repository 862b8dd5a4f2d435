package tools

// The debug tool's optional ops: those an adapter offers only when its
// capabilities say so (dap.OptionalOps), and their text.

import "context"
import "fmt"
import "strings"

import "github.com/tetherhq/tether/bridges/dap"

// memoryArgs are the request's arguments of read_memory and disassemble.
func memoryArgs(req debugRequest) dap.MemoryArgs {
	return dap.MemoryArgs{Reference: req.MemoryReference, Expression: req.Expression, ThreadID: req.ThreadID, FrameID: req.FrameID, Offset: req.Offset, Count: req.Count}
}

func callSetVariable(ctx context.Context, c debugCall) (*dap.Variable, error) {
	return c.sv.SetVariable(ctx, c.conv, c.req.Reference, c.req.Name, c.req.Value)
}

func renderSetVariable(c debugCall, v *dap.Variable, r *debugReply) string {
	return renderSet(c.req.Name, v, r)
}

// renderSet says what name (a variable or an expression) was set to.
func renderSet(name string, v *dap.Variable, r *debugReply) string {
	r.Value = v
	var b strings.Builder
	b.WriteString("set ")
	writeEvaluation(&b, name, v)
	return b.String()
}

func callSetExpression(ctx context.Context, c debugCall) (*dap.Variable, error) {
	return c.sv.SetExpression(ctx, c.conv, c.req.Expression, c.req.Value, c.req.ThreadID, c.req.FrameID)
}

func renderSetExpression(c debugCall, v *dap.Variable, r *debugReply) string {
	return renderSet(c.req.Expression, v, r)
}

func callModules(ctx context.Context, c debugCall) (*dap.Modules, error) {
	return c.sv.Modules(ctx, c.conv, c.req.Start)
}

func renderModules(_ debugCall, m *dap.Modules, r *debugReply) string {
	r.Modules = m.Modules
	return written(m, writeModules)
}

func callLoadedSources(ctx context.Context, c debugCall) (*dap.Sources, error) {
	return c.sv.LoadedSources(ctx, c.conv, c.req.Start)
}

func renderSources(_ debugCall, s *dap.Sources, r *debugReply) string {
	r.Frames = s.Sources
	return written(s, writeSources)
}

func callReadMemory(ctx context.Context, c debugCall) (*dap.Memory, error) {
	return c.sv.ReadMemory(ctx, c.conv, memoryArgs(c.req))
}

func renderMemory(_ debugCall, m *dap.Memory, r *debugReply) string {
	r.Memory = m
	var b strings.Builder
	writeMemory(&b, m)
	return strings.TrimRight(b.String(), "\n")
}

func callDisassemble(ctx context.Context, c debugCall) (*dap.Disassembly, error) {
	return c.sv.Disassemble(ctx, c.conv, memoryArgs(c.req))
}

func renderDisassembly(_ debugCall, d *dap.Disassembly, r *debugReply) string {
	r.Instructions = d.Instructions
	return written(d, writeDisassembly)
}

// writePageHead heads a page of n of the adapter's total entries, from
// start: what they are, and the op's start that gets the next page (next
// 0: none). With no entries it writes none (the adapter listed none) and
// reports false.
func writePageHead(b *strings.Builder, what, op, none string, start, n, total, next int) bool {
	if n == 0 {
		b.WriteString(none + " (the adapter listed none)")
		return false
	}
	fmt.Fprintf(b, "%s %d-%d of %d", what, start, start+n-1, total)
	if next > 0 {
		fmt.Fprintf(b, "; for more, call %s with start %d", op, next)
	}
	return true
}

func writeModules(b *strings.Builder, m *dap.Modules) {
	if !writePageHead(b, "modules", "modules", "no modules loaded", m.Start, len(m.Modules), m.Total, m.Next) {
		return
	}
	for _, x := range m.Modules {
		writeEntry(b, x.Name, x.Path)
		if x.Version != "" {
			fmt.Fprintf(b, " (version %s)", x.Version)
		}
		if x.Symbols != "" {
			fmt.Fprintf(b, " [%s]", x.Symbols)
		}
	}
}

func writeSources(b *strings.Builder, s *dap.Sources) {
	if !writePageHead(b, "loaded sources", "loaded_sources", "no loaded sources", s.Start, len(s.Sources), s.Total, s.Next) {
		return
	}
	for _, x := range s.Sources {
		writeEntry(b, x.Name, x.File)
	}
}

// writeEntry starts a page's line for name, with its path where that says
// more than the name.
func writeEntry(b *strings.Builder, name, path string) {
	fmt.Fprintf(b, "\n- %s", name)
	if path != "" && path != name {
		fmt.Fprintf(b, " %s", path)
	}
}

func writeMemory(b *strings.Builder, m *dap.Memory) {
	fmt.Fprintf(b, "%d byte(s) at %s (memory_reference %s, offset %d)", len(m.Data), m.Address, m.Reference, m.Offset)
	if m.Unreadable > 0 {
		fmt.Fprintf(b, "; the next %d byte(s) could not be read", m.Unreadable)
	}
	if m.Cut {
		fmt.Fprintf(b, "; %d asked, at most %d are read at a time: for more, call read_memory with memory_reference %s and offset %d", m.Asked, dap.MaxMemory, m.Reference, m.Offset+len(m.Data))
	}
	b.WriteString("\n")
	b.WriteString(strings.TrimRight(m.Dump(), "\n"))
}

func writeDisassembly(b *strings.Builder, d *dap.Disassembly) {
	fmt.Fprintf(b, "%d instruction(s) from %s", len(d.Instructions), d.Reference)
	if d.Offset != 0 {
		fmt.Fprintf(b, " (instruction offset %d)", d.Offset)
	}
	if d.Cut {
		fmt.Fprintf(b, "; %d asked, at most %d at a time: for more, call disassemble with memory_reference %s and offset %d", d.Asked, dap.MaxInstructions, d.Reference, d.Offset+len(d.Instructions))
	}
	file, line := "", 0
	for _, in := range d.Instructions {
		if in.Line != 0 && (in.File != file || in.Line != line) {
			file, line = in.File, in.Line
			fmt.Fprintf(b, "\n  %s:%d", filepathBase(file), line)
		}
		fmt.Fprintf(b, "\n%s  %-24s %s", in.Address, in.Bytes, strings.TrimSpace(in.Text))
		if in.Symbol != "" {
			fmt.Fprintf(b, "  <%s>", in.Symbol)
		}
	}
}

func filepathBase(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// written is what write makes of v.
func written[T any](v T, write func(*strings.Builder, T)) string {
	var b strings.Builder
	write(&b, v)
	return b.String()
}
