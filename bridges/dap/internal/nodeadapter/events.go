package nodeadapter

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/tetherhq/tether/bridges/dap/internal/sourcemap"
)

// onCDP handles the inspector's notifications.
func (a *adapter) onCDP(method string, params json.RawMessage) {
	switch method {
	case "Debugger.scriptParsed":
		var sp scriptParsed
		if json.Unmarshal(params, &sp) != nil {
			return
		}
		a.mu.Lock()
		a.scripts[sp.ScriptID] = sp
		a.mu.Unlock()
		if sp.SourceMapURL != "" {
			if m := a.loadScriptMap(sp); m != nil {
				a.mu.Lock()
				a.maps[sp.ScriptID] = m
				a.mu.Unlock()
			}
		}
	case "Debugger.paused":
		var p pausedParams
		if json.Unmarshal(params, &p) != nil {
			return
		}
		if len(p.CallFrames) > 0 && p.CallFrames[0].FunctionName == "tetherInlineSourceMap" {
			// Not a stop: the relay is about to run a CommonJS module with
			// an inline source map; set the breakpoints it leads to first.
			cf := p.CallFrames[0].CallFrameID
			go func() {
				var r evalResult
				if a.call("Debugger.evaluateOnCallFrame", map[string]any{"callFrameId": cf, "expression": "filename"}, &r) == nil {
					var file string
					if json.Unmarshal(r.Result.Value, &file) == nil {
						if m := a.readInlineMap(file); m != nil {
							a.bindMapped(m)
						}
					}
				}
				_ = a.call("Debugger.resume", nil, nil)
			}()
			return
		}
		a.mu.Lock()
		a.paused = &p
		clear(a.frames)
		clear(a.refs)
		last := a.lastCmd
		a.lastCmd = ""
		var hit []int
		for _, id := range p.HitBreakpoints {
			if n, ok := a.bpByID[id]; ok {
				hit = append(hit, n)
			}
		}
		a.mu.Unlock()
		body := map[string]any{"threadId": 1, "allThreadsStopped": true}
		switch {
		case p.Reason == "exception" || p.Reason == "promiseRejection":
			body["reason"] = "exception"
			var ex remoteObject
			_ = json.Unmarshal(p.Data, &ex)
			body["description"] = "Paused on exception"
			body["text"] = firstLine(ex.Description)
			if len(p.CallFrames) > 0 {
				if path, _, _, _ := a.place(p.CallFrames[0].Location); path == "" {
					// Stopped in node's own code (an ES module's loader
					// rethrowing): say where the error was thrown.
					if f, l := a.thrownAt(ex.Description); f != "" {
						body["description"] = fmt.Sprintf("Paused on exception thrown at %s:%d", relTo(a.cfg.Root, f), l)
					}
				}
			}
		case len(p.HitBreakpoints) > 0:
			body["reason"] = "breakpoint"
			body["hitBreakpointIds"] = hit
		case last == "next" || last == "stepIn" || last == "stepOut":
			body["reason"] = "step"
		case last == "pause":
			body["reason"] = "pause"
		default:
			body["reason"] = "breakpoint"
			body["description"] = "debugger statement"
		}
		a.event("stopped", body)
	case "Debugger.resumed":
		a.mu.Lock()
		a.paused = nil
		clear(a.frames)
		clear(a.refs)
		a.mu.Unlock()
	}
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
		if m != nil && urlPath(a.scripts[id].URL) == gen {
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
