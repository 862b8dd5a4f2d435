package server

import "context"
import "encoding/json"
import "errors"
import "fmt"
import "io"
import "log/slog"
import "os"
import "slices"
import "sync"
import "sync/atomic"
import "time"

import "github.com/modelcontextprotocol/go-sdk/mcp"

import "github.com/tetherhq/tether/operator"
import "github.com/tetherhq/tether/tools"

// protocolVersions are the MCP versions the server negotiates through
// initialize. A client offering 2026-07-28 there is answered 2025-11-25:
// that revision has no initialize (a client of it sends server/discover and
// plain requests instead, which servedVersions covers).
var protocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// servedVersions are the versions the go-sdk serves: protocolVersions over
// sessions, and modernVersion to a client that sends server/discover or
// requests carrying their version in _meta (on stdio, and on the host's
// stateless handler), where questions and approvals are input requests (see
// inputState).
var servedVersions = append([]string{modernVersion}, protocolVersions...)

// Options configure a Server.
type Options struct {
	// Name and Version identify the server to clients ("tether", "v0.1.0").
	Name, Version string
	// Instructions are sent to the client at initialization.
	Instructions string
	// ApprovalTimeout bounds how long an approval waits for the client's user
	// (0: operator.DefaultTimeout); no answer by then refuses the call.
	ApprovalTimeout time.Duration
	// Logger receives the go-sdk's and the transport's diagnostics (never a
	// message's content); nil discards them.
	Logger *slog.Logger
	// OnCall, when set, is told of every tools/call once it has run: the
	// session id, the tool's name as the client sent it, whether the run
	// has a tool of that name (known; otherwise the name is the client's
	// choice, of any length), how long it took and its outcome (ok, error,
	// denied, refused). It must not keep or log the arguments or the result.
	OnCall func(session, tool string, known bool, took time.Duration, outcome string)
	// SessionID is the id the session served over HTTP gets (see Host);
	// empty lets the go-sdk choose one.
	SessionID string

	// legacy serves protocolVersions alone: the servers of the host's
	// sessions, which its stateful handler reaches only by Mcp-Session-Id
	// (the host serves modernVersion on its stateless handler instead).
	legacy bool
	// ephemeral serves a run that ends with its one call: large outputs
	// stay inline, there being no later request to read them with.
	ephemeral bool
	// bind names who may resume a call that asked a question (a request
	// state holds its hash): the principal and conversation, or the
	// principal and workspace of a run without a conversation.
	bind string
}

// Server is an MCP server for one run. Create it before the run so that the
// run's approver (Server.Approver) and any family that asks the user (through
// the Server as a tools.Elicitor) can be wired into the run's Config, then
// call Serve.
type Server struct {
	opts Options
	srv  *mcp.Server
	// single says the server serves over one transport (Serve: stdio). An
	// atomic, not under mu: the go-sdk asks cacheable with its own lock
	// held, and Refresh takes that lock with mu held.
	single atomic.Bool

	mu          sync.Mutex
	run         *tools.Run
	listed      map[string]bool
	session     *mcp.ServerSession
	initialized map[*mcp.ServerSession]bool // sessions whose client sent initialized
	outputs     outputStore                 // large outputs, linked from results
}

var _ tools.Elicitor = (*Server)(nil)

// New returns a Server. It serves nothing until Serve is called.
func New(opts Options) *Server {
	if opts.Name == "" {
		opts.Name = "tether"
	}
	if opts.Version == "" {
		opts.Version = "(devel)"
	}
	s := &Server{opts: opts, listed: map[string]bool{}, initialized: map[*mcp.ServerSession]bool{}}
	var sessionID func() string
	if id := opts.SessionID; id != "" {
		sessionID = func() string { return id }
	}
	versions, setCacheable := servedVersions, s.cacheable
	if opts.legacy {
		versions, setCacheable = protocolVersions, nil
	}
	s.srv = mcp.NewServer(&mcp.Implementation{Name: opts.Name, Version: opts.Version}, &mcp.ServerOptions{
		SetCacheable:              setCacheable,
		GetSessionID:              sessionID,
		Instructions:              opts.Instructions,
		Logger:                    sdkLogger(opts.Logger),
		SupportedProtocolVersions: versions,
		Capabilities:              &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
		InitializedHandler: func(ctx context.Context, req *mcp.InitializedRequest) {
			s.mu.Lock()
			s.session = req.Session
			s.initialized[req.Session] = true
			s.mu.Unlock()
		},
	})
	s.outputs.closed = opts.ephemeral
	s.srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: outputScheme + "{id}", Name: "output", MIMEType: "application/octet-stream",
		Description: "An output of this run's calls too large to inline (an image, a text the result cut), linked from the call's result; kept while the run lasts.",
	}, s.readOutput)
	s.srv.AddReceivingMiddleware(s.hiddenTools)
	s.srv.AddSendingMiddleware(s.quietBeforeInitialized)
	return s
}

// Approver returns the tools.Approver that asks the connected client's user
// through elicitation ("accept" approves; "decline" and "cancel" do not).
func (s *Server) Approver() tools.Approver { return tools.ApproverFunc(s.approve) }

func (s *Server) approve(ctx context.Context, q tools.ApprovalRequest) (bool, error) {
	timeout := s.opts.ApprovalTimeout
	if timeout <= 0 {
		timeout = operator.DefaultTimeout
	}
	timedOut := errors.New("approval timeout")
	if q.Origin == tools.FromModel {
		// The call's own approval, asked before it runs: a client of
		// modernVersion answers it by calling again.
		ctx = context.WithValue(ctx, topApprovalKey{}, true)
	}
	actx, cancel := context.WithTimeoutCause(ctx, timeout, timedOut)
	defer cancel()
	action, _, err := s.Elicit(actx, q.Prompt()+" Accept to run it, decline to refuse.", map[string]any{
		"type": "object", "properties": map[string]any{},
	})
	if err != nil {
		if ctx.Err() == nil && errors.Is(context.Cause(actx), timedOut) {
			return false, fmt.Errorf("server: no answer within %s, so the call was refused (fail closed); do not retry it at once, tell the user it waits for their approval", timeout)
		}
		return false, err
	}
	return action == "accept", nil
}

// CanElicit reports whether a client is connected that declared the
// elicitation capability (the operator family's question port checks it).
func (s *Server) CanElicit() bool { return canElicit(s.current()) }

// current returns the connected session: the one that initialized last, or
// else the first the server knows (a stdio server has exactly one).
func (s *Server) current() *mcp.ServerSession {
	s.mu.Lock()
	ss := s.session
	s.mu.Unlock()
	if ss != nil {
		return ss
	}
	for ss := range s.srv.Sessions() {
		return ss
	}
	return nil
}

// canElicit reports whether the session's client can answer a form
// elicitation: it declared elicitation, and not URL mode alone (an empty
// elicitation capability means form mode, as before modes existed).
func canElicit(ss *mcp.ServerSession) bool {
	if ss == nil {
		return false
	}
	ip := ss.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil {
		return false
	}
	e := ip.Capabilities.Elicitation
	return e.Form != nil || e.URL == nil
}

type sessionKey struct{}

// Elicit asks the connected client's user through MCP elicitation (form mode)
// and returns their action ("accept", "decline", "cancel") and, on accept,
// what they entered. With no client connected, or a client without the
// elicitation capability, it returns at once with an error wrapping
// tools.ErrNoApprover.
func (s *Server) Elicit(ctx context.Context, message string, schema any) (string, map[string]any, error) {
	ss, _ := ctx.Value(sessionKey{}).(*mcp.ServerSession)
	if ss == nil {
		ss = s.current()
	}
	if ss == nil {
		return "", nil, fmt.Errorf("server: no MCP client is connected to ask: %w", tools.ErrNoApprover)
	}
	if !canElicit(ss) {
		if ip := ss.InitializeParams(); ip != nil && ip.Capabilities != nil && ip.Capabilities.Elicitation != nil {
			return "", nil, fmt.Errorf("server: the MCP client declared only URL-mode elicitation, not the form mode questions and approvals need, so no one can be asked: %w", tools.ErrNoApprover)
		}
		return "", nil, fmt.Errorf("server: the MCP client did not declare the elicitation capability, so no one can be asked: %w", tools.ErrNoApprover)
	}
	if schema == nil {
		schema = map[string]any{"type": "object", "properties": map[string]any{}}
	}
	if modernSession(ss) {
		st := inputFrom(ctx)
		if st == nil {
			return "", nil, fmt.Errorf("server: an MCP %s client is asked only within a tool call: %w", modernVersion, tools.ErrNoApprover)
		}
		return st.elicit(ctx, message, schema)
	}
	res, err := ss.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: message, RequestedSchema: schema})
	if err != nil {
		return "", nil, fmt.Errorf("server: elicitation failed: %w", err)
	}
	return res.Action, res.Content, nil
}

// Serve serves run over transport until the client disconnects or ctx ends.
// It lists the tools run.List returns (the run's surface) and does not close
// the run: the caller does, after Serve returns.
func (s *Server) Serve(ctx context.Context, run *tools.Run, t mcp.Transport) error {
	s.mu.Lock()
	if s.run != nil {
		s.mu.Unlock()
		return errors.New("server: Serve called twice; one server serves one run")
	}
	s.run = run
	s.single.Store(true)
	s.mu.Unlock()
	s.Refresh()
	if err := s.srv.Run(ctx, t); err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("server: %w", err)
	}
	return nil
}

// ServeStdio serves run over the process's stdin and stdout through a
// Transport with the default limits: bad input is answered, not fatal.
func (s *Server) ServeStdio(ctx context.Context, run *tools.Run) error {
	return s.Serve(ctx, run, &Transport{In: os.Stdin, Out: nopCloser{os.Stdout}, Logger: s.opts.Logger})
}

// nopCloser keeps the process's stdout open when the session closes.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// Refresh makes the served tool list match the run's (run.List()): tools a
// family registered or removed since are added or removed, and connected
// clients get notifications/tools/list_changed. tools/list and tools/call
// refresh by themselves; a family that changes its tools while the server
// runs (vibe mode switched on) may call Refresh to notify at once.
func (s *Server) Refresh() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.run == nil {
		return
	}
	want := map[string]tools.ToolInfo{}
	for _, t := range s.run.List() {
		want[t.Name] = t
	}
	var gone []string
	for name := range s.listed {
		if _, ok := want[name]; !ok {
			gone = append(gone, name)
			delete(s.listed, name)
		}
	}
	if len(gone) > 0 {
		s.srv.RemoveTools(gone...)
	}
	for name, t := range want {
		if !s.listed[name] {
			s.listed[name] = true
			s.srv.AddTool(mcpTool(t), s.handler(name))
		}
	}
}

func mcpTool(t tools.ToolInfo) *mcp.Tool {
	schema := json.RawMessage(t.InputSchema)
	if len(schema) == 0 {
		schema = json.RawMessage(`{"type":"object"}`)
	}
	no := false
	// readOnlyHint says whether the tool changes its environment: a
	// read-tier tool that starts or stops processes (vibe_spawn) does.
	ann := &mcp.ToolAnnotations{ReadOnlyHint: t.Tier == tools.TierRead && !t.Mutates, OpenWorldHint: &no}
	if t.Tier != tools.TierRead {
		yes := true
		ann.DestructiveHint = &yes
	}
	return &mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: schema, Annotations: ann}
}

func (s *Server) handler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return s.call(ctx, req.Session, name, req.Params)
	}
}

func (s *Server) call(ctx context.Context, ss *mcp.ServerSession, name string, p *mcp.CallToolParamsRaw) (*mcp.CallToolResult, error) {
	args := p.Arguments
	if ss != nil {
		ctx = context.WithValue(ctx, sessionKey{}, ss)
	}
	var st *inputState
	if modernSession(ss) {
		var err error
		if st, err = s.resume(name, args, p); err != nil {
			return nil, badState(err)
		}
		ctx = context.WithValue(ctx, inputStateKey{}, st)
	}
	ctx, stop := withProgress(ctx, ss, name, p)
	defer stop()
	start := time.Now()
	res, err := s.run.Call(ctx, name, args, tools.FromModel)
	asked := st != nil && st.pending != nil
	if s.opts.OnCall != nil {
		id := ""
		if ss != nil {
			id = ss.ID()
		}
		if id == "" {
			id = s.opts.SessionID // a stateless request's session has no id
		}
		_, known := s.run.Lookup(name)
		oc := outcome(res, err)
		if asked {
			oc = "asked"
		}
		s.opts.OnCall(id, name, known, time.Since(start), oc)
	}
	if asked {
		return s.inputResult(st, args), nil
	}
	return s.toMCP(res), nil
}

// outcome names how a call ended for logs and metrics.
func outcome(res *tools.Result, err error) string {
	switch {
	case errors.Is(err, tools.ErrDenied), errors.Is(err, tools.ErrNoApprover):
		return "denied"
	case errors.Is(err, tools.ErrNotOnSurface):
		return "refused"
	case err != nil || res == nil || res.IsError:
		return "error"
	}
	return "ok"
}

// hiddenTools records the negotiated protocol version at initialize (see
// there), refreshes the tool list before tools/list and tools/call, and
// routes a tools/call for a tool the surface does not list to the
// run anyway, so the caller gets the run's clear refusal ("is a write-tier
// tool and the plan surface allows only read-tier tools") as a tool error
// instead of a bare "unknown tool".
func (s *Server) hiddenTools(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "initialize":
			// A client offering a version initialize does not negotiate
			// (2026-07-28 has server/discover instead) gets the server's
			// latest of protocolVersions in the reply; record that as the
			// version it offered too. The go-sdk judges whether it may elicit during a
			// call by the offered version, and would refuse every approval
			// of a client that offered 2026-07-28 and was answered 2025-11-25.
			if p, ok := req.GetParams().(*mcp.InitializeParams); ok && p != nil && !slices.Contains(protocolVersions, p.ProtocolVersion) {
				p.ProtocolVersion = protocolVersions[0]
			}
			return next(ctx, method, req)
		case "tools/list":
			s.Refresh()
			return next(ctx, method, req)
		case "tools/call":
			s.Refresh()
		default:
			return next(ctx, method, req)
		}
		p, ok := req.GetParams().(*mcp.CallToolParamsRaw)
		if !ok {
			return next(ctx, method, req)
		}
		s.mu.Lock()
		listed, run := s.listed[p.Name], s.run
		s.mu.Unlock()
		if listed || run == nil {
			return next(ctx, method, req)
		}
		ss, _ := req.GetSession().(*mcp.ServerSession)
		return s.call(ctx, ss, p.Name, p)
	}
}

// ToMCP converts a tool result to an MCP tool result: text stays text, images
// become MCP image content, Structured becomes structuredContent.
func ToMCP(r *tools.Result) *mcp.CallToolResult {
	out := &mcp.CallToolResult{Content: []mcp.Content{}}
	if r == nil {
		return out
	}
	for _, c := range r.Content {
		switch c.Type {
		case tools.ImageContent:
			out.Content = append(out.Content, &mcp.ImageContent{Data: c.Data, MIMEType: c.MIMEType})
		default:
			out.Content = append(out.Content, &mcp.TextContent{Text: c.Text})
		}
	}
	if r.Structured != nil {
		out.StructuredContent = r.Structured
	}
	out.IsError = r.IsError
	return out
}

// listTTL is how long a client of modernVersion may keep a list result
// from the host.
const listTTL = 30 * time.Second

// cacheable sets the cache fields of a modernVersion result: server/discover
// is the same for every client (public); a list names what the run offers,
// which depends on the run and the token that reached it (private). A list
// served over one transport (stdio) is stale at once: a family may register
// or remove a tool while the run serves (see Refresh), and listing again
// costs one round trip on the pipe. A
// result for an older client (stdio serves both) is left as the go-sdk
// fills it in: those revisions do not define the fields.
func (s *Server) cacheable(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
		if ip := ss.InitializeParams(); ip != nil && ip.ProtocolVersion < modernVersion {
			return
		}
	}
	if c.TTLMs == 0 && !s.single.Load() {
		c.TTLMs = int(listTTL / time.Millisecond)
	}
	c.CacheScope = "private"
	if _, ok := req.GetParams().(*mcp.DiscoverParams); ok {
		c.CacheScope = "public"
	}
}
