package server

import "bytes"
import "context"
import "errors"
import "fmt"
import "io"
import "net"
import "net/http"
import "os"
import "time"

import "github.com/modelcontextprotocol/go-sdk/mcp"

// HTTP limits of a Host (see HostOptions).
const (
	// DefaultBodyGrace is how long a request body may take before
	// DefaultBodyRate applies to it.
	DefaultBodyGrace = 10 * time.Second
	// DefaultBodyRate is the slowest a request body may arrive on average,
	// in bytes a second, once DefaultBodyGrace has passed: the largest body
	// the go-sdk takes (4 MiB) within 10 s plus 4 minutes.
	DefaultBodyRate = 16 << 10
	// DefaultMaxUnauthConns is how many connections may be open at once
	// with no request on them yet authenticated.
	DefaultMaxUnauthConns = 256
	// readHeaderTimeout bounds the reading of a request's header.
	readHeaderTimeout = 10 * time.Second
	// idleTimeout closes a keep-alive connection idle this long.
	idleTimeout = 2 * time.Minute
	// maxHeaderBytes bounds a request's header.
	maxHeaderBytes = 64 << 10
)

// HTTPServer returns an http.Server that serves h with the limits a server
// open to the network needs: a bound on reading each header
// (readHeaderTimeout), on idle keep-alive connections (idleTimeout) and on
// the header's size, and the connection bookkeeping behind
// HostOptions.MaxUnauthConns. It has no ReadTimeout or WriteTimeout, which
// would cut event streams and long calls: each request body is read under
// a deadline of its own (HostOptions.BodyGrace and BodyRate) instead.
func (h *Host) HTTPServer() *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, connKey{}, c)
		},
		ConnState: h.connState,
	}
}

// MetricsServer returns an http.Server that serves Metrics alone (on a
// listener of its own) with HTTPServer's bounds on headers and idle
// connections.
func (h *Host) MetricsServer() *http.Server {
	return &http.Server{Handler: h.Metrics(), ReadHeaderTimeout: readHeaderTimeout, IdleTimeout: idleTimeout, MaxHeaderBytes: maxHeaderBytes}
}

type connKey struct{}

// connState keeps the connections no request has authenticated on, oldest
// first; past the bound the oldest is closed, so a client that floods the
// host with connections that never authenticate (or never finish a header)
// cannot exhaust its file descriptors, and one that authenticates at once
// is not crowded out by them.
func (h *Host) connState(c net.Conn, st http.ConnState) {
	h.connMu.Lock()
	defer h.connMu.Unlock()
	switch st {
	case http.StateNew:
		h.unauth = append(h.unauth, c)
		max := h.opts.MaxUnauthConns
		if max <= 0 {
			max = DefaultMaxUnauthConns
		}
		for len(h.unauth) > max {
			old := h.unauth[0]
			h.unauth = h.unauth[1:]
			old.Close()
			h.metrics.connsCut.Inc()
		}
	case http.StateClosed, http.StateHijacked:
		h.authenticated(c)
	}
}

// authenticated takes c off the unauthenticated connections; h.connMu is
// held.
func (h *Host) authenticated(c net.Conn) {
	for i, u := range h.unauth {
		if u == c {
			h.unauth = append(h.unauth[:i], h.unauth[i+1:]...)
			return
		}
	}
}

// authenticate records that a request on r's connection carried a token.
func (h *Host) authenticate(r *http.Request) {
	c, ok := r.Context().Value(connKey{}).(net.Conn)
	if !ok {
		return
	}
	h.connMu.Lock()
	h.authenticated(c)
	h.connMu.Unlock()
}

// errSlowBody is a request body that came slower than the host allows.
var errSlowBody = errors.New("server: the request body came too slowly")

// pacedBody reads a request body under a read deadline on its connection
// that moves with what has arrived: the whole body may take the grace plus
// its length at the least rate allowed, so a body trickled a byte at a time
// is cut once the grace has passed. The deadline is set before the first
// read, so a body the handler never reads (a refused request) is cut too,
// when the server drains it, and cleared once the body is read, so that
// the connection's next request, or the event stream a POST answers with,
// is not.
type pacedBody struct {
	body  io.ReadCloser
	rc    *http.ResponseController
	start time.Time
	grace time.Duration
	rate  int64
	n     int64
	done  bool
}

func (h *Host) paceBody(w http.ResponseWriter, r *http.Request) {
	if r.Body == nil || r.Body == http.NoBody {
		return
	}
	p := &pacedBody{body: r.Body, rc: http.NewResponseController(w), start: time.Now(), grace: h.opts.BodyGrace, rate: int64(h.opts.BodyRate)}
	if p.grace <= 0 {
		p.grace = DefaultBodyGrace
	}
	if p.rate <= 0 {
		p.rate = DefaultBodyRate
	}
	p.rc.SetReadDeadline(p.deadline())
	r.Body = p
}

// deadline is when the next byte must have come.
func (p *pacedBody) deadline() time.Time {
	return p.start.Add(p.grace + time.Duration(float64(p.n+1)/float64(p.rate)*float64(time.Second)))
}

func (p *pacedBody) Read(b []byte) (int, error) {
	if p.done {
		return p.body.Read(b)
	}
	p.rc.SetReadDeadline(p.deadline())
	n, err := p.body.Read(b)
	p.n += int64(n)
	switch {
	case err == io.EOF:
		p.done = true
		p.rc.SetReadDeadline(time.Time{})
	case errors.Is(err, os.ErrDeadlineExceeded):
		err = fmt.Errorf("%w: %d bytes in %s; send the body at once (at least %d bytes a second after the first %s)", errSlowBody, p.n, time.Since(p.start).Round(time.Millisecond), p.rate, p.grace)
	}
	return n, err
}

func (p *pacedBody) Close() error { return p.body.Close() }

// readBody reads r's body (at most mcp.DefaultMaxRequestBodyBytes) and puts
// it back for the go-sdk; on an error it answers the request and returns
// false.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, mcp.DefaultMaxRequestBodyBytes))
	if err != nil {
		w.Header().Set("Connection", "close")
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &mbe):
			http.Error(w, fmt.Sprintf("server: the request body is over %d bytes; send less in one call (write a large file in parts)", mbe.Limit), http.StatusRequestEntityTooLarge)
		case errors.Is(err, errSlowBody):
			http.Error(w, err.Error(), http.StatusRequestTimeout)
		default:
			http.Error(w, "server: reading the request body: "+err.Error(), http.StatusBadRequest)
		}
		return nil, false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body, true
}
