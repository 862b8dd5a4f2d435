package server

import "context"
import "crypto/rand"
import "encoding/json"
import "fmt"
import "net/http"
import "strings"
import "sync"
import "sync/atomic"
import "time"

import "github.com/modelcontextprotocol/go-sdk/jsonrpc"
import "github.com/modelcontextprotocol/go-sdk/mcp"

import "github.com/tetherhq/tether/tools"

// modernVersion is the first MCP revision without sessions: each request
// carries its version and the client's capabilities in _meta, there is no
// initialize, and questions come back as input requests.
const modernVersion = "2026-07-28"

// hostConv is one conversation of a client of modernVersion: a run reached
// by its key, on one workspace, for one principal (see ConversationHeader).
type hostConv struct {
	id                        string // the run's conversation id (logs, metrics)
	mapKey                    string // principal, workspace and key
	key, workspace, principal string
	tier                      tools.Tier // the highest its principal may use
	srv                       *Server
	closeRun                  func() error
	ready                     chan struct{} // closed once the run started (or failed)
	err                       error         // why it did not start
	once                      sync.Once
	fresh                     atomic.Bool // no result said ConversationNewMetaKey yet
	active                    int         // requests being served; h.mu
	last                      time.Time   // end of the last request; h.mu
}

type modernServerKey struct{}

// modernMessage is what the host reads of a modernVersion request before the
// go-sdk does.
type modernMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Meta map[string]any `json:"_meta"`
		Name string         `json:"name"`
	} `json:"params"`
}

// isModern reports whether a request speaks modernVersion: its
// MCP-Protocol-Version header says so, or it is server/discover (which a
// client sends to learn whether the server speaks it).
func isModern(r *http.Request, m *modernMessage) bool {
	if v := r.Header.Get("Mcp-Protocol-Version"); v >= modernVersion {
		return true
	}
	if m == nil {
		return false
	}
	if m.Method == "server/discover" {
		return true
	}
	_, ok := m.Params.Meta["io.modelcontextprotocol/protocolVersion"]
	return ok && r.Header.Get("Mcp-Session-Id") == ""
}

// parseModern reads a POST body holding one JSON-RPC message; nil for
// anything else (a batch: the go-sdk refuses it).
func parseModern(body []byte) *modernMessage {
	var m modernMessage
	if json.Unmarshal(body, &m) != nil || m.Method == "" {
		return nil
	}
	return &m
}

// statefulTool reports whether tool keeps state between calls that only a
// conversation can reach again: a kernel, a debug session, a staged edit or
// a worker. Without a conversation key such a call is refused.
func statefulTool(name string) bool {
	switch name {
	case "eval", "debug", "ast_edit", "resolve":
		return true
	}
	return strings.HasPrefix(name, "vibe_")
}

// serveModern serves a request of modernVersion: with a conversation key,
// on the conversation's run (started by its first request); without one,
// server/discover on the host's front server and anything else on a fresh
// run that ends with the request, stateful tools refused.
func (h *Host) serveModern(w http.ResponseWriter, r *http.Request, m *modernMessage, ws, dir, principal string) {
	var meta map[string]any
	if m != nil {
		meta = m.Params.Meta
	}
	key, err := conversationKey(r.Header, meta)
	if err != nil {
		writeRPCError(w, http.StatusBadRequest, m, jsonrpc.CodeInvalidParams, err.Error())
		return
	}
	discover := m != nil && (m.Method == "server/discover" || m.Method == "subscriptions/listen")
	if key == "" {
		switch {
		case m == nil || discover || m.ID == nil:
			h.serveOn(w, r, h.front)
		case m.Method == "tools/call" && statefulTool(m.Params.Name):
			writeRPCError(w, http.StatusBadRequest, m, jsonrpc.CodeInvalidParams, fmt.Sprintf(
				"server: %s keeps state between calls, which MCP %s reaches only through a conversation: send the header %s: <key> (or _meta %q) with every request of the conversation, the key a random string of %d to %d characters you choose (a UUID)",
				m.Params.Name, modernVersion, ConversationHeader, ConversationMetaKey, MinConversationKey, MaxConversationKey))
		default:
			h.serveFresh(w, r, ws, dir, principal)
		}
		return
	}
	mapKey := principal + "\x00" + ws + "\x00" + key
	if discover {
		// Learning the server's capabilities starts no run.
		h.mu.Lock()
		c := h.convs[mapKey]
		h.mu.Unlock()
		if c == nil {
			h.serveOn(w, r, h.front)
			return
		}
	}
	c, ok := h.conversation(w, r, mapKey, key, ws, dir, principal)
	if !ok {
		return
	}
	defer h.leave(c)
	h.track(1)
	defer h.track(-1)
	h.serveOn(w, r, c.srv)
}

// serveOn hands a request to the go-sdk's stateless handler, served by s.
func (h *Host) serveOn(w http.ResponseWriter, r *http.Request, s *Server) {
	h.modern.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), modernServerKey{}, s.srv)))
}

// writeRPCError answers m with a JSON-RPC error and HTTP status.
func writeRPCError(w http.ResponseWriter, status int, m *modernMessage, code int64, msg string) {
	var id any
	if m != nil && m.ID != nil {
		id = m.ID
	}
	data, _ := json.Marshal(errorReply(id, code, msg))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(data)
}

// admitLocked takes a place for a new run of principal under the host's limits,
// or answers 503 and returns false; h.mu is held.
func (h *Host) admitLocked(w http.ResponseWriter, principal string, gone bool) bool {
	switch {
	case h.closed && gone:
		w.Header().Set("Connection", "close")
		http.Error(w, "server: this conversation's run ended when the host shut down (its kernels, debug session and staged edits are gone); start the conversation again with a new key", http.StatusServiceUnavailable)
		return false
	case h.closed:
		w.Header().Set("Connection", "close")
		http.Error(w, "server: the host is shutting down; start the conversation on another", http.StatusServiceUnavailable)
		return false
	case h.opts.MaxSessions > 0 && len(h.sessions)+len(h.convs)+h.pending >= h.opts.MaxSessions:
		w.Header().Set("Retry-After", "5")
		http.Error(w, fmt.Sprintf("server: the host has its most sessions and conversations open (%d); retry later or end one", h.opts.MaxSessions), http.StatusServiceUnavailable)
		return false
	case h.opts.MaxSessionsPerToken > 0 && h.held[principal] >= h.opts.MaxSessionsPerToken:
		w.Header().Set("Retry-After", "5")
		http.Error(w, fmt.Sprintf("server: this token holds its most sessions and conversations (%d); end one, or wait for an idle one to close", h.opts.MaxSessionsPerToken), http.StatusServiceUnavailable)
		return false
	}
	h.held[principal]++
	h.runs.Add(1)
	return true
}

// conversation returns the conversation of mapKey, starting its run when
// the host holds none, and counts the request as active in it; when it
// returns false it has answered the request.
func (h *Host) conversation(w http.ResponseWriter, r *http.Request, mapKey, key, ws, dir, principal string) (*hostConv, bool) {
	h.mu.Lock()
	c := h.convs[mapKey]
	if c != nil {
		c.active++
		h.mu.Unlock()
		select {
		case <-c.ready:
		case <-r.Context().Done():
			h.leave(c)
			return nil, false
		}
		if c.err != nil {
			h.leave(c)
			http.Error(w, fmt.Sprintf("server: could not start the conversation's run: %v", c.err), http.StatusInternalServerError)
			return nil, false
		}
		if t := RunTier(r.Context()); t < c.tier {
			h.leave(c)
			h.forbid(w, ws, fmt.Sprintf("server: this token's tier (%s) is below the conversation's (%s); start a new conversation with it", t, c.tier))
			return nil, false
		}
		return c, true
	}
	_, gone := h.gone[mapKey]
	if !h.admitLocked(w, principal, gone) {
		h.mu.Unlock()
		return nil, false
	}
	c = &hostConv{id: "c-" + rand.Text(), mapKey: mapKey, key: key, workspace: ws, principal: principal, tier: RunTier(r.Context()), ready: make(chan struct{}), active: 1}
	c.fresh.Store(true)
	h.convs[mapKey] = c
	h.mu.Unlock()

	so := h.opts.Server
	so.SessionID, so.OnCall, so.bind = c.id, h.observe, mapKey
	c.srv = New(so)
	c.srv.srv.AddReceivingMiddleware(c.annotate)
	run, closeRun, err := h.opts.StartRun(withRunTier(h.ctx, r, principal), dir, c.id, c.srv)
	if err != nil {
		h.logger().Error("server: starting a conversation's run", "workspace", ws, "err", err)
		c.err = err
		h.mu.Lock()
		delete(h.convs, mapKey)
		h.release(principal)
		h.mu.Unlock()
		h.runs.Done()
		close(c.ready)
		http.Error(w, fmt.Sprintf("server: could not start the conversation's run: %v", err), http.StatusInternalServerError)
		return nil, false
	}
	c.srv.bind(run)
	c.closeRun = closeRun
	close(c.ready)
	h.logger().Info("server: conversation opened", "conversation", c.id, "workspace", ws)
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	if closed {
		// Close ran while the run started: it did not see this one.
		h.endConv(c)
		h.leave(c)
		http.Error(w, "server: the host is shutting down; start the conversation on another", http.StatusServiceUnavailable)
		return nil, false
	}
	return c, true
}

// leave ends a request's time in conversation c.
func (h *Host) leave(c *hostConv) {
	h.mu.Lock()
	c.active--
	c.last = time.Now()
	h.mu.Unlock()
}

// endConv closes conversation c's run, once.
func (h *Host) endConv(c *hostConv) {
	c.once.Do(func() {
		h.mu.Lock()
		if h.convs[c.mapKey] == c {
			delete(h.convs, c.mapKey)
		}
		if h.closed {
			h.gone[c.mapKey] = struct{}{}
		}
		h.release(c.principal)
		h.mu.Unlock()
		h.closeRun("conversation", c.id, c.workspace, c.closeRun, c.srv)
	})
}

// annotate sets the conversation's key in the _meta of every result it
// serves, and ConversationNewMetaKey in the first.
func (c *hostConv) annotate(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil || res == nil || method == "server/discover" {
			return res, err
		}
		meta := res.GetMeta()
		if meta == nil {
			meta = map[string]any{}
		}
		meta[ConversationMetaKey] = c.key
		if c.fresh.Swap(false) {
			meta[ConversationNewMetaKey] = true
		}
		res.SetMeta(meta)
		return res, nil
	}
}

// serveFresh serves one request on a run of its own, closed once it is
// answered: a call of a client that named no conversation.
func (h *Host) serveFresh(w http.ResponseWriter, r *http.Request, ws, dir, principal string) {
	h.mu.Lock()
	if !h.admitLocked(w, principal, false) {
		h.mu.Unlock()
		return
	}
	h.pending++
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		h.pending--
		h.release(principal)
		h.mu.Unlock()
		h.runs.Done()
	}()
	id := "r-" + rand.Text()
	so := h.opts.Server
	so.SessionID, so.OnCall, so.bind, so.ephemeral = id, h.observe, principal+"\x00"+ws, true
	srv := New(so)
	run, closeRun, err := h.opts.StartRun(withRunTier(h.ctx, r, principal), dir, id, srv)
	if err != nil {
		h.logger().Error("server: starting a run", "workspace", ws, "err", err)
		http.Error(w, fmt.Sprintf("server: could not start the call's run: %v", err), http.StatusInternalServerError)
		return
	}
	srv.bind(run)
	h.track(1)
	h.serveOn(w, r, srv)
	h.track(-1)
	if err := closeRun(); err != nil {
		h.logger().Warn("server: closing a call's run", "run", id, "err", err)
	}
}

// reapIdle closes conversations no request reached for SessionIdle, until
// the host closes.
func (h *Host) reapIdle(idle time.Duration) {
	t := time.NewTicker(max(min(idle/4, 30*time.Second), 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-h.ctx.Done():
			return
		case <-t.C:
		}
		var old []*hostConv
		h.mu.Lock()
		for k, c := range h.convs {
			if c.active == 0 && time.Since(c.last) >= idle {
				// Out of the map at once: a request arriving now starts a
				// new run instead of reaching this one as it closes.
				delete(h.convs, k)
				old = append(old, c)
			}
		}
		h.mu.Unlock()
		for _, c := range old {
			h.logger().Info("server: conversation idle", "conversation", c.id, "idle", idle.String())
			h.endConv(c)
		}
	}
}

// deleteConv ends the conversation a DELETE names in its header: 204, or
// 404 when this principal holds none of that key on the workspace.
func (h *Host) deleteConv(w http.ResponseWriter, r *http.Request, ws, principal string) {
	key, err := conversationKey(r.Header, nil)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	c := h.convs[principal+"\x00"+ws+"\x00"+key]
	h.mu.Unlock()
	if c == nil {
		http.Error(w, "server: conversation not found (ended, idle too long, or not this token's)", http.StatusNotFound)
		return
	}
	select {
	case <-c.ready:
	case <-r.Context().Done():
		return
	}
	if c.err == nil {
		h.mu.Lock()
		if h.convs[c.mapKey] == c {
			delete(h.convs, c.mapKey) // a request arriving now starts anew
		}
		h.mu.Unlock()
		h.endConv(c)
	}
	w.WriteHeader(http.StatusNoContent)
}

// Conversations returns the number of conversations open.
func (h *Host) Conversations() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.convs)
}
