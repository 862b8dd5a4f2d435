package server_test

import "bufio"
import "errors"
import "io"
import "net"
import "strings"
import "sync"
import "testing"
import "time"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/server"

// serveReal serves th's host with its own http.Server (HTTPServer, the one
// tether serve --http runs) on a loopback port and returns its address.
func serveReal(t *testing.T, th *testHost) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := th.HTTPServer()
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	return ln.Addr().String()
}

// trickle sends a POST's header with Content-Length 1000 and then its body
// one byte every 3 s, and returns the status line the server answered and
// how long until it closed the connection (fails after 30 s).
func trickle(t *testing.T, addr, path, token string) (string, time.Duration) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	hdr := "POST " + path + " HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n"
	if token != "" {
		hdr += "Authorization: Bearer " + token + "\r\n"
	}
	start := time.Now()
	if _, err := io.WriteString(c, hdr+"\r\n{"); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(3 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if _, err := c.Write([]byte(" ")); err != nil {
					return
				}
			}
		}
	}()
	defer func() {
		close(stop)
		wg.Wait()
	}()
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	br := bufio.NewReader(c)
	status, err := br.ReadString('\n')
	if err != nil {
		t.Fatalf("POST %s with its body trickled: no answer in %s: %v", path, time.Since(start), err)
	}
	if _, err := io.Copy(io.Discard, br); err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("POST %s with its body trickled: answered %q, but the connection was still open after %s", path, strings.TrimSpace(status), time.Since(start))
		}
	}
	return strings.TrimSpace(status), time.Since(start)
}

// TestHostCutsTrickledBodies: a request body trickled a byte every 3 s is
// cut once its grace has passed, with a token (408) and without one (the
// 401 comes at once and the connection is closed, not kept while the
// server drains the body); sessions, which keep their event stream open
// past the grace, are not cut.
func TestHostCutsTrickledBodies(t *testing.T) {
	th := newTestHost(t, server.HostOptions{BodyGrace: time.Second})
	addr := serveReal(t, th)
	var wg sync.WaitGroup
	for _, c := range []struct{ token, want string }{{"", "401"}, {tokAlpha, "408"}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, took := trickle(t, addr, "/mcp/alpha", c.token)
			if !strings.Contains(status, c.want) {
				t.Errorf("token %q: answered %q, want %s", c.token, status, c.want)
			}
			t.Logf("token %q: %s, closed after %s", c.token, status, took.Round(time.Millisecond))
		}()
	}
	wg.Wait()

	th.url = "http://" + addr
	cs := th.mustOpen(t, "alpha", tokAlpha, nil)
	time.Sleep(2500 * time.Millisecond) // past the grace, with the event stream open
	if out, isErr := callText(t, cs, "read", map[string]any{"path": "own.txt"}); isErr || !strings.Contains(out, "this is alpha") {
		t.Errorf("a read after the grace: %q", out)
	}
}

// TestHostBoundsUnauthenticatedConns: past MaxUnauthConns connections with
// no authenticated request, the oldest are closed, and a client that
// authenticates at once still gets its session.
func TestHostBoundsUnauthenticatedConns(t *testing.T) {
	th := newTestHost(t, server.HostOptions{MaxUnauthConns: 4})
	addr := serveReal(t, th)
	var conns []net.Conn
	for range 6 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, "GET /healthz HTTP/1.1\r\n") // never finished
		conns = append(conns, c)
	}
	closed := 0
	for _, c := range conns {
		c.SetReadDeadline(time.Now().Add(time.Second))
		if _, err := c.Read(make([]byte, 1)); err == io.EOF || errors.Is(err, net.ErrClosed) || isReset(err) {
			closed++
		}
	}
	if closed != 2 {
		t.Errorf("%d of 6 unauthenticated connections closed with a bound of 4, want 2", closed)
	}
	th.url = "http://" + addr
	cs := th.mustOpen(t, "alpha", tokAlpha, nil)
	if _, isErr := callText(t, cs, "read", map[string]any{"path": "own.txt"}); isErr {
		t.Error("a read failed")
	}
	_, body := testenv.Get(t, th.url+"/metrics")
	if !strings.Contains(string(body), "tether_http_unauthenticated_conns_closed_total ") || strings.Contains(string(body), "tether_http_unauthenticated_conns_closed_total 0\n") {
		t.Errorf("/metrics does not count the closed connections")
	}
}

func isReset(err error) bool {
	return err != nil && strings.Contains(err.Error(), "connection reset")
}
