package nodeadapter

import "encoding/json"
import "fmt"
import "path/filepath"
import "regexp"
import "strconv"
import "strings"
import "sync"
import "time"

import godap "github.com/google/go-dap"
import "github.com/tetherhq/tether/bridges/dap/internal/sourcemap"

// onCDP handles the inspector's notifications.
func (a *adapter) onCDP(method string, params json.RawMessage) {
	switch method {
	case "Debugger.scriptParsed":
		var sp scriptParsed
		if json.Unmarshal(params, &sp) == nil {
			a.scriptParsed(sp)
		}
	case "Debugger.paused":
		var p pausedParams
		if json.Unmarshal(params, &p) == nil {
			a.onPaused(&p)
		}
	case "Runtime.consoleAPICalled", "Runtime.exceptionThrown":
		a.onConsole(method, params)
	case "Debugger.resumed":
		a.mu.Lock()
		a.paused = nil
		clear(a.frames)
		clear(a.refs)
		a.mu.Unlock()
	}
}

// scriptParsed keeps a script node has loaded, and its source map.
func (a *adapter) scriptParsed(sp scriptParsed) {
	a.mu.Lock()
	a.scripts[sp.ScriptID] = sp
	a.mu.Unlock()
	a.laterScript(sp)
	if sp.SourceMapURL != "" {
		if m := a.loadScriptMap(sp); m != nil {
			a.mu.Lock()
			a.maps[sp.ScriptID] = m
			a.mu.Unlock()
		}
	}
}

// onPaused keeps the stop, whose frames and references the next requests
// name, and tells the client why the program stopped.
func (a *adapter) onPaused(p *pausedParams) {
	if len(p.CallFrames) > 0 && p.CallFrames[0].FunctionName == "tetherInlineSourceMap" {
		// Not a stop: the relay is about to run a CommonJS module with an
		// inline source map; set the breakpoints it leads to first.
		go a.bindInline(p.CallFrames[0].CallFrameID)
		return
	}
	a.mu.Lock()
	a.paused = p
	clear(a.frames)
	clear(a.refs)
	last := a.lastCmd
	a.lastCmd = ""
	var hit []int
	inFunc := false
	for _, id := range p.HitBreakpoints {
		if n, ok := a.bpByID[id]; ok {
			hit = append(hit, n)
			inFunc = inFunc || a.funcIDs[n]
		}
	}
	a.mu.Unlock()
	body := godap.StoppedEventBody{ThreadId: 1, AllThreadsStopped: true}
	switch {
	case p.Reason == "exception" || p.Reason == "promiseRejection":
		body.Reason = "exception"
		body.Description, body.Text = a.pausedOnException(p)
	case inFunc:
		body.Reason = "function breakpoint"
		body.HitBreakpointIds = hit
	case len(p.HitBreakpoints) > 0:
		body.Reason = "breakpoint"
		body.HitBreakpointIds = hit
	case last == "next" || last == "stepIn" || last == "stepOut":
		body.Reason = "step"
	case last == "pause":
		body.Reason = "pause"
	case last == "restartFrame":
		body.Reason = "restart"
	default:
		body.Reason = "breakpoint"
		body.Description = "debugger statement"
	}
	a.stdout.Drain(2 * time.Second)
	a.stderr.Drain(2 * time.Second)
	a.send(&godap.StoppedEvent{Event: event("stopped"), Body: body})
}

// pausedOnException describes a stop on an exception: where it was thrown
// when the stop is in node's own code, and the exception's first line.
func (a *adapter) pausedOnException(p *pausedParams) (description, text string) {
	var ex remoteObject
	_ = json.Unmarshal(p.Data, &ex)
	description = "Paused on exception"
	if len(p.CallFrames) > 0 {
		if path, _, _, _ := a.place(p.CallFrames[0].Location); path == "" {
			// Stopped in node's own code (an ES module's loader
			// rethrowing): say where the error was thrown.
			if f, l := a.thrownAt(ex.Description); f != "" {
				description = fmt.Sprintf("Paused on exception thrown at %s:%d", relTo(a.cfg.Root, f), l)
			}
		}
	}
	return description, firstLine(ex.Description)
}

// bindInline sets the breakpoints the inline source map of the module the
// relay is about to compile leads to (its file name is the paused frame's
// filename), then resumes.
func (a *adapter) bindInline(callFrameID string) {
	var r evalResult
	if a.call("Debugger.evaluateOnCallFrame", evaluateOnCallFrameParams{CallFrameID: callFrameID, Expression: "filename"}, &r) == nil {
		var file string
		if json.Unmarshal(r.Result.Value, &file) == nil {
			if m := a.readInlineMap(file); m != nil {
				a.bindMapped(m)
			}
		}
	}
	_ = a.call("Debugger.resume", nil, nil)
}

// stackPlace is a file location in an error's stack ("at f (file:///a.js:2:9)").
var stackPlace = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\(?((?:file://)?/[^\s():]+):(\d+):(\d+)\)?`) })

// thrownAt is the first place in a stack trace that is a file, mapped to
// its source when a source map read so far covers it.
func (a *adapter) thrownAt(stack string) (string, int) {
	for _, line := range strings.Split(stack, "\n")[1:] {
		m := stackPlace().FindStringSubmatch(line)
		if m == nil {
			continue
		}
		path := urlPath(m[1])
		ln, _ := strconv.Atoi(m[2])
		col, _ := strconv.Atoi(m[3])
		if path == "" || ln <= 0 {
			continue
		}
		if sm := a.mapFor(path); sm != nil {
			if f, l, _, ok := sm.Original(ln-1, max(col-1, 0)); ok {
				return f, l + 1
			}
		}
		return path, ln
	}
	return "", 0
}

// mapFor is the source map read so far of a generated file.
func (a *adapter) mapFor(gen string) *sourcemap.Map {
	a.mu.Lock()
	defer a.mu.Unlock()
	if m := a.fileMaps[gen]; m != nil {
		return m
	}
	for id, m := range a.maps {
		if m != nil && a.scriptFileLocked(a.scripts[id].URL) == gen {
			return m
		}
	}
	return nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.TrimSpace(s)
}

// relTo is p relative to root when it lies under it, else p.
func relTo(root, p string) string {
	if r, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}
