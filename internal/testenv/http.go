package testenv

import "io"
import "net"
import "net/http"
import "strings"
import "testing"

// HeaderTransport is an http.RoundTripper that sets its headers (a bearer
// token, a conversation key) on every request it sends with
// http.DefaultTransport; a header whose value is empty is not set.
type HeaderTransport map[string]string

// RoundTrip sends a copy of r carrying the headers.
func (h HeaderTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		if v != "" {
			r.Header.Set(k, v)
		}
	}
	return http.DefaultTransport.RoundTrip(r)
}

// Bearer returns a transport that sends token as a bearer token.
func Bearer(token string) HeaderTransport {
	return HeaderTransport{"Authorization": "Bearer " + token}
}

// Do sends req with http.DefaultClient and returns the response (its body
// closed) and the body read; failing to send fails the test.
func Do(t testing.TB, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// Get sends a GET of url with http.DefaultClient and returns the response
// (its body closed) and the body read; failing to send fails the test.
func Get(t testing.TB, url string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return Do(t, req)
}

// FreeLoopback returns a loopback TCP address that no one listened on a
// moment ago.
func FreeLoopback(t testing.TB) *net.TCPAddr {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr)
}

// PostMCP is a POST of the JSON-RPC body to url as an MCP client of the
// streamable HTTP transport sends it (JSON, answered with JSON or an event
// stream), with token as its bearer token ("": none) and the headers given
// as pairs of name and value; a header whose value is empty is not set.
func PostMCP(url, token, body string, headers ...string) *http.Request {
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] != "" {
			req.Header.Set(headers[i], headers[i+1])
		}
	}
	return req
}
