package phpadapter

import "context"
import "errors"
import "fmt"
import "io"
import "os/exec"
import "strings"
import "sync"
import "syscall"
import "time"

import godap "github.com/google/go-dap"
import "github.com/tetherhq/tether/bridges/dap/internal/dapserve"

// Config is what the adapter needs of the session that serves it.
type Config struct {
	// PHP is the php binary.
	PHP string
	// Root is the project: a program's working dir by default.
	Root string
	// Scratch is the session's private directory: Xdebug's socket is
	// made in a directory of its own there.
	Scratch string
	// Sandbox confines the php command (peer "php debuggee") before it
	// starts; binary is its executable. nil: it is not confined.
	Sandbox func(cmd *exec.Cmd, peer, binary string) error
	// Kill ends the program's process tree (pid leads its process group).
	// nil: the group is sent SIGKILL.
	Kill func(pid int)
}

// requestTimeout bounds one DBGp command other than a run, which lasts
// until the program stops.
const requestTimeout = 30 * time.Second

// adapter is the in-process debug adapter for PHP: DAP on one side,
// Xdebug's DBGp on the other.
type adapter struct {
	cfg Config

	rw  io.ReadWriteCloser
	out *dapserve.Conn

	cmd            *exec.Cmd
	stdout, stderr *dapserve.OutputPipe // the program's output, to output events
	x              *dbgpConn
	exit           chan struct{} // closed when php has exited and its output is read

	mu      sync.Mutex
	bps     map[string][]string // Xdebug breakpoint ids, by file path
	stopped bool                // Xdebug waits for a command at a stop
	ended   bool                // the script ran to its end
	lastCmd string              // the last run command
	excIDs  []string            // Xdebug's exception breakpoint ids
	where   *stopMsg            // where the program stopped, as Xdebug said
	frames  map[int]int         // DAP frame id -> stack level, for this stop
	refs    map[int]varRef      // variables reference -> what it lists
	nextID  int                 // the last frame id or reference given
}

// Serve is the adapter: it answers the DAP requests that arrive on rw
// until the client disconnects (disconnect, terminate) or closes rw, then
// ends php's process tree and closes rw.
func Serve(rw io.ReadWriteCloser, cfg Config) {
	a := &adapter{cfg: cfg, rw: rw, out: dapserve.New(rw, "the PHP adapter"), exit: make(chan struct{}),
		bps: map[string][]string{}, frames: map[int]int{}, refs: map[int]varRef{}}
	defer a.stop()
	a.out.Serve(a.handle)
}

// send writes one DAP message to the client.
func (a *adapter) send(m godap.Message) { a.out.Send(m) }

// event is the header of an event called name.
var event = dapserve.Event

// capabilities is what the adapter offers.
func capabilities() godap.Capabilities {
	return dapserve.Capabilities("Uncaught exceptions and fatal errors", "Every exception thrown (caught too)")
}

// handle answers one request: the response, its header left to respond,
// or why it failed.
func (a *adapter) handle(req godap.RequestMessage) (godap.ResponseMessage, error) {
	switch r := req.(type) {
	case *godap.InitializeRequest:
		return &godap.InitializeResponse{Body: capabilities()}, nil
	case *godap.LaunchRequest:
		return &godap.LaunchResponse{}, a.launch(r.Arguments)
	case *godap.AttachRequest:
		return nil, errors.New("the PHP adapter launches programs only; Xdebug connects to it from the php it starts")
	case *godap.SetExceptionBreakpointsRequest:
		return &godap.SetExceptionBreakpointsResponse{}, a.setExceptionBreakpoints(r.Arguments.Filters)
	case *godap.ConfigurationDoneRequest:
		return &godap.ConfigurationDoneResponse{}, a.run("run")
	case *godap.ContinueRequest:
		return &godap.ContinueResponse{Body: godap.ContinueResponseBody{AllThreadsContinued: true}}, a.run("run")
	case *godap.NextRequest:
		return &godap.NextResponse{}, a.run("step_over")
	case *godap.StepInRequest:
		return &godap.StepInResponse{}, a.run("step_into")
	case *godap.StepOutRequest:
		return &godap.StepOutResponse{}, a.run("step_out")
	case *godap.PauseRequest:
		return nil, errors.New("Xdebug cannot pause a running PHP script; set a breakpoint where it should stop")
	}
	return a.inspector().Handle(req, a.out.Unserved)
}

// inspector answers the requests the in-process adapters serve alike.
func (a *adapter) inspector() *dapserve.Inspector {
	return &dapserve.Inspector{SetBreakpoints: a.setBreakpoints, StackTrace: a.stackTrace, Scopes: a.scopes,
		Variables: a.variables, Evaluate: a.evaluate, ExceptionInfo: a.exceptionInfo}
}

// setExceptionBreakpoints chooses what stops the program: "uncaught" a
// fatal error (an exception nothing catches is one), "all" every
// exception thrown. Xdebug knows no other kind of catch.
func (a *adapter) setExceptionBreakpoints(filters []string) error {
	if err := a.checkStopped(); err != nil {
		return fmt.Errorf("exception filters change only at a stop: %w", err)
	}
	name := ""
	for _, f := range filters {
		switch {
		case f == "all":
			name = "*"
		case f == "uncaught" && name == "":
			name = "Fatal error"
		}
	}
	a.mu.Lock()
	old := a.excIDs
	a.excIDs = nil
	a.mu.Unlock()
	for _, id := range old {
		if _, err := a.call("breakpoint_remove", []string{"-d", id}, ""); err != nil {
			return err
		}
	}
	if name == "" {
		return nil
	}
	p, err := a.call("breakpoint_set", []string{"-t", "exception", "-x", name}, "")
	if err != nil {
		return err
	}
	a.mu.Lock()
	a.excIDs = []string{p.ID}
	a.mu.Unlock()
	return nil
}

// exceptionText is what a stop at an exception says: its class and
// message, or, for a fatal error, PHP's first line of it ("Uncaught
// RuntimeException: boom in /p/a.php:2").
func exceptionText(m *stopMsg) string {
	text, _, _ := strings.Cut(strings.TrimSpace(m.Text), "\n")
	if m.Exception == "Fatal error" {
		return text
	}
	return m.Exception + ": " + text
}

// exceptionInfo names the exception the program stopped at.
func (a *adapter) exceptionInfo() (*godap.ExceptionInfoResponse, error) {
	a.mu.Lock()
	w := a.where
	a.mu.Unlock()
	if w == nil || w.Exception == "" {
		return nil, errors.New("the program did not stop at an exception")
	}
	mode := godap.ExceptionBreakMode("always")
	if w.Exception == "Fatal error" {
		mode = "unhandled"
	}
	return &godap.ExceptionInfoResponse{Body: godap.ExceptionInfoResponseBody{
		ExceptionId: w.Exception, Description: exceptionText(w), BreakMode: mode}}, nil
}

// call sends a DBGp command and waits for its answer.
func (a *adapter) call(name string, args []string, data string) (*packet, error) {
	if a.x == nil {
		return nil, errors.New("the program is not started")
	}
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	return a.x.call(ctx, name, args, data)
}

// checkStopped refuses a look at a program that runs or has ended.
func (a *adapter) checkStopped() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case a.ended:
		return errors.New("the PHP script has ended")
	case !a.stopped:
		return errors.New("the program is running; Xdebug answers only at a stop (breakpoint or step)")
	}
	return nil
}

// run resumes the program with a DBGp continuation command (run,
// step_into, step_over, step_out). Its answer comes when the program
// stops again, or ends: a stopped event, or the end of the session.
func (a *adapter) run(name string) error {
	a.mu.Lock()
	if a.x == nil || !a.stopped || a.ended {
		a.mu.Unlock()
		if name == "run" && a.x != nil && a.ended {
			return nil
		}
		return errors.New("the program is not stopped")
	}
	a.stopped, a.lastCmd, a.where = false, name, nil
	a.frames, a.refs = map[int]int{}, map[int]varRef{}
	a.mu.Unlock()
	ch, err := a.x.send(name, nil, "")
	if err != nil {
		return nil // the program ended; the exited event says so
	}
	go a.awaitStop(name, ch)
	return nil
}

// awaitStop waits for a continuation command's answer: a stop, or the end
// of the script, after which Xdebug is told to stop so that php exits.
func (a *adapter) awaitStop(name string, ch chan *packet) {
	p, err := a.x.await(context.Background(), name, ch)
	if err != nil {
		return
	}
	if p.Status != "break" {
		a.mu.Lock()
		a.ended = true
		a.mu.Unlock()
		// The script ran to its end; php exits once Xdebug is released.
		if sch, err := a.x.send("stop", nil, ""); err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_, _ = a.x.await(ctx, "stop", sch)
			cancel()
		}
		a.x.close()
		return
	}
	body := godap.StoppedEventBody{Reason: "step", ThreadId: 1, AllThreadsStopped: true}
	if name == "run" {
		body.Reason = "breakpoint"
	}
	if m := p.Message; m != nil && m.Exception != "" {
		body.Reason, body.Text = "exception", exceptionText(m)
	}
	a.stdout.Drain(2 * time.Second)
	a.stderr.Drain(2 * time.Second)
	a.mu.Lock()
	a.stopped, a.where = true, p.Message
	a.mu.Unlock()
	a.send(&godap.StoppedEvent{Event: event("stopped"), Body: body})
}

// stop ends the program (endProgram) and closes the client's connection.
func (a *adapter) stop() {
	a.endProgram()
	_ = a.rw.Close()
}

// endProgram ends the program: Xdebug is told to stop when it waits at a
// stop, php's process tree is killed and Xdebug's connection closes.
func (a *adapter) endProgram() {
	a.mu.Lock()
	stopped := a.stopped && !a.ended
	a.stopped, a.ended = false, true
	a.mu.Unlock()
	if a.x != nil {
		if stopped {
			if ch, err := a.x.send("stop", nil, ""); err == nil {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				_, _ = a.x.await(ctx, "stop", ch)
				cancel()
			}
		}
		a.x.close()
	}
	if a.cmd != nil && a.cmd.Process != nil {
		select {
		case <-a.exit:
			// Reaped: its pid may be another process's by now.
		default:
			if a.cfg.Kill != nil {
				a.cfg.Kill(a.cmd.Process.Pid)
			} else {
				_ = syscall.Kill(-a.cmd.Process.Pid, syscall.SIGKILL)
			}
		}
	}
}
