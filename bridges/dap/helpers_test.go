package dap_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tetherhq/tether/bridges/dap"
	"github.com/tetherhq/tether/internal/testenv"
)

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
	var v any
	switch {
	case r.Status != nil:
		v = r.Status
	case r.Started != nil:
		v = r.Started
	case r.Outcome != nil:
		v = r.Outcome
	case r.ThreadList != nil:
		v = r.ThreadList
	case r.Stack != nil:
		v = r.Stack
	case r.Vars != nil:
		v = r.Vars
	case r.Out != nil:
		v = r.Out
	case r.Terminated != nil:
		v = r.Terminated
	case r.Set != nil:
		v = r.Set
	case r.Value != nil:
		v = r.Value
	case r.Scopes != nil:
		v = r.Scopes
	default:
		v = r.Adapters
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
		r.Set, err = sv.SetBreakpoints(ctx, conv, root, req.File, req.Lines)
		if err == nil {
			r.Breakpoints = r.Set.States
		}
	case "launch", "attach":
		if req.Op == "launch" {
			r.Started, err = sv.Launch(ctx, conv, root, dap.LaunchArgs{Program: req.Program, Args: req.Args, Adapter: req.Adapter, Test: req.Test})
		} else {
			r.Started, err = sv.Attach(ctx, conv, root, dap.AttachArgs{Port: req.Port, Adapter: req.Adapter})
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

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	// Resolve symlinks so adapter-reported paths compare equal.
	dir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// procsIn lists live processes whose cwd or command line is inside dir.
func procsIn(dir string) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		pid := e.Name()
		if pid[0] < '0' || pid[0] > '9' {
			continue
		}
		stat, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil {
			continue
		}
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 && len(stat) > i+2 && (stat[i+2] == 'Z' || stat[i+2] == 'X') {
			continue
		}
		cwd, _ := os.Readlink("/proc/" + pid + "/cwd")
		cmd, _ := os.ReadFile("/proc/" + pid + "/cmdline")
		cmdline := strings.ReplaceAll(string(cmd), "\x00", " ")
		if cwd == dir || strings.HasPrefix(cwd, dir+"/") || strings.Contains(cmdline, dir) {
			out = append(out, pid+" "+cmdline)
		}
	}
	return out
}

// requireNoProcs fails when a process is still running in dir. Killed
// processes can take a moment to leave the table; that is polled, not timed.
func requireNoProcs(t *testing.T, dir string) {
	t.Helper()
	var left []string
	for i := 0; i < 100; i++ {
		if left = procsIn(dir); len(left) == 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("processes left behind in %s:\n%s", dir, strings.Join(left, "\n"))
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

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
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
