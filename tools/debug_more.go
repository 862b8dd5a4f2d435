package tools

// The debug tool's optional ops: those an adapter offers only when its
// capabilities say so (dap.OptionalOps), and their text.

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/tetherhq/tether/bridges/dap"
)

// debugMore performs an optional op; handled is false for any other op.
func debugMore(ctx context.Context, sv *dap.Supervisor, conv string, req debugRequest, b *strings.Builder, r *debugReply) (handled bool, err error) {
	mem := dap.MemoryArgs{Reference: req.MemoryReference, Expression: req.Expression, ThreadID: req.ThreadID, FrameID: req.FrameID, Offset: req.Offset, Count: req.Count}
	switch req.Op {
	case "set_variable":
		v, err := sv.SetVariable(ctx, conv, req.Reference, req.Name, req.Value)
		if err != nil {
			return true, err
		}
		r.Value = v
		fmt.Fprintf(b, "set ")
		writeEvaluation(b, req.Name, v)
	case "set_expression":
		v, err := sv.SetExpression(ctx, conv, req.Expression, req.Value, req.ThreadID, req.FrameID)
		if err != nil {
			return true, err
		}
		r.Value = v
		fmt.Fprintf(b, "set ")
		writeEvaluation(b, req.Expression, v)
	case "modules":
		m, err := sv.Modules(ctx, conv, req.Start)
		if err != nil {
			return true, err
		}
		r.Modules = m.Modules
		writeModules(b, m)
	case "loaded_sources":
		s, err := sv.LoadedSources(ctx, conv, req.Start)
		if err != nil {
			return true, err
		}
		r.Frames = s.Sources
		writeSources(b, s)
	case "read_memory":
		m, err := sv.ReadMemory(ctx, conv, mem)
		if err != nil {
			return true, err
		}
		r.Memory = m
		writeMemory(b, m)
	case "disassemble":
		d, err := sv.Disassemble(ctx, conv, mem)
		if err != nil {
			return true, err
		}
		r.Instructions = d.Instructions
		writeDisassembly(b, d)
	default:
		return false, nil
	}
	return true, nil
}

func writeModules(b *strings.Builder, m *dap.Modules) {
	if len(m.Modules) == 0 {
		b.WriteString("no modules loaded (the adapter listed none)")
		return
	}
	fmt.Fprintf(b, "modules %d-%d of %d", m.Start, m.Start+len(m.Modules)-1, m.Total)
	if m.Next > 0 {
		fmt.Fprintf(b, "; for more, call modules with start %d", m.Next)
	}
	for _, x := range m.Modules {
		fmt.Fprintf(b, "\n- %s", x.Name)
		if x.Path != "" && x.Path != x.Name {
			fmt.Fprintf(b, " %s", x.Path)
		}
		if x.Version != "" {
			fmt.Fprintf(b, " (version %s)", x.Version)
		}
		if x.Symbols != "" {
			fmt.Fprintf(b, " [%s]", x.Symbols)
		}
	}
}

func writeSources(b *strings.Builder, s *dap.Sources) {
	if len(s.Sources) == 0 {
		b.WriteString("no loaded sources (the adapter listed none)")
		return
	}
	fmt.Fprintf(b, "loaded sources %d-%d of %d", s.Start, s.Start+len(s.Sources)-1, s.Total)
	if s.Next > 0 {
		fmt.Fprintf(b, "; for more, call loaded_sources with start %d", s.Next)
	}
	for _, x := range s.Sources {
		fmt.Fprintf(b, "\n- %s", x.Name)
		if x.File != "" && x.File != x.Name {
			fmt.Fprintf(b, " %s", x.File)
		}
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

// drivesSession reports whether op acts on one session, the main one or a
// child (argument session).
func drivesSession(op string) bool {
	switch op {
	case "continue", "pause", "step_over", "step_in", "step_out", "threads", "stack", "scopes", "variables", "evaluate":
		return true
	}
	return slices.Contains(dap.OptionalOps(), op)
}
