package nodeadapter

import "bufio"
import "context"
import "encoding/json"
import "errors"
import "fmt"
import "io"
import "sync"

// cdpConn speaks the Chrome DevTools Protocol to node's inspector through
// the relay (relay.cjs) runs in the debuggee: one JSON message a line,
// requests {id, method, params}, answers {id, result | error} and
// notifications {method, params}.
type cdpConn struct {
	w   io.WriteCloser
	wmu sync.Mutex

	mu      sync.Mutex
	next    int
	pending map[int]chan cdpMessage
	closed  bool

	onEvent func(method string, params json.RawMessage)
	done    chan struct{}

	// session is the target session requests go to (Target.attachToTarget
	// with flatten): Chromium's page, reached through the browser's pipe;
	// "" for the connection's own target.
	session string
}

// cdpRequest is one request to the inspector.
type cdpRequest struct {
	ID        int    `json:"id"`
	Method    string `json:"method"`
	Params    any    `json:"params"`
	SessionID string `json:"sessionId,omitempty"`
}

// cdpMessage is one message from the inspector: an answer or a
// notification.
type cdpMessage struct {
	ID     int             `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// maxCDPLine bounds one message from the relay (a large evaluation result
// or script source fits; a runaway one ends the connection).
const maxCDPLine = 64 << 20

func newCDPConn(r io.ReadCloser, w io.WriteCloser, onEvent func(string, json.RawMessage)) *cdpConn {
	c := &cdpConn{w: w, pending: map[int]chan cdpMessage{}, onEvent: onEvent, done: make(chan struct{})}
	go c.readLoop(r)
	return c
}

func (c *cdpConn) readLoop(r io.ReadCloser) {
	defer func() {
		_ = r.Close()
		c.mu.Lock()
		c.closed = true
		for _, ch := range c.pending {
			close(ch)
		}
		c.pending = map[int]chan cdpMessage{}
		c.mu.Unlock()
		close(c.done)
	}()
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := readLine(br, maxCDPLine)
		if err != nil {
			return
		}
		var m cdpMessage
		if json.Unmarshal(line, &m) != nil {
			continue
		}
		if m.Method != "" && m.ID == 0 {
			c.onEvent(m.Method, m.Params)
			continue
		}
		c.mu.Lock()
		ch := c.pending[m.ID]
		delete(c.pending, m.ID)
		c.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	}
}

// readLine reads one line of at most limit bytes, without its newline.
func readLine(br *bufio.Reader, limit int) ([]byte, error) {
	var out []byte
	for {
		chunk, isPrefix, err := br.ReadLine()
		if err != nil {
			return nil, err
		}
		out = append(out, chunk...)
		if len(out) > limit {
			return nil, fmt.Errorf("a message of more than %d bytes", limit)
		}
		if !isPrefix {
			return out, nil
		}
	}
}

var errCDPClosed = errors.New("the DevTools connection is closed (the program or browser ended)")

// call sends one request and decodes its result into out (when not nil).
func (c *cdpConn) call(ctx context.Context, method string, params, out any) error {
	if params == nil {
		params = struct{}{}
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return errCDPClosed
	}
	c.next++
	id := c.next
	ch := make(chan cdpMessage, 1)
	c.pending[id] = ch
	session := c.session
	c.mu.Unlock()
	b, err := json.Marshal(cdpRequest{ID: id, Method: method, Params: params, SessionID: session})
	if err != nil {
		return err
	}
	c.wmu.Lock()
	_, err = c.w.Write(append(b, '\n'))
	c.wmu.Unlock()
	if err != nil {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return errCDPClosed
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return errCDPClosed
		}
		if m.Error != nil {
			return fmt.Errorf("%s: %s", method, m.Error.Message)
		}
		if out != nil && len(m.Result) > 0 {
			return json.Unmarshal(m.Result, out)
		}
		return nil
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

func (c *cdpConn) close() { _ = c.w.Close() }

// setSession sends the requests that follow to target session id.
func (c *cdpConn) setSession(id string) {
	c.mu.Lock()
	c.session = id
	c.mu.Unlock()
}

// The inspector protocol's types tether reads (Runtime and Debugger
// domains, https://chromedevtools.github.io/devtools-protocol/v8/).

// remoteObject is Runtime.RemoteObject.
type remoteObject struct {
	Type                string          `json:"type"`
	Subtype             string          `json:"subtype"`
	ClassName           string          `json:"className"`
	Value               json.RawMessage `json:"value"`
	UnserializableValue string          `json:"unserializableValue"`
	Description         string          `json:"description"`
	ObjectID            string          `json:"objectId"`
}

// cdpLocation is Debugger.Location.
type cdpLocation struct {
	ScriptID     string `json:"scriptId"`
	LineNumber   int    `json:"lineNumber"`
	ColumnNumber int    `json:"columnNumber"`
}

// callFrame is Debugger.CallFrame.
type callFrame struct {
	CallFrameID  string      `json:"callFrameId"`
	FunctionName string      `json:"functionName"`
	Location     cdpLocation `json:"location"`
	URL          string      `json:"url"`
	ScopeChain   []struct {
		Type   string       `json:"type"`
		Name   string       `json:"name"`
		Object remoteObject `json:"object"`
	} `json:"scopeChain"`
	This remoteObject `json:"this"`
}

// pausedParams is Debugger.paused's.
type pausedParams struct {
	CallFrames     []callFrame     `json:"callFrames"`
	Reason         string          `json:"reason"`
	Data           json.RawMessage `json:"data"`
	HitBreakpoints []string        `json:"hitBreakpoints"`
}

// scriptParsed is Debugger.scriptParsed's.
type scriptParsed struct {
	ScriptID     string `json:"scriptId"`
	URL          string `json:"url"`
	SourceMapURL string `json:"sourceMapURL"`
}

// exceptionDetails is Runtime.ExceptionDetails.
type exceptionDetails struct {
	Text      string        `json:"text"`
	Exception *remoteObject `json:"exception"`
}

// evalResult is the answer of Runtime.evaluate and Debugger.evaluateOnCallFrame.
type evalResult struct {
	Result           remoteObject      `json:"result"`
	ExceptionDetails *exceptionDetails `json:"exceptionDetails"`
}

// propertyDescriptor is Runtime.PropertyDescriptor (and the internal and
// private property kinds, which carry a name and a value too).
type propertyDescriptor struct {
	Name  string        `json:"name"`
	Value *remoteObject `json:"value"`
	Get   *remoteObject `json:"get"`
}

// The parameters of the inspector requests the adapter makes.

// enableParams are Debugger.enable's.
type enableParams struct {
	MaxScriptsCacheSize int `json:"maxScriptsCacheSize"`
}

// blackboxParams are Debugger.setBlackboxPatterns'.
type blackboxParams struct {
	Patterns []string `json:"patterns"`
}

// pauseOnExceptionsParams are Debugger.setPauseOnExceptions': state is
// "none", "uncaught" or "all".
type pauseOnExceptionsParams struct {
	State string `json:"state"`
}

// breakpointByURLParams are Debugger.setBreakpointByUrl's; without a
// column, the line's first statement. One of URL and URLRegex is set.
type breakpointByURLParams struct {
	URL          string `json:"url,omitempty"`
	URLRegex     string `json:"urlRegex,omitempty"`
	LineNumber   int    `json:"lineNumber"`
	ColumnNumber *int   `json:"columnNumber,omitempty"`
	Condition    string `json:"condition"`
}

// removeBreakpointParams are Debugger.removeBreakpoint's.
type removeBreakpointParams struct {
	BreakpointID string `json:"breakpointId"`
}

// evaluateOnCallFrameParams are Debugger.evaluateOnCallFrame's.
type evaluateOnCallFrameParams struct {
	CallFrameID string `json:"callFrameId"`
	Expression  string `json:"expression"`
}

// evaluateParams are Runtime.evaluate's.
type evaluateParams struct {
	Expression string `json:"expression"`
	// ThrowOnSideEffect refuses an expression that would change the
	// program (a getter, a call); Silent keeps its exception from the
	// program's pause-on-exception.
	ThrowOnSideEffect bool `json:"throwOnSideEffect,omitempty"`
	Silent            bool `json:"silent,omitempty"`
}

// functionCallBPParams are Debugger.setBreakpointOnFunctionCall's.
type functionCallBPParams struct {
	ObjectID  string `json:"objectId"`
	Condition string `json:"condition,omitempty"`
}

// getPropertiesParams are Runtime.getProperties'.
type getPropertiesParams struct {
	ObjectID        string `json:"objectId"`
	OwnProperties   bool   `json:"ownProperties"`
	GeneratePreview bool   `json:"generatePreview"`
}

// scriptSourceParams are Debugger.getScriptSource's.
type scriptSourceParams struct {
	ScriptID string `json:"scriptId"`
}
