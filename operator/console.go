package operator

import "context"
import "crypto/rand"
import "crypto/subtle"
import _ "embed"
import "encoding/hex"
import "encoding/json"
import "fmt"
import "html/template"
import "net"
import "net/http"
import "net/url"
import "strconv"
import "strings"
import "sync"
import "time"

//go:embed console.html
var consoleHTML string

// consolePage is parsed on first use: most processes never serve the console.
var consolePage = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("console").Parse(consoleHTML))
})

// SessionCookie is the name of the console's session cookie.
const SessionCookie = "tether_console"

// TokenHeader is the request header that carries a logged-in page's token.
// The token reaches the page in the login redirect's URL fragment, which the
// browser never sends to a server, and the page keeps it in its origin's
// storage: unlike the cookie, which the browser also sends to every other
// server on the same loopback host whatever its port, no other port's page or
// server ever sees it.
const TokenHeader = "X-Tether-Console"

// TokenFragment starts the fragment of the address the login redirects to;
// the page's token follows it ("/#token=...").
const TokenFragment = "#token="

// maxSessions caps the console's logged-in sessions (one per login link).
const maxSessions = 8

// Console is the web operator console: a page on a loopback address listing
// pending questions as numbered cards, taking answers, skips and multi-selects,
// updated live over server-sent events.
//
// Every local process can reach a loopback port, so the console authenticates
// the human out of band: LoginURL carries a one-time secret that only the
// operator sees (tether prints it on its own terminal). Visiting it consumes the
// secret, sets an HttpOnly, SameSite=Strict session cookie and redirects to the
// plain page with the session's page token in the URL fragment; the page's
// script keeps the token in its origin's storage, removes it from the address
// bar and sends it in TokenHeader with every request for the cards and every
// answer. A cookie is scoped by host, not port, so the browser hands it to any
// other server on the loopback host it visits: the cookie alone opens the
// plain page (which carries no secret), nothing more. Every request must name
// the address the console listens on as its Host (and Origin, when a browser
// sends one), against DNS rebinding. A human is connected while at least one
// logged-in page holds its event stream open; with none, questions (and so
// permission prompts) fail at once.
type Console struct {
	mu       sync.Mutex
	login    string    // the one-time login secret; "" once used
	sessions []session // logged-in browsers
	next     int
	pending  []*pendingQuestion
	viewers  int
	subs     map[chan struct{}]struct{}
	closed   bool
	gone     chan struct{} // closed by Close

	ln  net.Listener
	srv *http.Server
}

// session is one logged-in browser: its cookie, and the token its page sends
// in TokenHeader.
type session struct{ cookie, token string }

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
	return &Console{login: randomHex(), subs: map[chan struct{}]struct{}{}, gone: make(chan struct{})}
}

func randomHex() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("operator: no randomness for the console secret: " + err.Error())
	}
	return hex.EncodeToString(b[:])
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
// console was not started by ListenConsole. It opens only in a browser that
// logged in through LoginURL.
func (c *Console) URL() string {
	if c.ln == nil {
		return ""
	}
	return "http://" + c.ln.Addr().String() + "/"
}

// LoginURL is URL plus LoginPath: the one-time address that logs a browser in.
// Show it only to the operator (tether prints it on its own stderr); never
// put it in a file or an environment a worker or kernel can read. It is ""
// once used, or when the console was not started by ListenConsole.
func (c *Console) LoginURL() string {
	p := c.LoginPath()
	if c.ln == nil || p == "" {
		return ""
	}
	return "http://" + c.ln.Addr().String() + p
}

// LoginPath is the path and query of the one-time login address
// ("/login?secret=..."), or "" once it was used.
func (c *Console) LoginPath() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.login == "" {
		return ""
	}
	return "/login?secret=" + c.login
}

// Viewers returns how many logged-in console pages are connected.
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

// Handler serves the console: GET /login?secret=... (the one-time login), GET
// / (the page), GET /events (server-sent events with the pending cards), POST
// /reply (an answer or a skip). The page needs the session cookie; the events
// and replies need the cookie and the session's page token in TokenHeader.
func (c *Console) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /login", c.loginHandler)
	mux.HandleFunc("GET /{$}", c.authed(false, c.page))
	mux.HandleFunc("GET /events", c.authed(true, c.events))
	mux.HandleFunc("POST /reply", c.authed(true, c.reply))
	return sameOrigin(mux)
}

// sameOrigin refuses a request whose Host is not the address the connection
// came in on (or localhost with its port), so a web page elsewhere cannot
// reach the console through DNS rebinding, and one whose Origin, when sent,
// is not that same host, or whose Sec-Fetch-Site says another site sent it.
func sameOrigin(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Frame-Options", "DENY")
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Referrer-Policy", "no-referrer")
		if !hostIsListener(r) {
			http.Error(w, "operator: the console answers only requests for the address it listens on (Host "+strconv.Quote(r.Host)+" is not it)", http.StatusForbidden)
			return
		}
		if o := r.Header.Get("Origin"); o != "" {
			u, err := url.Parse(o)
			if err != nil || u.Scheme != "http" || u.Host != r.Host {
				http.Error(w, "operator: the console answers only its own pages (Origin "+strconv.Quote(o)+")", http.StatusForbidden)
				return
			}
		}
		if s := r.Header.Get("Sec-Fetch-Site"); s == "cross-site" || s == "same-site" {
			http.Error(w, "operator: the console answers only its own pages (request sent by another site)", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// hostIsListener reports whether r's Host names the local address its
// connection was accepted on: the same loopback IP, or localhost, and the same
// port.
func hostIsListener(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	lhost, lport, err := net.SplitHostPort(local.String())
	if err != nil {
		return false
	}
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil {
		return false // a Host without a port: the console never listens on 80
	}
	if port != lport {
		return false
	}
	lip := net.ParseIP(lhost)
	if lip == nil || !lip.IsLoopback() {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.Equal(lip)
}

// loginHandler consumes the one-time secret, starts a session and redirects
// to the plain page.
func (c *Console) loginHandler(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		// The GET route also answers HEAD: a link checker or preview must
		// not use up the one-time secret.
		w.Header().Set("Allow", http.MethodGet)
		http.Error(w, "operator: open the login link in a browser (GET)", http.StatusMethodNotAllowed)
		return
	}
	got := r.URL.Query().Get("secret")
	c.mu.Lock()
	ok := c.login != "" && subtle.ConstantTimeCompare([]byte(got), []byte(c.login)) == 1
	full := len(c.sessions) >= maxSessions
	var sn session
	if ok && !full {
		c.login = "" // one time only
		sn = session{cookie: randomHex(), token: randomHex()}
		c.sessions = append(c.sessions, sn)
	}
	c.mu.Unlock()
	switch {
	case !ok:
		http.Error(w, "operator: this login link is wrong or was already used: a login link works once; open the console in the browser that used it, or restart tether for a new link", http.StatusForbidden)
		return
	case full:
		http.Error(w, fmt.Sprintf("operator: the console already has %d sessions: restart tether for a new link", maxSessions), http.StatusForbidden)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: sn.cookie, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	// The fragment stays in the browser: the page's script takes the token
	// from it and clears it from the address bar.
	http.Redirect(w, r, "/"+TokenFragment+sn.token, http.StatusSeeOther)
}

// sessionOf returns the session whose cookie r carries, compared in constant
// time with every session.
func (c *Console) sessionOf(r *http.Request) (session, bool) {
	ck, err := r.Cookie(SessionCookie)
	if err != nil || ck.Value == "" {
		return session{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var got session
	found := 0
	for _, s := range c.sessions {
		if subtle.ConstantTimeCompare([]byte(ck.Value), []byte(s.cookie)) == 1 {
			got, found = s, 1
		}
	}
	return got, found == 1
}

// authed serves h only to a logged-in browser; with page, only to a request
// that also carries the session's page token in TokenHeader.
func (c *Console) authed(page bool, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		sn, ok := c.sessionOf(r)
		if !ok {
			http.Error(w, "operator: not logged in to the console: open the one-time login link tether printed on its terminal (stderr) when it started", http.StatusUnauthorized)
			return
		}
		if page && subtle.ConstantTimeCompare([]byte(r.Header.Get(TokenHeader)), []byte(sn.token)) != 1 {
			http.Error(w, "operator: this request lacks the console page's token ("+TokenHeader+"): only the page the login link opened can see or answer questions; open the console in the browser that used the link, or restart tether for a new link", http.StatusUnauthorized)
			return
		}
		h(w, r)
	}
}

func (c *Console) page(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; form-action 'none'; frame-ancestors 'none'")
	if err := consolePage().Execute(w, nil); err != nil {
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

// replyJSON is what the page posts; a card of several questions posts one
// entry of Answers per question (a question left empty is skipped).
type replyJSON struct {
	ID      string      `json:"id"`
	Skip    bool        `json:"skip"`
	Labels  []string    `json:"labels"`
	Text    string      `json:"text"`
	Answers []replyJSON `json:"answers"`
}

func (c *Console) reply(w http.ResponseWriter, r *http.Request) {
	// A browser always sends Origin on a POST; sameOrigin checked its value.
	// A page of another site cannot send this JSON without a preflight.
	if r.Header.Get("Origin") == "" || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		http.Error(w, "operator: a reply must come from the console page (JSON with an Origin): reload the console page", http.StatusForbidden)
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
	switch {
	case rep.Skip:
	case len(p.q.Questions) > 0:
		if len(rep.Answers) != len(p.q.Questions) {
			http.Error(w, fmt.Sprintf("operator: %d answers for a card of %d questions: reload the console page", len(rep.Answers), len(p.q.Questions)), http.StatusBadRequest)
			return
		}
		for i, sub := range rep.Answers {
			sa := Answer{Outcome: Answered, Labels: normalize(p.q.Questions[i], sub.Labels), Text: strings.TrimSpace(sub.Text)}
			if sub.Skip || (len(sa.Labels) == 0 && sa.Text == "") {
				sa = Answer{Outcome: Skipped}
			}
			a.Answers = append(a.Answers, sa)
		}
	default:
		a = Answer{Outcome: Answered, Labels: normalize(p.q, rep.Labels), Text: strings.TrimSpace(rep.Text)}
		if len(a.Labels) == 0 && a.Text == "" {
			http.Error(w, "operator: choose an option, type an answer, or skip", http.StatusBadRequest)
			return
		}
	}
	a = fillCard(p.q, a)
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
