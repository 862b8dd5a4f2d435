package nodeadapter

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tetherhq/tether/bridges/dap/internal/sourcemap"
)

// place is where a call frame is, in the source a map leads to when the
// script has one.
func (a *adapter) place(loc cdpLocation) (path, name string, line, col int) {
	a.mu.Lock()
	sp := a.scripts[loc.ScriptID]
	m := a.maps[loc.ScriptID]
	a.mu.Unlock()
	path = urlPath(sp.URL)
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

func (a *adapter) readMapFileIfKnown(gen string) *sourcemap.Map {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.fileMaps[gen]
}

func (a *adapter) stackTrace(raw json.RawMessage) (any, error) {
	if err := nodeThreadCheck(raw); err != nil {
		return nil, err
	}
	var args struct {
		StartFrame int `json:"startFrame"`
		Levels     int `json:"levels"`
	}
	_ = json.Unmarshal(raw, &args)
	a.mu.Lock()
	p := a.paused
	a.mu.Unlock()
	if p == nil {
		return nil, errors.New("the program is running; pause it first")
	}
	total := len(p.CallFrames)
	start := min(max(args.StartFrame, 0), total)
	end := total
	if args.Levels > 0 {
		end = min(total, start+args.Levels)
	}
	frames := []map[string]any{}
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
		f := map[string]any{"id": id, "name": fn, "line": line, "column": col}
		if path != "" {
			f["source"] = map[string]any{"name": filepath.Base(path), "path": path}
		} else if name != "" {
			f["source"] = map[string]any{"name": name}
			f["presentationHint"] = "subtle"
		}
		frames = append(frames, f)
	}
	return map[string]any{"stackFrames": frames, "totalFrames": total}, nil
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

func (a *adapter) scopes(raw json.RawMessage) (any, error) {
	var args struct {
		FrameID int `json:"frameId"`
	}
	_ = json.Unmarshal(raw, &args)
	cf, err := a.frame(args.FrameID)
	if err != nil {
		return nil, err
	}
	scopes := []map[string]any{}
	for _, sc := range cf.ScopeChain {
		name := strings.ToUpper(sc.Type[:1]) + sc.Type[1:]
		if sc.Name != "" && sc.Type == "closure" {
			name += " (" + sc.Name + ")"
		}
		scopes = append(scopes, map[string]any{
			"name": name, "variablesReference": a.ref(sc.Object.ObjectID),
			"expensive": sc.Type == "global",
		})
	}
	return map[string]any{"scopes": scopes}, nil
}

func (a *adapter) variables(raw json.RawMessage) (any, error) {
	var args struct {
		Ref   int `json:"variablesReference"`
		Start int `json:"start"`
		Count int `json:"count"`
	}
	_ = json.Unmarshal(raw, &args)
	a.mu.Lock()
	obj, ok := a.refs[args.Ref]
	a.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("unknown variables reference %d; take reference from scopes, or from a variable of this stop", args.Ref)
	}
	var r struct {
		Result   []propertyDescriptor `json:"result"`
		Internal []propertyDescriptor `json:"internalProperties"`
		Private  []propertyDescriptor `json:"privateProperties"`
	}
	if err := a.call("Runtime.getProperties", map[string]any{"objectId": obj, "ownProperties": true, "generatePreview": false}, &r); err != nil {
		return nil, err
	}
	props := append(append(r.Result, r.Private...), r.Internal...)
	vars := []map[string]any{}
	for _, p := range props {
		if p.Value == nil {
			if p.Get == nil || p.Name == "__proto__" {
				continue
			}
			vars = append(vars, map[string]any{"name": p.Name, "value": "(getter)", "variablesReference": 0})
			continue
		}
		v := a.variable(p.Name, *p.Value)
		vars = append(vars, v)
	}
	start := min(max(args.Start, 0), len(vars))
	end := len(vars)
	if args.Count > 0 {
		end = min(end, start+args.Count)
	}
	return map[string]any{"variables": vars[start:end]}, nil
}

// variable is one DAP variable for a remote object.
func (a *adapter) variable(name string, o remoteObject) map[string]any {
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
	return map[string]any{"name": name, "value": renderRemote(o), "type": typ, "variablesReference": ref}
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

func (a *adapter) evaluate(raw json.RawMessage) (any, error) {
	var args struct {
		Expression string `json:"expression"`
		FrameID    int    `json:"frameId"`
	}
	_ = json.Unmarshal(raw, &args)
	var r evalResult
	var err error
	a.mu.Lock()
	paused := a.paused != nil
	a.mu.Unlock()
	switch {
	case args.FrameID != 0:
		cf, ferr := a.frame(args.FrameID)
		if ferr != nil {
			return nil, ferr
		}
		err = a.call("Debugger.evaluateOnCallFrame", map[string]any{"callFrameId": cf.CallFrameID, "expression": args.Expression}, &r)
	case paused:
		a.mu.Lock()
		id := a.paused.CallFrames[0].CallFrameID
		a.mu.Unlock()
		err = a.call("Debugger.evaluateOnCallFrame", map[string]any{"callFrameId": id, "expression": args.Expression}, &r)
	default:
		err = a.call("Runtime.evaluate", map[string]any{"expression": args.Expression}, &r)
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
	return map[string]any{"result": v["value"], "type": v["type"], "variablesReference": v["variablesReference"]}, nil
}

// exceptionInfo names the exception the program is stopped on: its class
// and message, with its stack.
func (a *adapter) exceptionInfo() (any, error) {
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
	desc := renderRemote(ex)
	msg, stack, _ := strings.Cut(desc, "\n")
	mode := "unhandled"
	if state == "all" {
		mode = "always"
	}
	return map[string]any{
		"exceptionId": id, "description": msg, "breakMode": mode,
		"details": map[string]any{"message": msg, "typeName": id, "stackTrace": stack},
	}, nil
}
