package tools

// The debug tool's middleware on the tools that write files: breakpoints
// follow the edits of the files they are in.

import "bytes"
import "context"
import "fmt"
import "os"
import "strings"

import "github.com/tetherhq/tether/bridges/dap"
import "github.com/tetherhq/tether/internal/fsutil"

// maxFollowBytes bounds the files debugFollowEdits reads before and after
// a write.
const maxFollowBytes = 8 << 20

// debugFollowEdits is the middleware on every tool that writes files
// (Tool.Writes: write, edit, apply_patch, ast_edit, resolve, lsp_rename,
// and any other): it reads the files the conversation has breakpoints in
// before and after the write, and for each one the write changed, moves
// the breakpoints with the edit (dap.Supervisor.FollowEdit), sending them
// to a live session's adapter again, and says so after the tool's result.
func debugFollowEdits(sv *dap.Supervisor, conv, workDir string) middleware {
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
