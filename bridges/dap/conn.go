package dap

import "bufio"
import "context"
import "encoding/json"
import "errors"
import "fmt"
import "io"
import "strings"
import "sync"
import "time"

import godap "github.com/google/go-dap"

// conn is the protocol layer: DAP base-protocol framing (go-dap's reader and
// writer) plus request/response correlation by sequence number. Responses are
// kept raw and decoded by the caller into the go-dap type it expects, so an
// adapter's extension events or unusual bodies never break the read loop.
type conn struct {
	rwc io.ReadWriteCloser
	r   *bufio.Reader

	wmu sync.Mutex // serializes writes and seq allocation
	seq int

	mu      sync.Mutex
	pending map[int]chan rawMessage
	closed  bool
	err     error // why the read loop ended

	// timeout, when set, bounds how long call waits for one response.
	timeout time.Duration

	onEvent func(name string, body json.RawMessage)
	// onRequest serves a reverse request the adapter sent (runInTerminal,
	// startDebugging): the response's body, or why it is refused. It runs
	// on a goroutine of its own, so it may make requests itself.
	onRequest func(command string, args json.RawMessage) (any, error)
	done      chan struct{}
}

// rawMessage is the header of any DAP message plus its raw bytes.
type rawMessage struct {
	Seq        int             `json:"seq"`
	Type       string          `json:"type"`
	Command    string          `json:"command"`
	Event      string          `json:"event"`
	RequestSeq int             `json:"request_seq"`
	Success    bool            `json:"success"`
	Message    string          `json:"message"`
	Body       json.RawMessage `json:"body"`
	data       []byte
}

// errClosed is returned by requests once the connection has gone away.
var errClosed = errors.New("dap: connection to the adapter is closed")

func newConn(rwc io.ReadWriteCloser, onEvent func(string, json.RawMessage), onRequest func(string, json.RawMessage) (any, error)) *conn {
	c := &conn{
		rwc:       rwc,
		r:         bufio.NewReaderSize(rwc, 64<<10),
		pending:   map[int]chan rawMessage{},
		onEvent:   onEvent,
		onRequest: onRequest,
		done:      make(chan struct{}),
	}
	go c.readLoop()
	return c
}

func (c *conn) readLoop() {
	var err error
	defer func() {
		c.mu.Lock()
		c.closed = true
		if err == nil || errors.Is(err, io.EOF) {
			err = errClosed
		}
		c.err = err
		// done closes first, under the lock: whoever sees the connection
		// closed (a pending request's channel, or closed when sending) sees
		// done closed too, and can say the adapter went away.
		close(c.done)
		for _, ch := range c.pending {
			close(ch)
		}
		c.pending = map[int]chan rawMessage{}
		c.mu.Unlock()
	}()
	for {
		var data []byte
		data, err = readFrame(c.r, c.stray)
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrClosedPipe) {
				err = fmt.Errorf("dap: reading from the adapter: %w", err)
			}
			return
		}
		var m rawMessage
		if jerr := json.Unmarshal(data, &m); jerr != nil {
			// A frame that is not JSON: skip it, the next may be fine.
			continue
		}
		m.data = data
		switch m.Type {
		case "response":
			c.mu.Lock()
			ch := c.pending[m.RequestSeq]
			delete(c.pending, m.RequestSeq)
			c.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		case "event":
			if c.onEvent != nil {
				c.onEvent(m.Event, m.Body)
			}
		case "request":
			// A reverse request: answered on its own goroutine, so that
			// serving it (a child session's handshake) never stalls this
			// loop; one tether does not serve is refused, never left
			// unanswered.
			go c.serveReverse(m)
		}
	}
}

// stray passes a line the adapter wrote outside any frame on as the
// adapter's console output, so that nothing it wrote is lost.
func (c *conn) stray(line string) {
	if c.onEvent == nil {
		return
	}
	body, err := json.Marshal(map[string]string{"category": "console", "output": line + "\n"})
	if err == nil {
		c.onEvent("output", body)
	}
}

// reverseArgs is the arguments of a reverse request.
type reverseArgs struct {
	Arguments json.RawMessage `json:"arguments"`
}

// reverseResponse is tether's answer to a reverse request.
type reverseResponse struct {
	godap.Response
	Body any `json:"body,omitempty"`
}

func (c *conn) serveReverse(m rawMessage) {
	var req reverseArgs
	_ = json.Unmarshal(m.data, &req)
	var body any
	err := fmt.Errorf("tether does not serve the reverse request %q", m.Command)
	if c.onRequest != nil {
		body, err = c.onRequest(m.Command, req.Arguments)
	}
	resp := &reverseResponse{Response: godap.Response{
		ProtocolMessage: godap.ProtocolMessage{Type: "response"},
		RequestSeq:      m.Seq,
		Command:         m.Command,
		Success:         err == nil,
	}, Body: body}
	if err != nil {
		resp.Message = err.Error()
		resp.Body = nil
	}
	_ = c.write(resp, func(seq int) { resp.Seq = seq })
}

// write assigns the next sequence number (through setSeq) and sends msg.
func (c *conn) write(msg godap.Message, setSeq func(int)) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.seq++
	setSeq(c.seq)
	return godap.WriteProtocolMessage(c.rwc, msg)
}

// request is a DAP request with arbitrary arguments.
type request struct {
	godap.Request
	Arguments any `json:"arguments,omitempty"`
}

// call sends a request and waits for its response. On success and a non-nil
// out, the whole response message is decoded into out (a go-dap response type).
// When ctx ends first, a cancel request is sent and ctx's error returned.
func (c *conn) call(ctx context.Context, command string, args any, out any) error {
	ctx, cancel, ch, seq, err := c.start(ctx, command, args)
	if err != nil {
		return err
	}
	defer cancel()
	return c.wait(ctx, command, seq, ch, out)
}

// start sends a request and bounds the wait for its answer by the
// connection's request timeout; cancel releases the bound.
func (c *conn) start(ctx context.Context, command string, args any) (_ context.Context, cancel context.CancelFunc, _ chan rawMessage, seq int, _ error) {
	ch, seq, err := c.send(command, args)
	if err != nil {
		return ctx, nil, nil, 0, err
	}
	cancel = func() {}
	if c.timeout > 0 {
		ctx, cancel = context.WithTimeoutCause(ctx, c.timeout, &timeoutError{command, c.timeout})
	}
	return ctx, cancel, ch, seq, nil
}

// callUntilSettled is call for a request that moves the program, whose
// effect the adapter also reports by an event: settled returns a channel
// that wakes the wait when the session's state changes, and whether the
// program already stopped or ended after this request. Once it has, the
// event is the adapter's answer and the wait ends without the response
// (rdbg's stepBack gets none); a response that comes later is dropped. No
// cancel is sent for it: the request is done, and an adapter may not know
// cancel.
func (c *conn) callUntilSettled(ctx context.Context, command string, args any, settled func() (<-chan struct{}, bool)) error {
	ctx, cancel, ch, seq, err := c.start(ctx, command, args)
	if err != nil {
		return err
	}
	defer cancel()
	for {
		wake, done := settled()
		if done {
			select {
			case m, ok := <-ch: // answered meanwhile: a refusal still counts
				return c.answer(command, m, ok, nil)
			default:
			}
			c.mu.Lock()
			delete(c.pending, seq)
			c.mu.Unlock()
			return nil
		}
		select {
		case m, ok := <-ch:
			return c.answer(command, m, ok, nil)
		case <-wake:
		case <-ctx.Done():
			return c.abandon(ctx, command, seq)
		}
	}
}

// timeoutError is an adapter that did not answer a request in time.
type timeoutError struct {
	command string
	after   time.Duration
}

func (e *timeoutError) Error() string {
	return fmt.Sprintf("dap: %s: no answer from the adapter within %s; it may be stuck: terminate the session and launch again", e.command, e.after)
}

// send sends a request without waiting; wait collects its response.
func (c *conn) send(command string, args any) (chan rawMessage, int, error) {
	req := &request{Request: godap.Request{ProtocolMessage: godap.ProtocolMessage{Type: "request"}, Command: command}, Arguments: args}
	ch := make(chan rawMessage, 1)
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.seq++
	req.Seq = c.seq
	c.mu.Lock()
	if c.closed {
		err := c.err
		c.mu.Unlock()
		return nil, 0, err
	}
	c.pending[req.Seq] = ch
	c.mu.Unlock()
	if err := godap.WriteProtocolMessage(c.rwc, req); err != nil {
		c.mu.Lock()
		delete(c.pending, req.Seq)
		c.mu.Unlock()
		return nil, 0, fmt.Errorf("dap: sending %s: %w", command, err)
	}
	return ch, req.Seq, nil
}

func (c *conn) wait(ctx context.Context, command string, seq int, ch chan rawMessage, out any) error {
	select {
	case m, ok := <-ch:
		return c.answer(command, m, ok, out)
	case <-ctx.Done():
		return c.abandon(ctx, command, seq)
	}
}

// answer reads a response (ok false: the connection closed first) into out.
func (c *conn) answer(command string, m rawMessage, ok bool, out any) error {
	if !ok {
		return c.closeErr()
	}
	if !m.Success {
		return responseError(command, m)
	}
	if out != nil {
		if err := json.Unmarshal(m.data, out); err != nil {
			return fmt.Errorf("dap: %s: the adapter's response does not decode: %w", command, err)
		}
	}
	return nil
}

// abandon stops waiting for request seq when ctx ends, asks the adapter to
// cancel it, and says why.
func (c *conn) abandon(ctx context.Context, command string, seq int) error {
	c.mu.Lock()
	delete(c.pending, seq)
	c.mu.Unlock()
	if command != "cancel" {
		_, _, _ = c.send("cancel", &godap.CancelArguments{RequestId: seq})
	}
	var te *timeoutError
	if cause := context.Cause(ctx); errors.As(cause, &te) {
		return te
	}
	return fmt.Errorf("dap: %s: %w", command, ctx.Err())
}

func (c *conn) closeErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return c.err
	}
	return errClosed
}

// close closes the transport; the read loop then ends.
func (c *conn) close() error { return c.rwc.Close() }

// responseError turns a failed response into an error carrying the adapter's
// message and, when present, its detailed error format.
func responseError(command string, m rawMessage) error {
	var body godap.ErrorResponseBody
	_ = json.Unmarshal(m.Body, &body)
	msg := m.Message
	if body.Error != nil && body.Error.Format != "" {
		detail := body.Error.Format
		for k, v := range body.Error.Variables {
			detail = strings.ReplaceAll(detail, "{"+k+"}", v)
		}
		if msg == "" || msg == command || strings.HasPrefix(detail, msg) {
			msg = detail
		} else if !strings.Contains(msg, detail) {
			msg += ": " + detail
		}
	}
	// Adapters end messages with blank lines (debugpy's tracebacks).
	msg = strings.TrimSpace(msg)
	if msg == "" {
		msg = "failed without a message"
	}
	return &AdapterError{Command: command, Message: msg}
}

// AdapterError is a request the debug adapter answered with a failure.
type AdapterError struct {
	Command string // the DAP request, e.g. "evaluate"
	Message string // the adapter's own message
}

func (e *AdapterError) Error() string {
	return fmt.Sprintf("dap: %s: the adapter says: %s", e.Command, e.Message)
}
