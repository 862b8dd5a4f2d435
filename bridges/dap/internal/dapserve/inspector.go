package dapserve

import "encoding/json"
import "errors"
import "fmt"

import godap "github.com/google/go-dap"

// Inspector is what the in-process adapters answer alike: a program of one
// thread, breakpoints by line, the stopped program's frames, scopes,
// variables, evaluations and exception, and the end of the session. Each
// adapter gives its own answers; Handle routes the requests to them.
type Inspector struct {
	SetBreakpoints func(godap.SetBreakpointsArguments) (*godap.SetBreakpointsResponse, error)
	StackTrace     func(godap.StackTraceArguments) (*godap.StackTraceResponse, error)
	Scopes         func(godap.ScopesArguments) (*godap.ScopesResponse, error)
	Variables      func(godap.VariablesArguments) (*godap.VariablesResponse, error)
	Evaluate       func(godap.EvaluateArguments) (*godap.EvaluateResponse, error)
	ExceptionInfo  func() (*godap.ExceptionInfoResponse, error)
}

// Handle answers req if it is one of the Inspector's requests, and says
// through unserved (Conn.Unserved) that any other is not served.
func (in *Inspector) Handle(req godap.RequestMessage, unserved func(command string) error) (godap.ResponseMessage, error) {
	switch r := req.(type) {
	case *godap.ThreadsRequest:
		return &godap.ThreadsResponse{Body: godap.ThreadsResponseBody{Threads: []godap.Thread{{Id: 1, Name: "main"}}}}, nil
	case *godap.SetBreakpointsRequest:
		return in.SetBreakpoints(r.Arguments)
	case *godap.StackTraceRequest:
		return in.StackTrace(r.Arguments)
	case *godap.ScopesRequest:
		return in.Scopes(r.Arguments)
	case *godap.VariablesRequest:
		return in.Variables(r.Arguments)
	case *godap.EvaluateRequest:
		return in.Evaluate(r.Arguments)
	case *godap.ExceptionInfoRequest:
		return in.ExceptionInfo()
	case *godap.DisconnectRequest:
		// Answered first: Serve returns after it, and the adapter, as it
		// returns, ends the program and closes the connection.
		return &godap.DisconnectResponse{}, nil
	case *godap.TerminateRequest:
		return &godap.TerminateResponse{}, nil
	}
	return nil, unserved(req.GetRequest().Command)
}

// Capabilities is what an adapter serving the Inspector's requests
// offers at the least: configurationDone, conditional breakpoints,
// terminate, evaluation for hovers and exception info, and the exception
// filters "uncaught" (on by default) and "all", labelled as given.
func Capabilities(uncaught, all string) godap.Capabilities {
	return godap.Capabilities{
		SupportsConfigurationDoneRequest: true,
		SupportsConditionalBreakpoints:   true,
		SupportsTerminateRequest:         true,
		SupportsEvaluateForHovers:        true,
		SupportsExceptionInfoRequest:     true,
		ExceptionBreakpointFilters: []godap.ExceptionBreakpointsFilter{
			{Filter: "uncaught", Label: uncaught, Default: true},
			{Filter: "all", Label: all},
		},
	}
}

// Launch is what every in-process adapter's launch takes: the program, its
// arguments and its working directory. An adapter's own launch arguments
// embed it.
type Launch struct {
	Program string   `json:"program"`
	Args    []string `json:"args"`
	Cwd     string   `json:"cwd"`
}

// Base is the Launch an adapter's launch arguments embed.
func (l *Launch) Base() *Launch { return l }

// DecodeLaunch decodes a launch request's arguments into args and refuses
// a launch that names no program.
func DecodeLaunch(raw json.RawMessage, args interface{ Base() *Launch }) error {
	if err := json.Unmarshal(raw, args); err != nil {
		return fmt.Errorf("launch arguments: %w", err)
	}
	if args.Base().Program == "" {
		return errors.New("launch needs program")
	}
	return nil
}
