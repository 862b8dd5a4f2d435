package testenv

import "net/http"

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
