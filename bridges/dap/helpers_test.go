package dap_test

import "bufio"
import "context"
import "encoding/json"
import "fmt"
import "net"
import "os"
import "os/exec"
import "path/filepath"
import "reflect"
import "strings"
import "syscall"
import "testing"
import "time"

import "github.com/tetherhq/tether/bridges/dap"
import "github.com/tetherhq/tether/internal/proc"
import "github.com/tetherhq/tether/internal/testenv"

// request is one op and its arguments, as the debug tool passes them; call
// runs it through the Supervisor's typed methods.
type request struct {
	Op         string
	File       string
	Lines      []int
	Program    string
	Args       []string
	Port       int
	ThreadID   int
	FrameID    int
	Reference  int
	Start      int
	Expression string
	Adapter    string
	Test       string
	// Breakpoints are breakpoints with kinds (op breakpoints); Functions
	// the function breakpoints (op functions); Filters the exception
	// filters (op exception_filters).
	Breakpoints []dap.SourceBreakpoint
	Functions   []string
	Filters     []string
	PID         int
}

// reply is what one op returned: its typed result, and the facts the tests
// look at gathered in one place.
type reply struct {
	op          string
	Adapters    []dap.AdapterStatus
	Session     string
	Stop        *dap.Stop
	Exited      *dap.Exit
	Breakpoints []dap.BreakpointState
	Threads     []dap.Thread
	Frames      []dap.Frame
	Scopes      []dap.Scope
	Variables   []dap.Variable
	Value       *dap.Variable
	Output      string
	Filters     []dap.ExceptionFilter

	Status     *dap.Status
	Started    *dap.Started
	Outcome    *dap.Outcome
	ThreadList *dap.Threads
	Stack      *dap.Stack
	Vars       *dap.Variables
	Out        *dap.Output
	Terminated *dap.Terminated
	Set        *dap.Breakpoints
}

// String shows the reply's facts, for test logs and failures.
func (r *reply) String() string {
	if r == nil {
		return "<nil reply>"
	}
	// The first typed result set, in this order; the adapters list when
	// none is.
	var v any = r.Adapters
	for _, x := range []any{r.Status, r.Started, r.Outcome, r.ThreadList, r.Stack, r.Vars, r.Out, r.Terminated, r.Set, r.Value, r.Scopes} {
		if !reflect.ValueOf(x).IsNil() {
			v = x
			break
		}
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Sprintf("%+v", v)
	}
	return r.op + ": " + string(b)
}

func call(sv *dap.Supervisor, ctx context.Context, conv, root string, req request) (*reply, error) {
	r := &reply{op: req.Op}
	var err error
	switch req.Op {
	case "adapters":
		r.Adapters = sv.Adapters(ctx, root)
	case "status":
		r.Status, err = sv.Status(conv)
		if err == nil {
			r.Session, r.Stop = r.Status.Session, r.Status.Stop
		}
	case "breakpoints":
		if req.Breakpoints != nil {
			r.Set, err = sv.SetSourceBreakpoints(ctx, conv, root, dap.BreakpointsArgs{File: req.File, Lines: req.Lines, Breakpoints: req.Breakpoints})
		} else {
			r.Set, err = sv.SetBreakpoints(ctx, conv, root, req.File, req.Lines)
		}
		if err == nil {
			r.Breakpoints = r.Set.States
		}
	case "functions":
		r.Breakpoints, err = sv.SetFunctionBreakpoints(ctx, conv, req.Functions)
		r.Set = &dap.Breakpoints{States: r.Breakpoints}
	case "exception_filters":
		var fs []dap.ExceptionFilter
		fs, err = sv.SetExceptionFilters(ctx, conv, req.Filters)
		r.Set = &dap.Breakpoints{}
		r.Filters = fs
	case "launch", "attach":
		if req.Op == "launch" {
			r.Started, err = sv.Launch(ctx, conv, root, dap.LaunchArgs{Program: req.Program, Args: req.Args, Adapter: req.Adapter, Test: req.Test})
		} else {
			r.Started, err = sv.Attach(ctx, conv, root, dap.AttachArgs{PID: req.PID, Port: req.Port, Adapter: req.Adapter})
		}
		if err == nil {
			r.Outcome = &r.Started.Outcome
			r.Session, r.Breakpoints, r.Stop, r.Exited = r.Started.Session, r.Started.Breakpoints, r.Outcome.Stop, r.Outcome.Exited
		}
	case "continue", "pause", "step_over", "step_in", "step_out":
		run := map[string]func(context.Context, string, int) (*dap.Outcome, error){
			"continue": sv.Continue, "pause": sv.Pause, "step_over": sv.StepOver, "step_in": sv.StepIn, "step_out": sv.StepOut,
		}[req.Op]
		r.Outcome, err = run(ctx, conv, req.ThreadID)
		if err == nil {
			r.Stop, r.Exited = r.Outcome.Stop, r.Outcome.Exited
		}
	case "threads":
		r.ThreadList, err = sv.Threads(ctx, conv)
		if err == nil {
			r.Threads = r.ThreadList.Threads
		}
	case "stack":
		r.Stack, err = sv.Stack(ctx, conv, req.ThreadID, req.Start)
		if err == nil {
			r.Frames = r.Stack.Frames
		}
	case "scopes":
		var sc *dap.Scopes
		sc, err = sv.Scopes(ctx, conv, req.ThreadID, req.FrameID)
		if err == nil {
			r.Scopes = sc.Scopes
		}
	case "variables":
		r.Vars, err = sv.Variables(ctx, conv, req.Reference, req.Start)
		if err == nil {
			r.Variables = r.Vars.Variables
		}
	case "evaluate":
		r.Value, err = sv.Evaluate(ctx, conv, req.Expression, req.ThreadID, req.FrameID)
	case "output":
		r.Out, err = sv.Output(conv)
		if err == nil {
			r.Output = r.Out.Text
		}
	case "terminate":
		r.Terminated, err = sv.Terminate(conv)
	default:
		return nil, fmt.Errorf("test: no op %q", req.Op)
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// isPage reports whether a variables reply is the page start to end (one
// past) of total elements (elements) or children, with next the start of
// the next page (0: the last; -1: any).
func isPage(r *reply, elements bool, start, end, total, next int) bool {
	v := r.Vars
	return v != nil && v.Elements == elements && v.Start == start && v.End == end &&
		(total < 0 || v.Total == total) && (next < 0 || v.Next == next)
}

// do runs one op and fails the test on error.
func do(t *testing.T, sv *dap.Supervisor, conv, root string, req request) *reply {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	start := time.Now()
	r, err := call(sv, ctx, conv, root, req)
	if err != nil {
		t.Fatalf("%s: %v", req.Op, err)
	}
	t.Logf("%s [%s]:\n%s", req.Op, time.Since(start).Round(time.Millisecond), r)
	return r
}

// doErr runs one op that must fail and returns its error text.
func doErr(t *testing.T, sv *dap.Supervisor, conv, root string, req request) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	r, err := call(sv, ctx, conv, root, req)
	if err == nil {
		t.Fatalf("%s: want an error, got:\n%s", req.Op, r)
	}
	t.Logf("%s (error): %v", req.Op, err)
	return err.Error()
}

func python(t *testing.T) string {
	t.Helper()
	// Debian's python3 carries python3-debugpy; a python first on PATH may not.
	for _, p := range []string{"/usr/bin/python3", testenv.LookPath("python3")} {
		if p != "" && exec.Command(p, "-c", "import debugpy").Run() == nil {
			return p
		}
	}
	testenv.Missing(t, "a python3 that can import debugpy (python3-debugpy)")
	return ""
}

// unusedPort returns a port that nothing listens on, below the kernel's
// ephemeral range: a port freePort returns is handed out again to the next
// listener bound to port 0 (another test's server), while one below the
// range is taken only by a bind naming it.
func unusedPort(t *testing.T) int {
	t.Helper()
	for p := 20000 + os.Getpid()%5000; p < 32000; p++ {
		if l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p)); err == nil {
			l.Close()
			return p
		}
	}
	t.Fatal("no unused port below 32000")
	return 0
}

func findVar(t *testing.T, vars []dap.Variable, name string) dap.Variable {
	t.Helper()
	for _, v := range vars {
		if v.Name == name {
			return v
		}
	}
	t.Fatalf("no variable %q in %+v", name, vars)
	return dap.Variable{}
}

func needDelve(t *testing.T) string {
	t.Helper()
	testenv.RequireBinary(t, "go")
	return testenv.RequireBinary(t, "dlv")
}

// target is a program an adapter debugs: what it needs on the machine (need
// returns the tool build uses), its files, how it is built, and what launch
// runs.
type target struct {
	name    string
	need    func(t *testing.T) string
	files   map[string]string
	build   func(t *testing.T, tool, root string)
	program string
}

// start requires the target's tools, writes and builds it in a new
// workspace, and returns a supervisor closed with the test, and the
// workspace.
func (tg target) start(t *testing.T) (*dap.Supervisor, string) {
	t.Helper()
	tool := tg.need(t)
	root := testenv.Workspace(t, tg.files)
	if tg.build != nil {
		tg.build(t, tool, root)
	}
	sv := dap.NewSupervisor(dap.Config{})
	t.Cleanup(func() { sv.Close() })
	return sv, root
}

// buildIn runs a build command in dir and fails the test with its output
// when it fails.
func buildIn(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", filepath.Base(name), err, out)
	}
}

// server returns a debug server's command run in dir; startServer starts it.
func server(dir, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// startServer starts a server command (see server) and kills its process
// group when the test ends.
func startServer(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
}

// startReady starts a program tether did not start (see server) and waits
// for its first line, "ready"; it returns the program's pid. The program's
// process group is killed when the test ends.
func startReady(t *testing.T, dir, name string, args ...string) int {
	t.Helper()
	cmd := server(dir, name, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	startServer(t, cmd)
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("the program did not start: %q %v", line, err)
	}
	return cmd.Process.Pid
}

// delveServer builds the Go program in root as bin for debugging and returns
// a multi-client dlv --headless server for it (not started), and its port.
func delveServer(t *testing.T, root, bin string) (*exec.Cmd, int) {
	t.Helper()
	dlv := testenv.RequireBinary(t, "dlv")
	buildIn(t, root, testenv.RequireBinary(t, "go"), "build", "-gcflags=all=-N -l", "-o", bin, ".")
	port := testenv.FreeLoopback(t).Port
	return server(root, dlv, "exec", "--headless", "--accept-multiclient", "--api-version=2",
		"--listen", fmt.Sprintf("127.0.0.1:%d", port), "./"+bin), port
}

// goFiles is a Go module's files: go.mod and main.go holding src.
func goFiles(module, src string) map[string]string {
	return map[string]string{"go.mod": "module " + module + "\n\ngo 1.21\n", "main.go": src}
}

// goTarget is a Go module's main package holding src, debugged with
// delve.
func goTarget(name, module, src string) target {
	return target{name: name, need: needDelve, files: goFiles(module, src), program: "."}
}

// pyTarget is a Python program, file holding src, debugged with debugpy.
func pyTarget(name, file, src string) target {
	return target{name: name, need: python, files: map[string]string{"requirements.txt": "", file: src}, program: file}
}

// cTarget is a C program, file holding src, built as bin with gcc and
// debugged with lldb-dap.
func cTarget(name, bin, file, src string) target {
	return target{name: name, need: needLLDB, files: map[string]string{file: src},
		build: func(t *testing.T, cc, root string) { gcc(t, cc, root, bin, file) }, program: bin}
}

// attachStops sets a breakpoint at file:line, attaches to the server on
// port and requires the stop there.
func attachStops(t *testing.T, sv *dap.Supervisor, root string, port int, file string, line int) *reply {
	t.Helper()
	do(t, sv, "c", root, request{Op: "breakpoints", File: file, Lines: []int{line}})
	a := do(t, sv, "c", root, request{Op: "attach", Port: port})
	if a.Stop == nil || a.Stop.Line != line {
		t.Fatalf("attach should stop at the breakpoint: %s", a)
	}
	return a
}

// evaluates requires expr to evaluate to want at the current stop.
func evaluates(t *testing.T, sv *dap.Supervisor, root, expr, want string) {
	t.Helper()
	ev := do(t, sv, "c", root, request{Op: "evaluate", Expression: expr})
	if ev.Value == nil || ev.Value.Value != want {
		t.Fatalf("evaluate %s = %+v, want %s", expr, ev.Value, want)
	}
}

// logsWithoutStop requires the launch l to run to its end without
// stopping (the breakpoints are logpoints) and the session's output to hold
// each of want.
func logsWithoutStop(t *testing.T, sv *dap.Supervisor, root string, l *reply, want ...string) {
	t.Helper()
	if l.Exited == nil {
		t.Fatalf("a logpoint should not stop the program: %s", l)
	}
	out := do(t, sv, "c", root, request{Op: "output"})
	for _, w := range want {
		if !strings.Contains(out.Output, w) {
			t.Fatalf("the logpoint's messages should be in the output, %q among them: %s", w, out)
		}
	}
}

// runsToEnd continues and requires the program to run to its end, its
// output holding each of want.
func runsToEnd(t *testing.T, sv *dap.Supervisor, root string, want ...string) *reply {
	t.Helper()
	c := do(t, sv, "c", root, request{Op: "continue"})
	if c.Exited == nil {
		t.Fatalf("continue should run the program to its end: %s", c)
	}
	for _, w := range want {
		if !strings.Contains(c.Exited.Output, w) {
			t.Fatalf("the program's output should hold %q: %s", w, c)
		}
	}
	return c
}

// refused requires err to be a refusal whose text holds each of want; what
// names the call refused.
func refused(t *testing.T, err error, what string, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s should be refused", what)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Fatalf("%s should be refused saying %q: %v", what, w, err)
		}
	}
}

// withoutNetwork has the sandbox give the processes started until the test
// ends no network, or skips the test where the sandbox cannot.
func withoutNetwork(t *testing.T) {
	t.Helper()
	st := proc.SandboxStatus()
	if !st.Available() || !st.NetConfined() {
		t.Skip("the sandbox cannot confine the network here")
	}
	prev := st.Options()
	t.Cleanup(func() { proc.Configure(prev) })
	o := prev
	o.Net = map[proc.Family]bool{}
	proc.Configure(o)
}

// awaitEnded polls status until the program's end has freed the session
// (a program that ends while no op waits for it), and returns that status.
func awaitEnded(t *testing.T, sv *dap.Supervisor, root string) *reply {
	t.Helper()
	var st *reply
	for i := 0; i < 1200; i++ {
		if st = do(t, sv, "c", root, request{Op: "status"}); st.Session == "" {
			return st
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the session is still live after its program ended: %s", st)
	return nil
}
