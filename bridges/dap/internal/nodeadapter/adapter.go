package nodeadapter

import "context"
import _ "embed"
import "errors"
import "fmt"
import "io"
import "os"
import "os/exec"
import "path/filepath"
import "strings"
import "sync"
import "syscall"
import "time"

import godap "github.com/google/go-dap"
import "github.com/tetherhq/tether/bridges/dap/internal/dapserve"
import "github.com/tetherhq/tether/bridges/dap/internal/sourcemap"

//go:embed relay.cjs
var relay []byte

// Config is what the adapter needs of the session that serves it.
type Config struct {
	// Node is the node binary.
	Node string
	// Chromium is the Chromium (or Chrome) binary of ServeBrowser.
	Chromium string
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
	out *dapserve.Conn

	cmd            *exec.Cmd
	stdout, stderr *dapserve.OutputPipe // a launched program's output; nil otherwise
	cdp            *cdpConn
	exit           chan struct{} // closed when node has exited and its output is read

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
	bpMu      sync.Mutex      // serializes changes to breakpoints
	bpByID    map[string]int  // inspector breakpoint id -> DAP breakpoint id
	funcBPs   []string        // the function breakpoints' inspector ids
	funcIDs   map[int]bool    // the DAP ids of function breakpoints
	funcReqs  []funcReq       // the function breakpoints as set
	funcSeen  map[string]bool // the files funcReqs were looked up in
	nextBP    int
	paused    *pausedParams
	frames    map[int]int // DAP frame id -> index in paused.CallFrames
	nextFrame int
	refs      map[int]string // variables reference -> object id
	nextRef   int
	lastCmd   string // the last run command: "next", "stepIn", "stepOut", "pause", "continue"
	excState  string // setPauseOnExceptions state
	launched  bool   // the program runs (launched, or attached to)
	// attached: the program is one tether did not start, reached through
	// its inspector's WebSocket; stopping: the client is ending the
	// session (the connection's close is no news then).
	attached bool
	stopping bool
	// browser: the adapter drives Chromium (ServeBrowser), not node; page
	// is the URL a launch opens at configurationDone.
	browser bool
	page    string
}

// Serve is the adapter: it answers the DAP requests that arrive on rw
// until the client disconnects (disconnect, terminate) or closes rw, then
// kills the program's process tree (a launched one; an attached program is
// detached from and runs on) and closes rw.
func Serve(rw io.ReadWriteCloser, cfg Config) { newAdapter(rw, cfg, "the node adapter").serve() }

// newAdapter is an adapter with empty tables, serving rw; name is how
// its refusals name it.
func newAdapter(rw io.ReadWriteCloser, cfg Config, name string) *adapter {
	return &adapter{
		cfg: cfg, rw: rw, out: dapserve.New(rw, name),
		scripts: map[string]scriptParsed{}, maps: map[string]*sourcemap.Map{}, fileMaps: map[string]*sourcemap.Map{},
		bps: map[string][]string{}, bpByID: map[string]int{}, funcIDs: map[int]bool{}, mapped: map[string][]*mappedBP{}, frames: map[int]int{}, refs: map[int]string{},
		excState: "none", exit: make(chan struct{}),
	}
}

// serve answers DAP requests until the session closes the connection.
// A request that waits for node (evaluate) holds the next, as an
// adapter's would.
func (a *adapter) serve() {
	defer a.stop()
	a.out.Serve(a.handle)
}

// event is the header of an event called name.
var event = dapserve.Event

// send writes one DAP message (a response or an event) to the client.
func (a *adapter) send(m godap.Message) { a.out.Send(m) }

// stop kills node's process tree (detaches from an attached node) and
// closes both connections.
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
	switch {
	case a.attached:
		a.detach()
	case a.cdp != nil:
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

// capabilities is what the adapter offers.
func capabilities() godap.Capabilities {
	c := dapserve.Capabilities("Uncaught exceptions", "All exceptions (caught too)")
	c.SupportsFunctionBreakpoints = true
	c.SupportsHitConditionalBreakpoints = true
	c.SupportsLogPoints = true
	c.SupportsRestartFrame = true
	return c
}

// handle answers one request: the response, its header left to respond,
// or why it failed.
func (a *adapter) handle(req godap.RequestMessage) (godap.ResponseMessage, error) {
	switch r := req.(type) {
	case *godap.InitializeRequest:
		return &godap.InitializeResponse{Body: capabilities()}, nil
	case *godap.LaunchRequest:
		if a.browser {
			return &godap.LaunchResponse{}, a.launchBrowser(r.Arguments)
		}
		return &godap.LaunchResponse{}, a.launch(r.Arguments)
	case *godap.AttachRequest:
		if a.browser {
			return &godap.AttachResponse{}, a.attachBrowser(r.Arguments)
		}
		return &godap.AttachResponse{}, a.attach(r.Arguments)
	case *godap.SetFunctionBreakpointsRequest:
		return a.setFunctionBreakpoints(r.Arguments)
	case *godap.SetExceptionBreakpointsRequest:
		return &godap.SetExceptionBreakpointsResponse{}, a.setExceptionBreakpoints(r.Arguments.Filters)
	case *godap.ConfigurationDoneRequest:
		if a.attached {
			// A program started with --inspect-brk waits for this; any
			// other answers it at once.
			_ = a.call("Runtime.runIfWaitingForDebugger", nil, nil)
			return &godap.ConfigurationDoneResponse{}, nil
		}
		if a.browser {
			return &godap.ConfigurationDoneResponse{}, a.openPage()
		}
		if err := a.call("tether.run", nil, nil); err != nil && !errors.Is(err, errCDPClosed) {
			return nil, err
		}
		return &godap.ConfigurationDoneResponse{}, nil
	case *godap.ContinueRequest:
		return &godap.ContinueResponse{Body: godap.ContinueResponseBody{AllThreadsContinued: true}}, a.run("continue", "Debugger.resume")
	case *godap.NextRequest:
		return &godap.NextResponse{}, a.run("next", "Debugger.stepOver")
	case *godap.StepInRequest:
		return &godap.StepInResponse{}, a.run("stepIn", "Debugger.stepInto")
	case *godap.StepOutRequest:
		return &godap.StepOutResponse{}, a.run("stepOut", "Debugger.stepOut")
	case *godap.RestartFrameRequest:
		return &godap.RestartFrameResponse{}, a.restartFrame(r.Arguments.FrameId)
	case *godap.PauseRequest:
		a.mu.Lock()
		a.lastCmd = "pause"
		a.mu.Unlock()
		return &godap.PauseResponse{}, a.call("Debugger.pause", nil, nil)
	}
	return a.inspector().Handle(req, a.out.Unserved)
}

// inspector answers the requests the in-process adapters serve alike.
func (a *adapter) inspector() *dapserve.Inspector {
	return &dapserve.Inspector{SetBreakpoints: a.setBreakpoints, StackTrace: a.stackTrace, Scopes: a.scopes,
		Variables: a.variables, Evaluate: a.evaluate, ExceptionInfo: a.exceptionInfo}
}

// setExceptionBreakpoints chooses what exceptions the program stops on:
// filter "all" every one, "uncaught" those nothing catches.
func (a *adapter) setExceptionBreakpoints(filters []string) error {
	state := "none"
	for _, f := range filters {
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
	return a.call("Debugger.setPauseOnExceptions", pauseOnExceptionsParams{State: state}, nil)
}

// checkThread refuses a thread id other than node's main thread's.
func checkThread(id int) error {
	if id != 0 && id != 1 {
		return fmt.Errorf("unknown thread %d; node's program runs on thread 1", id)
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
