package nodeadapter_test

import "bufio"
import "encoding/json"
import "net"
import "os"
import "path/filepath"
import "strings"
import "testing"
import "time"

import godap "github.com/google/go-dap"
import "github.com/tetherhq/tether/bridges/dap/internal/nodeadapter"
import "github.com/tetherhq/tether/internal/testenv"

// client is a DAP client over one end of a net.Pipe whose other end Serve
// answers: requests in order, events gathered as they come.
type client struct {
	t      *testing.T
	conn   net.Conn
	msgs   chan godap.Message
	seq    int
	events []godap.EventMessage
}

func newClient(t *testing.T, cfg nodeadapter.Config) *client {
	ours, theirs := net.Pipe()
	done := make(chan struct{})
	go func() { nodeadapter.Serve(theirs, cfg); close(done) }()
	c := &client{t: t, conn: ours, msgs: make(chan godap.Message, 256)}
	go func() {
		defer close(c.msgs)
		r := bufio.NewReader(ours)
		for {
			data, err := godap.ReadBaseMessage(r)
			if err != nil {
				return
			}
			var m godap.Message
			if m, err = godap.DecodeProtocolMessage(data); err != nil {
				t.Errorf("the adapter sent %s: %v", data, err)
				continue
			}
			c.msgs <- m
		}
	}()
	t.Cleanup(func() {
		_ = ours.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("Serve did not return after its connection closed")
		}
	})
	return c
}

// next is the next message, within a bound.
func (c *client) next() godap.Message {
	c.t.Helper()
	select {
	case m, ok := <-c.msgs:
		if !ok {
			c.t.Fatal("the adapter closed the connection")
		}
		return m
	case <-time.After(30 * time.Second):
		c.t.Fatal("no message from the adapter within 30s")
	}
	return nil
}

// call sends a request (command and arguments as JSON) and returns its
// response, keeping the events that came first.
func (c *client) call(command string, args any) godap.ResponseMessage {
	c.t.Helper()
	c.seq++
	req := map[string]any{"seq": c.seq, "type": "request", "command": command}
	if args != nil {
		req["arguments"] = args
	}
	data, _ := json.Marshal(req)
	if err := godap.WriteBaseMessage(c.conn, data); err != nil {
		c.t.Fatal(err)
	}
	for {
		switch m := c.next().(type) {
		case godap.ResponseMessage:
			if r := m.GetResponse(); r.RequestSeq != c.seq || r.Command != command {
				c.t.Fatalf("response %+v to request %d %s", r, c.seq, command)
			}
			return m
		case godap.EventMessage:
			c.events = append(c.events, m)
		}
	}
}

// ok is call for a request that must succeed.
func (c *client) ok(command string, args any) godap.ResponseMessage {
	c.t.Helper()
	r := c.call(command, args)
	if !r.GetResponse().Success {
		c.t.Fatalf("%s failed: %s", command, r.GetResponse().Message)
	}
	return r
}

// waitEvent returns the first event called name, kept or still to come.
func (c *client) waitEvent(name string) godap.EventMessage {
	c.t.Helper()
	for i, e := range c.events {
		if e.GetEvent().Event == name {
			c.events = append(c.events[:i:i], c.events[i+1:]...)
			return e
		}
	}
	for {
		if e, ok := c.next().(godap.EventMessage); ok {
			if e.GetEvent().Event == name {
				return e
			}
			c.events = append(c.events, e)
		}
	}
}

// output is the program output the kept events carry.
func (c *client) output() string {
	var b strings.Builder
	for _, e := range c.events {
		if o, ok := e.(*godap.OutputEvent); ok {
			b.WriteString(o.Body.Output)
		}
	}
	return b.String()
}

// TestServeRefuses: before any program runs, the adapter states what it
// offers and answers what it does not serve with an error, named.
func TestServeRefuses(t *testing.T) {
	c := newClient(t, nodeadapter.Config{Node: "node", Root: t.TempDir(), Scratch: t.TempDir()})
	caps := c.ok("initialize", map[string]any{"adapterID": "node"}).(*godap.InitializeResponse).Body
	if !caps.SupportsConfigurationDoneRequest || !caps.SupportsLogPoints || !caps.SupportsFunctionBreakpoints || len(caps.ExceptionBreakpointFilters) != 2 ||
		caps.ExceptionBreakpointFilters[0].Filter != "uncaught" || !caps.ExceptionBreakpointFilters[0].Default {
		t.Fatalf("capabilities %+v", caps)
	}
	for _, tc := range []struct {
		command string
		args    any
		want    string
	}{
		{"attach", map[string]any{}, "attach needs a port"},
		// The test binary is no node: SIGUSR1 would end it.
		{"attach", map[string]any{"processId": os.Getpid()}, "not node"},
		{"setVariable", map[string]any{"variablesReference": 1, "name": "x", "value": "1"}, "does not serve setVariable"},
		{"frobnicate", nil, "does not serve frobnicate"},
		{"stackTrace", map[string]any{"threadId": 2}, "unknown thread 2"},
		{"stackTrace", map[string]any{"threadId": "one"}, "the arguments of stackTrace do not decode"},
		{"launch", map[string]any{}, "launch needs program"},
	} {
		r := c.call(tc.command, tc.args).GetResponse()
		if r.Success || !strings.Contains(r.Message, tc.want) {
			t.Errorf("%s: success %v, message %q; want a failure saying %q", tc.command, r.Success, r.Message, tc.want)
		}
	}
}

const program = `function add(a, b) {
  const sum = a + b;
  return sum;
}

console.log("sum", add(2, 3));
`

// TestServeLaunch: a launched program stops at a line breakpoint and shows
// its stack, scopes, variables and an evaluation in the frame, then runs to
// its end with its output, exit code and the end of the session.
func TestServeLaunch(t *testing.T) {
	node := testenv.RequireBinary(t, "node")
	root := testenv.Workspace(t, map[string]string{"add.js": program})
	file := filepath.Join(root, "add.js")
	c := newClient(t, nodeadapter.Config{Node: node, Root: root, Scratch: t.TempDir()})
	c.ok("initialize", map[string]any{"adapterID": "node"})
	c.ok("launch", map[string]any{"program": file})
	c.waitEvent("initialized")
	if p := c.waitEvent("process").(*godap.ProcessEvent); p.Body.SystemProcessId <= 0 || p.Body.Name != file {
		t.Fatalf("process event %+v", p.Body)
	}
	bps := c.ok("setBreakpoints", map[string]any{"source": map[string]any{"path": file}, "breakpoints": []any{map[string]any{"line": 3}}}).(*godap.SetBreakpointsResponse)
	if len(bps.Body.Breakpoints) != 1 || !bps.Body.Breakpoints[0].Verified {
		t.Fatalf("breakpoints %+v", bps.Body.Breakpoints)
	}
	c.ok("setExceptionBreakpoints", map[string]any{"filters": []string{"uncaught"}})
	c.ok("configurationDone", nil)
	stop := c.waitEvent("stopped").(*godap.StoppedEvent).Body
	if stop.Reason != "breakpoint" || stop.ThreadId != 1 || len(stop.HitBreakpointIds) != 1 || stop.HitBreakpointIds[0] != bps.Body.Breakpoints[0].Id {
		t.Fatalf("stopped %+v", stop)
	}
	if th := c.ok("threads", nil).(*godap.ThreadsResponse).Body.Threads; len(th) != 1 || th[0].Id != 1 {
		t.Fatalf("threads %+v", th)
	}
	st := c.ok("stackTrace", map[string]any{"threadId": 1, "levels": 1}).(*godap.StackTraceResponse).Body
	if len(st.StackFrames) != 1 || st.StackFrames[0].Name != "add" || st.StackFrames[0].Line != 3 || st.StackFrames[0].Source.Path != file || st.TotalFrames < 2 {
		t.Fatalf("stack %+v", st)
	}
	frame := st.StackFrames[0].Id
	scopes := c.ok("scopes", map[string]any{"frameId": frame}).(*godap.ScopesResponse).Body.Scopes
	if len(scopes) == 0 || scopes[0].Name != "Local" || scopes[0].VariablesReference == 0 {
		t.Fatalf("scopes %+v", scopes)
	}
	vars := c.ok("variables", map[string]any{"variablesReference": scopes[0].VariablesReference}).(*godap.VariablesResponse).Body.Variables
	got := map[string]string{}
	for _, v := range vars {
		got[v.Name] = v.Value
	}
	if got["sum"] != "5" {
		t.Fatalf("variables %+v", vars)
	}
	if ev := c.ok("evaluate", map[string]any{"expression": "sum * a", "frameId": frame}).(*godap.EvaluateResponse).Body; ev.Result != "10" || ev.Type != "number" {
		t.Fatalf("evaluate %+v", ev)
	}
	if r := c.call("evaluate", map[string]any{"expression": "nope(", "frameId": frame}).GetResponse(); r.Success || !strings.Contains(r.Message, "SyntaxError") {
		t.Fatalf("a bad expression: %+v", r)
	}
	c.ok("continue", map[string]any{"threadId": 1})
	if ex := c.waitEvent("exited").(*godap.ExitedEvent); ex.Body.ExitCode != 0 {
		t.Fatalf("exit code %d", ex.Body.ExitCode)
	}
	c.waitEvent("terminated")
	if out := c.output(); !strings.Contains(out, "sum 5\n") {
		t.Fatalf("output %q", out)
	}
}

// TestOutputBeforeStop: what the program printed before a debugger
// statement, on stdout and stderr, arrives before the stopped event,
// every time. (Node writes to a pipe what fits and queues the rest for its
// event loop, which a pause holds: the output stays under a pipe's 64 kB.)
func TestOutputBeforeStop(t *testing.T) {
	node := testenv.RequireBinary(t, "node")
	root := testenv.Workspace(t, map[string]string{"late.js": `process.stdout.write("x".repeat(40000) + "\n");
console.error("to stderr");
console.log("last words");
debugger;
`})
	file := filepath.Join(root, "late.js")
	for i := range 5 {
		c := newClient(t, nodeadapter.Config{Node: node, Root: root, Scratch: t.TempDir()})
		c.ok("initialize", map[string]any{"adapterID": "node"})
		c.ok("launch", map[string]any{"program": file})
		c.waitEvent("initialized")
		c.ok("configurationDone", nil)
		c.waitEvent("stopped")
		var stdout, stderr strings.Builder
		for _, e := range c.events {
			if o, ok := e.(*godap.OutputEvent); ok && o.Body.Category == "stderr" {
				stderr.WriteString(o.Body.Output)
			} else if ok {
				stdout.WriteString(o.Body.Output)
			}
		}
		if n := strings.Count(stdout.String(), "x"); n != 40000 || !strings.HasSuffix(stdout.String(), "last words\n") {
			t.Fatalf("run %d: stdout before the stop: %d x's, ends %q", i, n, stdout.String()[max(0, stdout.Len()-20):])
		}
		if stderr.String() != "to stderr\n" {
			t.Fatalf("run %d: stderr before the stop: %q", i, stderr.String())
		}
		c.ok("disconnect", nil)
	}
}
