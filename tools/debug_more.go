package tools

// The debug tool's optional ops: those an adapter offers only when its
// capabilities say so (dap.OptionalOps), and their text.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/tetherhq/tether/bridges/dap"
	"github.com/tetherhq/tether/internal/fsutil"
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

// maxFollowBytes bounds the files debugFollowEdits reads before and after
// a write.
const maxFollowBytes = 8 << 20

// debugFollowEdits is the middleware on every tool that writes files
// (Tool.Writes: write, edit, apply_patch, ast_edit, resolve, lsp_rename,
// and any other): it reads the files the conversation has breakpoints in
// before and after the write, and for each one the write changed, moves
// the breakpoints with the edit (dap.Supervisor.FollowEdit), sending them
// to a live session's adapter again, and says so after the tool's result.
func debugFollowEdits(sv *dap.Supervisor, conv, workDir string) Middleware {
	return func(next Handler) Handler {
		return func(ctx context.Context, call *Call) (*Result, error) {
			files := sv.BreakpointFiles(conv)
			root, rerr := fsutil.NewRoot(workDir)
			if len(files) == 0 || rerr != nil {
				return next(ctx, call)
			}
			read := func(f string) ([]byte, bool) {
				if fi, err := os.Stat(f); err != nil || fi.Size() > maxFollowBytes {
					return nil, false
				}
				b, err := root.ReadFile(f)
				return b, err == nil
			}
			before := map[string][]byte{}
			for _, f := range files {
				if b, ok := read(f); ok {
					before[f] = b
				}
			}
			res, err := next(ctx, call)
			var notes []string
			for _, f := range files {
				old, ok := before[f]
				if !ok {
					continue
				}
				now, ok := read(f)
				if !ok || bytes.Equal(old, now) {
					continue
				}
				m, ferr := sv.FollowEdit(ctx, conv, f, old, now)
				if ferr != nil {
					notes = append(notes, ferr.Error())
				}
				if m != nil {
					notes = append(notes, movedNote(workDir, m))
				}
			}
			if len(notes) > 0 && res != nil {
				res.Content = append(res.Content, Content{Type: TextContent, Text: strings.Join(notes, "\n")})
			}
			return res, err
		}
	}
}

// movedNote says how an edit moved a file's breakpoints.
func movedNote(workDir string, m *dap.Moved) string {
	var b strings.Builder
	if m.Deferred {
		return fmt.Sprintf("debug: a debug op is waiting for the program; the breakpoints of %s move with this edit when it ends", relTo(workDir, m.File))
	}
	pairs := make([]string, len(m.From))
	for i := range m.From {
		pairs[i] = fmt.Sprintf("%d -> %d", m.From[i], m.To[i])
	}
	fmt.Fprintf(&b, "debug: breakpoints of %s moved with the edit: line %s", relTo(workDir, m.File), strings.Join(pairs, ", "))
	if m.Gone > 0 {
		fmt.Fprintf(&b, " (%d on removed lines, moved to the line in their place)", m.Gone)
	}
	if m.Adapter == "" {
		b.WriteString("; kept for the next launch or attach")
		return b.String()
	}
	var st []string
	for _, s := range m.States {
		switch {
		case s.Verified && s.ActualLine != 0 && s.ActualLine != s.Line:
			st = append(st, fmt.Sprintf("%d placed at %d", s.Line, s.ActualLine))
		case s.Verified:
			st = append(st, fmt.Sprintf("%d verified", s.Line))
		default:
			st = append(st, fmt.Sprintf("%d not verified", s.Line))
		}
	}
	fmt.Fprintf(&b, "; sent again to the %s adapter: %s", m.Adapter, strings.Join(st, ", "))
	if m.Running {
		b.WriteString("; the program still runs the code it was started with: launch again to debug the edited code, where the breakpoints stay on these lines")
	}
	return b.String()
}
