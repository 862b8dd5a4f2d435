// Package dapserve is what tether's in-process debug adapters
// (../nodeadapter, ../phpadapter) share to serve the Debug Adapter
// Protocol over a connection: the request loop, numbered responses and
// events, the events that end a program, and the requests both answer
// alike (Inspector: threads, breakpoints by line, frames, scopes,
// variables, evaluation, exception info, disconnect and terminate; their
// base capabilities; the launch arguments they share).
//
// It imports go-dap and the standard library only.
package dapserve

import "bufio"
import "errors"
import "fmt"
import "io"
import "os/exec"
import "sync"

import godap "github.com/google/go-dap"

// Handler answers one request: the response, its header left to the
// loop, or why it failed.
type Handler func(godap.RequestMessage) (godap.ResponseMessage, error)

// Conn is an adapter's end of a DAP connection.
type Conn struct {
	rw      io.ReadWriter
	adapter string // "the node adapter", for errors
	mu      sync.Mutex
	seq     int
}

// New serves DAP on rw for the adapter named (in errors: "the PHP adapter
// does not serve X").
func New(rw io.ReadWriter, adapter string) *Conn {
	return &Conn{rw: rw, adapter: adapter}
}

// Serve answers the requests that arrive until the client disconnects
// (disconnect, terminate) or the connection ends. Requests are answered
// one by one, in order, as an adapter's are; a successful launch or
// attach is followed by the initialized event.
func (c *Conn) Serve(handle Handler) {
	r := bufio.NewReader(c.rw)
	for {
		data, err := godap.ReadBaseMessage(r)
		if err != nil {
			return
		}
		req, err := c.decode(data)
		if req == nil {
			continue // not a request
		}
		var resp godap.ResponseMessage
		if err == nil {
			resp, err = handle(req)
		}
		c.Respond(req.GetRequest(), resp, err)
		switch req.(type) {
		case *godap.LaunchRequest, *godap.AttachRequest:
			if err == nil {
				c.Send(&godap.InitializedEvent{Event: Event("initialized")})
			}
		case *godap.DisconnectRequest, *godap.TerminateRequest:
			return
		}
	}
}

// decode decodes one message into go-dap's type for its request; a
// request go-dap does not know is a bare Request, and one whose arguments
// do not decode comes with the error. It is nil for any other message.
func (c *Conn) decode(data []byte) (godap.RequestMessage, error) {
	msg, err := godap.DecodeProtocolMessage(data)
	if req, ok := msg.(godap.RequestMessage); ok {
		if err != nil {
			err = fmt.Errorf("the arguments of %s do not decode: %w", req.GetRequest().Command, err)
		}
		return req, err
	}
	var fe *godap.DecodeProtocolMessageFieldError
	if errors.As(err, &fe) && fe.SubType == "Request" && fe.FieldName == "command" {
		req := &godap.Request{ProtocolMessage: godap.ProtocolMessage{Seq: fe.Seq, Type: "request"}, Command: fe.FieldValue}
		return req, c.Unserved(fe.FieldValue)
	}
	return nil, nil
}

// Unserved is the error of a request the adapter does not serve.
func (c *Conn) Unserved(command string) error {
	return fmt.Errorf("%s does not serve %s", c.adapter, command)
}

// Respond answers request req with resp, or with err when it failed.
func (c *Conn) Respond(req *godap.Request, resp godap.ResponseMessage, err error) {
	if err != nil {
		resp = &godap.ErrorResponse{Response: godap.Response{Message: err.Error()}}
	}
	h := resp.GetResponse()
	h.Type, h.RequestSeq, h.Command, h.Success = "response", req.Seq, req.Command, err == nil
	c.Send(resp)
}

// Event is the header of an event called name.
func Event(name string) godap.Event {
	return godap.Event{ProtocolMessage: godap.ProtocolMessage{Type: "event"}, Event: name}
}

// Send writes one DAP message (a response or an event) with the next
// sequence number.
func (c *Conn) Send(m godap.Message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	switch m := m.(type) {
	case godap.ResponseMessage:
		m.GetResponse().Seq = c.seq
	case godap.EventMessage:
		m.GetEvent().Seq = c.seq
	}
	_ = godap.WriteProtocolMessage(c.rw, m)
}

// Exited says the program ended, as cmd.Wait returned waitErr: the
// exited event with its exit code, then terminated.
func (c *Conn) Exited(waitErr error) {
	code := 0
	var ee *exec.ExitError
	if errors.As(waitErr, &ee) {
		code = ee.ExitCode()
	}
	c.Send(&godap.ExitedEvent{Event: Event("exited"), Body: godap.ExitedEventBody{ExitCode: code}})
	c.Send(&godap.TerminatedEvent{Event: Event("terminated")})
}

// Window is the part of total items a request asks for: from start,
// count of them (0: all the rest), within bounds.
func Window(start, count, total int) (from, to int) {
	from = min(max(start, 0), total)
	to = total
	if count > 0 {
		to = min(total, from+count)
	}
	return from, to
}
