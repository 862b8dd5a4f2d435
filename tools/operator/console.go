package operator

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

//go:embed console.html
var consoleHTML string

var consolePage = template.Must(template.New("console").Parse(consoleHTML))

// Console is the web operator console: a page on a loopback address listing
// pending questions as numbered cards, taking answers, skips and multi-selects,
// updated live over server-sent events. A human is connected while at least one
// console page holds its event stream open; with none, questions fail at once.
type Console struct {
	token string

	mu      sync.Mutex
	next    int
	pending []*pendingQuestion
	viewers int
	subs    map[chan struct{}]struct{}
	closed  bool
	gone    chan struct{} // closed by Close

	ln  net.Listener
	srv *http.Server
}

type pendingQuestion struct {
	id    string
	n     int
	q     Question
	asked time.Time
	reply chan Answer
}

// NewConsole returns a console that is not listening yet; serve Handler
// yourself or use ListenConsole.
func NewConsole() *Console {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("operator: no randomness for the console token: " + err.Error())
	}
	return &Console{token: hex.EncodeToString(b[:]), subs: map[chan struct{}]struct{}{}, gone: make(chan struct{})}
}

// ListenConsole starts a console on addr, which must be a loopback address
// ("127.0.0.1:8765"; port 0 picks one). The console only binds loopback: it
// answers questions on the operator's behalf and must not be reachable from
// elsewhere.
func ListenConsole(addr string) (*Console, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("operator: console address %q: %v: use 127.0.0.1:PORT", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("operator: console address %q is not loopback: use 127.0.0.1:PORT", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("operator: console cannot listen on %s: %w", addr, err)
	}
	c := NewConsole()
	c.ln = ln
	c.srv = &http.Server{Handler: c.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go c.srv.Serve(ln)
	return c, nil
}

// URL is the console page's address ("http://127.0.0.1:PORT/"), or "" when the
// console was not started by ListenConsole.
func (c *Console) URL() string {
	if c.ln == nil {
		return ""
	}
	return "http://" + c.ln.Addr().String() + "/"
}

// Viewers returns how many console pages are connected.
func (c *Console) Viewers() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.viewers
}

// Pending returns how many questions wait for an answer.
func (c *Console) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pending)
}

// Close stops the console; pending questions end with ErrNoHuman.
func (c *Console) Close() error {
	c.mu.Lock()
	if !c.closed {
		close(c.gone)
	}
	c.closed = true
	for s := range c.subs {
		close(s)
		delete(c.subs, s)
	}
	c.mu.Unlock()
	if c.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if err := c.srv.Shutdown(ctx); err != nil {
			return c.srv.Close()
		}
	}
	return nil
}

// Ask implements QuestionPort.
func (c *Console) Ask(ctx context.Context, q Question) (Answer, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return Answer{}, fmt.Errorf("%w: the operator console is closed", ErrNoHuman)
	}
	if c.viewers == 0 {
		c.mu.Unlock()
		return Answer{}, fmt.Errorf("%w: no operator console page is open", ErrNoHuman)
	}
	c.next++
	p := &pendingQuestion{id: "q" + strconv.Itoa(c.next), n: c.next, q: q, asked: time.Now(), reply: make(chan Answer, 1)}
	c.pending = append(c.pending, p)
	c.notifyLocked()
	c.mu.Unlock()

	defer c.remove(p)
	select {
	case a := <-p.reply:
		return a, nil
	case <-ctx.Done():
		return Answer{}, ctx.Err()
	case <-c.gone:
		return Answer{}, fmt.Errorf("%w: the operator console was closed before an answer", ErrNoHuman)
	}
}

func (c *Console) remove(p *pendingQuestion) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, x := range c.pending {
		if x == p {
			c.pending = append(c.pending[:i], c.pending[i+1:]...)
			c.notifyLocked()
			return
		}
	}
}

func (c *Console) notifyLocked() {
	for s := range c.subs {
		select {
		case s <- struct{}{}:
		default:
		}
	}
}

// Handler serves the console: GET / (the page), GET /events (server-sent
// events with the pending cards), POST /reply (an answer or a skip).
func (c *Console) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", c.page)
	mux.HandleFunc("GET /events", c.events)
	mux.HandleFunc("POST /reply", c.reply)
	return loopbackOnly(mux)
}

// loopbackOnly refuses requests whose Host is not a loopback name, so a web
// page elsewhere cannot reach the console through DNS rebinding.
func loopbackOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		host = strings.Trim(host, "[]")
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			http.Error(w, "operator: the console answers loopback hosts only", http.StatusForbidden)
			return
		}
		w.Header().Set("X-Frame-Options", "DENY")
		w.Header().Set("Cache-Control", "no-store")
		h.ServeHTTP(w, r)
	})
}

func (c *Console) page(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'")
	if err := consolePage.Execute(w, struct{ Token string }{c.token}); err != nil {
		http.Error(w, "operator: "+err.Error(), http.StatusInternalServerError)
	}
}

// cardJSON is one pending card as the page receives it.
type cardJSON struct {
	ID       string `json:"id"`
	N        int    `json:"n"`
	Asked    string `json:"asked"`
	Question        // embedded fields: kind, question, context, options...
}

func (c *Console) snapshotLocked() []byte {
	cards := make([]cardJSON, 0, len(c.pending))
	for _, p := range c.pending {
		cards = append(cards, cardJSON{ID: p.id, N: p.n, Asked: p.asked.UTC().Format(time.RFC3339), Question: p.q})
	}
	b, _ := json.Marshal(map[string]any{"cards": cards})
	return b
}

func (c *Console) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "operator: streaming unsupported", http.StatusInternalServerError)
		return
	}
	sub := make(chan struct{}, 1)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		http.Error(w, "operator: console closed", http.StatusServiceUnavailable)
		return
	}
	c.subs[sub] = struct{}{}
	c.viewers++
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		if _, ok := c.subs[sub]; ok {
			delete(c.subs, sub)
		}
		c.viewers--
		c.mu.Unlock()
	}()

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	keepalive := time.NewTicker(15 * time.Second)
	defer keepalive.Stop()
	send := func() bool {
		c.mu.Lock()
		b := c.snapshotLocked()
		c.mu.Unlock()
		if _, err := fmt.Fprintf(w, "event: cards\ndata: %s\n\n", b); err != nil {
			return false
		}
		fl.Flush()
		return true
	}
	if !send() {
		return
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case _, ok := <-sub:
			if !ok || !send() {
				return
			}
		case <-keepalive.C:
			if _, err := fmt.Fprint(w, ": keepalive\n\n"); err != nil {
				return
			}
			fl.Flush()
		}
	}
}

// replyJSON is what the page posts.
type replyJSON struct {
	ID     string   `json:"id"`
	Skip   bool     `json:"skip"`
	Labels []string `json:"labels"`
	Text   string   `json:"text"`
}

func (c *Console) reply(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("X-Tether-Console") != c.token {
		http.Error(w, "operator: missing or wrong console token: reload the console page", http.StatusForbidden)
		return
	}
	var rep replyJSON
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&rep); err != nil {
		http.Error(w, "operator: reply does not decode: "+err.Error(), http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	var p *pendingQuestion
	for _, x := range c.pending {
		if x.id == rep.ID {
			p = x
		}
	}
	c.mu.Unlock()
	if p == nil {
		http.Error(w, "operator: that question is no longer pending (answered elsewhere or timed out)", http.StatusGone)
		return
	}
	a := Answer{Outcome: Skipped}
	if !rep.Skip {
		a = Answer{Outcome: Answered, Labels: Normalize(p.q, rep.Labels), Text: strings.TrimSpace(rep.Text)}
		if len(a.Labels) == 0 && a.Text == "" {
			http.Error(w, "operator: choose an option, type an answer, or skip", http.StatusBadRequest)
			return
		}
	}
	if err := CheckAnswer(p.q, a); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	select {
	case p.reply <- a:
	default:
		http.Error(w, "operator: that question was already answered", http.StatusConflict)
		return
	}
	c.remove(p)
	w.WriteHeader(http.StatusNoContent)
}
