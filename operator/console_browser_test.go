package operator_test

import "context"
import "io"
import "net/http"
import "net/http/httptest"
import "slices"
import "strings"
import "testing"

import "github.com/chromedp/chromedp"

import "github.com/tetherhq/tether/internal/chromium"
import "github.com/tetherhq/tether/operator"

// TestConsoleCookieElsewhereApprovesNothing: a browser scopes a cookie by
// host, not port, so once the operator has logged in to the console, every
// other server on the loopback host the browser visits (a dev server of the
// workspace, one an eval cell started) receives the console's session
// cookie. Replayed, that cookie must neither count as a connected human nor
// answer a permission prompt; the operator's own page still does.
func TestConsoleCookieElsewhereApprovesNothing(t *testing.T) {
	c, err := operator.ListenConsole("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sent := make(chan string, 16)
	dev := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case sent <- r.Header.Get("Cookie"):
		default:
		}
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<!doctype html><p id="dev">a dev server</p>`)
	}))
	defer dev.Close()

	// The operator logs in, and in another tab of the same browser visits a
	// local dev server.
	ctx := chromium.Context(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(c.LoginURL()), chromedp.WaitVisible(chromedp.CSS(`#status.live`))); err != nil {
		t.Fatal(err)
	}
	tab, closeTab := chromedp.NewContext(ctx)
	defer closeTab()
	if err := chromedp.Do(tab, chromedp.Navigate(dev.URL+"/"), chromedp.WaitVisible(chromedp.CSS(`#dev`))); err != nil {
		t.Fatal(err)
	}
	stolen := <-sent
	if !strings.Contains(stolen, operator.SessionCookie+"=") {
		t.Fatalf("the browser sent the other port %q: this test expects the console's cookie there (cookies are scoped by host)", stolen)
	}

	// What the other server can do with it.
	replay := func(method, path, body string) (int, string) {
		req, _ := http.NewRequest(method, strings.TrimSuffix(c.URL(), "/")+path, strings.NewReader(body))
		req.Header.Set("Cookie", stolen)
		req.Header.Set("Origin", strings.TrimSuffix(c.URL(), "/"))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if res.StatusCode == http.StatusOK && path == "/events" {
			return res.StatusCode, "(an event stream)"
		}
		b, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
		return res.StatusCode, string(b)
	}
	if code, body := replay("GET", "/events", ""); code != http.StatusUnauthorized {
		t.Errorf("GET /events with the cookie from another port: %d %q, want 401", code, body)
	}
	if n := c.Viewers(); n != 1 {
		t.Errorf("%d viewers, want 1 (the operator's page only)", n)
	}
	type result struct {
		a   operator.Answer
		err error
	}
	done := make(chan result, 1)
	go func() {
		a, err := operator.Ask(context.Background(), c, operator.Question{Kind: operator.KindPermission, Question: "May I call write?",
			Options: []operator.Option{{Label: "Allow"}, {Label: "Deny"}}}, 0)
		done <- result{a, err}
	}()
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`section.card button.option[data-label="Deny"]`))); err != nil {
		t.Fatal(err)
	}
	if code, body := replay("POST", "/reply", `{"id":"q1","labels":["Allow"]}`); code != http.StatusUnauthorized {
		t.Fatalf("POST /reply Allow with the cookie from another port: %d %q, want 401", code, body)
	}
	// The operator's page still answers, and its answer is the one taken.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`section.card button.option[data-label="Deny"]`))); err != nil {
		t.Fatal(err)
	}
	if r := <-done; r.err != nil || !slices.Equal(r.a.Labels, []string{"Deny"}) {
		t.Errorf("the permission prompt ended with %+v, %v; want the operator's Deny", r.a, r.err)
	}
	token, err := chromedp.Run(ctx, chromedp.Evaluate[string](`localStorage.getItem("tether-console-token") || ""`))
	if err != nil || len(token) < 32 {
		t.Fatalf("the page keeps token %q (%v), want a random one", token, err)
	}
	if code, body := replay("GET", "/", ""); code != http.StatusOK || strings.Contains(body, token) {
		t.Errorf("GET / with the cookie from another port: %d, page holds the token: %v", code, strings.Contains(body, token))
	}
	if loc, err := chromedp.Run(ctx, chromedp.Location()); err != nil || loc != c.URL() {
		t.Errorf("the console tab is at %q (%v), want %q (the token off the address bar)", loc, err, c.URL())
	}

}
