package nodeadapter

import "fmt"
import "path/filepath"
import "regexp"
import "strings"
import "sync"

import godap "github.com/google/go-dap"
import "github.com/tetherhq/tether/bridges/dap/internal/sourcemap"

// mappedBP is a breakpoint of a file node does not run, and the generated
// files it is set in.
type mappedBP struct {
	n    int // its DAP id
	line int // its line in the file
	cond string
	gens map[string]bool
}

// setBreakpoints replaces one file's breakpoints. A JavaScript file's are
// set by its URL, so they bind when node loads it; another file's (a .ts
// source) at the generated places its source maps give, those read so
// far and those of scripts node loads later (bindMapped).
func (a *adapter) setBreakpoints(args godap.SetBreakpointsArguments) (*godap.SetBreakpointsResponse, error) {
	a.bpMu.Lock()
	defer a.bpMu.Unlock()
	file := args.Source.Path
	a.mu.Lock()
	old := a.bps[file]
	delete(a.bps, file)
	delete(a.mapped, file)
	a.mu.Unlock()
	a.removeBPs(old)
	var maps []*sourcemap.Map
	if !jsExt(file) {
		maps = a.mapsFor(file)
	}
	out := []godap.Breakpoint{}
	for _, sb := range args.Breakpoints {
		a.mu.Lock()
		a.nextBP++
		n := a.nextBP
		a.mu.Unlock()
		bp := godap.Breakpoint{Id: n, Line: sb.Line}
		cond, err := breakpointCondition(n, sb)
		switch {
		case err != nil:
			bp.Message = err.Error()
		case jsExt(file):
			a.setScriptBP(file, cond, &bp)
		default:
			a.setSourceBP(file, cond, maps, &bp)
		}
		out = append(out, bp)
	}
	return &godap.SetBreakpointsResponse{Body: godap.SetBreakpointsResponseBody{Breakpoints: out}}, nil
}

// removeBPs removes inspector breakpoints by id.
func (a *adapter) removeBPs(ids []string) {
	for _, id := range ids {
		_ = a.call("Debugger.removeBreakpoint", removeBreakpointParams{BreakpointID: id}, nil)
		a.mu.Lock()
		delete(a.bpByID, id)
		a.mu.Unlock()
	}
}

// setScriptBP sets breakpoint bp (its id and line set) of a file node runs
// itself, with condition cond, and says what became of it.
func (a *adapter) setScriptBP(file, cond string, bp *godap.Breakpoint) {
	bound, err := a.setByURL(file, bp.Id, file, bp.Line-1, -1, cond)
	if err != nil {
		bp.Message = err.Error()
		return
	}
	bp.Verified = true
	if !bound && a.launched {
		bp.Message = "set; binds when node loads " + filepath.Base(file)
	}
}

// setSourceBP sets breakpoint bp (its id and line set) of a file node
// does not run (a .ts source), with condition cond, in the generated files
// of maps, and keeps it to set in those of scripts node loads later.
func (a *adapter) setSourceBP(file, cond string, maps []*sourcemap.Map, bp *godap.Breakpoint) {
	line := bp.Line
	mb := &mappedBP{n: bp.Id, line: line, cond: cond, gens: map[string]bool{}}
	a.mu.Lock()
	a.mapped[file] = append(a.mapped[file], mb)
	a.mu.Unlock()
	var set bool
	for _, m := range maps {
		found, err := a.setMapped(file, mb, m)
		if err != nil {
			bp.Message = err.Error()
			continue
		}
		if found > 0 {
			set = true
			bp.Line = found
		}
	}
	switch {
	case set:
		bp.Verified = true
		bp.Message = ""
	case len(maps) == 0:
		bp.Message = fmt.Sprintf("no source map read so far names %s: it binds when node loads a script whose map names it; node runs JavaScript, so compile it with source maps (tsc --sourceMap) and launch the output, or launch the .ts file itself", filepath.Base(file))
	default:
		bp.Message = fmt.Sprintf("no code of %s at or after line %d in its source maps", filepath.Base(file), line)
	}
}

// setByURL sets one inspector breakpoint in a generated file (col < 0:
// the line's first statement) for DAP breakpoint n of file; bound says
// node has loaded the file and the breakpoint is in it.
func (a *adapter) setByURL(file string, n int, gen string, line, col int, cond string) (bound bool, err error) {
	params := a.byURL(gen, line, cond)
	if col >= 0 {
		params.ColumnNumber = &col
	}
	var r struct {
		BreakpointID string        `json:"breakpointId"`
		Locations    []cdpLocation `json:"locations"`
	}
	if err := a.call("Debugger.setBreakpointByUrl", params, &r); err != nil {
		return false, err
	}
	a.mu.Lock()
	a.bps[file] = append(a.bps[file], r.BreakpointID)
	a.bpByID[r.BreakpointID] = n
	a.mu.Unlock()
	return len(r.Locations) > 0, nil
}

// setMapped sets a breakpoint of file in the generated file of map m, once;
// found is the file's line it went to (0: none in this map).
func (a *adapter) setMapped(file string, mb *mappedBP, m *sourcemap.Map) (found int, err error) {
	a.mu.Lock()
	done := mb.gens[m.Generated()]
	a.mu.Unlock()
	if done {
		return 0, nil
	}
	src := m.HasSource(file)
	if src < 0 {
		return 0, nil
	}
	gl, gc, at, ok := m.GeneratedFor(src, mb.line-1)
	if !ok {
		return 0, nil
	}
	if _, err := a.setByURL(file, mb.n, m.Generated(), gl, gc, mb.cond); err != nil {
		return 0, err
	}
	a.mu.Lock()
	mb.gens[m.Generated()] = true
	a.mu.Unlock()
	return at + 1, nil
}

// bindMapped sets the mapped breakpoints that map m leads to, for a
// script node is about to run, and tells the session of each newly set.
func (a *adapter) bindMapped(m *sourcemap.Map) {
	a.bpMu.Lock()
	defer a.bpMu.Unlock()
	type todo struct {
		file string
		mb   *mappedBP
	}
	var list []todo
	a.mu.Lock()
	for file, bps := range a.mapped {
		if m.HasSource(file) < 0 {
			continue
		}
		for _, mb := range bps {
			if !mb.gens[m.Generated()] {
				list = append(list, todo{file, mb})
			}
		}
	}
	a.mu.Unlock()
	for _, t := range list {
		if found, err := a.setMapped(t.file, t.mb, m); err == nil && found > 0 {
			a.send(&godap.BreakpointEvent{Event: event("breakpoint"), Body: godap.BreakpointEventBody{
				Reason: "changed", Breakpoint: godap.Breakpoint{Id: t.mb.n, Verified: true, Line: found}}})
		}
	}
}

// hitCondition reads a hit condition: "3" or "==3" (the third hit),
// ">=3", ">3", "<3", "<=3", "%3" (every third).
var hitCondition = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*(==|>=|<=|>|<|%)?\s*(\d+)\s*$`) })

// breakpointCondition is the JavaScript condition the inspector evaluates
// for one breakpoint: the condition, then the hit count (kept in the
// program, per breakpoint, counted only when the condition holds), then a
// logpoint's message written with console.log, which never stops.
func breakpointCondition(id int, sb godap.SourceBreakpoint) (string, error) {
	var parts []string
	if c := strings.TrimSpace(sb.Condition); c != "" {
		parts = append(parts, "("+c+"\n)")
	}
	if hc := strings.TrimSpace(sb.HitCondition); hc != "" {
		m := hitCondition().FindStringSubmatch(hc)
		if m == nil {
			return "", fmt.Errorf("hit condition %q is not a count; use N (the Nth hit), >=N, >N, <N, <=N or %%N (every Nth)", hc)
		}
		op := m[1]
		if op == "" || op == "==" {
			op = "==="
		}
		counter := fmt.Sprintf(`((globalThis[Symbol.for("tether.hits")] ??= {})[%d] = (globalThis[Symbol.for("tether.hits")][%d] || 0) + 1)`, id, id)
		if m[1] == "%" {
			parts = append(parts, "("+counter+" % "+m[2]+" === 0)")
		} else {
			parts = append(parts, "("+counter+" "+op+" "+m[2]+")")
		}
	}
	if sb.LogMessage != "" {
		parts = append(parts, "(console.log("+logTemplate(sb.LogMessage)+"), false)")
	}
	return strings.Join(parts, " && "), nil
}

// logTemplate turns a DAP log message ("x is {x}") into a JavaScript
// template literal that interpolates the braces' expressions.
func logTemplate(msg string) string {
	var sb strings.Builder
	sb.WriteByte('`')
	depth := 0
	for _, r := range msg {
		switch {
		case r == '{' && depth == 0:
			sb.WriteString("${")
			depth++
		case r == '{':
			depth++
			sb.WriteRune(r)
		case r == '}' && depth == 1:
			depth--
			sb.WriteByte('}')
		case r == '}' && depth > 1:
			depth--
			sb.WriteRune(r)
		case depth == 0 && (r == '`' || r == '\\' || r == '$'):
			sb.WriteByte('\\')
			sb.WriteRune(r)
		default:
			sb.WriteRune(r)
		}
	}
	if depth > 0 {
		sb.WriteByte('}')
	}
	sb.WriteByte('`')
	return sb.String()
}
