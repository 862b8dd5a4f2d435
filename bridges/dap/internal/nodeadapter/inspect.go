package nodeadapter

import "encoding/json"
import "errors"
import "fmt"
import "path/filepath"
import "strconv"
import "strings"

import godap "github.com/google/go-dap"
import "github.com/tetherhq/tether/bridges/dap/internal/dapserve"
import "github.com/tetherhq/tether/bridges/dap/internal/sourcemap"

// place is where a call frame is, in the source a map leads to when the
// script has one.
func (a *adapter) place(loc cdpLocation) (path, name string, line, col int) {
	a.mu.Lock()
	sp := a.scripts[loc.ScriptID]
	m := a.maps[loc.ScriptID]
	a.mu.Unlock()
	path = a.scriptFile(sp.URL)
	name = sp.URL
	line, col = loc.LineNumber+1, loc.ColumnNumber+1
	if m == nil && path != "" {
		m = a.readMapFileIfKnown(path)
	}
	if m != nil {
		if f, l, c, ok := m.Original(loc.LineNumber, loc.ColumnNumber); ok {
			return f, filepath.Base(f), l + 1, c + 1
		}
	}
	if path != "" {
		name = filepath.Base(path)
	}
	return path, name, line, col
}

// readMapFileIfKnown is the map file read so far of a generated file.
func (a *adapter) readMapFileIfKnown(gen string) *sourcemap.Map {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.fileMaps[gen]
}

// stackTrace lists the paused program's frames, each at the place in the
// source a map leads to when its script has one.
func (a *adapter) stackTrace(args godap.StackTraceArguments) (*godap.StackTraceResponse, error) {
	if err := checkThread(args.ThreadId); err != nil {
		return nil, err
	}
	a.mu.Lock()
	p := a.paused
	a.mu.Unlock()
	if p == nil {
		return nil, errors.New("the program is running; pause it first")
	}
	total := len(p.CallFrames)
	start, end := dapserve.Window(args.StartFrame, args.Levels, total)
	frames := []godap.StackFrame{}
	for i := start; i < end; i++ {
		cf := p.CallFrames[i]
		path, name, line, col := a.place(cf.Location)
		a.mu.Lock()
		a.nextFrame++
		id := a.nextFrame
		a.frames[id] = i
		a.mu.Unlock()
		fn := cf.FunctionName
		if fn == "" {
			fn = "(anonymous)"
		}
		f := godap.StackFrame{Id: id, Name: fn, Line: line, Column: col}
		if path != "" {
			f.Source = &godap.Source{Name: filepath.Base(path), Path: path}
		} else if name != "" {
			f.Source = &godap.Source{Name: name}
			f.PresentationHint = "subtle"
		}
		frames = append(frames, f)
	}
	return &godap.StackTraceResponse{Body: godap.StackTraceResponseBody{StackFrames: frames, TotalFrames: total}}, nil
}

// frame returns the paused call frame a DAP frame id names.
func (a *adapter) frame(id int) (*callFrame, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.paused == nil {
		return nil, errors.New("the program is running; pause it first")
	}
	i, ok := a.frames[id]
	if !ok || i >= len(a.paused.CallFrames) {
		return nil, fmt.Errorf("unknown frame %d; take frame ids from the stack of this stop", id)
	}
	return &a.paused.CallFrames[i], nil
}

// ref is a new variables reference for an inspector object (0 for none);
// references die when the program runs.
func (a *adapter) ref(objectID string) int {
	if objectID == "" {
		return 0
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.nextRef++
	a.refs[a.nextRef] = objectID
	return a.nextRef
}

// scopes lists a frame's scope chain, innermost first.
func (a *adapter) scopes(args godap.ScopesArguments) (*godap.ScopesResponse, error) {
	cf, err := a.frame(args.FrameId)
	if err != nil {
		return nil, err
	}
	scopes := []godap.Scope{}
	for _, sc := range cf.ScopeChain {
		name := strings.ToUpper(sc.Type[:1]) + sc.Type[1:]
		if sc.Name != "" && sc.Type == "closure" {
			name += " (" + sc.Name + ")"
		}
		scopes = append(scopes, godap.Scope{Name: name, VariablesReference: a.ref(sc.Object.ObjectID), Expensive: sc.Type == "global"})
	}
	return &godap.ScopesResponse{Body: godap.ScopesResponseBody{Scopes: scopes}}, nil
}

// variables lists an object's own properties (private and internal ones
// too): a page of them when start or count is given.
func (a *adapter) variables(args godap.VariablesArguments) (*godap.VariablesResponse, error) {
	a.mu.Lock()
	obj, ok := a.refs[args.VariablesReference]
	a.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("unknown variables reference %d; take reference from scopes, or from a variable of this stop", args.VariablesReference)
	}
	var r struct {
		Result   []propertyDescriptor `json:"result"`
		Internal []propertyDescriptor `json:"internalProperties"`
		Private  []propertyDescriptor `json:"privateProperties"`
	}
	if err := a.call("Runtime.getProperties", getPropertiesParams{ObjectID: obj, OwnProperties: true}, &r); err != nil {
		return nil, err
	}
	props := append(append(r.Result, r.Private...), r.Internal...)
	vars := []godap.Variable{}
	for _, p := range props {
		if p.Value == nil {
			if p.Get == nil || p.Name == "__proto__" {
				continue
			}
			vars = append(vars, godap.Variable{Name: p.Name, Value: "(getter)"})
			continue
		}
		vars = append(vars, a.variable(p.Name, *p.Value))
	}
	start, end := dapserve.Window(args.Start, args.Count, len(vars))
	return &godap.VariablesResponse{Body: godap.VariablesResponseBody{Variables: vars[start:end]}}, nil
}

// variable is one DAP variable for a remote object.
func (a *adapter) variable(name string, o remoteObject) godap.Variable {
	typ := o.Type
	if o.Subtype != "" {
		typ = o.Subtype
	}
	if o.ClassName != "" && o.Type == "object" {
		typ = o.ClassName
	}
	ref := 0
	if o.ObjectID != "" && o.Type != "function" {
		ref = a.ref(o.ObjectID)
	}
	return godap.Variable{Name: name, Value: renderRemote(o), Type: typ, VariablesReference: ref}
}

// renderRemote shows a value as JavaScript would write it: strings quoted,
// objects by their description, functions by their first line.
func renderRemote(o remoteObject) string {
	switch {
	case o.UnserializableValue != "":
		return o.UnserializableValue
	case o.Type == "undefined":
		return "undefined"
	case o.Subtype == "null":
		return "null"
	case o.Type == "string":
		var s string
		if json.Unmarshal(o.Value, &s) == nil {
			return strconv.Quote(s)
		}
	case o.Type == "function":
		return firstLine(o.Description)
	case len(o.Value) > 0 && o.Type != "object":
		return string(o.Value)
	}
	if o.Description != "" {
		return o.Description
	}
	return string(o.Value)
}

// evaluate evaluates an expression in a frame (by default the top frame of
// the stop), or globally while the program runs.
func (a *adapter) evaluate(args godap.EvaluateArguments) (*godap.EvaluateResponse, error) {
	var r evalResult
	var err error
	callFrameID := ""
	if args.FrameId != 0 {
		cf, ferr := a.frame(args.FrameId)
		if ferr != nil {
			return nil, ferr
		}
		callFrameID = cf.CallFrameID
	} else {
		a.mu.Lock()
		if a.paused != nil && len(a.paused.CallFrames) > 0 {
			callFrameID = a.paused.CallFrames[0].CallFrameID
		}
		a.mu.Unlock()
	}
	if callFrameID != "" {
		err = a.call("Debugger.evaluateOnCallFrame", evaluateOnCallFrameParams{CallFrameID: callFrameID, Expression: args.Expression}, &r)
	} else {
		err = a.call("Runtime.evaluate", evaluateParams{Expression: args.Expression}, &r)
	}
	if err != nil {
		return nil, err
	}
	if r.ExceptionDetails != nil {
		msg := r.ExceptionDetails.Text
		if r.ExceptionDetails.Exception != nil && r.ExceptionDetails.Exception.Description != "" {
			msg = firstLine(r.ExceptionDetails.Exception.Description)
		}
		return nil, errors.New(msg)
	}
	v := a.variable("", r.Result)
	return &godap.EvaluateResponse{Body: godap.EvaluateResponseBody{Result: v.Value, Type: v.Type, VariablesReference: v.VariablesReference}}, nil
}

// exceptionInfo names the exception the program is stopped on: its class
// and message, with its stack.
func (a *adapter) exceptionInfo() (*godap.ExceptionInfoResponse, error) {
	a.mu.Lock()
	p := a.paused
	state := a.excState
	a.mu.Unlock()
	if p == nil || (p.Reason != "exception" && p.Reason != "promiseRejection") {
		return nil, errors.New("the program is not stopped on an exception")
	}
	var ex remoteObject
	_ = json.Unmarshal(p.Data, &ex)
	id := ex.ClassName
	if id == "" {
		id = ex.Type
	}
	msg, stack, _ := strings.Cut(renderRemote(ex), "\n")
	mode := godap.ExceptionBreakMode("unhandled")
	if state == "all" {
		mode = "always"
	}
	return &godap.ExceptionInfoResponse{Body: godap.ExceptionInfoResponseBody{
		ExceptionId: id, Description: msg, BreakMode: mode,
		Details: &godap.ExceptionDetails{Message: msg, TypeName: id, StackTrace: stack},
	}}, nil
}
