package server

import "bufio"
import "bytes"
import "context"
import "encoding/json"
import "errors"
import "fmt"
import "io"
import "log/slog"
import "strconv"
import "sync"
import "unicode/utf8"

import "github.com/modelcontextprotocol/go-sdk/jsonrpc"
import "github.com/modelcontextprotocol/go-sdk/mcp"

// Transport limits (see Transport).
const (
	// DefaultMaxLine is the longest line (one JSON-RPC message) read: 16 MiB,
	// the go-sdk's own limit.
	DefaultMaxLine = 16 << 20
	// DefaultMaxPending is how many bytes of output may wait for the client to
	// read them before the transport stops reading requests.
	DefaultMaxPending = 4 << 20
	// DefaultMaxInFlight is how many calls may be read and not yet answered
	// before the transport stops taking new calls.
	DefaultMaxInFlight = 64
	// maxDepth is how deeply arrays and objects may nest in one message.
	maxDepth = 128
)

// idPrefix is how much of an over-long line is kept to find its id in.
const idPrefix = 64 << 10

// A Transport is an mcp.Transport over newline-delimited JSON (the MCP stdio
// transport) that survives bad input and bounds what it buffers; the go-sdk's
// own StdioTransport ends the session at the first bad message.
//
// Each line is checked before the go-sdk sees it: a line that is not JSON
// (or not UTF-8) is answered with a JSON-RPC parse error (-32700), one that
// is not a valid JSON-RPC 2.0 request or notification (no "jsonrpc":"2.0",
// an id that is not a string or an integer, nested deeper than maxDepth, a
// batch, an id already in flight) with an invalid-request error (-32600),
// both with id null when the id cannot be read, and the transport reads on.
// A line longer than MaxLine is skipped without being held whole and is
// answered the same way. Malformed responses from the client are dropped
// and logged. Batches are refused: MCP 2025-06-18 removed them, and each
// call in one gets its own error in the array reply.
//
// Output is bounded by backpressure: while more than MaxPending bytes of
// output wait for the client to read them, nothing more is read; while
// MaxInFlight calls have been read and not answered, the next call is held
// and nothing after it is read (responses and notifications that come
// before it are still taken, so an approval asked during a call can be
// answered).
//
// See https://www.jsonrpc.org/specification and
// https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#stdio.
type Transport struct {
	// In and Out are the client's end: messages are read from In and
	// written to Out. Close closes both.
	In  io.ReadCloser
	Out io.WriteCloser
	// MaxLine, MaxPending and MaxInFlight are the limits above; 0 selects
	// DefaultMaxLine, DefaultMaxPending and DefaultMaxInFlight.
	MaxLine, MaxPending, MaxInFlight int
	// Logger receives what was refused (never a message's content); nil
	// discards it.
	Logger *slog.Logger

	mu   sync.Mutex
	conn *conn
}

// TransportStats is what a Transport has buffered and refused so far.
type TransportStats struct {
	// Pending is how many bytes of output wait to be written now, and
	// PeakPending the most that ever waited.
	Pending, PeakPending int
	// InFlight is how many calls were read and not yet answered now, and
	// PeakInFlight the most there ever were.
	InFlight, PeakInFlight int
	// Refused counts the messages answered with an error by the transport
	// itself (or dropped, for responses).
	Refused int
	// Blocked reports whether reading waits for the client to read output
	// or for calls in flight to finish.
	Blocked bool
	// Read counts the messages passed to the server.
	Read int
}

// Stats returns what the transport's connection has buffered and refused
// (zero before Connect).
func (t *Transport) Stats() TransportStats {
	t.mu.Lock()
	c := t.conn
	t.mu.Unlock()
	if c == nil {
		return TransportStats{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// Connect implements mcp.Transport. A Transport connects once.
func (t *Transport) Connect(context.Context) (mcp.Connection, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.conn != nil {
		return nil, errors.New("server: transport connected twice; make one per session")
	}
	c := &conn{
		in:          t.In,
		out:         t.Out,
		maxLine:     orDefault(t.MaxLine, DefaultMaxLine),
		maxPending:  orDefault(t.MaxPending, DefaultMaxPending),
		maxInFlight: orDefault(t.MaxInFlight, DefaultMaxInFlight),
		log:         t.Logger,
		incoming:    make(chan msgOrErr),
		closed:      make(chan struct{}),
		inFlight:    map[jsonrpc.ID]bool{},
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	c.cond = sync.NewCond(&c.mu)
	t.conn = c
	go c.readLoop()
	return c, nil
}

func orDefault(n, def int) int {
	if n <= 0 {
		return def
	}
	return n
}

type msgOrErr struct {
	msg jsonrpc.Message
	err error
}

type conn struct {
	in                               io.ReadCloser
	out                              io.WriteCloser
	maxLine, maxPending, maxInFlight int
	log                              *slog.Logger

	incoming chan msgOrErr
	closed   chan struct{}
	once     sync.Once
	closeErr error

	writeMu sync.Mutex // serializes writes to out

	mu       sync.Mutex // guards what follows
	cond     *sync.Cond // signalled when pending or inFlight drop, and on close
	isClosed bool
	inFlight map[jsonrpc.ID]bool
	stats    TransportStats
}

var _ mcp.Connection = (*conn)(nil)

func (c *conn) SessionID() string { return "" }

// Read implements mcp.Connection: the next valid message, io.EOF once the
// client closed its end, or the read error that ended the stream.
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	default:
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case v := <-c.incoming:
		return v.msg, v.err
	case <-c.closed:
		return nil, io.EOF
	}
}

// Write implements mcp.Connection. A response ends its call's time in
// flight before it is written: a client may reuse the id as soon as it has
// read the reply, and that next request must not find the id still taken.
// (The reply's bytes count as pending output until written, so backpressure
// still holds.)
func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if r, ok := msg.(*jsonrpc.Response); ok && r.Error != nil {
		// Some of the go-sdk's errors are plain Go errors, sent with code
		// 0, which JSON-RPC does not define.
		fixed := *r
		fixed.Error = withCode(r.Error)
		msg = &fixed
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("server: encoding a message: %w", err)
	}
	if r, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		if c.inFlight[r.ID] {
			delete(c.inFlight, r.ID)
			c.stats.InFlight--
			c.cond.Broadcast()
		}
		c.mu.Unlock()
	}
	return c.writeLine(data)
}

// writeLine writes data and a newline to out, counting it as pending output
// while it waits.
func (c *conn) writeLine(data []byte) error {
	n := len(data) + 1
	c.mu.Lock()
	if c.isClosed {
		c.mu.Unlock()
		return mcp.ErrConnectionClosed
	}
	c.stats.Pending += n
	c.stats.PeakPending = max(c.stats.PeakPending, c.stats.Pending)
	c.mu.Unlock()
	c.writeMu.Lock()
	_, err := c.out.Write(append(data, '\n'))
	c.writeMu.Unlock()
	c.mu.Lock()
	c.stats.Pending -= n
	c.cond.Broadcast()
	c.mu.Unlock()
	return err
}

// Close implements mcp.Connection. It unblocks Read, and closes In and Out.
func (c *conn) Close() error {
	c.once.Do(func() {
		c.mu.Lock()
		c.isClosed = true
		c.cond.Broadcast()
		c.mu.Unlock()
		close(c.closed)
		c.closeErr = errors.Join(c.in.Close(), c.out.Close())
	})
	return c.closeErr
}

// wait blocks while blocked() holds and the connection is open; it reports
// whether the connection is still open.
func (c *conn) wait(blocked func() bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for blocked() && !c.isClosed {
		c.stats.Blocked = true
		c.cond.Wait()
	}
	c.stats.Blocked = false
	return !c.isClosed
}

// deliver hands msg to Read; it reports false once the connection closed.
func (c *conn) deliver(v msgOrErr) bool {
	select {
	case c.incoming <- v:
		if v.err == nil {
			c.mu.Lock()
			c.stats.Read++
			c.mu.Unlock()
		}
		return true
	case <-c.closed:
		return false
	}
}

// readLoop reads lines until the stream ends or the connection closes,
// answering bad ones itself and passing the rest to Read.
func (c *conn) readLoop() {
	lr := &lineReader{r: bufio.NewReaderSize(c.in, 64<<10), max: c.maxLine}
	for {
		if !c.wait(func() bool { return c.stats.Pending > c.maxPending }) {
			return
		}
		line, long, err := lr.next()
		if long > 0 {
			c.refuse(idIn(line), jsonrpc.CodeInvalidRequest, fmt.Sprintf("server: a message of %d bytes was skipped: the limit is %d bytes a line; send less in one call (write a large file in parts)", long, c.maxLine))
		} else if len(bytes.TrimSpace(line)) > 0 {
			if !c.handleLine(line) {
				return
			}
		}
		if err != nil {
			c.deliver(msgOrErr{err: err})
			return
		}
	}
}

// handleLine checks one line and passes it on or answers it; it reports
// false once the connection closed.
func (c *conn) handleLine(line []byte) bool {
	line = bytes.TrimRight(line, "\r")
	msg, ref := check(line)
	if ref != nil {
		if ref.drop {
			c.log.Warn("server: dropped a malformed response", "reason", ref.message, "bytes", len(line))
			c.mu.Lock()
			c.stats.Refused++
			c.mu.Unlock()
			return true
		}
		if ref.batch != nil {
			c.log.Warn("server: refused a JSON-RPC batch", "bytes", len(line))
			c.mu.Lock()
			c.stats.Refused++
			c.mu.Unlock()
			if len(ref.batch) > 0 {
				data, _ := json.Marshal(ref.batch)
				c.writeLine(data)
			}
			return true
		}
		c.refuse(ref.id, ref.code, ref.message)
		return true
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		if !c.wait(func() bool { return c.stats.InFlight >= c.maxInFlight || c.stats.Pending > c.maxPending }) {
			return false
		}
		c.mu.Lock()
		dup := c.inFlight[req.ID]
		if !dup {
			c.inFlight[req.ID] = true
			c.stats.InFlight++
			c.stats.PeakInFlight = max(c.stats.PeakInFlight, c.stats.InFlight)
		}
		c.mu.Unlock()
		if dup {
			c.refuse(req.ID.Raw(), jsonrpc.CodeInvalidRequest, fmt.Sprintf("server: id %s is already in use by a request in flight; give each request its own id", idText(req.ID.Raw())))
			return true
		}
	}
	return c.deliver(msgOrErr{msg: msg})
}

// refuse answers a message with a JSON-RPC error (id nil: null).
func (c *conn) refuse(id any, code int64, message string) {
	c.log.Warn("server: refused a message", "code", code, "reason", message)
	c.mu.Lock()
	c.stats.Refused++
	c.mu.Unlock()
	data, err := json.Marshal(errorReply(id, code, message))
	if err != nil {
		return
	}
	c.writeLine(data)
}

type wireError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

type wireReply struct {
	JSONRPC string    `json:"jsonrpc"`
	ID      any       `json:"id"`
	Error   wireError `json:"error"`
}

func errorReply(id any, code int64, message string) wireReply {
	return wireReply{JSONRPC: "2.0", ID: id, Error: wireError{Code: code, Message: message}}
}

func idText(id any) string {
	b, _ := json.Marshal(id)
	return string(b)
}

// refusal is why a line is not passed on: an error reply with id (nil for
// null), a batch's array of replies, or a response to drop.
type refusal struct {
	id      any
	code    int64
	message string
	batch   []wireReply
	drop    bool
}

func invalid(id any, format string, args ...any) *refusal {
	return &refusal{id: id, code: jsonrpc.CodeInvalidRequest, message: "server: invalid request: " + fmt.Sprintf(format, args...)}
}

// check validates one line as a JSON-RPC 2.0 message MCP allows.
func check(line []byte) (jsonrpc.Message, *refusal) {
	if !utf8.Valid(line) {
		return nil, &refusal{code: jsonrpc.CodeParseError, message: "server: parse error: the message is not valid UTF-8; send UTF-8 JSON, one message a line"}
	}
	if !json.Valid(line) {
		return nil, &refusal{code: jsonrpc.CodeParseError, message: "server: parse error: the line is not valid JSON; send one JSON-RPC 2.0 message a line, with no newline inside it"}
	}
	if d := depth(line); d > maxDepth {
		return nil, invalid(idIn(line[:min(len(line), idPrefix)]), "arrays and objects nest %d deep or more; the limit is %d", d, maxDepth)
	}
	line = bytes.TrimSpace(line)
	switch line[0] {
	case '{':
	case '[':
		return nil, checkBatch(line)
	default:
		return nil, invalid(nil, "a JSON-RPC message is an object, this is %s", kind(line[0]))
	}
	return checkObject(line)
}

func checkBatch(line []byte) *refusal {
	var elems []json.RawMessage
	if err := json.Unmarshal(line, &elems); err != nil || len(elems) == 0 {
		return invalid(nil, "an empty batch")
	}
	const why = "JSON-RPC batches are not supported (MCP 2025-06-18 removed them); send each message on its own line"
	ref := &refusal{batch: []wireReply{}}
	for _, e := range elems {
		var obj map[string]json.RawMessage
		if json.Unmarshal(e, &obj) != nil {
			ref.batch = append(ref.batch, errorReply(nil, jsonrpc.CodeInvalidRequest, "server: invalid request: "+why))
			continue
		}
		if _, isReq := obj["method"]; !isReq {
			continue // a response: nothing to answer
		}
		raw, hasID := obj["id"]
		if !hasID {
			continue // a notification
		}
		id, _ := checkID(raw)
		ref.batch = append(ref.batch, errorReply(id, jsonrpc.CodeInvalidRequest, "server: invalid request: "+why))
	}
	return ref
}

func checkObject(line []byte) (jsonrpc.Message, *refusal) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(line, &obj); err != nil {
		return nil, invalid(nil, "%v", err)
	}
	methodRaw, isReq := obj["method"]
	_, hasResult := obj["result"]
	_, hasError := obj["error"]
	if !isReq && (hasResult || hasError) {
		// A response to one of the server's requests: never answered.
		if why := checkResponse(obj); why != "" {
			return nil, &refusal{drop: true, message: why}
		}
	} else {
		var id any
		if raw, ok := obj["id"]; ok {
			var err error
			if id, err = checkID(raw); err != nil {
				return nil, invalid(nil, "%v", err)
			}
		}
		if v := string(obj["jsonrpc"]); v != `"2.0"` {
			if v == "" {
				return nil, invalid(id, `no "jsonrpc" member; give "jsonrpc":"2.0"`)
			}
			return nil, invalid(id, `"jsonrpc" is %.40s; give "jsonrpc":"2.0"`, v)
		}
		if !isReq {
			return nil, invalid(id, `no "method" member`)
		}
		var method string
		if json.Unmarshal(methodRaw, &method) != nil {
			return nil, invalid(id, `"method" is not a string`)
		}
		if p, ok := obj["params"]; ok {
			if b := bytes.TrimSpace(p); b[0] != '{' && b[0] != '[' && string(b) != "null" {
				return nil, invalid(id, `"params" is %s; give an object`, kind(b[0]))
			}
		}
	}
	// The message outlives the line's buffer.
	msg, err := jsonrpc.DecodeMessage(bytes.Clone(line))
	if err != nil {
		if !isReq && (hasResult || hasError) {
			return nil, &refusal{drop: true, message: err.Error()}
		}
		id, _ := checkID(obj["id"])
		return nil, invalid(id, "%v", err)
	}
	return msg, nil
}

// checkResponse says what is wrong with a response the go-sdk could not
// take ("" when nothing is).
func checkResponse(obj map[string]json.RawMessage) string {
	_, hasResult := obj["result"]
	errRaw, hasError := obj["error"]
	raw, hasID := obj["id"]
	if string(obj["jsonrpc"]) != `"2.0"` {
		return `no "jsonrpc":"2.0"`
	}
	if !hasID {
		return "no id"
	}
	if _, err := checkID(raw); err != nil {
		return err.Error()
	}
	if hasResult && hasError {
		return "both a result and an error"
	}
	if hasError {
		var e struct {
			Code    *json.Number `json:"code"`
			Message *string      `json:"message"`
		}
		if json.Unmarshal(errRaw, &e) != nil || e.Code == nil || e.Message == nil {
			return "an error that is not an object with an integer code and a message"
		}
		if _, err := strconv.ParseInt(string(*e.Code), 10, 64); err != nil {
			return "an error code that is not an integer"
		}
	}
	return ""
}

// maxSafeID is the largest integer id the go-sdk returns unchanged (it
// reads ids as float64).
const maxSafeID = 1<<53 - 1

// checkID returns a request id as the go-sdk will echo it: a string or an
// integer (MCP forbids null ids).
func checkID(raw json.RawMessage) (any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, errors.New("an empty id")
	}
	switch c := raw[0]; {
	case c == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return s, nil
	case c == '-' || c >= '0' && c <= '9':
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil || n > maxSafeID || n < -maxSafeID {
			return nil, fmt.Errorf("the id %.40s is not an integer between -(2^53-1) and 2^53-1; give an integer or a string", raw)
		}
		return n, nil
	case c == 'n':
		return nil, errors.New("the id is null, which MCP forbids; give an integer or a string")
	default:
		return nil, fmt.Errorf("the id is %s; give an integer or a string", kind(c))
	}
}

// kind names the JSON value starting with c.
func kind(c byte) string {
	switch {
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	default:
		return "a number"
	}
}

// depth returns how deeply arrays and objects nest in valid JSON, stopping
// at maxDepth+1.
func depth(b []byte) int {
	d, top := 0, 0
	inStr, esc := false, false
	for _, c := range b {
		switch {
		case esc:
			esc = false
		case inStr:
			switch c {
			case '\\':
				esc = true
			case '"':
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			d++
			if d > top {
				top = d
				if top > maxDepth {
					return top
				}
			}
		case c == '}' || c == ']':
			d--
		}
	}
	return top
}

// idIn finds the id of a message in the start of an over-long line, so that
// the client's call gets its answer; nil when it is not there.
func idIn(prefix []byte) any {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		key, ok := t.(string)
		if !ok {
			return nil
		}
		if key != "id" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil
			}
			continue
		}
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			return nil
		}
		id, err := checkID(raw)
		if err != nil {
			return nil
		}
		return id
	}
}

// lineReader reads newline-terminated lines of at most max bytes.
type lineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

// next returns the next line without its newline. A line longer than max
// is read to its end without being kept whole: next returns its first
// idPrefix bytes and its length as long. err is the read error that ended
// the stream (io.EOF at its end), returned with the last line if that was
// not terminated.
func (lr *lineReader) next() (line []byte, long int, err error) {
	if cap(lr.buf) > 1<<20 {
		lr.buf = nil // do not pin one large line's buffer
	}
	lr.buf = lr.buf[:0]
	n := 0
	for {
		chunk, err := lr.r.ReadSlice('\n')
		chunk = bytes.TrimSuffix(chunk, []byte{'\n'})
		n += len(chunk)
		if n <= lr.max {
			lr.buf = append(lr.buf, chunk...)
		} else if keep := idPrefix - len(lr.buf); keep > 0 {
			lr.buf = append(lr.buf, chunk[:min(keep, len(chunk))]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if n > lr.max {
			return lr.buf[:min(len(lr.buf), idPrefix)], n, err
		}
		return lr.buf, 0, err
	}
}
