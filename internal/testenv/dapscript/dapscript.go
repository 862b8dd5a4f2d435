// Package dapscript is a scripted debug adapter for tests: fault
// injection beside the real adapters. A test binary that calls Main from
// an init function becomes the adapter when started with Arg: "Arg tcp
// PORT" serves every connection on 127.0.0.1:PORT, "Arg stdio" one on
// stdin and stdout. Its launch makes the reverse requests a js-debug-like
// adapter makes: runInTerminal for the program (and one outside the
// project, which must be refused), an unknown one, and startDebugging for
// a child session that stops at entry. It imports only the standard
// library.
package dapscript

import "bufio"
import "encoding/json"
import "fmt"
import "io"
import "net"
import "os"
import "path/filepath"
import "strconv"
import "strings"
import "sync"
import "time"

// Arg is the first argument that makes a test binary the adapter.
const Arg = "__scripted-dap"

// Main runs the adapter and exits when the process was started with Arg;
// otherwise it returns at once. Call it from an init function of a test.
func Main() {
	if len(os.Args) < 3 || os.Args[1] != Arg {
		return
	}
	// Never outlive a test that forgot it.
	time.AfterFunc(5*time.Minute, func() { os.Exit(2) })
	switch os.Args[2] {
	case "stdio":
		Serve(struct {
			io.Reader
			io.Writer
		}{os.Stdin, os.Stdout})
	case "tcp":
		l, err := net.Listen("tcp", "127.0.0.1:"+os.Args[3])
		if err != nil {
			fmt.Fprintln(os.Stderr, "scripted adapter:", err)
			os.Exit(1)
		}
		for {
			c, err := l.Accept()
			if err != nil {
				os.Exit(1)
			}
			go Serve(c)
		}
	}
	os.Exit(0)
}

// Listen serves the adapter in this process, as an adapter that already
// runs, until the test ends; it returns its address.
func Listen(t interface {
	Cleanup(func())
	Fatal(...any)
}) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go Serve(c)
		}
	}()
	return l.Addr().String()
}

// scripted is one connection of the scripted adapter.
type scripted struct {
	w       io.Writer
	wmu     sync.Mutex
	seq     int
	mu      sync.Mutex
	pending map[int]chan map[string]any
	child   bool
	reverse bool // the client said it serves runInTerminal and startDebugging
}

// Serve serves one connection.
func Serve(rw io.ReadWriter) {
	s := &scripted{w: rw, pending: map[int]chan map[string]any{}}
	r := bufio.NewReader(rw)
	for {
		data, err := readMessage(r)
		if err != nil {
			if c, ok := rw.(io.Closer); ok {
				c.Close()
			}
			return
		}
		var m map[string]any
		if json.Unmarshal(data, &m) != nil {
			continue
		}
		switch m["type"] {
		case "response":
			s.mu.Lock()
			ch := s.pending[int(m["request_seq"].(float64))]
			s.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		case "request":
			go s.handle(m)
		}
	}
}

func (s *scripted) send(m map[string]any) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.seq++
	m["seq"] = s.seq
	b, _ := json.Marshal(m)
	_ = writeMessage(s.w, b)
}

func (s *scripted) event(name string, body any) {
	s.send(map[string]any{"type": "event", "event": name, "body": body})
}

func (s *scripted) output(text string) {
	s.event("output", map[string]any{"category": "stdout", "output": text})
}

// ask makes a reverse request and waits (bounded) for its response.
func (s *scripted) ask(command string, args any) map[string]any {
	ch := make(chan map[string]any, 1)
	s.wmu.Lock()
	s.seq++
	seq := s.seq
	s.mu.Lock()
	s.pending[seq] = ch
	s.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"seq": seq, "type": "request", "command": command, "arguments": args})
	_ = writeMessage(s.w, b)
	s.wmu.Unlock()
	select {
	case m := <-ch:
		return m
	case <-time.After(time.Minute):
		return map[string]any{"success": false, "message": "no answer within a minute"}
	}
}

func (s *scripted) handle(req map[string]any) {
	cmd, _ := req["command"].(string)
	args, _ := req["arguments"].(map[string]any)
	reply := func(body any) {
		s.send(map[string]any{"type": "response", "request_seq": req["seq"], "command": cmd, "success": true, "body": body})
	}
	refuse := func(msg string) {
		s.send(map[string]any{"type": "response", "request_seq": req["seq"], "command": cmd, "success": false, "message": msg})
	}
	switch cmd {
	case "initialize":
		s.reverse = args["supportsRunInTerminalRequest"] == true && args["supportsStartDebuggingRequest"] == true
		reply(map[string]any{"supportsConfigurationDoneRequest": true, "supportsLoadedSourcesRequest": true})
	case "launch":
		if args["__child"] == true {
			s.child = true
			s.event("initialized", nil)
			reply(nil)
			return
		}
		if !s.reverse {
			refuse("the client does not serve runInTerminal and startDebugging")
			return
		}
		cwd, _ := args["cwd"].(string)
		r := s.ask("runInTerminal", map[string]any{"kind": "integrated", "cwd": cwd, "title": "scripted program",
			"args": []string{"/bin/sh", "-c", "echo terminal says $GREETING; exec sleep 600"}, "env": map[string]any{"GREETING": "hi"}})
		if r["success"] == true {
			body, _ := r["body"].(map[string]any)
			s.output(fmt.Sprintf("runInTerminal pid %v\n", body["processId"]))
		} else {
			s.output(fmt.Sprintf("runInTerminal refused: %v\n", r["message"]))
		}
		r = s.ask("runInTerminal", map[string]any{"kind": "integrated", "cwd": "/", "args": []string{"/bin/true"}})
		s.output(fmt.Sprintf("runInTerminal in / answered success=%v: %v\n", r["success"], r["message"]))
		r = s.ask("frobnicate", map[string]any{})
		s.output(fmt.Sprintf("frobnicate answered success=%v: %v\n", r["success"], r["message"]))
		r = s.ask("startDebugging", map[string]any{"request": "launch", "configuration": map[string]any{"name": "scripted child", "__child": true}})
		s.output(fmt.Sprintf("startDebugging answered success=%v %v\n", r["success"], r["message"]))
		s.event("initialized", nil)
		reply(nil)
	case "configurationDone":
		reply(nil)
		if s.child {
			s.event("stopped", map[string]any{"reason": "entry", "threadId": 7, "allThreadsStopped": true})
		}
	case "setBreakpoints":
		var bps []any
		list, _ := args["breakpoints"].([]any)
		for _, b := range list {
			bp := b.(map[string]any)
			bps = append(bps, map[string]any{"verified": true, "line": bp["line"]})
		}
		// Said before the answer: the client has it when the answer comes.
		if s.child {
			src, _ := args["source"].(map[string]any)
			s.output(fmt.Sprintf("child setBreakpoints %v %d\n", filepath.Base(fmt.Sprint(src["path"])), len(bps)))
		}
		reply(map[string]any{"breakpoints": bps})
	case "setExceptionBreakpoints", "setFunctionBreakpoints":
		if s.child {
			s.output(fmt.Sprintf("child %s %v\n", cmd, args["filters"]))
		}
		reply(map[string]any{"breakpoints": []any{}})
	case "threads":
		if s.child {
			reply(map[string]any{"threads": []any{map[string]any{"id": 7, "name": "child main"}}})
		} else {
			reply(map[string]any{"threads": []any{map[string]any{"id": 1, "name": "parent main"}}})
		}
	case "stackTrace":
		if !s.child {
			refuse("the parent has no stopped thread")
			return
		}
		cwd, _ := os.Getwd()
		reply(map[string]any{"totalFrames": 1, "stackFrames": []any{map[string]any{"id": 1001, "name": "childMain", "line": 2, "column": 1,
			"source": map[string]any{"name": "child.txt", "path": filepath.Join(cwd, "child.txt")}}}})
	case "scopes":
		reply(map[string]any{"scopes": []any{map[string]any{"name": "Locals", "variablesReference": 5}}})
	case "variables":
		reply(map[string]any{"variables": []any{map[string]any{"name": "answer", "value": "42", "variablesReference": 0}}})
	case "evaluate":
		reply(map[string]any{"result": "child says " + fmt.Sprint(args["expression"]), "variablesReference": 0})
	case "continue":
		reply(map[string]any{"allThreadsContinued": true})
		if s.child {
			s.event("continued", map[string]any{"threadId": 7})
			s.output("child continued\n")
			s.event("exited", map[string]any{"exitCode": 3})
			s.event("terminated", nil)
		}
	case "loadedSources":
		var srcs []any
		for i := 0; i < 120; i++ {
			srcs = append(srcs, map[string]any{"name": fmt.Sprintf("s%d.js", i), "path": fmt.Sprintf("/src/s%d.js", i)})
		}
		reply(map[string]any{"sources": srcs})
	case "disconnect":
		reply(nil)
	default:
		refuse("the scripted adapter has no " + strconv.Quote(cmd))
	}
}

// readMessage reads one message of the DAP base protocol: headers, a
// blank line, then Content-Length bytes.
func readMessage(r *bufio.Reader) ([]byte, error) {
	n := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
			if n, err = strconv.Atoi(strings.TrimSpace(v)); err != nil {
				return nil, err
			}
		}
	}
	if n < 0 || n > 16<<20 {
		return nil, fmt.Errorf("dapscript: bad Content-Length %d", n)
	}
	b := make([]byte, n)
	_, err := io.ReadFull(r, b)
	return b, err
}

func writeMessage(w io.Writer, b []byte) error {
	_, err := fmt.Fprintf(w, "Content-Length: %d\r\n\r\n%s", len(b), b)
	return err
}
