package phpadapter

import "errors"
import "fmt"
import "path/filepath"
import "strconv"
import "strings"

import godap "github.com/google/go-dap"
import "github.com/tetherhq/tether/bridges/dap/internal/dapserve"

// maxChildren bounds the children one unpaged variables request lists.
const maxChildren = 1000

// varRef is what a variables reference lists: a context of a frame
// (Locals, Superglobals), a property's children (by its full name), or
// an eval result's (by its expression, in the top frame).
type varRef struct {
	depth, context int
	fullname       string // a property's; "" for a context or eval result
	expr           string // an eval result's expression
	children       int    // the children the property has
	isContext      bool
}

// newRef is a new variables reference or frame id; both die when the
// program runs.
func (a *adapter) newRef(r varRef) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.nextID++
	a.refs[a.nextID] = r
	return a.nextID
}

// setBreakpoints replaces a file's line breakpoints: the old ones are
// removed from Xdebug, the new set (with their conditions).
func (a *adapter) setBreakpoints(args godap.SetBreakpointsArguments) (*godap.SetBreakpointsResponse, error) {
	path := args.Source.Path
	if path == "" {
		return nil, errors.New("setBreakpoints needs source.path")
	}
	if err := a.checkStopped(); err != nil {
		return nil, fmt.Errorf("breakpoints change only at a stop: %w", err)
	}
	a.mu.Lock()
	old := a.bps[path]
	delete(a.bps, path)
	a.mu.Unlock()
	for _, id := range old {
		if _, err := a.call("breakpoint_remove", []string{"-d", id}, ""); err != nil {
			return nil, err
		}
	}
	out := make([]godap.Breakpoint, 0, len(args.Breakpoints))
	var ids []string
	for _, b := range args.Breakpoints {
		p, err := a.call("breakpoint_set", []string{"-t", "line", "-f", fileURI(path), "-n", strconv.Itoa(b.Line)}, b.Condition)
		bp := godap.Breakpoint{Verified: err == nil && p.ID != "", Line: b.Line, Source: &godap.Source{Name: filepath.Base(path), Path: path}}
		switch {
		case errors.Is(err, errClosed):
			return nil, err
		case err != nil:
			bp.Message = err.Error()
		case p.ID == "":
			bp.Message = "Xdebug set no breakpoint"
		default:
			ids = append(ids, p.ID)
		}
		out = append(out, bp)
	}
	a.mu.Lock()
	a.bps[path] = ids
	a.mu.Unlock()
	return &godap.SetBreakpointsResponse{Body: godap.SetBreakpointsResponseBody{Breakpoints: out}}, nil
}

// stackTrace lists the stopped program's frames, innermost first.
func (a *adapter) stackTrace(args godap.StackTraceArguments) (*godap.StackTraceResponse, error) {
	if err := checkThread(args.ThreadId); err != nil {
		return nil, err
	}
	if err := a.checkStopped(); err != nil {
		return nil, err
	}
	p, err := a.call("stack_get", nil, "")
	if err != nil {
		return nil, err
	}
	stack := p.Stack
	a.mu.Lock()
	if w := a.where; len(stack) == 0 && w != nil {
		// At a fatal error PHP has unwound its stack: the frame is the
		// place Xdebug named.
		stack = []frame{{Where: "{" + w.Exception + "}", Filename: w.Filename, Lineno: w.Lineno}}
	}
	a.mu.Unlock()
	total := len(stack)
	start, end := dapserve.Window(args.StartFrame, args.Levels, total)
	frames := []godap.StackFrame{}
	for _, f := range stack[start:end] {
		a.mu.Lock()
		a.nextID++
		id := a.nextID
		a.frames[id] = f.Level
		a.mu.Unlock()
		sf := godap.StackFrame{Id: id, Name: f.Where, Line: max(f.Lineno, 0), Column: 1}
		if path := uriPath(f.Filename); path != "" {
			sf.Source = &godap.Source{Name: filepath.Base(path), Path: path}
		} else {
			sf.Source = &godap.Source{Name: f.Filename}
			sf.PresentationHint = "subtle"
		}
		frames = append(frames, sf)
	}
	return &godap.StackTraceResponse{Body: godap.StackTraceResponseBody{StackFrames: frames, TotalFrames: total}}, nil
}

// checkThread refuses a thread id other than PHP's one.
func checkThread(id int) error {
	if id != 0 && id != 1 {
		return fmt.Errorf("unknown thread %d; take thread_id from threads: a PHP script runs on thread 1", id)
	}
	return nil
}

// level is the stack level of a DAP frame id; 0 (the top) for frame 0.
func (a *adapter) level(frameID int) (int, error) {
	if err := a.checkStopped(); err != nil {
		return 0, err
	}
	if frameID == 0 {
		return 0, nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	l, ok := a.frames[frameID]
	if !ok {
		return 0, fmt.Errorf("unknown frame %d; take frame ids from the stack of this stop", frameID)
	}
	return l, nil
}

// scopes lists a frame's contexts: Locals, then Superglobals and the
// user's constants (expensive).
func (a *adapter) scopes(args godap.ScopesArguments) (*godap.ScopesResponse, error) {
	depth, err := a.level(args.FrameId)
	if err != nil {
		return nil, err
	}
	p, err := a.call("context_names", []string{"-d", strconv.Itoa(depth)}, "")
	if err != nil {
		return nil, err
	}
	scopes := []godap.Scope{}
	for _, c := range p.Contexts {
		ref := a.newRef(varRef{depth: depth, context: c.ID, isContext: true})
		scopes = append(scopes, godap.Scope{Name: c.Name, VariablesReference: ref, Expensive: c.ID != 0})
	}
	return &godap.ScopesResponse{Body: godap.ScopesResponseBody{Scopes: scopes}}, nil
}

// variables lists what a reference names: a context's variables, or a
// page of a property's children (filter "indexed", start, count), read a
// page of Xdebug's at a time.
func (a *adapter) variables(args godap.VariablesArguments) (*godap.VariablesResponse, error) {
	if err := a.checkStopped(); err != nil {
		return nil, err
	}
	a.mu.Lock()
	r, ok := a.refs[args.VariablesReference]
	a.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("unknown variables reference %d; take reference from scopes, or from a variable of this stop", args.VariablesReference)
	}
	var props []prop
	if r.isContext {
		p, err := a.call("context_get", []string{"-d", strconv.Itoa(r.depth), "-c", strconv.Itoa(r.context)}, "")
		if err != nil {
			return nil, err
		}
		props = p.Props
	} else {
		start, count := 0, min(r.children, maxChildren)
		if args.Filter == "indexed" || args.Start > 0 || args.Count > 0 {
			start = min(max(args.Start, 0), r.children)
			if args.Count > 0 {
				count = min(args.Count, maxChildren)
			}
		}
		var err error
		if props, err = a.children(r, start, min(start+count, r.children)); err != nil {
			return nil, err
		}
	}
	out := make([]godap.Variable, 0, len(props))
	for _, c := range props {
		out = append(out, a.variable(c, r.depth, r.context, ""))
	}
	return &godap.VariablesResponse{Body: godap.VariablesResponseBody{Variables: out}}, nil
}

// children reads children start to end of a property or eval result, a
// page of Xdebug's at a time.
func (a *adapter) children(r varRef, start, end int) ([]prop, error) {
	var out []prop
	for page := start / pageSize; page*pageSize < end; page++ {
		var p *packet
		var err error
		if r.fullname != "" {
			p, err = a.call("property_get", []string{"-d", strconv.Itoa(r.depth), "-c", strconv.Itoa(r.context), "-n", r.fullname, "-p", strconv.Itoa(page)}, "")
		} else {
			p, err = a.call("eval", []string{"-p", strconv.Itoa(page)}, r.expr)
		}
		if err != nil {
			return nil, err
		}
		if len(p.Props) == 0 {
			break
		}
		kids := p.Props[0].Props
		if len(kids) == 0 {
			break
		}
		for i, c := range kids {
			if at := page*pageSize + i; at >= start && at < end {
				out = append(out, c)
			}
		}
	}
	return out, nil
}

// variable is a property as DAP shows it; a property with children gets
// a reference to list them (by its full name, or, for an eval result,
// by expr).
func (a *adapter) variable(p prop, depth, context int, expr string) godap.Variable {
	v := godap.Variable{Name: p.Name, Value: value(p), Type: p.Type, EvaluateName: p.Fullname}
	if p.Type == "object" && p.Classname != "" {
		v.Type = p.Classname
	}
	if p.Children > 0 && p.NumChildren > 0 && (p.Fullname != "" || expr != "") {
		v.VariablesReference = a.newRef(varRef{depth: depth, context: context, fullname: p.Fullname, expr: expr, children: p.NumChildren})
		v.IndexedVariables = p.NumChildren
	}
	return v
}

// value is a property's value as PHP would write it: a string quoted, an
// array with its count, an object by its class.
func value(p prop) string {
	text, err := decode(p.Encoding, p.Value)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	switch p.Type {
	case "string":
		s := strconv.Quote(text)
		if p.Size > len(text) {
			s += fmt.Sprintf("... (%d of %d bytes)", len(text), p.Size)
		}
		return s
	case "array":
		return fmt.Sprintf("array(%d)", p.NumChildren)
	case "object":
		return fmt.Sprintf("%s{%d}", p.Classname, p.NumChildren)
	case "bool":
		if text == "1" {
			return "true"
		}
		return "false"
	case "null":
		return "null"
	case "uninitialized":
		return "uninitialized"
	}
	return strings.TrimSpace(text)
}

// evaluate evaluates an expression: a variable by name ($x, $a['k'],
// $o->p) in any frame, so that its children can be listed by full name;
// else PHP code, in the top frame only (Xdebug's eval runs there).
func (a *adapter) evaluate(args godap.EvaluateArguments) (*godap.EvaluateResponse, error) {
	depth, err := a.level(args.FrameId)
	if err != nil {
		return nil, err
	}
	var p *packet
	expr := args.Expression
	if strings.HasPrefix(expr, "$") {
		p, err = a.call("property_get", []string{"-d", strconv.Itoa(depth), "-n", expr}, "")
		if err == nil {
			expr = ""
		}
	}
	switch {
	case p != nil && err == nil:
	case depth == 0:
		p, err = a.call("eval", nil, expr)
	case !errors.Is(err, errClosed):
		err = fmt.Errorf("%s: in a frame other than the top one Xdebug reads variables only ($x, $a['k'], $o->p), not PHP code", expr)
	}
	if err != nil {
		return nil, err
	}
	if len(p.Props) == 0 {
		return nil, errors.New("Xdebug gave no value")
	}
	v := a.variable(p.Props[0], depth, 0, expr)
	return &godap.EvaluateResponse{Body: godap.EvaluateResponseBody{Result: v.Value, Type: v.Type,
		VariablesReference: v.VariablesReference, IndexedVariables: v.IndexedVariables}}, nil
}
