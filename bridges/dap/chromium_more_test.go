package dap_test

import "context"
import "encoding/json"
import "fmt"
import "net/http"
import "net/http/httptest"
import "os"
import "path/filepath"
import "strconv"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/bridges/dap"
import "github.com/tetherhq/tether/internal/testenv"

// jsPageTicker changes the page's title every 50ms; line 4 runs at each beat.
const jsPageTicker = `let count = 0;
function beat() {
  count += 1;
  const label = "beat " + count;
  document.title = label;
}
setInterval(beat, 50);
`

const pageTickerHTML = `<!doctype html>
<html><head><title>start</title></head>
<body><script src="ticker.js"></script></body></html>
`

// runningBrowser starts headless Chromium, not through tether, on page
// with its DevTools on a free port, and returns the port; the browser is
// killed when the test ends.
func runningBrowser(t *testing.T, page string) int {
	t.Helper()
	bin := needChromium(t)
	profile := t.TempDir()
	startServer(t, server(profile, bin, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--remote-debugging-port=0", "--user-data-dir="+profile, page))
	// Chromium writes the port it took to DevToolsActivePort once it listens.
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(filepath.Join(profile, "DevToolsActivePort")); err == nil {
			first, _, _ := strings.Cut(string(b), "\n")
			if port, err := strconv.Atoi(strings.TrimSpace(first)); err == nil && port > 0 {
				return port
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("Chromium wrote no DevToolsActivePort within 90s")
	return 0
}

// pageTitle is the title of the browser's first page, from /json/list.
func pageTitle(t *testing.T, port int) string {
	t.Helper()
	resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/json/list")
	if err != nil {
		t.Fatalf("the browser does not answer on its DevTools port: %v", err)
	}
	defer resp.Body.Close()
	var targets []struct{ Type, Title string }
	if err := json.NewDecoder(resp.Body).Decode(&targets); err != nil {
		t.Fatal(err)
	}
	for _, tg := range targets {
		if tg.Type == "page" {
			return tg.Title
		}
	}
	t.Fatalf("the browser lists no page: %+v", targets)
	return ""
}

// TestChromiumAttach: attached to a running browser's DevTools port, a
// breakpoint in the page's script stops its timer's next call, evaluate
// reads the frame's locals, and terminate detaches: the browser runs on,
// its page no longer stopped.
func TestChromiumAttach(t *testing.T) {
	t.Parallel()
	root := testenv.Workspace(t, map[string]string{"ticker.html": pageTickerHTML, "ticker.js": jsPageTicker})
	port := runningBrowser(t, "file://"+filepath.Join(root, "ticker.html"))
	sv := dap.NewSupervisor(dap.Config{StopWait: 10 * time.Second})
	defer sv.Close()

	do(t, sv, "c", root, request{Op: "breakpoints", File: "ticker.js", Lines: []int{5}})
	a := do(t, sv, "c", root, request{Op: "attach", Port: port, Adapter: "chromium"})
	if a.Stop == nil || filepath.Base(a.Stop.File) != "ticker.js" || a.Stop.Line != 5 {
		t.Fatalf("attach should stop at ticker.js:5: %s", a)
	}
	ev := do(t, sv, "c", root, request{Op: "evaluate", Expression: "label"})
	var n int
	if ev.Value == nil || !strings.HasPrefix(ev.Value.Value, `"beat `) {
		t.Fatalf("label should be a beat: %+v", ev.Value)
	}
	fmt.Sscanf(strings.Trim(ev.Value.Value, `"`), "beat %d", &n)
	evaluates(t, sv, root, "count", strconv.Itoa(n))
	do(t, sv, "c", root, request{Op: "terminate"})
	// The page runs on: its title passes the beat it was stopped at.
	deadline := time.Now().Add(30 * time.Second)
	for {
		var m int
		if _, err := fmt.Sscanf(pageTitle(t, port), "beat %d", &m); err == nil && m > n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page should run on after terminate, past beat %d: title %q", n, pageTitle(t, port))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestChromiumURL: a page launched by its http URL stops at a breakpoint
// in a project file the server serves (web/ticker.js as /ticker.js), and
// the stop names that file.
func TestChromiumURL(t *testing.T) {
	t.Parallel()
	needChromium(t)
	root := testenv.Workspace(t, map[string]string{"web/index.html": strings.Replace(pageTickerHTML, "ticker.js", "/ticker.js?v=1", 1), "web/ticker.js": jsPageTicker})
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Join(root, "web"))))
	defer srv.Close()
	sv := dap.NewSupervisor(dap.Config{StopWait: 10 * time.Second})
	defer sv.Close()

	do(t, sv, "c", root, request{Op: "breakpoints", File: "web/ticker.js", Lines: []int{4}})
	l := do(t, sv, "c", root, request{Op: "launch", Program: srv.URL + "/index.html"})
	if l.Stop == nil || l.Stop.File != filepath.Join(root, "web", "ticker.js") || l.Stop.Line != 4 {
		t.Fatalf("launch should stop at web/ticker.js:4: %s", l)
	}
	evaluates(t, sv, root, "count", "1")
	do(t, sv, "c", root, request{Op: "terminate"})
	testenv.RequireNoProcs(t, root)
}

// TestChromiumRefusals: a page that cannot be opened, or a port where no
// browser listens, is refused saying why; nothing is left running.
func TestChromiumRefusals(t *testing.T) {
	t.Parallel()
	needChromium(t)
	root := testenv.Workspace(t, map[string]string{"index.html": pageTickerHTML})
	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()
	port := unusedPort(t)
	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/index.html"
	_, err := call(sv, context.Background(), "c", root, request{Op: "launch", Program: url})
	refused(t, err, "a page whose server does not answer", "could not open "+url, "ERR_CONNECTION_REFUSED")
	_, err = call(sv, context.Background(), "c", root, request{Op: "attach", Port: port, Adapter: "chromium"})
	refused(t, err, "an attach where no browser listens", "nothing answers as a browser's DevTools", "--remote-debugging-port")
	testenv.RequireNoProcs(t, root)
}
