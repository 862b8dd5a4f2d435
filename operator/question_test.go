package operator_test

import "bufio"
import "context"
import "errors"
import "io"
import "net/http"
import "net/http/cookiejar"
import "net/http/httptest"
import "net/url"
import "slices"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/operator"

var twoOptions = []operator.Option{{Label: "a"}, {Label: "b"}}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		q    operator.Question
		want string // "" = valid; else a substring of the error
	}{
		{"options", operator.Question{Question: "pick?", Options: twoOptions}, ""},
		{"free text only", operator.Question{Question: "name?", AllowFreeText: true}, ""},
		{"empty question", operator.Question{Question: "  ", Options: twoOptions}, "question is empty"},
		{"unanswerable", operator.Question{Question: "pick?"}, "cannot be answered"},
		{"multi without options", operator.Question{Question: "pick?", MultiSelect: true, AllowFreeText: true}, "multi_select needs options"},
		{"duplicate labels", operator.Question{Question: "pick?", Options: []operator.Option{{Label: "a"}, {Label: "a"}}}, "appears twice"},
		{"empty label", operator.Question{Question: "pick?", Options: []operator.Option{{Label: ""}}}, "empty label"},
		{"bad kind", operator.Question{Question: "pick?", Options: twoOptions, Kind: "poll"}, "unknown card kind"},
		{"too many options", operator.Question{Question: "pick?", Options: make([]operator.Option, operator.MaxOptions+1)}, "over the"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.q.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "operator: ") {
				t.Fatalf("Validate = %v, want an operator: error with %q", err, tc.want)
			}
		})
	}
}

func TestCheckAnswer(t *testing.T) {
	single := operator.Question{Question: "pick?", Options: twoOptions}
	multi := operator.Question{Question: "pick?", Options: twoOptions, MultiSelect: true}
	free := operator.Question{Question: "pick?", Options: twoOptions, AllowFreeText: true}
	tests := []struct {
		name string
		q    operator.Question
		a    operator.Answer
		ok   bool
	}{
		{"one label", single, operator.Answer{Outcome: operator.Answered, Labels: []string{"b"}}, true},
		{"skip", single, operator.Answer{Outcome: operator.Skipped}, true},
		{"two labels on single", single, operator.Answer{Outcome: operator.Answered, Labels: []string{"a", "b"}}, false},
		{"two labels on multi", multi, operator.Answer{Outcome: operator.Answered, Labels: []string{"a", "b"}}, true},
		{"foreign label", single, operator.Answer{Outcome: operator.Answered, Labels: []string{"c"}}, false},
		{"text not allowed", single, operator.Answer{Outcome: operator.Answered, Text: "x"}, false},
		{"text allowed", free, operator.Answer{Outcome: operator.Answered, Text: "x"}, true},
		{"nothing answered", free, operator.Answer{Outcome: operator.Answered}, false},
		{"skip with content", single, operator.Answer{Outcome: operator.Skipped, Labels: []string{"a"}}, false},
		{"no outcome", single, operator.Answer{Labels: []string{"a"}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := operator.CheckAnswer(tc.q, tc.a); (err == nil) != tc.ok {
				t.Fatalf("CheckAnswer = %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

func TestParseReply(t *testing.T) {
	q := operator.Question{Question: "pick?", Options: []operator.Option{{Label: "a"}, {Label: "b"}, {Label: "c"}}, MultiSelect: true, AllowFreeText: true}
	tests := []struct {
		line   string
		labels []string
		text   string
		skip   bool
		bad    bool
	}{
		{line: "2", labels: []string{"b"}},
		{line: "3,1", labels: []string{"a", "c"}},
		{line: "1 2", labels: []string{"a", "b"}},
		{line: "2: only on weekdays", labels: []string{"b"}, text: "only on weekdays"},
		{line: "something else", text: "something else"},
		{line: "4", text: "4"}, // not an option: free text
		{line: "/skip", skip: true},
		{line: "   ", bad: true},
	}
	for _, tc := range tests {
		a, err := operator.ParseReply(q, tc.line)
		if tc.bad {
			if err == nil {
				t.Errorf("ParseReply(%q) = %+v, want an error", tc.line, a)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseReply(%q): %v", tc.line, err)
			continue
		}
		if tc.skip != (a.Outcome == operator.Skipped) || !slices.Equal(a.Labels, tc.labels) || a.Text != tc.text {
			t.Errorf("ParseReply(%q) = %+v", tc.line, a)
		}
	}
	single := operator.Question{Question: "pick?", Options: twoOptions}
	for _, line := range []string{"1,2", "3", "x", "1: note"} {
		if a, err := operator.ParseReply(single, line); err == nil {
			t.Errorf("single-choice ParseReply(%q) = %+v, want an error", line, a)
		}
	}
}

func TestReport(t *testing.T) {
	a := operator.Answer{Outcome: operator.Answered, Labels: []string{"a", "b"}, Text: "note"}
	if r := a.Report(); !strings.Contains(r, "Chosen (2): a; b") || !strings.Contains(r, "Text: note") {
		t.Errorf("Report = %q", r)
	}
	if r := (operator.Answer{Outcome: operator.Skipped}).Report(); !strings.Contains(r, "skipped") || !strings.Contains(r, operator.ContinueInstruction) {
		t.Errorf("skip Report = %q", r)
	}
}

func TestAskWithoutPort(t *testing.T) {
	_, err := operator.Ask(context.Background(), nil, operator.Question{Question: "x?", AllowFreeText: true}, 0)
	if !errors.Is(err, operator.ErrNoHuman) {
		t.Fatalf("Ask(nil port) = %v, want ErrNoHuman", err)
	}
}

// consoleClient is an HTTP client with a cookie jar, as a browser is.
func consoleClient(t *testing.T) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar}
}

// consoleLogin opens the login link with client, as the operator's browser
// does, and returns the page token the redirect's fragment carries.
func consoleLogin(t *testing.T, client *http.Client, base, login string) string {
	t.Helper()
	var to *url.URL
	client.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		to = req.URL
		return nil
	}
	defer func() { client.CheckRedirect = nil }()
	res, err := client.Get(base + login)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK || to == nil || to.Path != "/" || !strings.HasPrefix("#"+to.Fragment, operator.TokenFragment) {
		t.Fatalf("login: %s, redirected to %v; want the page with its token in the fragment", res.Status, to)
	}
	return strings.TrimPrefix("#"+to.Fragment, operator.TokenFragment)
}

// loginConsole starts a console served over HTTP and returns it with its
// server, its one-time login path and the secret in it.
func loginConsole(t *testing.T) (c *operator.Console, srv *httptest.Server, login, secret string) {
	t.Helper()
	c = operator.NewConsole()
	t.Cleanup(func() { c.Close() })
	srv = httptest.NewServer(c.Handler())
	t.Cleanup(srv.Close)
	login = c.LoginPath()
	secret = strings.TrimPrefix(login, "/login?secret=")
	if secret == login || len(secret) < 32 {
		t.Fatalf("LoginPath = %q, want /login?secret=<random>", login)
	}
	return c, srv, login, secret
}

// body reads and closes a response's body.
func body(res *http.Response) string {
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	return string(b)
}

// TestConsoleLogin: the console authenticates the human out of band. A
// client without the session cookie cannot see the page or the cards,
// answer, or count as connected (a question fails closed); a forged cookie
// or a wrong secret gets nothing either.
func TestConsoleLogin(t *testing.T) {
	c, srv, _, secret := loginConsole(t)
	// Anyone without the cookie: no page, no secret, no stream, no reply.
	anon := consoleClient(t)
	for _, tc := range []struct{ method, path, body string }{
		{"GET", "/", ""}, {"GET", "/events", ""}, {"POST", "/reply", `{"id":"q1","labels":["a"]}`},
	} {
		req, _ := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
		req.Header.Set("Origin", srv.URL)
		req.Header.Set("Content-Type", "application/json")
		res, err := anon.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b := body(res)
		if res.StatusCode != http.StatusUnauthorized || strings.Contains(b, secret) || !strings.Contains(b, "login link") {
			t.Errorf("%s %s without a session: %s %q, want 401 saying to use the login link", tc.method, tc.path, res.Status, b)
		}
	}
	if n := c.Viewers(); n != 0 {
		t.Errorf("%d viewers after unauthenticated event streams", n)
	}
	if _, err := operator.Ask(context.Background(), c, operator.Question{Question: "pick?", Options: twoOptions}, 0); !errors.Is(err, operator.ErrNoHuman) {
		t.Errorf("Ask with only unauthenticated clients: %v, want ErrNoHuman (fail closed)", err)
	}
	// A forged cookie does not count either.
	forged, _ := http.NewRequest("GET", srv.URL+"/", nil)
	forged.AddCookie(&http.Cookie{Name: operator.SessionCookie, Value: secret})
	if res, err := http.DefaultClient.Do(forged); err != nil || res.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET / with the login secret as cookie: %v %v, want 401", res.Status, err)
	}
	// A wrong secret does not consume the right one.
	if res, err := anon.Get(srv.URL + "/login?secret=" + strings.Repeat("0", len(secret))); err != nil || res.StatusCode != http.StatusForbidden {
		t.Errorf("login with a wrong secret: %v %v, want 403", res.Status, err)
	}

}

// TestConsoleLoginForeignHost: DNS rebinding; a foreign Host or Origin is
// refused, even at the login.
func TestConsoleLoginForeignHost(t *testing.T) {
	_, srv, login, _ := loginConsole(t)
	anon := consoleClient(t)
	for _, tc := range []struct{ host, origin string }{
		{"evil.example:" + strings.TrimPrefix(srv.URL, "http://127.0.0.1:"), ""},
		{"evil.example", ""},
		{"127.0.0.1:1", ""},
		{"", "http://evil.example"},
		{"", "null"},
	} {
		req, _ := http.NewRequest("GET", srv.URL+login, nil)
		if tc.host != "" {
			req.Host = tc.host
		}
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		res, err := anon.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if b := body(res); res.StatusCode != http.StatusForbidden {
			t.Errorf("login with Host %q Origin %q: %s %q, want 403", tc.host, tc.origin, res.Status, b)
		}
	}

}

// TestConsoleLoginOnce: the page carries no secret; the one-time login link
// works once and sets an HttpOnly SameSite=Strict cookie, which alone (sent
// to every port of the host) answers nothing without the page's token.
func TestConsoleLoginOnce(t *testing.T) {
	c, srv, login, secret := loginConsole(t)
	// The operator's browser: the login sets the cookie and redirects to a
	// clean URL.
	browser := consoleClient(t)
	var redirected []string
	browser.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		redirected = append(redirected, req.URL.Path)
		return nil
	}
	res, err := browser.Get(srv.URL + login)
	if err != nil {
		t.Fatal(err)
	}
	page := body(res)
	if res.StatusCode != http.StatusOK || !strings.Contains(page, "tether operator console") || !slices.Equal(redirected, []string{"/"}) {
		t.Fatalf("login: %s, redirects %v", res.Status, redirected)
	}
	if strings.Contains(page, secret) {
		t.Error("the page carries the login secret")
	}
	loc := res.Request.Response.Header.Get("Location")
	token := strings.TrimPrefix(loc, "/"+operator.TokenFragment)
	if token == loc || len(token) < 32 || token == secret || strings.Contains(page, token) {
		t.Errorf("login redirect to %q: want /%s<random> with a token the page does not hold", loc, operator.TokenFragment)
	}
	setCookie := res.Request.Response.Header.Get("Set-Cookie")
	for _, want := range []string{operator.SessionCookie + "=", "HttpOnly", "SameSite=Strict", "Path=/"} {
		if !strings.Contains(setCookie, want) {
			t.Errorf("Set-Cookie %q lacks %s", setCookie, want)
		}
	}
	if sid := strings.TrimPrefix(strings.Split(setCookie, ";")[0], operator.SessionCookie+"="); len(sid) < 32 || sid == secret || sid == token || strings.Contains(page, sid) {
		t.Errorf("session cookie %q is short, the login secret, the page token, or in the page", sid)
	}
	// The cookie alone (which the browser sends every port of the host) sees
	// no cards and answers nothing; with the page's token it does.
	for _, tc := range []struct {
		method, path, token string
		want                int
	}{
		{"GET", "/events", "", http.StatusUnauthorized},
		{"POST", "/reply", "", http.StatusUnauthorized},
		{"GET", "/events", strings.Repeat("0", len(token)), http.StatusUnauthorized},
		{"POST", "/reply", secret, http.StatusUnauthorized},
		{"POST", "/reply", token, http.StatusGone},
	} {
		req, _ := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(`{"id":"q1","labels":["a"]}`))
		req.Header.Set("Origin", srv.URL)
		req.Header.Set("Content-Type", "application/json")
		if tc.token != "" {
			req.Header.Set(operator.TokenHeader, tc.token)
		}
		res, err := browser.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if b := body(res); res.StatusCode != tc.want {
			t.Errorf("logged-in %s %s with token %q: %s %q, want %d", tc.method, tc.path, tc.token, res.Status, b, tc.want)
		}
	}
	if c.LoginPath() != "" {
		t.Errorf("LoginPath after the login = %q, want \"\" (used)", c.LoginPath())
	}
	// The link works once.
	other := consoleClient(t)
	if res, err := other.Get(srv.URL + login); err != nil || res.StatusCode != http.StatusForbidden || !strings.Contains(body(res), "already used") {
		t.Errorf("second use of the login link: %v %v, want 403", res.Status, err)
	}
	if res, err := other.Get(srv.URL + "/"); err != nil || res.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET / after a reused link: %v %v, want 401", res.Status, err)
	}
	// The logged-in browser from a foreign Host (rebinding) is refused too.
	req, _ := http.NewRequest("GET", srv.URL+"/", nil)
	req.Host = "evil.example:" + strings.TrimPrefix(srv.URL, "http://127.0.0.1:")
	if res, err := browser.Do(req); err != nil || res.StatusCode != http.StatusForbidden {
		t.Errorf("logged-in GET / with a foreign Host: %v %v, want 403", res.Status, err)
	}
}

// TestConsoleGuards: the logged-in console refuses replies without the
// session or from another origin, and answers that are not the question's.
func TestConsoleGuards(t *testing.T) {
	if _, err := operator.ListenConsole("0.0.0.0:0"); err == nil || !strings.Contains(err.Error(), "not loopback") {
		t.Errorf("ListenConsole(0.0.0.0) = %v, want a loopback error", err)
	}
	c := operator.NewConsole()
	defer c.Close()
	srv := httptest.NewServer(c.Handler())
	defer srv.Close()
	browser := consoleClient(t)
	token := consoleLogin(t, browser, srv.URL, c.LoginPath())

	// Open the event stream as a page would, so a human counts as connected.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	evreq, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/events", nil)
	evreq.Header.Set(operator.TokenHeader, token)
	ev, err := browser.Do(evreq)
	if err != nil {
		t.Fatal(err)
	}
	defer ev.Body.Close()
	lines := bufio.NewScanner(ev.Body)
	next := func() string {
		for lines.Scan() {
			if l := lines.Text(); strings.HasPrefix(l, "data: ") {
				return l
			}
		}
		t.Fatal("event stream ended")
		return ""
	}
	if first := next(); first != `data: {"cards":[]}` {
		t.Fatalf("first event = %q", first)
	}
	done := make(chan error, 1)
	go func() {
		_, err := operator.Ask(context.Background(), c, operator.Question{Question: "pick?", Options: twoOptions}, 0)
		done <- err
	}()
	if card := next(); !strings.Contains(card, `"id":"q1"`) || !strings.Contains(card, `"question":"pick?"`) {
		t.Fatalf("card event = %q", card)
	}
	postAs := func(client *http.Client, origin, body string) int {
		r, _ := http.NewRequest("POST", srv.URL+"/reply", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set(operator.TokenHeader, token)
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		res, err := client.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if code := postAs(http.DefaultClient, srv.URL, `{"id":"q1","labels":["a"]}`); code != http.StatusUnauthorized {
		t.Errorf("reply without a session: %d, want 401", code)
	}
	if code := postAs(browser, "", `{"id":"q1","labels":["a"]}`); code != http.StatusForbidden {
		t.Errorf("reply without an Origin: %d, want 403", code)
	}
	if code := postAs(browser, "http://evil.example", `{"id":"q1","labels":["a"]}`); code != http.StatusForbidden {
		t.Errorf("reply from another origin: %d, want 403", code)
	}
	post := func(origin, body string) int { return postAs(browser, origin, body) }
	if code := post(srv.URL, `{"id":"q1","labels":["c"]}`); code != http.StatusBadRequest {
		t.Errorf("reply with a foreign label: %d, want 400", code)
	}
	if code := post(srv.URL, `{"id":"q1","labels":["a","b"]}`); code != http.StatusBadRequest {
		t.Errorf("two labels on a single-choice card: %d, want 400", code)
	}
	if code := post(srv.URL, `{"id":"q9","labels":["a"]}`); code != http.StatusGone {
		t.Errorf("reply to an unknown card: %d, want 410", code)
	}
	select {
	case err := <-done:
		t.Fatalf("a refused reply ended the question: %v", err)
	default:
	}
	if code := post(srv.URL, `{"id":"q1","labels":["b"]}`); code != http.StatusNoContent {
		t.Errorf("valid reply: %d, want 204", code)
	}
	if err := <-done; err != nil {
		t.Fatalf("answered question: %v", err)
	}

	// Unanswered in time: ErrTimedOut with the instruction, and the card is withdrawn.
	if _, err := operator.Ask(context.Background(), c, operator.Question{Question: "late?", Options: twoOptions}, time.Millisecond); !errors.Is(err, operator.ErrTimedOut) || !strings.Contains(err.Error(), operator.ContinueInstruction) {
		t.Errorf("unanswered question: %v, want ErrTimedOut with the continue instruction", err)
	}
	if n := c.Pending(); n != 0 {
		t.Errorf("%d cards still pending after the timeout", n)
	}

	// A question pending when the console closes ends with ErrNoHuman.
	go func() {
		_, err := operator.Ask(context.Background(), c, operator.Question{Question: "again?", Options: twoOptions}, 0)
		done <- err
	}()
	for card := next(); !strings.Contains(card, "again?"); card = next() {
	}
	cancel()
	ev.Body.Close()
	c.Close()
	if err := <-done; !errors.Is(err, operator.ErrNoHuman) {
		t.Errorf("closing the console: pending question ended with %v, want ErrNoHuman", err)
	}
}

// TestConsoleLoginHeadKeepsSecret: a HEAD of the login link (a link checker, a
// preview) neither logs in nor uses up the one-time secret.
func TestConsoleLoginHeadKeepsSecret(t *testing.T) {
	c := operator.NewConsole()
	defer c.Close()
	srv := httptest.NewServer(c.Handler())
	defer srv.Close()
	login := c.LoginPath()
	res, err := consoleClient(t).Head(srv.URL + login)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("HEAD %s: %s, want 405", login, res.Status)
	}
	if c.LoginPath() != login {
		t.Fatalf("HEAD used up the login secret")
	}
	res, err = consoleClient(t).Get(srv.URL + login)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK || c.LoginPath() != "" {
		t.Errorf("GET after HEAD: %s (login path now %q), want the login to work once", res.Status, c.LoginPath())
	}
}
