package server

import "context"
import "errors"
import "fmt"
import "log/slog"
import "maps"
import "net"
import "net/http"
import "os"
import "path/filepath"
import "slices"
import "strings"
import "sync"
import "sync/atomic"
import "time"

import "github.com/modelcontextprotocol/go-sdk/jsonrpc"
import "github.com/modelcontextprotocol/go-sdk/mcp"

import "github.com/tetherhq/tether/server/metrics"
import "github.com/tetherhq/tether/tools"

// HostOptions configure a Host.
type HostOptions struct {
	// Root is the directory whose direct subdirectories are the workspaces
	// served at /mcp/{workspace}.
	Root string
	// Tokens say which bearer token may open which workspaces (SetTokens
	// replaces them, as on SIGHUP).
	Tokens *Tokens
	// MaxSessions bounds the sessions open at once (0: no bound); a new
	// session past it is refused with 503.
	MaxSessions int
	// MaxSessionsPerToken bounds the sessions one token holds at once (0:
	// no bound of its own), so that one tenant cannot take every session
	// MaxSessions allows; a new session past it is refused with 503.
	MaxSessionsPerToken int
	// MaxUnauthConns bounds the connections open at once on which no request
	// has carried a known token (0: DefaultMaxUnauthConns); past it the
	// oldest of them is closed.
	MaxUnauthConns int
	// BodyGrace and BodyRate bound how slowly a request body may come: it
	// may take BodyGrace plus its length at BodyRate bytes a second, or it is
	// cut with 408 (0: DefaultBodyGrace, DefaultBodyRate). Serve the host
	// with HTTPServer for these and the other limits to hold.
	BodyGrace time.Duration
	BodyRate  int
	// SessionIdle closes a session, and its run, after this long without a
	// request from its client (0: never).
	SessionIdle time.Duration
	// Registry receives the host's metrics (sessions open, calls by tool and
	// outcome, call latency), served on /metrics with whatever else the
	// caller registered on it; nil: a registry of the host's own.
	Registry *metrics.Registry
	// MetricsApart serves /metrics only through Host.Metrics (on a listener
	// of its own, such as a port only the pod network reaches): the host's
	// handler answers 404 for it.
	MetricsApart bool
	// MetricsToken, when set, is the bearer token /metrics requires (401
	// without it; SetMetricsToken replaces it).
	MetricsToken *MetricsToken
	// OAuth, when set, also takes bearer JWTs verified against its key set
	// and serves the protected resource metadata clients discover it by.
	OAuth *OAuth
	// Server are every session's server options (SessionID is set per session).
	Server Options
	// StartRun starts the run of a new session: workdir is the workspace's
	// directory, sessionID the MCP session id (the run's conversation id),
	// and srv the session's server, to wire as the run's approver and
	// elicitor. The returned function closes the run and all it started.
	StartRun func(ctx context.Context, workdir, sessionID string, srv *Server) (*tools.Run, func() error, error)
}

// Host serves many runs over MCP Streamable HTTP: each MCP session on
// /mcp/{workspace} is one run confined to that workspace, started when the
// session is and closed with it (by the client's DELETE, SessionIdle or
// Close). It also answers /healthz.
type Host struct {
	opts    HostOptions
	root    string // Root with symlinks resolved
	tokens  atomic.Pointer[Tokens]
	mtoken  atomic.Pointer[MetricsToken]
	sdk     *mcp.StreamableHTTPHandler
	proto   *mcp.Server                // answers the go-sdk's per-request version check
	modern  *mcp.StreamableHTTPHandler // stateless: requests of modernVersion
	front   *Server                    // server/discover without a conversation
	metrics *hostMetrics
	promh   http.Handler
	ctx     context.Context
	cancel  context.CancelFunc

	mu       sync.Mutex
	sessions map[string]*hostSession
	convs    map[string]*hostConv // by principal, workspace and key
	gone     map[string]struct{}  // conversations Close ended
	pending  int                  // sessions being started
	held     map[string]int       // sessions open or being started, by token key
	closed   bool                 // Close or Drain called: no new sessions
	inflight int                  // requests with a session id being served
	idle     chan struct{}        // closed when inflight drops to 0 while draining
	runs     sync.WaitGroup

	connMu sync.Mutex
	unauth []net.Conn // connections no request authenticated on, oldest first
}

type hostSession struct {
	id, workspace, tokenKey string
	tier                    tools.Tier // the highest its principal may use
	srv                     *Server
	once                    sync.Once
	closeRun                func() error
}

type newSessionKey struct{}

// NewHost returns a Host for opts; it checks that Root is a directory.
func NewHost(opts HostOptions) (*Host, error) {
	if opts.StartRun == nil {
		return nil, errors.New("server: HostOptions.StartRun is nil")
	}
	root, err := filepath.Abs(opts.Root)
	if err == nil {
		root, err = filepath.EvalSymlinks(root)
	}
	if err != nil {
		return nil, &OptionError{Option: "Root", Why: "cannot be resolved", Err: err}
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return nil, &OptionError{Option: "Root", Why: fmt.Sprintf("%s is not a directory; give the directory whose subdirectories are the workspaces", opts.Root)}
	}
	h := &Host{opts: opts, root: root, sessions: map[string]*hostSession{}, held: map[string]int{}, convs: map[string]*hostConv{}, gone: map[string]struct{}{}}
	h.tokens.Store(opts.Tokens)
	h.mtoken.Store(opts.MetricsToken)
	reg := opts.Registry
	if reg == nil {
		reg = metrics.NewRegistry()
	}
	h.metrics = newHostMetrics(reg, h)
	h.promh = reg.Handler()
	h.ctx, h.cancel = context.WithCancel(context.Background())
	h.proto = mcp.NewServer(&mcp.Implementation{Name: "tether"}, &mcp.ServerOptions{SupportedProtocolVersions: protocolVersions})
	h.sdk = mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		if s, ok := r.Context().Value(newSessionKey{}).(*hostSession); ok {
			return s.srv.srv
		}
		return h.proto
	}, &mcp.StreamableHTTPOptions{SessionTimeout: opts.SessionIdle, Logger: sdkLogger(opts.Server.Logger)})
	h.front = New(opts.Server)
	h.modern = mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		if s, ok := r.Context().Value(modernServerKey{}).(*mcp.Server); ok {
			return s
		}
		return h.front.srv
	}, &mcp.StreamableHTTPOptions{Stateless: true, PropagateRequestCancellation: true, Logger: sdkLogger(opts.Server.Logger)})
	if opts.SessionIdle > 0 {
		go h.reapIdle(opts.SessionIdle)
	}
	return h, nil
}

// SetTokens replaces the tokens (a reload of the tokens file); sessions
// already open stay open.
func (h *Host) SetTokens(t *Tokens) { h.tokens.Store(t) }

// Sessions returns the number of sessions and conversations open.
func (h *Host) Sessions() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sessions) + len(h.convs)
}

func (h *Host) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.paceBody(w, r)
	switch {
	case r.URL.Path == "/healthz":
		h.healthz(w)
	case r.URL.Path == "/metrics" && !h.opts.MetricsApart:
		h.serveMetrics(w, r)
	case strings.HasPrefix(r.URL.Path, resourceMetadataPath) && h.opts.OAuth != nil:
		h.opts.OAuth.serveMetadata(w, r)
	case strings.HasPrefix(r.URL.Path, "/mcp/"):
		h.serveMCP(w, r)
	default:
		http.NotFound(w, r)
	}
}

// SetMetricsToken replaces the token /metrics requires (nil: none), as on
// SIGHUP.
func (h *Host) SetMetricsToken(t *MetricsToken) { h.mtoken.Store(t) }

// Metrics returns the handler of /metrics alone, for a listener of its own
// (HostOptions.MetricsApart); it requires the metrics token when one is set.
func (h *Host) Metrics() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		h.serveMetrics(w, r)
	})
}

func (h *Host) serveMetrics(w http.ResponseWriter, r *http.Request) {
	if t := h.mtoken.Load(); t != nil && !t.allows(r.Header.Get("Authorization")) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="tether metrics"`)
		http.Error(w, "server: /metrics needs Authorization: Bearer <the token in the host's --metrics-token file>", http.StatusUnauthorized)
		return
	}
	h.promh.ServeHTTP(w, r)
}

func (h *Host) healthz(w http.ResponseWriter) {
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	if closed {
		http.Error(w, "draining", http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintln(w, "ok")
}

// serveMCP checks the token (401), the workspace's name (404), that the
// token covers it (403) and that it is a directory under the root (404),
// then hands the request to the go-sdk, starting a session's run first.
func (h *Host) serveMCP(w http.ResponseWriter, r *http.Request) {
	p, ok := h.principalOf(w, r)
	if !ok {
		return
	}
	h.authenticate(r)
	ws := strings.TrimPrefix(r.URL.Path, "/mcp/")
	if !validWorkspace(ws) || strings.Contains(r.URL.EscapedPath()[len("/mcp/"):], "%") {
		http.Error(w, "server: no such workspace: the path is /mcp/NAME with NAME one directory under the host's root", http.StatusNotFound)
		return
	}
	if !covers(p.globs, ws) {
		h.forbid(w, ws, "server: this token may not open workspace "+ws)
		return
	}
	dir, ok := h.workspaceDir(ws)
	if !ok {
		http.Error(w, "server: no such workspace: the path is /mcp/NAME with NAME one directory under the host's root", http.StatusNotFound)
		return
	}
	if r.Method == http.MethodPost {
		body, ok := readBody(w, r)
		if !ok || !checkBody(w, body) {
			return
		}
		w = &notHandledWriter{ResponseWriter: w, body: body}
		if m := parseModern(body); isModern(r, m) {
			r = r.WithContext(context.WithValue(r.Context(), runTierKey{}, p.tier))
			h.serveModern(codeWriter{w}, r, m, ws, dir, p.key)
			return
		}
	}
	w = codeWriter{w}
	if r.Method == http.MethodDelete && r.Header.Get(ConversationHeader) != "" && r.Header.Get("Mcp-Session-Id") == "" {
		h.deleteConv(w, r, ws, p.key)
		return
	}
	if id := r.Header.Get("Mcp-Session-Id"); id != "" {
		h.mu.Lock()
		s := h.sessions[id]
		h.mu.Unlock()
		// A session is reachable only on its workspace, with its token.
		if s == nil || s.workspace != ws || s.tokenKey != p.key {
			h.sessionNotFound(w)
			return
		}
		if p.tier < s.tier {
			h.forbid(w, ws, fmt.Sprintf("server: this token's tier (%s) is below the session's (%s); start a new session with it", p.tier, s.tier))
			return
		}
		if r.Method == http.MethodPost {
			h.track(1)
			defer h.track(-1)
		}
		h.sdk.ServeHTTP(w, r)
		return
	}
	if r.Method != http.MethodPost {
		h.sdk.ServeHTTP(w, r) // the go-sdk says what is wrong
		return
	}
	h.newSession(w, r, ws, dir, p.key, p.tier)
}

// validWorkspace reports whether ws is one path segment naming a directory
// entry: not empty, not . or .., no separator.
func validWorkspace(ws string) bool {
	return ws != "" && ws != "." && ws != ".." && !strings.ContainsAny(ws, "/\\\x00")
}

// workspaceDir resolves workspace ws under the root: a directory whose real
// path is the root's entry of that name (a symlink out of the root is
// refused, and so is one to another workspace, which would let a token that
// covers the link's name open a workspace its globs do not name).
func (h *Host) workspaceDir(ws string) (string, bool) {
	real, err := filepath.EvalSymlinks(filepath.Join(h.root, ws))
	if err != nil || real != filepath.Join(h.root, ws) {
		return "", false
	}
	fi, err := os.Stat(real)
	return real, err == nil && fi.IsDir()
}

func (h *Host) newSession(w http.ResponseWriter, r *http.Request, ws, dir, key string, tier tools.Tier) {
	h.mu.Lock()
	switch {
	case h.closed:
		h.mu.Unlock()
		w.Header().Set("Connection", "close")
		http.Error(w, "server: the host is shutting down; start the session on another", http.StatusServiceUnavailable)
		return
	case h.opts.MaxSessions > 0 && len(h.sessions)+len(h.convs)+h.pending >= h.opts.MaxSessions:
		h.mu.Unlock()
		w.Header().Set("Retry-After", "5")
		http.Error(w, fmt.Sprintf("server: the host has its most sessions open (%d); retry later or close a session", h.opts.MaxSessions), http.StatusServiceUnavailable)
		return
	case h.opts.MaxSessionsPerToken > 0 && h.held[key] >= h.opts.MaxSessionsPerToken:
		h.mu.Unlock()
		w.Header().Set("Retry-After", "5")
		http.Error(w, fmt.Sprintf("server: this token holds its most sessions (%d); close one of them (DELETE with its Mcp-Session-Id) or wait for an idle one to close", h.opts.MaxSessionsPerToken), http.StatusServiceUnavailable)
		return
	}
	h.pending++
	h.held[key]++
	h.runs.Add(1)
	h.mu.Unlock()

	s := &hostSession{id: newSessionID(r), workspace: ws, tokenKey: key, tier: tier}
	so := h.opts.Server
	so.SessionID = s.id
	so.OnCall = h.observe
	so.legacy = true
	s.srv = New(so)
	s.srv.srv.AddReceivingMiddleware(h.startOnInitialize(s, dir))
	h.sdk.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), newSessionKey{}, s)))
	h.mu.Lock()
	started, closed := s.closeRun != nil, h.closed
	if !started {
		h.pending--
		h.release(key)
	}
	h.mu.Unlock()
	ss := s.srv.httpSession()
	if !started {
		// Not an initialize the server accepted (a client probing for a
		// newer protocol version first): no run was started.
		if ss != nil {
			ss.Close()
		}
		h.runs.Done()
		return
	}
	if ss == nil {
		h.end(s) // the go-sdk closed it
		return
	}
	if closed {
		ss.Close() // Close ran while the session started
	}
	go func() {
		ss.Wait()
		h.end(s)
	}()
}

// startOnInitialize starts session s's run when its client's initialize
// arrives, before the go-sdk answers it, and registers the session.
func (h *Host) startOnInitialize(s *hostSession, dir string) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "initialize" {
				return next(ctx, method, req)
			}
			h.mu.Lock()
			started := s.closeRun != nil
			h.mu.Unlock()
			if !started {
				run, closeRun, err := h.opts.StartRun(withRun(h.ctx, s.tier, s.tokenKey), dir, s.id, s.srv)
				if err != nil {
					h.logger().Error("server: starting a session's run", "workspace", s.workspace, "err", err)
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("server: could not start the session's run: %v", err)}
				}
				s.srv.bind(run)
				h.mu.Lock()
				s.closeRun = closeRun
				h.pending--
				h.sessions[s.id] = s
				h.mu.Unlock()
				h.logger().Info("server: session opened", "session", s.id, "workspace", s.workspace)
			}
			return next(ctx, method, req)
		}
	}
}

// end closes session s's run, once.
func (h *Host) end(s *hostSession) {
	s.once.Do(func() {
		h.mu.Lock()
		delete(h.sessions, s.id)
		h.release(s.tokenKey)
		h.mu.Unlock()
		h.closeRun("session", s.id, s.workspace, s.closeRun, s.srv)
	})
}

// closeRun closes the run of a session or conversation (kind, for the log),
// drops the outputs its server kept and counts the run done.
func (h *Host) closeRun(kind, id, workspace string, closeRun func() error, srv *Server) {
	if err := closeRun(); err != nil {
		h.logger().Warn("server: closing a "+kind+"'s run", kind, id, "err", err)
	}
	srv.outputs.drop()
	h.logger().Info("server: "+kind+" closed", kind, id, "workspace", workspace)
	h.runs.Done()
}

// release drops one of the sessions token key holds; h.mu is held.
func (h *Host) release(key string) {
	if h.held[key]--; h.held[key] <= 0 {
		delete(h.held, key)
	}
}

func (h *Host) logger() *slog.Logger {
	if h.opts.Server.Logger != nil {
		return h.opts.Server.Logger
	}
	return slog.New(slog.DiscardHandler)
}

func (h *Host) track(n int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.inflight += n
	if h.inflight == 0 && h.idle != nil {
		close(h.idle)
		h.idle = nil
	}
}

// Drain refuses new sessions, waits until no request of an open session is
// being served (a running call finishes) or ctx ends, then closes every
// session and its run (Close; past ctx's end, without a bound of its own:
// closing a run ends its processes at once).
func (h *Host) Drain(ctx context.Context) error {
	h.mu.Lock()
	h.closed = true
	var idle chan struct{}
	if h.inflight > 0 {
		idle = make(chan struct{})
		h.idle = idle
	}
	h.mu.Unlock()
	var err error
	closeCtx := ctx
	if idle != nil {
		select {
		case <-idle:
		case <-ctx.Done():
			err = fmt.Errorf("server: calls still running at the drain bound were cut: %w", context.Cause(ctx))
			closeCtx = context.WithoutCancel(ctx)
		}
	}
	return errors.Join(err, h.Close(closeCtx))
}

// Close refuses new sessions, closes every open session and its run, and
// returns when every run is closed or ctx ends.
func (h *Host) Close(ctx context.Context) error {
	h.mu.Lock()
	h.closed = true
	open := slices.Collect(maps.Values(h.sessions))
	convs := slices.Collect(maps.Values(h.convs))
	h.mu.Unlock()
	for _, c := range convs {
		select {
		case <-c.ready:
			if c.err == nil {
				h.endConv(c)
			}
		default: // still starting: it ends itself once started
		}
	}
	// Every run first, then the go-sdk's sessions, each on its own: closing
	// a go-sdk session waits for the calls it is serving, and a call still
	// running past the drain (a cell sleeping) ends only when its run's
	// kernels and servers do.
	for _, s := range open {
		h.end(s)
	}
	for _, s := range open {
		if ss := s.srv.httpSession(); ss != nil {
			go ss.Close()
		}
	}
	h.cancel() // a run being started gives up
	done := make(chan struct{})
	go func() {
		h.runs.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("server: closing the host's runs: %w", context.Cause(ctx))
	}
}

// bind makes s serve run over a transport the go-sdk's HTTP handler
// connects (instead of Serve's one transport).
func (s *Server) bind(run *tools.Run) {
	s.mu.Lock()
	s.run = run
	s.mu.Unlock()
	s.Refresh()
}

// httpSession returns the server's one session, or nil.
func (s *Server) httpSession() *mcp.ServerSession {
	for ss := range s.srv.Sessions() {
		return ss
	}
	return nil
}

// OptionError says that a field of HostOptions or OAuthOptions cannot be
// used: Option names the field ("ResourceURL"), Why says what is wrong
// with it. A command line maps Option to its flag (errors.As).
type OptionError struct {
	Option string
	Why    string
	Err    error // what the check failed with, if anything
}

func (e *OptionError) Error() string {
	msg := "server: " + e.Option + ": " + e.Why
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *OptionError) Unwrap() error { return e.Err }
