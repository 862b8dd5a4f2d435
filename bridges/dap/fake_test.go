package dap_test

import "bufio"
import "context"
import "fmt"
import "io"
import "net"
import "strings"
import "testing"
import "time"

import godap "github.com/google/go-dap"

import "github.com/tetherhq/tether/bridges/dap"
import "github.com/tetherhq/tether/internal/testenv"

// fakeAdapter is an in-process DAP adapter over net.Pipe for fault
// injection, in addition to the real adapters the other tests drive.
type fakeAdapter struct {
	file        string
	failLaunch  string // answer launch with this error
	noInit      bool   // never send the initialized event
	crashOn     string // close the connection when this command arrives
	nVars       int
	hangOn      string   // never answer this command
	cancelled   chan int // receives the requestId of each cancel request
	nFrames     int
	outputBytes int    // output sent after configurationDone
	topFile     string // the top frame's source path, when not file
}

func (f *fakeAdapter) serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	seq := 0
	resp := func(req *godap.Request) godap.Response {
		return godap.Response{ProtocolMessage: godap.ProtocolMessage{Seq: seq + 1, Type: "response"},
			RequestSeq: req.Seq, Success: true, Command: req.Command}
	}
	event := func(name string) godap.Event {
		seq++
		return godap.Event{ProtocolMessage: godap.ProtocolMessage{Seq: seq, Type: "event"}, Event: name}
	}
	stopped := func(reason string) {
		_ = godap.WriteProtocolMessage(c, &godap.StoppedEvent{Event: event("stopped"),
			Body: godap.StoppedEventBody{Reason: reason, ThreadId: 1, AllThreadsStopped: true}})
	}
	for {
		msg, err := godap.ReadProtocolMessage(r)
		if err != nil {
			return
		}
		req := msg.(godap.RequestMessage).GetRequest()
		if req.Command == f.crashOn {
			return
		}
		if req.Command == f.hangOn {
			continue
		}
		if m, ok := msg.(*godap.CancelRequest); ok && f.cancelled != nil && m.Arguments != nil {
			f.cancelled <- m.Arguments.RequestId
		}
		switch m := msg.(type) {
		case *godap.InitializeRequest:
			_ = godap.WriteProtocolMessage(c, &godap.InitializeResponse{Response: resp(req),
				Body: godap.Capabilities{SupportsConfigurationDoneRequest: true}})
			seq++
		case *godap.LaunchRequest:
			if f.failLaunch != "" {
				r := resp(req)
				r.Success = false
				r.Message = f.failLaunch
				_ = godap.WriteProtocolMessage(c, &godap.ErrorResponse{Response: r})
				seq++
				continue
			}
			if !f.noInit {
				_ = godap.WriteProtocolMessage(c, &godap.InitializedEvent{Event: event("initialized")})
			}
			_ = godap.WriteProtocolMessage(c, &godap.LaunchResponse{Response: resp(req)})
			seq++
		case *godap.SetBreakpointsRequest:
			var bps []godap.Breakpoint
			for i, b := range m.Arguments.Breakpoints {
				bps = append(bps, godap.Breakpoint{Id: i + 1, Verified: b.Line != 99, Line: b.Line,
					Message: map[bool]string{true: "no code at line 99"}[b.Line == 99]})
			}
			_ = godap.WriteProtocolMessage(c, &godap.SetBreakpointsResponse{Response: resp(req),
				Body: godap.SetBreakpointsResponseBody{Breakpoints: bps}})
			seq++
		case *godap.ConfigurationDoneRequest:
			_ = godap.WriteProtocolMessage(c, &godap.ConfigurationDoneResponse{Response: resp(req)})
			seq++
			for sent := 0; sent < f.outputBytes; sent += 1000 {
				_ = godap.WriteProtocolMessage(c, &godap.OutputEvent{Event: event("output"),
					Body: godap.OutputEventBody{Category: "stdout", Output: strings.Repeat("x", 999) + "\n"}})
			}
			stopped("breakpoint")
		case *godap.StackTraceRequest:
			top := f.file
			if f.topFile != "" {
				top = f.topFile
			}
			frames := []godap.StackFrame{{Id: 7, Name: "main", Line: 2, Source: &godap.Source{Path: top}}}
			for i := 1; i < f.nFrames; i++ {
				frames = append(frames, godap.StackFrame{Id: 7 + i, Name: fmt.Sprintf("caller%d", i), Line: 1,
					Source: &godap.Source{Path: f.file}})
			}
			total := len(frames)
			frames = frames[min(m.Arguments.StartFrame, len(frames)):]
			if lv := m.Arguments.Levels; lv > 0 && lv < len(frames) {
				frames = frames[:lv]
			}
			_ = godap.WriteProtocolMessage(c, &godap.StackTraceResponse{Response: resp(req),
				Body: godap.StackTraceResponseBody{TotalFrames: total, StackFrames: frames}})
			seq++
		case *godap.ThreadsRequest:
			_ = godap.WriteProtocolMessage(c, &godap.ThreadsResponse{Response: resp(req),
				Body: godap.ThreadsResponseBody{Threads: []godap.Thread{{Id: 1, Name: "main"}}}})
			seq++
		case *godap.VariablesRequest:
			var vs []godap.Variable
			for i := 0; i < f.nVars; i++ {
				val := fmt.Sprint(i)
				if i%10 == 0 {
					val = strings.Repeat("v", 1000)
				}
				vs = append(vs, godap.Variable{Name: fmt.Sprintf("v%d", i), Value: val, Type: "int"})
			}
			_ = godap.WriteProtocolMessage(c, &godap.VariablesResponse{Response: resp(req),
				Body: godap.VariablesResponseBody{Variables: vs}})
			seq++
		case *godap.DisconnectRequest:
			_ = godap.WriteProtocolMessage(c, &godap.DisconnectResponse{Response: resp(req)})
			return
		default:
			r := resp(req)
			_ = godap.WriteProtocolMessage(c, &r)
			seq++
		}
	}
}

func fakeSupervisor(t *testing.T, f *fakeAdapter, cfg dap.Config) (*dap.Supervisor, string) {
	// 102 lines: the fake adapter finds "no code" at line 99.
	root := testenv.Workspace(t, map[string]string{"prog.fake": "line one\nline two\n" + strings.Repeat("\n", 100)})
	f.file = root + "/prog.fake"
	cfg.Adapters = []dap.Adapter{{
		ID: "fake", Markers: []string{"*.fake"}, Extensions: []string{".fake"},
		Commands: [][]string{{"/bin/sh"}}, // found, never started: the connector stands in
		Launch:   map[string]any{"program": "${program}"},
	}}
	cfg = dap.WithConnector(cfg, func() io.ReadWriteCloser {
		client, server := net.Pipe()
		go f.serve(server)
		return client
	})
	sv := dap.NewSupervisor(cfg)
	t.Cleanup(func() { sv.Close() })
	return sv, root
}

func TestFakeVariablesBounded(t *testing.T) {
	sv, root := fakeSupervisor(t, &fakeAdapter{nVars: 120}, dap.Config{})
	do(t, sv, "c", root, request{Op: "breakpoints", File: "prog.fake", Lines: []int{2, 99}})
	l := do(t, sv, "c", root, request{Op: "launch", Program: "prog.fake"})
	if l.Stop == nil || l.Stop.Source != "line two" {
		t.Fatalf("stop: %+v", l.Stop)
	}
	if len(l.Breakpoints) != 2 || !l.Breakpoints[0].Verified || l.Breakpoints[1].Verified ||
		l.Breakpoints[1].Message != "no code at line 99" {
		t.Fatalf("breakpoints: %+v\n%s", l.Breakpoints, l)
	}
	v := do(t, sv, "c", root, request{Op: "variables", Reference: 1})
	if len(v.Variables) != dap.MaxVariables {
		t.Fatalf("%d variables returned, want %d", len(v.Variables), dap.MaxVariables)
	}
	if !isPage(v, false, 0, 50, 120, 50) {
		t.Fatal(v)
	}
	cut := 0
	for _, x := range v.Variables {
		if x.Cut {
			cut++
		}
	}
	if cut != 5 {
		t.Fatalf("%d values cut, want 5:\n%s", cut, v)
	}
	if !v.Variables[0].Cut || len(v.Variables[0].Value) > dap.MaxValueLen+60 {
		t.Fatalf("value not cut: %d chars", len(v.Variables[0].Value))
	}
}

func TestFakeStackBounded(t *testing.T) {
	sv, root := fakeSupervisor(t, &fakeAdapter{nFrames: 45}, dap.Config{})
	l := do(t, sv, "c", root, request{Op: "launch", Program: "prog.fake"})
	if l.Stop == nil || len(l.Stop.Frames) != 5 {
		t.Fatalf("a stop carries the top 5 frames: %+v", l.Stop)
	}
	st := do(t, sv, "c", root, request{Op: "stack"})
	if len(st.Frames) != dap.MaxStackFrames || st.Stack.Total != 45 || !st.Stack.Exact {
		t.Fatalf("%d frames:\n%s", len(st.Frames), st)
	}
}

func TestFakeAdapterCrash(t *testing.T) {
	sv, root := fakeSupervisor(t, &fakeAdapter{crashOn: "continue"}, dap.Config{})
	do(t, sv, "c", root, request{Op: "launch", Program: "prog.fake"})
	msg := doErr(t, sv, "c", root, request{Op: "continue"})
	if !strings.HasPrefix(msg, "debug: ") || !strings.Contains(msg, "went away") {
		t.Fatal(msg)
	}
	st := do(t, sv, "c", root, request{Op: "status"})
	if st.Session != "" || !strings.Contains(st.Status.Ended, "went away") {
		t.Fatal(st)
	}
	// The slot is free again.
	do(t, sv, "c", root, request{Op: "launch", Program: "prog.fake"})
}

func TestFakeLaunchFailure(t *testing.T) {
	sv, root := fakeSupervisor(t, &fakeAdapter{failLaunch: "could not build: syntax error"}, dap.Config{})
	msg := doErr(t, sv, "c", root, request{Op: "launch", Program: "prog.fake"})
	if !strings.HasPrefix(msg, "debug: ") || !strings.Contains(msg, "could not build: syntax error") {
		t.Fatal(msg)
	}
	do(t, sv, "c", root, request{Op: "status"})
}

func TestFakeNoInitialized(t *testing.T) {
	sv, root := fakeSupervisor(t, &fakeAdapter{noInit: true}, dap.Config{StartTimeout: 300 * time.Millisecond})
	msg := doErr(t, sv, "c", root, request{Op: "launch", Program: "prog.fake"})
	if !strings.Contains(msg, "initialized") {
		t.Fatal(msg)
	}
}

func TestFakeOutputCut(t *testing.T) {
	sv, root := fakeSupervisor(t, &fakeAdapter{outputBytes: 20000}, dap.Config{OutputLimit: 4096})
	do(t, sv, "c", root, request{Op: "launch", Program: "prog.fake"})
	out := do(t, sv, "c", root, request{Op: "output"})
	// The cut lands at the start of a line: a little under the limit kept.
	kept, dropped := out.Out.Bytes, out.Out.Dropped
	if kept > 4096 || kept < 4096-1000 || kept+dropped != 20000 || !strings.HasPrefix(out.Output, "--- stdout ---\nx") {
		t.Fatalf("kept %d, dropped %d:\n%s", kept, dropped, out)
	}
}

func TestFakeBadRequests(t *testing.T) {
	sv, root := fakeSupervisor(t, &fakeAdapter{}, dap.Config{})
	for _, tc := range []struct {
		req  request
		want string
	}{
		{request{Op: "stack"}, "no debug session is running"},
		{request{Op: "launch"}, "launch needs program"},
		{request{Op: "launch", Program: "missing.fake"}, "does not exist"},
		{request{Op: "attach"}, "attach needs pid (a running process) or port"},
		{request{Op: "attach", PID: -2}, "is not a process id"},
		{request{Op: "attach", PID: 1 << 30}, "no process has pid"},
		{request{Op: "breakpoints", File: "nope.fake", Lines: []int{1}}, "is not a file"},
		{request{Op: "breakpoints", File: "prog.fake", Lines: []int{0}}, "1-based"},
		{request{Op: "breakpoints", File: "prog.fake", Lines: []int{1, 100000}}, "line 100000 is past the end of prog.fake"},
	} {
		t.Run(tc.req.Op, func(t *testing.T) {
			msg := doErr(t, sv, "c", root, tc.req)
			if !strings.HasPrefix(msg, "debug: ") || !strings.Contains(msg, tc.want) {
				t.Fatalf("got %q, want %q", msg, tc.want)
			}
		})
	}
}

// TestFakeHammer drives many conversations at once, and concurrent calls in
// one conversation, under -race: sessions stay separate and calls serialize.
func TestFakeHammer(t *testing.T) {
	sv, root := fakeSupervisor(t, &fakeAdapter{nVars: 3, nFrames: 3}, dap.Config{})
	done := make(chan error)
	const convs = 6
	for i := 0; i < convs; i++ {
		go func(conv string) {
			ctx := context.Background()
			var err error
			step := func(req request) {
				if err == nil {
					_, err = call(sv, ctx, conv, root, req)
				}
			}
			step(request{Op: "breakpoints", File: "prog.fake", Lines: []int{2}})
			step(request{Op: "launch", Program: "prog.fake"})
			// Concurrent calls within the conversation.
			inner := make(chan error)
			for j := 0; j < 4; j++ {
				go func() {
					_, e := call(sv, ctx, conv, root, request{Op: "variables", Reference: 1})
					if e == nil {
						_, e = call(sv, ctx, conv, root, request{Op: "stack"})
					}
					inner <- e
				}()
			}
			for j := 0; j < 4; j++ {
				if e := <-inner; e != nil && err == nil {
					err = e
				}
			}
			step(request{Op: "status"})
			step(request{Op: "terminate"})
			done <- err
		}(fmt.Sprint("conv-", i))
	}
	for i := 0; i < convs; i++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

// TestFakeRequestTimeout: an adapter that never answers a request gets a DAP
// cancel for it, the call says what to do, and the session stays usable.
func TestFakeRequestTimeout(t *testing.T) {
	f := &fakeAdapter{hangOn: "evaluate", cancelled: make(chan int, 4)}
	sv, root := fakeSupervisor(t, f, dap.Config{RequestTimeout: 200 * time.Millisecond})
	do(t, sv, "c", root, request{Op: "launch", Program: "prog.fake"})
	msg := doErr(t, sv, "c", root, request{Op: "evaluate", Expression: "1+1", FrameID: 7})
	if !strings.Contains(msg, "debug: evaluate: no answer from the adapter within 200ms") || !strings.Contains(msg, "terminate") {
		t.Fatal(msg)
	}
	select {
	case id := <-f.cancelled:
		if id <= 0 {
			t.Fatalf("cancel for request %d", id)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the adapter never received a cancel request")
	}
	do(t, sv, "c", root, request{Op: "stack"})
}

// TestFakeTerminateForgets: Terminate (Run.Close) ends the session and drops
// the conversation's state; another conversation is untouched.
func TestFakeTerminateForgets(t *testing.T) {
	sv, root := fakeSupervisor(t, &fakeAdapter{}, dap.Config{})
	do(t, sv, "a", root, request{Op: "breakpoints", File: "prog.fake", Lines: []int{2}})
	do(t, sv, "a", root, request{Op: "launch", Program: "prog.fake"})
	do(t, sv, "b", root, request{Op: "launch", Program: "prog.fake"})
	sv.Forget("a")
	st := do(t, sv, "a", root, request{Op: "status"})
	if *st.Status != (dap.Status{}) {
		t.Fatalf("a forgotten conversation starts clean: %q", st)
	}
	if st := do(t, sv, "b", root, request{Op: "status"}); !strings.HasPrefix(st.Session, "fake session") {
		t.Fatalf("conversation b should keep its session: %s", st)
	}
}
