package dap

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	godap "github.com/google/go-dap"
	"github.com/tetherhq/tether/bridges/dap/internal/sourcemap"
	"github.com/tetherhq/tether/internal/proc"
)

// Inspector is the transport of an adapter tether implements itself: it
// serves DAP in-process and drives node's own inspector (the Chrome
// DevTools Protocol) in the program it starts. The adapter's command is
// the node binary.
const Inspector Transport = "node-inspector"

//go:embed node_relay.cjs
var nodeRelay []byte

// nodeBridge is the in-process debug adapter for node: DAP on one side (a
// net.Pipe to the session, so everything above it is the same as for an
// external adapter), the inspector protocol on the other, through a relay
// node runs first (node_relay.cjs) over fds 3 and 4: no port is opened,
// so it works in a sandbox with a network namespace of its own.
type nodeBridge struct {
	sess    *session // whose pids cgroup the debuggee joins
	a       *resolved
	root    string
	scratch string

	rw  io.ReadWriteCloser
	wmu sync.Mutex
	seq int

	cmd  *exec.Cmd
	cdp  *cdpConn
	exit chan struct{} // closed when node has exited and its output is read

	mu       sync.Mutex
	scripts  map[string]scriptParsed   // by script id
	maps     map[string]*sourcemap.Map // by script id; nil: none
	fileMaps map[string]*sourcemap.Map // map files read, by generated path
	scanned  bool                      // the project's map files were read
	bps      map[string][]string       // inspector breakpoint ids, by DAP source path
	// mapped are the breakpoints of files node does not run (.ts), by
	// file: set again in each script whose source map names the file,
	// when node loads it.
	mapped    map[string][]*mappedBP
	bpMu      sync.Mutex     // serializes changes to breakpoints
	bpByID    map[string]int // inspector breakpoint id -> DAP breakpoint id
	nextBP    int
	paused    *pausedParams
	frames    map[int]int // DAP frame id -> index in paused.CallFrames
	nextFrame int
	refs      map[int]string // variables reference -> object id
	nextRef   int
	lastCmd   string // the last run command: "next", "stepIn", "stepOut", "pause", "continue"
	excState  string // setPauseOnExceptions state
	launched  bool
}

// startNode makes the in-process adapter and returns the session's end of
// its connection.
func startNode(a *resolved, root, scratch string, s *session) io.ReadWriteCloser {
	ours, theirs := net.Pipe()
	b := &nodeBridge{
		a: a, root: root, scratch: scratch, rw: ours, sess: s,
		scripts: map[string]scriptParsed{}, maps: map[string]*sourcemap.Map{}, fileMaps: map[string]*sourcemap.Map{},
		bps: map[string][]string{}, bpByID: map[string]int{}, mapped: map[string][]*mappedBP{}, frames: map[int]int{}, refs: map[int]string{},
		excState: "none", exit: make(chan struct{}),
	}
	go b.serve()
	return theirs
}

// serve answers DAP requests until the session closes the connection.
func (b *nodeBridge) serve() {
	defer b.stop()
	r := bufio.NewReader(b.rw)
	for {
		data, err := godap.ReadBaseMessage(r)
		if err != nil {
			return
		}
		var req struct {
			Seq       int             `json:"seq"`
			Type      string          `json:"type"`
			Command   string          `json:"command"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if json.Unmarshal(data, &req) != nil || req.Type != "request" {
			continue
		}
		// Requests are answered one by one, in order; a request that waits
		// for node (evaluate) holds the next, as an adapter's would.
		body, err := b.handle(req.Command, req.Arguments)
		resp := map[string]any{"type": "response", "request_seq": req.Seq, "command": req.Command, "success": err == nil}
		if err != nil {
			resp["message"] = err.Error()
		} else if body != nil {
			resp["body"] = body
		}
		b.send(resp)
		if req.Command == "launch" && err == nil {
			b.event("initialized", nil)
		}
		if req.Command == "disconnect" || req.Command == "terminate" {
			return
		}
	}
}

// send writes one DAP message with the next sequence number.
func (b *nodeBridge) send(m map[string]any) {
	b.wmu.Lock()
	defer b.wmu.Unlock()
	b.seq++
	m["seq"] = b.seq
	_ = godap.WriteBaseMessage(b.rw, mustJSON(m))
}

func (b *nodeBridge) event(name string, body any) {
	m := map[string]any{"type": "event", "event": name}
	if body != nil {
		m["body"] = body
	}
	b.send(m)
}

func mustJSON(v any) []byte {
	data, _ := json.Marshal(v)
	return data
}

// stop kills node's process tree and closes both connections.
func (b *nodeBridge) stop() {
	if b.cmd != nil && b.cmd.Process != nil {
		select {
		case <-b.exit:
			// Reaped: its pid may be another process's by now. Its group's
			// members, if any are left, are the session's to kill.
		default:
			killTreeAndGroups([]int{b.cmd.Process.Pid}, b.cmd.Process.Pid)
		}
	}
	if b.cdp != nil {
		b.cdp.close()
	}
	_ = b.rw.Close()
}

// requestTimeout bounds one inspector request the bridge makes.
const nodeRequestTimeout = 30 * time.Second

func (b *nodeBridge) call(method string, params, out any) error {
	if b.cdp == nil {
		return errors.New("the program is not started")
	}
	ctx, cancel := context.WithTimeout(context.Background(), nodeRequestTimeout)
	defer cancel()
	return b.cdp.call(ctx, method, params, out)
}

// nodeCaps is what the bridge offers (DAP Capabilities).
func nodeCaps() map[string]any {
	return map[string]any{
		"supportsConfigurationDoneRequest":  true,
		"supportsConditionalBreakpoints":    true,
		"supportsHitConditionalBreakpoints": true,
		"supportsLogPoints":                 true,
		"supportsExceptionInfoRequest":      true,
		"supportsTerminateRequest":          true,
		"supportsEvaluateForHovers":         true,
		"exceptionBreakpointFilters": []map[string]any{
			{"filter": "uncaught", "label": "Uncaught exceptions", "default": true},
			{"filter": "all", "label": "All exceptions (caught too)"},
		},
	}
}

func (b *nodeBridge) handle(cmd string, raw json.RawMessage) (any, error) {
	switch cmd {
	case "initialize":
		return nodeCaps(), nil
	case "launch":
		return nil, b.launch(raw)
	case "attach":
		return nil, errors.New("the node adapter launches programs; it does not attach")
	case "setBreakpoints":
		return b.setBreakpoints(raw)
	case "setFunctionBreakpoints":
		return nil, errors.New("the node adapter has no function breakpoints; set a line breakpoint in the function")
	case "setExceptionBreakpoints":
		var args struct {
			Filters []string `json:"filters"`
		}
		_ = json.Unmarshal(raw, &args)
		state := "none"
		for _, f := range args.Filters {
			switch f {
			case "all":
				state = "all"
			case "uncaught":
				if state == "none" {
					state = "uncaught"
				}
			}
		}
		b.mu.Lock()
		b.excState = state
		b.mu.Unlock()
		return nil, b.call("Debugger.setPauseOnExceptions", map[string]any{"state": state}, nil)
	case "configurationDone":
		if err := b.call("tether.run", nil, nil); err != nil && !errors.Is(err, errCDPClosed) {
			return nil, err
		}
		return nil, nil
	case "threads":
		return map[string]any{"threads": []map[string]any{{"id": 1, "name": "main"}}}, nil
	case "stackTrace":
		return b.stackTrace(raw)
	case "scopes":
		return b.scopes(raw)
	case "variables":
		return b.variables(raw)
	case "evaluate":
		return b.evaluate(raw)
	case "exceptionInfo":
		return b.exceptionInfo()
	case "continue":
		return map[string]any{"allThreadsContinued": true}, b.run("continue", "Debugger.resume")
	case "next":
		return nil, b.run("next", "Debugger.stepOver")
	case "stepIn":
		return nil, b.run("stepIn", "Debugger.stepInto")
	case "stepOut":
		return nil, b.run("stepOut", "Debugger.stepOut")
	case "pause":
		b.mu.Lock()
		b.lastCmd = "pause"
		b.mu.Unlock()
		return nil, b.call("Debugger.pause", nil, nil)
	case "disconnect", "terminate":
		b.stop()
		return nil, nil
	}
	return nil, fmt.Errorf("the node adapter does not serve %s", cmd)
}

// nodeThreadCheck refuses a thread id other than node's main thread's.
func nodeThreadCheck(raw json.RawMessage) error {
	var args struct {
		ThreadID int `json:"threadId"`
	}
	_ = json.Unmarshal(raw, &args)
	if args.ThreadID != 0 && args.ThreadID != 1 {
		return fmt.Errorf("unknown thread %d; node's program runs on thread 1", args.ThreadID)
	}
	return nil
}

// run resumes the program one way; the references of the stop die.
func (b *nodeBridge) run(name, method string) error {
	b.mu.Lock()
	if b.paused == nil {
		b.mu.Unlock()
		return errors.New("the program is not stopped")
	}
	b.lastCmd = name
	b.mu.Unlock()
	err := b.call(method, nil, nil)
	if errors.Is(err, errCDPClosed) {
		// The program ran to its end before the answer came back; the
		// exited event says so.
		return nil
	}
	return err
}

// launchArgs are the launch request's arguments (the adapter's Launch or
// Test template, expanded).
type nodeLaunchArgs struct {
	Program string   `json:"program"`
	Args    []string `json:"args"`
	Cwd     string   `json:"cwd"`
	// NodeArgs go to node before the program (--test-name-pattern=...).
	NodeArgs []string `json:"nodeArgs"`
	// Test: a test run; its leading --test-name-pattern= arguments go to
	// node.
	Test bool `json:"test"`
}

func (b *nodeBridge) launch(raw json.RawMessage) error {
	var args nodeLaunchArgs
	if err := json.Unmarshal(raw, &args); err != nil {
		return fmt.Errorf("launch arguments: %w", err)
	}
	if args.Program == "" {
		return errors.New("launch needs program")
	}
	if args.Cwd == "" {
		args.Cwd = b.root
	}
	program := args.Program
	nodeArgs := append([]string(nil), args.NodeArgs...)
	if args.Test {
		for len(args.Args) > 0 && strings.HasPrefix(args.Args[0], testNamePattern) {
			nodeArgs, args.Args = append(nodeArgs, args.Args[0]), args.Args[1:]
		}
	}
	if filepath.Base(program) == "package.json" {
		p, extra, rest, err := packageScript(program, args.Args)
		if err != nil {
			return err
		}
		program, nodeArgs, args.Args = p, append(nodeArgs, extra...), rest
		args.Cwd = filepath.Dir(args.Program)
	}
	if isTypeScript(program) {
		out, err := b.compileTS(program)
		if err != nil {
			return err
		}
		program = out
	}
	relay := filepath.Join(b.scratch, "tether-inspector.cjs")
	if err := os.WriteFile(relay, nodeRelay, 0o600); err != nil {
		return fmt.Errorf("writing the inspector relay: %w", err)
	}
	argv := append(append([]string{b.a.argv[0]}, nodeArgs...), relay, program)
	argv = append(argv, args.Args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = args.Cwd
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// The program reads end-of-file from stdin, as under the other adapters.
	toNode, fromBridge, err := os.Pipe()
	if err != nil {
		return err
	}
	fromNode, toBridge, err := os.Pipe()
	if err != nil {
		toNode.Close()
		fromBridge.Close()
		return err
	}
	cmd.ExtraFiles = []*os.File{toNode, toBridge}
	cmd.Stdout = &outputWriter{b: b, category: "stdout"}
	cmd.Stderr = &outputWriter{b: b, category: "stderr"}
	cmd.WaitDelay = 2 * time.Second
	cmd.Env = os.Environ()
	if nm := filepath.Join(b.root, "node_modules"); isDir(nm) {
		// A program compiled into the scratch dir still finds the
		// project's packages (CommonJS).
		cmd.Env = append(cmd.Env, "NODE_PATH="+nm)
	}
	if err := sandboxIf(cmd, "node debuggee", string(proc.Node), b.a.argv[0], "", b.root, b.scratch, "", b.sess.procLimits()); err != nil {
		toNode.Close()
		fromBridge.Close()
		fromNode.Close()
		toBridge.Close()
		return err
	}
	if err := proc.Start(cmd); err != nil {
		toNode.Close()
		fromBridge.Close()
		fromNode.Close()
		toBridge.Close()
		return fmt.Errorf("starting %s: %w", strings.Join(argv, " "), err)
	}
	toNode.Close()
	toBridge.Close()
	b.cmd = cmd
	ready := make(chan struct{})
	var readyOnce sync.Once
	b.cdp = newCDPConn(fromNode, fromBridge, func(method string, params json.RawMessage) {
		if method == "tether.ready" {
			readyOnce.Do(func() { close(ready) })
			return
		}
		b.onCDP(method, params)
	})
	exited := make(chan struct{})
	go func() {
		err := cmd.Wait()
		close(exited)
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		close(b.exit)
		b.event("exited", map[string]any{"exitCode": code})
		b.event("terminated", nil)
	}()
	b.event("process", map[string]any{"name": program, "systemProcessId": cmd.Process.Pid, "isLocalProcess": true, "startMethod": "launch"})
	select {
	case <-ready:
	case <-exited:
		return errors.New("node exited before its inspector was reachable; see the program output")
	case <-time.After(nodeRequestTimeout):
		return errors.New("node's inspector relay did not start within 30s")
	}
	if err := b.call("Debugger.enable", map[string]any{"maxScriptsCacheSize": 10_000_000}, nil); err != nil {
		return err
	}
	// Steps pass over node's own code (a step out of a test lands in the
	// next test, not in the test runner). The ES module job stays
	// visible: an ES module's uncaught exception stops there, and an
	// exception is not stopped on where every frame is blackboxed.
	if err := b.call("Debugger.setBlackboxPatterns", map[string]any{"patterns": []string{`^node:(?!internal/modules/esm/module_job)`}}, nil); err != nil {
		return err
	}

	b.launched = true
	return nil
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// fileURL is the file: URL node names a script by.
func fileURL(p string) string {
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// urlPath is the local path of a file: URL, or "".
func urlPath(u string) string {
	if !strings.HasPrefix(u, "file://") {
		if filepath.IsAbs(u) {
			return u
		}
		return ""
	}
	pu, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return pu.Path
}

// outputWriter turns the program's output into output events.
type outputWriter struct {
	b        *nodeBridge
	category string
}

// nodeWaiting is what node writes at its end while an inspector session
// (the relay's own) is open: about tether's connection, not the program.
const nodeWaiting = "Waiting for the debugger to disconnect...\n"

func (w *outputWriter) Write(p []byte) (int, error) {
	text := string(p)
	if w.category == "stderr" {
		if text == nodeWaiting {
			return len(p), nil
		}
		text = strings.Replace(text, "\n"+nodeWaiting, "\n", 1)
	}
	w.b.event("output", map[string]any{"category": w.category, "output": text})
	return len(p), nil
}

// onCDP handles the inspector's notifications.
func (b *nodeBridge) onCDP(method string, params json.RawMessage) {
	switch method {
	case "Debugger.scriptParsed":
		var sp scriptParsed
		if json.Unmarshal(params, &sp) != nil {
			return
		}
		b.mu.Lock()
		b.scripts[sp.ScriptID] = sp
		b.mu.Unlock()
		if sp.SourceMapURL != "" {
			if m := b.loadScriptMap(sp); m != nil {
				b.mu.Lock()
				b.maps[sp.ScriptID] = m
				b.mu.Unlock()
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
				if b.call("Debugger.evaluateOnCallFrame", map[string]any{"callFrameId": cf, "expression": "filename"}, &r) == nil {
					var file string
					if json.Unmarshal(r.Result.Value, &file) == nil {
						if m := b.readInlineMap(file); m != nil {
							b.bindMapped(m)
						}
					}
				}
				_ = b.call("Debugger.resume", nil, nil)
			}()
			return
		}
		b.mu.Lock()
		b.paused = &p
		clear(b.frames)
		clear(b.refs)
		last := b.lastCmd
		b.lastCmd = ""
		var hit []int
		for _, id := range p.HitBreakpoints {
			if n, ok := b.bpByID[id]; ok {
				hit = append(hit, n)
			}
		}
		b.mu.Unlock()
		body := map[string]any{"threadId": 1, "allThreadsStopped": true}
		switch {
		case p.Reason == "exception" || p.Reason == "promiseRejection":
			body["reason"] = "exception"
			var ex remoteObject
			_ = json.Unmarshal(p.Data, &ex)
			body["description"] = "Paused on exception"
			body["text"] = firstLine(ex.Description)
			if len(p.CallFrames) > 0 {
				if path, _, _, _ := b.place(p.CallFrames[0].Location); path == "" {
					// Stopped in node's own code (an ES module's loader
					// rethrowing): say where the error was thrown.
					if f, l := b.thrownAt(ex.Description); f != "" {
						body["description"] = fmt.Sprintf("Paused on exception thrown at %s:%d", relTo(b.root, f), l)
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
		b.event("stopped", body)
	case "Debugger.resumed":
		b.mu.Lock()
		b.paused = nil
		clear(b.frames)
		clear(b.refs)
		b.mu.Unlock()
	}
}

// stackPlace is a file location in an error's stack ("at f (file:///a.js:2:9)").
var stackPlace = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\(?((?:file://)?/[^\s():]+):(\d+):(\d+)\)?`) })

// thrownAt is the first place in a stack trace that is a file, mapped to
// its source when a source map read so far covers it.
func (b *nodeBridge) thrownAt(stack string) (string, int) {
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
		if sm := b.mapFor(path); sm != nil {
			if f, l, _, ok := sm.Original(ln-1, max(col-1, 0)); ok {
				return f, l + 1
			}
		}
		return path, ln
	}
	return "", 0
}

// mapFor is the source map read so far of a generated file.
func (b *nodeBridge) mapFor(gen string) *sourcemap.Map {
	b.mu.Lock()
	defer b.mu.Unlock()
	if m := b.fileMaps[gen]; m != nil {
		return m
	}
	for id, m := range b.maps {
		if m != nil && urlPath(b.scripts[id].URL) == gen {
			return m
		}
	}
	return nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.TrimSpace(s)
}

// loadScriptMap reads the source map a script names: inline (a data:
// URL), or a file next to it inside the project or the scratch dir.
func (b *nodeBridge) loadScriptMap(sp scriptParsed) *sourcemap.Map {
	gen := urlPath(sp.URL)
	if gen == "" {
		return nil
	}
	if strings.HasPrefix(sp.SourceMapURL, "data:") {
		data, err := sourcemap.Inline(sp.SourceMapURL)
		if err != nil {
			return nil
		}
		m, err := sourcemap.Parse(data, gen, gen)
		if err != nil {
			return nil
		}
		return m
	}
	mapPath := urlPath(sp.SourceMapURL)
	if mapPath == "" && !strings.Contains(sp.SourceMapURL, "://") {
		if u, err := url.PathUnescape(sp.SourceMapURL); err == nil {
			mapPath = filepath.Join(filepath.Dir(gen), u)
		}
	}
	if mapPath == "" {
		return nil
	}
	return b.readMapFile(mapPath, gen)
}

// readInlineMap reads the inline source map at the end of a generated file
// of the project or the scratch dir.
func (b *nodeBridge) readInlineMap(gen string) *sourcemap.Map {
	if !inTree(b.root, gen) && !inTree(b.scratch, gen) {
		return nil
	}
	fi, err := os.Stat(gen)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxMapSize {
		return nil
	}
	data, err := os.ReadFile(gen)
	if err != nil {
		return nil
	}
	const marker = "sourceMappingURL=data:"
	i := strings.LastIndex(string(data), marker)
	if i < 0 {
		return nil
	}
	u := string(data[i+len("sourceMappingURL="):])
	u, _, _ = strings.Cut(u, "\n")
	raw, err := sourcemap.Inline(strings.TrimSpace(u))
	if err != nil {
		return nil
	}
	m, err := sourcemap.Parse(raw, gen, gen)
	if err != nil {
		return nil
	}
	b.mu.Lock()
	b.fileMaps[gen] = m
	b.mu.Unlock()
	return m
}

// maxMapSize bounds a source map file read.
const maxMapSize = 32 << 20

// readMapFile reads a map file of the project or the scratch dir (nil for
// one outside them, or one that does not parse), cached by generated file.
func (b *nodeBridge) readMapFile(mapPath, gen string) *sourcemap.Map {
	b.mu.Lock()
	if m, ok := b.fileMaps[gen]; ok {
		b.mu.Unlock()
		return m
	}
	b.mu.Unlock()
	if !inTree(b.root, mapPath) && !inTree(b.scratch, mapPath) {
		return nil
	}
	fi, err := os.Stat(mapPath)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxMapSize {
		return nil
	}
	data, err := os.ReadFile(mapPath)
	if err != nil {
		return nil
	}
	m, err := sourcemap.Parse(data, mapPath, gen)
	if err != nil {
		m = nil
	}
	b.mu.Lock()
	b.fileMaps[gen] = m
	b.mu.Unlock()
	return m
}

// inTree reports whether p is dir or lies beneath it.
func inTree(dir, p string) bool {
	if dir == "" {
		return false
	}
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// mapsFor returns the maps that have file among their sources: those of
// loaded scripts, and the map files of the project and the scratch dir
// (read once, node_modules left out, at most maxMapFiles).
func (b *nodeBridge) mapsFor(file string) []*sourcemap.Map {
	b.mu.Lock()
	scanned := b.scanned
	b.scanned = true
	b.mu.Unlock()
	if !scanned {
		for _, dir := range []string{b.scratch, b.root} {
			for _, p := range findMapFiles(dir) {
				b.readMapFile(p, strings.TrimSuffix(p, ".map"))
			}
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	seen := map[string]bool{}
	var out []*sourcemap.Map
	add := func(m *sourcemap.Map) {
		if m != nil && !seen[m.Generated()] && m.HasSource(file) >= 0 {
			seen[m.Generated()] = true
			out = append(out, m)
		}
	}
	for _, m := range b.maps {
		add(m)
	}
	for _, m := range b.fileMaps {
		add(m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Generated() < out[j].Generated() })
	return out
}

// maxMapFiles bounds the map files one scan reads.
const maxMapFiles = 2000

func findMapFiles(dir string) []string {
	if dir == "" {
		return nil
	}
	var out []string
	visited := 0
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		visited++
		if visited > 50_000 || len(out) >= maxMapFiles {
			return filepath.SkipAll
		}
		if d.IsDir() {
			if n := d.Name(); p != dir && (n == "node_modules" || strings.HasPrefix(n, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".js.map") || strings.HasSuffix(p, ".mjs.map") || strings.HasSuffix(p, ".cjs.map") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// jsExt reports whether node runs a file itself (not through a map).
func jsExt(file string) bool {
	switch filepath.Ext(file) {
	case ".js", ".mjs", ".cjs":
		return true
	}
	return false
}

func isTypeScript(file string) bool {
	switch filepath.Ext(file) {
	case ".ts", ".mts", ".cts", ".tsx":
		return !strings.HasSuffix(file, ".d.ts")
	}
	return false
}

// dapSourceBreakpoint is one breakpoint of a setBreakpoints request.
type dapSourceBreakpoint struct {
	Line         int    `json:"line"`
	Condition    string `json:"condition"`
	HitCondition string `json:"hitCondition"`
	LogMessage   string `json:"logMessage"`
}

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
func (b *nodeBridge) setBreakpoints(raw json.RawMessage) (any, error) {
	var args struct {
		Source      godap.Source          `json:"source"`
		Breakpoints []dapSourceBreakpoint `json:"breakpoints"`
	}
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, err
	}
	b.bpMu.Lock()
	defer b.bpMu.Unlock()
	file := args.Source.Path
	b.mu.Lock()
	old := b.bps[file]
	delete(b.bps, file)
	delete(b.mapped, file)
	b.mu.Unlock()
	for _, id := range old {
		_ = b.call("Debugger.removeBreakpoint", map[string]any{"breakpointId": id}, nil)
		b.mu.Lock()
		delete(b.bpByID, id)
		b.mu.Unlock()
	}
	var maps []*sourcemap.Map
	if !jsExt(file) {
		maps = b.mapsFor(file)
	}
	out := []map[string]any{}
	for _, sb := range args.Breakpoints {
		b.mu.Lock()
		b.nextBP++
		n := b.nextBP
		b.mu.Unlock()
		res := map[string]any{"id": n, "line": sb.Line, "verified": false}
		out = append(out, res)
		cond, err := breakpointCondition(n, sb)
		if err != nil {
			res["message"] = err.Error()
			continue
		}
		if jsExt(file) {
			bound, err := b.setByURL(file, n, file, sb.Line-1, -1, cond)
			if err != nil {
				res["message"] = err.Error()
				continue
			}
			res["verified"] = true
			if !bound && b.launched {
				res["message"] = "set; binds when node loads " + filepath.Base(file)
			}
			continue
		}
		mb := &mappedBP{n: n, line: sb.Line, cond: cond, gens: map[string]bool{}}
		b.mu.Lock()
		b.mapped[file] = append(b.mapped[file], mb)
		b.mu.Unlock()
		var set bool
		for _, m := range maps {
			found, err := b.setMapped(file, mb, m)
			if err != nil {
				res["message"] = err.Error()
				continue
			}
			if found > 0 {
				set = true
				res["line"] = found
			}
		}
		switch {
		case set:
			res["verified"] = true
			delete(res, "message")
		case len(maps) == 0:
			res["message"] = fmt.Sprintf("no source map read so far names %s: it binds when node loads a script whose map names it; node runs JavaScript, so compile it with source maps (tsc --sourceMap) and launch the output, or launch the .ts file itself", filepath.Base(file))
		default:
			res["message"] = fmt.Sprintf("no code of %s at or after line %d in its source maps", filepath.Base(file), sb.Line)
		}
	}
	return map[string]any{"breakpoints": out}, nil
}

// setByURL sets one inspector breakpoint in a generated file (col < 0:
// the line's first statement) for DAP breakpoint n of file; bound says
// node has loaded the file and the breakpoint is in it.
func (b *nodeBridge) setByURL(file string, n int, gen string, line, col int, cond string) (bound bool, err error) {
	params := map[string]any{"url": fileURL(gen), "lineNumber": line, "condition": cond}
	if col >= 0 {
		params["columnNumber"] = col
	}
	var r struct {
		BreakpointID string        `json:"breakpointId"`
		Locations    []cdpLocation `json:"locations"`
	}
	if err := b.call("Debugger.setBreakpointByUrl", params, &r); err != nil {
		return false, err
	}
	b.mu.Lock()
	b.bps[file] = append(b.bps[file], r.BreakpointID)
	b.bpByID[r.BreakpointID] = n
	b.mu.Unlock()
	return len(r.Locations) > 0, nil
}

// setMapped sets a breakpoint of file in the generated file of map m, once;
// found is the file's line it went to (0: none in this map).
func (b *nodeBridge) setMapped(file string, mb *mappedBP, m *sourcemap.Map) (found int, err error) {
	b.mu.Lock()
	done := mb.gens[m.Generated()]
	b.mu.Unlock()
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
	if _, err := b.setByURL(file, mb.n, m.Generated(), gl, gc, mb.cond); err != nil {
		return 0, err
	}
	b.mu.Lock()
	mb.gens[m.Generated()] = true
	b.mu.Unlock()
	return at + 1, nil
}

// bindMapped sets the mapped breakpoints that map m leads to, for a
// script node is about to run, and tells the session of each newly set.
func (b *nodeBridge) bindMapped(m *sourcemap.Map) {
	b.bpMu.Lock()
	defer b.bpMu.Unlock()
	type todo struct {
		file string
		mb   *mappedBP
	}
	var list []todo
	b.mu.Lock()
	for file, bps := range b.mapped {
		if m.HasSource(file) < 0 {
			continue
		}
		for _, mb := range bps {
			if !mb.gens[m.Generated()] {
				list = append(list, todo{file, mb})
			}
		}
	}
	b.mu.Unlock()
	for _, t := range list {
		if found, err := b.setMapped(t.file, t.mb, m); err == nil && found > 0 {
			b.event("breakpoint", map[string]any{"reason": "changed",
				"breakpoint": map[string]any{"id": t.mb.n, "verified": true, "line": found}})
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
func breakpointCondition(id int, sb dapSourceBreakpoint) (string, error) {
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

// place is where a call frame is, in the source a map leads to when the
// script has one.
func (b *nodeBridge) place(loc cdpLocation) (path, name string, line, col int) {
	b.mu.Lock()
	sp := b.scripts[loc.ScriptID]
	m := b.maps[loc.ScriptID]
	b.mu.Unlock()
	path = urlPath(sp.URL)
	name = sp.URL
	line, col = loc.LineNumber+1, loc.ColumnNumber+1
	if m == nil && path != "" {
		m = b.readMapFileIfKnown(path)
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

func (b *nodeBridge) readMapFileIfKnown(gen string) *sourcemap.Map {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.fileMaps[gen]
}

func (b *nodeBridge) stackTrace(raw json.RawMessage) (any, error) {
	if err := nodeThreadCheck(raw); err != nil {
		return nil, err
	}
	var args struct {
		StartFrame int `json:"startFrame"`
		Levels     int `json:"levels"`
	}
	_ = json.Unmarshal(raw, &args)
	b.mu.Lock()
	p := b.paused
	b.mu.Unlock()
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
		path, name, line, col := b.place(cf.Location)
		b.mu.Lock()
		b.nextFrame++
		id := b.nextFrame
		b.frames[id] = i
		b.mu.Unlock()
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
func (b *nodeBridge) frame(id int) (*callFrame, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.paused == nil {
		return nil, errors.New("the program is running; pause it first")
	}
	i, ok := b.frames[id]
	if !ok || i >= len(b.paused.CallFrames) {
		return nil, fmt.Errorf("unknown frame %d; take frame ids from the stack of this stop", id)
	}
	return &b.paused.CallFrames[i], nil
}

func (b *nodeBridge) ref(objectID string) int {
	if objectID == "" {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.nextRef++
	b.refs[b.nextRef] = objectID
	return b.nextRef
}

func (b *nodeBridge) scopes(raw json.RawMessage) (any, error) {
	var args struct {
		FrameID int `json:"frameId"`
	}
	_ = json.Unmarshal(raw, &args)
	cf, err := b.frame(args.FrameID)
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
			"name": name, "variablesReference": b.ref(sc.Object.ObjectID),
			"expensive": sc.Type == "global",
		})
	}
	return map[string]any{"scopes": scopes}, nil
}

func (b *nodeBridge) variables(raw json.RawMessage) (any, error) {
	var args struct {
		Ref   int `json:"variablesReference"`
		Start int `json:"start"`
		Count int `json:"count"`
	}
	_ = json.Unmarshal(raw, &args)
	b.mu.Lock()
	obj, ok := b.refs[args.Ref]
	b.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("unknown variables reference %d; take reference from scopes, or from a variable of this stop", args.Ref)
	}
	var r struct {
		Result   []propertyDescriptor `json:"result"`
		Internal []propertyDescriptor `json:"internalProperties"`
		Private  []propertyDescriptor `json:"privateProperties"`
	}
	if err := b.call("Runtime.getProperties", map[string]any{"objectId": obj, "ownProperties": true, "generatePreview": false}, &r); err != nil {
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
		v := b.variable(p.Name, *p.Value)
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
func (b *nodeBridge) variable(name string, o remoteObject) map[string]any {
	typ := o.Type
	if o.Subtype != "" {
		typ = o.Subtype
	}
	if o.ClassName != "" && o.Type == "object" {
		typ = o.ClassName
	}
	ref := 0
	if o.ObjectID != "" && o.Type != "function" {
		ref = b.ref(o.ObjectID)
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

func (b *nodeBridge) evaluate(raw json.RawMessage) (any, error) {
	var args struct {
		Expression string `json:"expression"`
		FrameID    int    `json:"frameId"`
	}
	_ = json.Unmarshal(raw, &args)
	var r evalResult
	var err error
	b.mu.Lock()
	paused := b.paused != nil
	b.mu.Unlock()
	switch {
	case args.FrameID != 0:
		cf, ferr := b.frame(args.FrameID)
		if ferr != nil {
			return nil, ferr
		}
		err = b.call("Debugger.evaluateOnCallFrame", map[string]any{"callFrameId": cf.CallFrameID, "expression": args.Expression}, &r)
	case paused:
		b.mu.Lock()
		id := b.paused.CallFrames[0].CallFrameID
		b.mu.Unlock()
		err = b.call("Debugger.evaluateOnCallFrame", map[string]any{"callFrameId": id, "expression": args.Expression}, &r)
	default:
		err = b.call("Runtime.evaluate", map[string]any{"expression": args.Expression}, &r)
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
	v := b.variable("", r.Result)
	return map[string]any{"result": v["value"], "type": v["type"], "variablesReference": v["variablesReference"]}, nil
}

// exceptionInfo names the exception the program is stopped on: its class
// and message, with its stack.
func (b *nodeBridge) exceptionInfo() (any, error) {
	b.mu.Lock()
	p := b.paused
	state := b.excState
	b.mu.Unlock()
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
