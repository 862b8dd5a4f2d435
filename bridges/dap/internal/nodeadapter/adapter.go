package nodeadapter

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	godap "github.com/google/go-dap"
	"github.com/tetherhq/tether/bridges/dap/internal/sourcemap"
)

//go:embed relay.cjs
var relay []byte

// Config is what the adapter needs of the session that serves it.
type Config struct {
	// Node is the node binary.
	Node string
	// Root is the project: a program's working dir by default, and where
	// source maps, tsc and package.json files are looked for.
	Root string
	// Scratch is the session's private directory: the relay and the
	// JavaScript tsc compiles are written there.
	Scratch string
	// Sandbox confines a command the adapter starts (peer "node debuggee":
	// the program; "tsc") before it starts; binary is its executable. nil:
	// none is confined.
	Sandbox func(cmd *exec.Cmd, peer, binary string) error
	// LookPath resolves a command: a name on PATH, or a path relative to
	// Root (node_modules/.bin/tsc); "" when there is none. nil: PATH and
	// Root are looked in with the standard library.
	LookPath func(name string) string
	// Kill ends the program's process tree (pid leads its process group).
	// nil: the group is sent SIGKILL.
	Kill func(pid int)
}

// adapter is the in-process debug adapter for node: DAP on one side, the
// inspector protocol on the other, through a relay node runs first
// (relay.cjs) over fds 3 and 4: no port is opened, so it works in a
// sandbox with a network namespace of its own.
type adapter struct {
	cfg Config

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

// Serve is the adapter: it answers the DAP requests that arrive on rw
// until the client disconnects (disconnect, terminate) or closes rw, then
// kills the program's process tree and closes rw. It launches programs;
// it does not attach.
func Serve(rw io.ReadWriteCloser, cfg Config) {
	a := &adapter{
		cfg: cfg, rw: rw,
		scripts: map[string]scriptParsed{}, maps: map[string]*sourcemap.Map{}, fileMaps: map[string]*sourcemap.Map{},
		bps: map[string][]string{}, bpByID: map[string]int{}, mapped: map[string][]*mappedBP{}, frames: map[int]int{}, refs: map[int]string{},
		excState: "none", exit: make(chan struct{}),
	}
	a.serve()
}

// serve answers DAP requests until the session closes the connection.
func (a *adapter) serve() {
	defer a.stop()
	r := bufio.NewReader(a.rw)
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
		body, err := a.handle(req.Command, req.Arguments)
		resp := map[string]any{"type": "response", "request_seq": req.Seq, "command": req.Command, "success": err == nil}
		if err != nil {
			resp["message"] = err.Error()
		} else if body != nil {
			resp["body"] = body
		}
		a.send(resp)
		if req.Command == "launch" && err == nil {
			a.event("initialized", nil)
		}
		if req.Command == "disconnect" || req.Command == "terminate" {
			return
		}
	}
}

// send writes one DAP message with the next sequence number.
func (a *adapter) send(m map[string]any) {
	a.wmu.Lock()
	defer a.wmu.Unlock()
	a.seq++
	m["seq"] = a.seq
	_ = godap.WriteBaseMessage(a.rw, mustJSON(m))
}

func (a *adapter) event(name string, body any) {
	m := map[string]any{"type": "event", "event": name}
	if body != nil {
		m["body"] = body
	}
	a.send(m)
}

func mustJSON(v any) []byte {
	data, _ := json.Marshal(v)
	return data
}

// stop kills node's process tree and closes both connections.
func (a *adapter) stop() {
	if a.cmd != nil && a.cmd.Process != nil {
		select {
		case <-a.exit:
			// Reaped: its pid may be another process's by now. Its group's
			// members, if any are left, are the session's to kill.
		default:
			a.kill(a.cmd.Process.Pid)
		}
	}
	if a.cdp != nil {
		a.cdp.close()
	}
	_ = a.rw.Close()
}

// kill ends the program's process tree.
func (a *adapter) kill(pid int) {
	if a.cfg.Kill != nil {
		a.cfg.Kill(pid)
		return
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}

// sandbox confines a command the adapter starts, when the host confines
// them.
func (a *adapter) sandbox(cmd *exec.Cmd, peer, binary string) error {
	if a.cfg.Sandbox == nil {
		return nil
	}
	return a.cfg.Sandbox(cmd, peer, binary)
}

// lookPath resolves a command name (on PATH) or a path relative to the
// project; "" when it is not found.
func (a *adapter) lookPath(name string) string {
	if a.cfg.LookPath != nil {
		return a.cfg.LookPath(name)
	}
	if strings.ContainsRune(name, '/') {
		p := filepath.Join(a.cfg.Root, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
		return ""
	}
	p, _ := exec.LookPath(name)
	return p
}

// nodeRequestTimeout bounds one inspector request the adapter makes.
const nodeRequestTimeout = 30 * time.Second

func (a *adapter) call(method string, params, out any) error {
	if a.cdp == nil {
		return errors.New("the program is not started")
	}
	ctx, cancel := context.WithTimeout(context.Background(), nodeRequestTimeout)
	defer cancel()
	return a.cdp.call(ctx, method, params, out)
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

func (a *adapter) handle(cmd string, raw json.RawMessage) (any, error) {
	switch cmd {
	case "initialize":
		return nodeCaps(), nil
	case "launch":
		return nil, a.launch(raw)
	case "attach":
		return nil, errors.New("the node adapter launches programs; it does not attach")
	case "setBreakpoints":
		return a.setBreakpoints(raw)
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
		a.mu.Lock()
		a.excState = state
		a.mu.Unlock()
		return nil, a.call("Debugger.setPauseOnExceptions", map[string]any{"state": state}, nil)
	case "configurationDone":
		if err := a.call("tether.run", nil, nil); err != nil && !errors.Is(err, errCDPClosed) {
			return nil, err
		}
		return nil, nil
	case "threads":
		return map[string]any{"threads": []map[string]any{{"id": 1, "name": "main"}}}, nil
	case "stackTrace":
		return a.stackTrace(raw)
	case "scopes":
		return a.scopes(raw)
	case "variables":
		return a.variables(raw)
	case "evaluate":
		return a.evaluate(raw)
	case "exceptionInfo":
		return a.exceptionInfo()
	case "continue":
		return map[string]any{"allThreadsContinued": true}, a.run("continue", "Debugger.resume")
	case "next":
		return nil, a.run("next", "Debugger.stepOver")
	case "stepIn":
		return nil, a.run("stepIn", "Debugger.stepInto")
	case "stepOut":
		return nil, a.run("stepOut", "Debugger.stepOut")
	case "pause":
		a.mu.Lock()
		a.lastCmd = "pause"
		a.mu.Unlock()
		return nil, a.call("Debugger.pause", nil, nil)
	case "disconnect", "terminate":
		a.stop()
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
func (a *adapter) run(name, method string) error {
	a.mu.Lock()
	if a.paused == nil {
		a.mu.Unlock()
		return errors.New("the program is not stopped")
	}
	a.lastCmd = name
	a.mu.Unlock()
	err := a.call(method, nil, nil)
	if errors.Is(err, errCDPClosed) {
		// The program ran to its end before the answer came back; the
		// exited event says so.
		return nil
	}
	return err
}
